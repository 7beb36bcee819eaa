#!/usr/bin/env bash
# run 28 call 7: the final tree (the ping-pong grouped kernel by default, to_chwn's 16-bit channel tiles): the whole
# gpu suite, then ResNet-50 f16 NHWC, Find against Find with NVIDIA and PyTorch in the same call, as time allows
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 100 ctest -L gpu -j14 --timeout 90 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
left=$(( 228 - $(el) ))
PREBUILT=1 TORCH_TIMEOUT=60 CONV_TIMEOUT=110 CONV_CONFIGS="f16:nhwc:tensor" \
  OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log.txt 2>&1
grep -v "^NVIDIA" $OUT/rn_log.txt | tail -6
rm -f $OUT/rn/gpu-results.tgz
echo "done at $(el) s"
pack
