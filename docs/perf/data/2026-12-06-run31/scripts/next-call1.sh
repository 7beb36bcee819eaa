#!/usr/bin/env bash
# For the next session's first GPU call (not run yet). The last commits of run 31 never ran on a GPU: 33b1935
# (ops_pdl_test's bit comparison factored into expect_same_bits; test code only) and the softmax comment naming its
# rows kernels for tools/check_pdl.py (device code unchanged). This runs the whole gpu suite, then on an H200 the
# ResNet-50 f16 / bf16 / TF32 tables and the ops batch (issue 5 and 6's bars are H200 bars; no H200 came in runs
# 28-31), on an H100 the f16 / bf16 tables (not run since run 30, before cross-call PDL) and the ops batch.
# Copy to .devrun/ with common.sh and run as `OUT=$OUT bash .devrun/next-call1.sh`.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 150 ctest -L gpu -j14 --timeout 140 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
cfgs="f16:nhwc:tensor bf16:nhwc:tensor"
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && cfgs="$cfgs f32:nchw:default"
for cfg in $cfgs; do
  left=$(( 420 - $(el) ))
  [ $left -gt 120 ] || break
  PREBUILT=1 TORCH_TIMEOUT=70 CONV_TIMEOUT=130 CONV_CONFIGS="$cfg" \
    OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log_${cfg%%:*}.txt 2>&1
  grep -v "^NVIDIA" $OUT/rn_log_${cfg%%:*}.txt | tail -4
  rm -f $OUT/rn/gpu-results.tgz
  echo "$cfg at $(el) s"
done
left=$(( 570 - $(el) ))
if [ $left -gt 90 ]; then
  PREBUILT=1 CONFIGS="f16:nhwc bf16:nhwc f32:nchw" MAX_MS=40 OUT=$OUT/ops timeout $left \
    tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
  python3 tools/ops_bars.py $OUT/ops/ops_*.json 2>&1 | grep -E "^==|PASS|FAIL|same-size" | head -24
fi
echo "done at $(el) s"
pack
