#!/usr/bin/env bash
# run 22 call 5 (prebuilt, the final tree: 9982a25 with the refitted _v7 table): the whole gpu suite; MobileNet-v2 depthwise f16 NHWC against
# NVIDIA and PyTorch (not re-run since run 20)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 TESTS_TIMEOUT=230 OUT=$OUT/t tools/gpu/h200_check.sh tests > /dev/null 2>&1
rm -f $OUT/t/gpu-results.tgz
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Not Run" $OUT/t/gpu_ctest.txt | head -20
echo "tests at $(( $(date +%s) - t0 )) s"
left=$(( 440 - ($(date +%s) - t0) ))
PREBUILT=1 TORCH_TIMEOUT=60 CONV_TIMEOUT=50 CONV_CONFIGS="f16:nhwc:tensor" CONV_BATCH=tools/bench/batches/mobilenet_v2_depthwise.txt \
  OUT=$OUT/mb timeout $left tools/gpu/h200_check.sh conv > $OUT/mb_log.txt 2>&1
grep -v "^NVIDIA" $OUT/mb_log.txt
echo "mobilenet at $(( $(date +%s) - t0 )) s"
rm -f $OUT/mb/gpu-results.tgz
pack
