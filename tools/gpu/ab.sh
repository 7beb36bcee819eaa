#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# A/B timing of kernel variants: runs one batch under several environment settings (the knobs of
# docs/tuning-knobs.md) in the same process tree, then prints per problem the median time of each variant and
# its ratio to the first, and per variant the geomean ratio. freednn only (--no-yardsticks, no --vs).
# Usage: tools/gpu/ab.sh BATCH VARIANT... [-- bench options]
#   VARIANT: "" (the defaults) or space-separated words: NAME=VALUE settings, e.g. "FREEDNN_DW_STRIP=2", and
#   bench options (words starting with --), e.g. "--lib=build/h200/src/ref_NAME/libcudnn.so.8.2.0" for a kept
#   reference library (tools/gpu/prebuilt.sh keep).
# Example: tools/gpu/ab.sh tools/bench/batches/mobilenet_v2_depthwise.txt "" "FREEDNN_DW_WGRAD_STRIP=0" -- --algo=any
# Environment: BENCH (default build/h200/tools/bench/freednn-bench), OUT (default ./gpu-out/ab), MAX_MS (per case
# and variant, default 4), REPS (default 1: the variants run in turn REPS times, interleaved, and a case's time is
# the median over the repetitions). JSON per variant and repetition in OUT (ab_<n>_r<k>.json), the table in
# OUT/ab.txt.
set -uo pipefail
[ $# -ge 2 ] || { sed -n 4,16p "$0"; exit 2; }
batch=$1
shift
variants=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do variants+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
bench=${BENCH:-build/h200/tools/bench/freednn-bench}
out=${OUT:-$PWD/gpu-out/ab}
mkdir -p "$out"
reps=${REPS:-1}
for ((k = 1; k <= reps; k++)); do
  for i in "${!variants[@]}"; do
    envs=()
    opts=()
    for w in ${variants[$i]}; do  # the variant's words (unquoted on purpose: split on spaces)
      case "$w" in --*) opts+=("$w") ;; *) envs+=("$w") ;; esac
    done
    env "${envs[@]}" "$bench" --mode=P --no-yardsticks --max-ms="${MAX_MS:-4}" "$@" "${opts[@]}" --batch="$batch" \
      --json="$out/ab_${i}_r$k.json" > "$out/ab_${i}_r$k.txt" 2>&1
    echo "variant $i [${variants[$i]:-defaults}] rep $k: rc=$? $(grep '^tests:' "$out/ab_${i}_r$k.txt")"
  done
done
python3 - "$out" "$reps" "${variants[@]}" <<'EOF' | tee "$out/ab.txt"
import json, math, statistics, sys
out, reps, names = sys.argv[1], int(sys.argv[2]), [v or "defaults" for v in sys.argv[3:]]
runs = []  # per variant: problem -> the median over the repetitions of its median time
for i in range(len(names)):
    times = {}
    for k in range(1, reps + 1):
        try:
            cases = json.load(open(f"{out}/ab_{i}_r{k}.json")).get("cases", [])
        except (OSError, ValueError):
            cases = []
        for c in cases:
            t = (c.get("lib") or {}).get("t_med_ms")
            if t:
                times.setdefault(c["problem"], []).append(t)
    runs.append({p: statistics.median(ts) for p, ts in times.items()})
problems = [p for p in runs[0] if runs[0][p]] if runs else []
print("variants: " + "; ".join(f"[{i}] {n}" for i, n in enumerate(names)))
print("ms per variant, then each variant's time over variant 0's (below 1: faster)")
logs = [[] for _ in runs]
for p in problems:
    t0 = runs[0][p]
    cells = []
    for i, r in enumerate(runs):
        t = r.get(p)
        if t:
            logs[i].append(math.log(t / t0))
        cells.append(f"{t:.4f}" if t else "   -  ")
    ratios = [f"{r.get(p) / t0:.2f}" if r.get(p) else "-" for r in runs[1:]]
    print(" ".join(cells), "|", " ".join(ratios), "|", p[:110])
for i, l in enumerate(logs):
    if l:
        print(f"[{i}] {names[i]}: geomean {math.exp(sum(l) / len(l)):.3f} of variant 0 over {len(l)} cases")
EOF
