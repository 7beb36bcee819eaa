#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# A/B timing of kernel variants: runs one batch under several environment settings (the knobs of
# docs/tuning-knobs.md) in the same process tree, then prints per problem the median time of each variant and
# its ratio to the first, and per variant the geomean ratio. freednn only (--no-yardsticks, no --vs).
# Usage: tools/gpu/ab.sh BATCH VARIANT... [-- bench options]
#   VARIANT: "" (the defaults) or space-separated NAME=VALUE settings, e.g. "FREEDNN_DW_STRIP=2".
# Example: tools/gpu/ab.sh tools/bench/batches/mobilenet_v2_depthwise.txt "" "FREEDNN_DW_WGRAD_STRIP=0" -- --algo=any
# Environment: BENCH (default build/h200/tools/bench/freednn-bench), OUT (default ./gpu-out/ab), MAX_MS (per case
# and variant, default 4). JSON per variant in OUT (ab_<n>.json) and the table in OUT/ab.txt.
set -uo pipefail
[ $# -ge 2 ] || { sed -n 4,11p "$0"; exit 2; }
batch=$1
shift
variants=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do variants+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
bench=${BENCH:-build/h200/tools/bench/freednn-bench}
out=${OUT:-$PWD/gpu-out/ab}
mkdir -p "$out"
files=()
for i in "${!variants[@]}"; do
  v=${variants[$i]}
  # shellcheck disable=SC2086  # the variant is a list of NAME=VALUE words
  env $v "$bench" --mode=P --no-yardsticks --max-ms="${MAX_MS:-4}" "$@" --batch="$batch" \
    --json="$out/ab_$i.json" > "$out/ab_$i.txt" 2>&1
  echo "variant $i [${v:-defaults}]: rc=$? $(grep '^tests:' "$out/ab_$i.txt")"
  files+=("$out/ab_$i.json")
done
python3 - "${files[@]}" -- "${variants[@]}" <<'EOF' | tee "$out/ab.txt"
import json, math, sys
sep = sys.argv.index("--")
files, names = sys.argv[1:sep], [v or "defaults" for v in sys.argv[sep + 1:]]
runs = []
for f in files:
    try:
        cases = json.load(open(f)).get("cases", [])
    except (OSError, ValueError):
        cases = []
    runs.append({c["problem"]: (c.get("lib") or {}).get("t_med_ms") for c in cases})
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
