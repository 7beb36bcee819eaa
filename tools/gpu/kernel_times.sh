#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# Per-kernel GPU times of freednn's run of each problem of a batch file, read by Nsight Compute (ncu) with the
# clocks left alone: where a slow case spends its time (staging copies, split-K sums, the GEMM itself).
# Usage: tools/gpu/kernel_times.sh BATCH [freednn-bench options, e.g. --dt=f32 --layout=nchw --algo=1]
# Environment: BENCH (default build/h200/tools/bench/freednn-bench), COUNT (kernels captured per problem, 16),
# DETAIL=1: instead of the times, ncu's speed-of-light, memory, occupancy and warp-stall sections of each kernel
# (why it is slow: DRAM / L2 throughput against the peaks, issue slots, the stall reasons).
set -uo pipefail
bench=${BENCH:-build/h200/tools/bench/freednn-bench}
batch=$1
shift
grep -v '^[[:space:]]*#' "$batch" | grep . | while IFS= read -r line; do
  prob=${line%%#*}
  echo "== $prob $*"
  if [ "${DETAIL:-0}" = 1 ]; then
    ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
      --section WarpStateStats --section LaunchStats -c "${COUNT:-16}" \
      "$bench" --mode=P --no-yardsticks --iters=1 --max-ms=1 "$@" "$prob" 2>/dev/null |
      grep -E "^  [A-Za-z_].*\(|Duration|DRAM Throughput|Memory Throughput|L2 Cache Throughput|Compute \(SM\)|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Size|Grid Size|Stall|Issued Warp|Warp Cycles Per Issued" | head -120
    continue
  fi
  ncu --clock-control none --metrics gpu__time_duration.sum --csv -c "${COUNT:-16}" \
    "$bench" --mode=P --no-yardsticks --iters=1 --max-ms=1 "$@" "$prob" 2>/dev/null |
    python3 -c '
import csv, sys
rows = [r for r in csv.reader(l for l in sys.stdin if l.startswith("\""))]
if not rows: print("   (no kernels captured)"); sys.exit()
h = rows[0]; k, u, v = h.index("Kernel Name"), h.index("Metric Unit"), h.index("Metric Value")
scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}
for r in rows[1:]:
    print("   %9.2f us  %s" % (float(r[v].replace(",", "")) * scale.get(r[u], 1.0), r[k][:150]))
'
done
