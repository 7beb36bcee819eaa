#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# compute-sanitizer over the unit suite on the CUDA backend, one gtest suite at a time, so that the whole suite
# can be covered across several short GPU calls: each suite gets its own time limit, its log and a line in the
# summary; suites already in the summary are skipped (run it again with the same OUT to go on; delete a TIMEOUT
# line to give that suite another try with a larger SUITE_TIMEOUT). The suite can be tried here without a GPU:
# every GPU test then skips, which checks the listing and the bookkeeping.
# Usage: tools/gpu/sanitize.sh [memcheck|racecheck|synccheck|initcheck]   (default memcheck)
# Environment: OUT (default ./gpu-out), TESTS (default build/h200/tests/freednn_tests), SUITES (a regex of suite
# names, default all), SUITE_TIMEOUT (seconds per suite, default 120), BUDGET (seconds for this call, default 480).
# Summary lines: "<tool> <suite> <PASS|FAIL rc=N|TIMEOUT> <seconds> s <errors from the ERROR SUMMARY>".
set -uo pipefail
tool=${1:-memcheck}
out=${OUT:-$PWD/gpu-out}/sanitize
tests=${TESTS:-build/h200/tests/freednn_tests}
mkdir -p "$out"
summary=$out/summary.txt
touch "$summary"
start=$(date +%s)
extra=()
[ "$tool" = memcheck ] && extra=(--leak-check no)
# Suite lines are "Name." (gtest_main's banner and the tests' own output are not).
suites=$("$tests" --gtest_list_tests | grep -E '^[A-Za-z_][A-Za-z0-9_/]*\.$' | sed 's/\.$//' | grep -E "${SUITES:-.}")
for s in $suites; do
  grep -q "^$tool $s " "$summary" && continue
  left=$(( ${BUDGET:-480} - ($(date +%s) - start) ))
  [ "$left" -lt 20 ] && { echo "budget spent; run again to go on"; break; }
  limit=$(( left < ${SUITE_TIMEOUT:-120} ? left : ${SUITE_TIMEOUT:-120} ))
  t0=$(date +%s)
  FREEDNN_BACKEND=cuda timeout "$limit" compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 9 \
    "$tests" --gtest_filter="$s.*" --gtest_brief=1 > "$out/${tool}_$s.txt" 2>&1
  rc=$?
  errs=$(grep -o "ERROR SUMMARY: [0-9]* error" "$out/${tool}_$s.txt" | tail -1)
  case $rc in
    0) verdict=PASS ;;
    124) verdict=TIMEOUT ;;
    *) verdict="FAIL rc=$rc" ;;
  esac
  echo "$tool $s $verdict $(( $(date +%s) - t0 )) s ${errs:-}" | tee -a "$summary"
done
