#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# compute-sanitizer over the unit suite on the CUDA backend, one gtest suite at a time, so that the whole suite
# can be covered across several short GPU calls: each suite gets its own time limit, its log and a line in the
# summary; suites already in the summary are skipped (run it again with the same OUT to go on). A suite that ran
# past its limit is split on the next call: its tests run one by one, each with its own line ("<tool> Suite.Test
# ..."), so a long suite is covered across calls too (PER_TEST=1 splits every suite from the start). The suite can
# be tried here without a GPU: every GPU test then skips, which checks the listing and the bookkeeping.
# Usage: tools/gpu/sanitize.sh [memcheck|racecheck|synccheck|initcheck]   (default memcheck)
# Environment: OUT (default ./gpu-out), TESTS (default build/h200/tests/freednn_tests), SUITES (a regex of suite
# names, default all), SUITE_TIMEOUT (seconds per suite, default 120), BUDGET (seconds for this call, default 480),
# PARALLEL (units run at once, default 1), FIRST (a regex of units to start first), ONLY (a regex: run just the units
# it matches, e.g. the tests past their limits last time), SPLIT and PARTS (below).
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
# The units to run, in listing order: "Suite" (the whole suite) or, for a suite that timed out before (or every
# suite with PER_TEST=1), "Suite.Test" for each of its tests. Listing: suite lines "Name.", test lines indented
# (a value-parameterized test's "  # GetParam() = ..." comment dropped); gtest_main's banner matches neither.
units=$("$tests" --gtest_list_tests | awk -v tool="$tool" -v summary="$summary" -v per_test="${PER_TEST:-0}" \
  -v pick="${SUITES:-.}" '
  BEGIN { while ((getline l < summary) > 0) { split(l, f, " "); if (f[1] == tool) seen[f[2]] = f[3] } }
  /^[A-Za-z_][A-Za-z0-9_\/]*\.$/ { suite = substr($0, 1, length($0) - 1); keep = suite ~ pick
    split_it = keep && (per_test == 1 || seen[suite] == "TIMEOUT")
    if (keep && !split_it) print suite
    next }
  /^  [A-Za-z_]/ { if (split_it) { t = $1; print suite "." t } }')
# SPLIT (a regex of Suite.Test units) with PARTS=n: each matching test runs as n processes, "Suite.Test@kofn", each
# with FREEDNN_TEST_PART=k/n (the test's cases dealt out among them: tests/common/test_util.h, take_case).
if [ -n "${SPLIT:-}" ] && [ "${PARTS:-1}" -gt 1 ]; then
  units=$(for u in $units; do
    if [[ "$u" == *.* ]] && printf '%s\n' "$u" | grep -qE "$SPLIT"; then
      for ((k = 0; k < PARTS; ++k)); do echo "$u@${k}of$PARTS"; done
    else
      echo "$u"
    fi
  done)
fi
[ -n "${ONLY:-}" ] && units=$(printf '%s\n' $units | grep -E "$ONLY" || true)
# FIRST (a regex): the units that match it run first (the longest ones, so that the last wave ends together)
if [ -n "${FIRST:-}" ]; then
  units=$( (printf '%s\n' $units | grep -E "$FIRST"; printf '%s\n' $units | grep -vE "$FIRST") || true)
fi
# One unit under the tool, with what is left of the call's budget as its limit; appends its summary line.
run_unit() {
  local u=$1
  awk -v k="$tool $u " 'index($0, k) == 1 { found = 1 } END { exit !found }' "$summary" && return 0  # done before
  local left=$(( ${BUDGET:-480} - ($(date +%s) - start) ))
  [ "$left" -lt 20 ] && { echo "budget spent before $u; run again to go on"; return 0; }
  local limit=$(( left < ${SUITE_TIMEOUT:-120} ? left : ${SUITE_TIMEOUT:-120} ))
  local filter=${u%@*} part=
  [[ "$u" == *@*of* ]] && { part=${u##*@}; part=${part/of//}; }
  [[ "$filter" != *.* ]] && filter="$filter.*"
  local t0 rc errs verdict
  t0=$(date +%s)
  FREEDNN_TEST_PART=$part FREEDNN_BACKEND=cuda timeout "$limit" compute-sanitizer --tool "$tool" "${extra[@]}" \
    --error-exitcode 9 "$tests" --gtest_filter="$filter" --gtest_brief=1 > "$out/${tool}_$u.txt" 2>&1
  rc=$?
  errs=$(grep -o "ERROR SUMMARY: [0-9]* error" "$out/${tool}_$u.txt" | tail -1)
  case $rc in
    0) verdict=PASS ;;
    124) verdict=TIMEOUT ;;
    *) verdict="FAIL rc=$rc" ;;
  esac
  # one short line per append: whole lines even when PARALLEL units finish together
  echo "$tool $u $verdict $(( $(date +%s) - t0 )) s ${errs:-}" | tee -a "$summary"
}
# PARALLEL=N: N units at once (the GPU has room for many test processes; the sanitizer's cost is per process).
if [ "${PARALLEL:-1}" -gt 1 ]; then
  export -f run_unit
  export tool out tests summary start
  export extra_s="${extra[*]:-}"
  # (arrays do not cross export: rebuilt from extra_s in each worker)
  printf '%s\n' $units | xargs -P "$PARALLEL" -I{} bash -c 'extra=($extra_s); run_unit "$1"' _ {}
else
  for u in $units; do run_unit "$u"; done
fi
