#!/usr/bin/env bash
# call 6 (prebuilt): which engines PyTorch / cuDNN 9 runs for run 19's layers below 0.8, and our kernels' times (ncu)
set -u
mkdir -p $OUT; . .devrun/common.sh
PREBUILT=1 TORCHK_BATCH=tools/bench/batches/profile_run19.txt TORCHK_DETAIL=0 TORCHK_TIMEOUT=100 tools/gpu/h200_check.sh torchk
rm -f $OUT/gpu-results.tgz
