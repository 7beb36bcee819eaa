#!/usr/bin/env bash
# run 30 call 7: the f32 NCHW FMA table (not run since run 22), Find against Find with NVIDIA and PyTorch
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
PREBUILT=1 TORCH_TIMEOUT=70 CONV_TIMEOUT=150 CONV_CONFIGS="f32:nchw:fma" OUT=$OUT/rn timeout 230 \
  tools/gpu/h200_check.sh conv > $OUT/rn_log_fma.txt 2>&1
grep -v "^NVIDIA" $OUT/rn_log_fma.txt | tail -4
rm -f $OUT/rn/gpu-results.tgz
echo "done at $(el) s"
pack
