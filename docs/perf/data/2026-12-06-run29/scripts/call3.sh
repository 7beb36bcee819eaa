#!/usr/bin/env bash
# run 29 call 3: TF32 persistent by default, the unit-stride dgrad's forward form by rule: the conv gpu tests, then
# ResNet-50 TF32 NCHW and bf16 NHWC tables (Find against Find, NVIDIA and PyTorch in the same call) as time allows
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 100 ctest -L gpu -R "Conv" -j14 --timeout 90 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "conv tests at $(el) s"
for cfg in f32:nchw:default bf16:nhwc:tensor; do
  left=$(( 560 - $(el) ))
  [ $left -gt 120 ] || break
  PREBUILT=1 TORCH_TIMEOUT=70 CONV_TIMEOUT=130 CONV_CONFIGS="$cfg" \
    OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log_${cfg%%:*}.txt 2>&1
  grep -v "^NVIDIA" $OUT/rn_log_${cfg%%:*}.txt | tail -4
  rm -f $OUT/rn/gpu-results.tgz
  echo "$cfg at $(el) s"
done
echo "done at $(el) s"
pack
