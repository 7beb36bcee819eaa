#!/usr/bin/env bash
# run 30 call 6: the whole gpu suite on the final tree, then MobileNet-v2's depthwise batch in f16 and bf16 (Find
# against Find, NVIDIA and PyTorch in the same call) with the TMA tile kernels
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 150 ctest -L gpu -j14 --timeout 140 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
for cfg in f16:nhwc:tensor bf16:nhwc:tensor; do
  left=$(( 400 - $(el) ))
  [ $left -gt 60 ] || break
  PREBUILT=1 TORCH_TIMEOUT=50 CONV_TIMEOUT=90 CONV_CONFIGS="$cfg" \
    CONV_BATCH=tools/bench/batches/mobilenet_v2_depthwise.txt OUT=$OUT/mb timeout $left \
    tools/gpu/h200_check.sh conv > $OUT/mb_log_${cfg%%:*}.txt 2>&1
  grep -v "^NVIDIA" $OUT/mb_log_${cfg%%:*}.txt | tail -4
  rm -f $OUT/mb/gpu-results.tgz
  echo "$cfg at $(el) s"
done
echo "done at $(el) s"
pack
