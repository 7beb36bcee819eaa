#!/usr/bin/env bash
# run 30 call 4: ResNet-50 f16 and bf16 tables (Find against Find, NVIDIA and PyTorch in the same call) with
# halo_wgrad's TMA kernel, then the MobileNet-v2 depthwise batch in f16
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for cfg in f16:nhwc:tensor bf16:nhwc:tensor; do
  left=$(( 560 - $(el) ))
  [ $left -gt 120 ] || break
  PREBUILT=1 TORCH_TIMEOUT=70 CONV_TIMEOUT=130 CONV_CONFIGS="$cfg" \
    OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log_${cfg%%:*}.txt 2>&1
  grep -v "^NVIDIA" $OUT/rn_log_${cfg%%:*}.txt | tail -4
  rm -f $OUT/rn/gpu-results.tgz
  echo "$cfg at $(el) s"
done
left=$(( 580 - $(el) ))
if [ $left -gt 60 ]; then
  PREBUILT=1 TORCH_TIMEOUT=50 CONV_TIMEOUT=90 CONV_CONFIGS="f16:nhwc:tensor" \
    CONV_BATCH=tools/bench/batches/mobilenet_v2_depthwise.txt OUT=$OUT/mb timeout $left \
    tools/gpu/h200_check.sh conv > $OUT/mb_log.txt 2>&1
  grep -v "^NVIDIA" $OUT/mb_log.txt | tail -4
  rm -f $OUT/mb/gpu-results.tgz
fi
echo "done at $(el) s"
pack
