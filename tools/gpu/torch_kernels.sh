#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# Which kernels NVIDIA's best path runs: PyTorch (cuDNN 9 through its graph API, cudnn.benchmark) on each problem of
# a batch file, profiled by Nsight Compute with the clocks left alone. tools/bench_torch.py --profile runs the
# algorithm search and warm-up outside, then one call per case inside an NVTX range "prof" that ncu keeps: the
# kernel names, grids, registers and times of the engine PyTorch chose (what freednn's kernels are measured against).
# Usage: tools/gpu/torch_kernels.sh BATCH [bench_torch.py options, e.g. --dt=f16 --layout=nhwc]
# Environment: DETAIL=1 adds ncu's speed-of-light, memory, occupancy and warp-state sections.
set -uo pipefail
batch=$1
shift
sections=(--section LaunchStats)
[ "${DETAIL:-0}" = 1 ] && sections+=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy
  --section WarpStateStats)
ncu --clock-control none --nvtx --nvtx-include "prof/" --metrics gpu__time_duration.sum "${sections[@]}" \
  python3 "$(dirname "$0")/../bench_torch.py" --profile --batch="$batch" "$@" --json=/dev/null --allow-unsupported 2>&1 |
  grep -vE "^==PROF==|^==WARNING== Note"
