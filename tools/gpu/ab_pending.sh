#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# Runs every A/B comparison listed in tools/gpu/ab_pending.txt (the kernel variants written but not yet timed on a
# GPU) with tools/gpu/ab.sh, one output folder per line, and prints each line's geomean summary.
# Line format: BATCH DT:LAYOUT[:ALGO[:MATH]] VARIANT;VARIANT...   (VARIANT: space-free NAME=VALUE,NAME=VALUE; "-" for
# the defaults; the first variant is the baseline the others are compared with)
# Usage: BENCH=build/h200/tools/bench/freednn-bench OUT=<dir> tools/gpu/ab_pending.sh [LIST]
set -uo pipefail
list=${1:-tools/gpu/ab_pending.txt}
out=${OUT:-$PWD/gpu-out}
n=0
# (an empty list, comments only, is no failure)
{ grep -v '^[[:space:]]*#' "$list" | grep . || true; } | while read -r batch cfg variants; do
  n=$((n + 1))
  IFS=: read -r dt layout algo math <<< "$cfg"
  IFS=';' read -r -a vs <<< "$variants"
  args=()
  for v in "${vs[@]}"; do [ "$v" = "-" ] && v=""; args+=("${v//,/ }"); done
  extra=(--dt="$dt" --layout="$layout")
  [ -n "${algo:-}" ] && extra+=(--algo="$algo")
  [ -n "${math:-}" ] && extra+=(--math="$math")
  OUT="$out/ab_$n" timeout "${AB_TIMEOUT:-120}" tools/gpu/ab.sh "$batch" "${args[@]}" -- "${extra[@]}" > /dev/null 2>&1
  echo "== $n: $batch $cfg"
  grep -E '^\[' "$out/ab_$n/ab.txt" 2>/dev/null || echo "   (no result)"
done
