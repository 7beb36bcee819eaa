#!/usr/bin/env bash
# For the next session's first GPU call (not run yet). The whole gpu suite on run 29's final tree (calls 3-4 ran only
# the conv tests on it). Then on an H200: run 29's three new defaults checked against their knobs on that card (the
# A/Bs ran on an H100 only) and the ResNet-50 f16 table (bf16 and TF32 in a second call); on an H100: the bf16 and
# TF32 tables with the grouped dgrad (run 29's call 3 ran them before it). Copy to .devrun/ with common.sh
# (docs/perf/data/2026-12-06-run29/scripts/common.sh) and run as `OUT=$OUT bash .devrun/next-call1.sh`.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 130 ctest -L gpu -j14 --timeout 120 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  grep -v "^#" tools/bench/batches/resnet50.txt | grep -v ic3ih224 | sort -u > /tmp/rn.txt
  grep "^conv fwd" /tmp/rn.txt > /tmp/fwd.txt; grep "bwd_d" /tmp/rn.txt > /tmp/bd.txt; cat /tmp/fwd.txt /tmp/bd.txt > /tmp/fb.txt
  B=$build/tools/bench/freednn-bench
  FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_fprop BENCH=$B OUT=$OUT/ab_fwd timeout 60 tools/gpu/ab.sh /tmp/fwd.txt "" \
    "FREEDNN_SM90_RASTER_N=0" -- --dt=f16 --layout=nhwc --algo=any | tail -2
  FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$B OUT=$OUT/ab_bd timeout 90 tools/gpu/ab.sh /tmp/bd.txt "" \
    "FREEDNN_SM90_DGRAD16_GROUPED=0" "FREEDNN_SM90_RASTER_N=0" -- --dt=f16 --layout=nhwc --algo=any | tail -3
  FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_fprop,cuda:cutlass_sm90_dgrad BENCH=$B OUT=$OUT/ab_tf32 timeout 90 \
    tools/gpu/ab.sh /tmp/fb.txt "" "FREEDNN_SM90_TF32_PERSISTENT=0" -- --dt=f32 --layout=nchw --math=default \
    --algo=any | tail -2
  echo "A/B at $(el) s"
  cfgs="f16:nhwc:tensor"
else
  cfgs="bf16:nhwc:tensor f32:nchw:default"
fi
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
