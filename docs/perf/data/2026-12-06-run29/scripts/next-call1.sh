#!/usr/bin/env bash
# For the next session's first GPU call (not run yet). The whole gpu suite on run 29's final tree (calls 3-4 ran only
# the conv tests on it), then: on an H200, the ResNet-50 tables the bars are judged on (f16, bf16, TF32);
# on an H100, the bf16 and TF32 tables with the grouped dgrad (run 29's call 3 ran them before it). Copy to .devrun/
# with common.sh (docs/perf/data/2026-12-06-run28/scripts/common.sh) and run as `OUT=$OUT bash .devrun/next-call1.sh`.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 130 ctest -L gpu -j14 --timeout 120 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then cfgs="f16:nhwc:tensor bf16:nhwc:tensor f32:nchw:default"
else cfgs="bf16:nhwc:tensor f32:nchw:default"; fi
for cfg in $cfgs; do
  left=$(( 570 - $(el) ))
  [ $left -gt 120 ] || break
  PREBUILT=1 TORCH_TIMEOUT=70 CONV_TIMEOUT=130 CONV_CONFIGS="$cfg" \
    OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log_${cfg%%:*}.txt 2>&1
  grep -v "^NVIDIA" $OUT/rn_log_${cfg%%:*}.txt | tail -4
  rm -f $OUT/rn/gpu-results.tgz
  echo "$cfg at $(el) s"
done
echo "done at $(el) s"
pack
