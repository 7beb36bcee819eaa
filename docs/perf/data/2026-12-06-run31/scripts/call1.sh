#!/usr/bin/env bash
# For the next session's first GPU call (not run yet). Two of run 30's last commits compiled here but never ran on a
# GPU: ebdff50 (tma_kernel_runs: the depthwise TMA kernels launch only where their code comes from a 9.0+ PTX) and
# 185de99 (halo_wgrad's cp.async wgmma kernel removed; the other kernels' SASS unchanged); and the opt-in
# FREEDNN_OPS_PDL (cross-call PDL for the elementwise op kernels, whose default launches now carry no-op waits); and
# 630f372 (the TMA maps through one helper, encode_nhwc_map; device code unchanged). This
# runs the whole gpu suite (ConvGpuHaloWgrad and OpsPdl cover them), then checks that the depthwise TMA kernels still run (the A/B below must show the cp.async kernels
# slower, ~1.09x on these 56x56x144 layers; equal times mean tma_kernel_runs said no), then on an H200 the ResNet-50
# f16 / bf16 / TF32 tables (issue 6's bars are H200 bars; no H200 came in runs 28-30), on an H100 the ops batch (not
# run since run 28). Copy to .devrun/ with common.sh and run as `OUT=$OUT bash .devrun/next-call1.sh`.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 150 ctest -L gpu -j14 --timeout 140 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
grep "g144mb64ic144ih56" tools/bench/batches/mobilenet_v2_depthwise.txt | grep sh1 > /tmp/m3.txt
FREEDNN_ONLY_IMPL=cuda:depthwise BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_dw MAX_MS=2 \
  timeout 40 tools/gpu/ab.sh /tmp/m3.txt "" "FREEDNN_DW_TILE_TMA=0 FREEDNN_DW_WGRAD_TILE_TMA=0" -- --dt=f16 \
  --layout=nhwc --algo=any | tail -5
# the stride-2 tile forward (now on TMA) against the walk kernels on the 56 / 28 outputs it leaves to them (run 18's
# cp.async tile: 1.20x / 1.34x the walk's time there)
grep "sh2sw2" tools/bench/batches/mobilenet_v2_depthwise.txt | grep "^conv fwd" > /tmp/s2.txt
FREEDNN_ONLY_IMPL=cuda:depthwise BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_s2 MAX_MS=2 \
  timeout 40 tools/gpu/ab.sh /tmp/s2.txt "" "FREEDNN_DW_TILE_S2=1" -- --dt=f16 --layout=nhwc --algo=any | tail -7
echo "A/B at $(el) s"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  for cfg in f16:nhwc:tensor bf16:nhwc:tensor f32:nchw:default; do
    left=$(( 570 - $(el) ))
    [ $left -gt 120 ] || break
    PREBUILT=1 TORCH_TIMEOUT=70 CONV_TIMEOUT=130 CONV_CONFIGS="$cfg" \
      OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log_${cfg%%:*}.txt 2>&1
    grep -v "^NVIDIA" $OUT/rn_log_${cfg%%:*}.txt | tail -4
    rm -f $OUT/rn/gpu-results.tgz
    echo "$cfg at $(el) s"
  done
else
  # FREEDNN_OPS_PDL=1 (written in run 30, opt-in) against plain launches on the ops batch's elementwise lines
  grep -E "^(act|optensor|addtensor|transform) " tools/bench/batches/ops_resnet50.txt > /tmp/ew.txt
  for cfg in "f16 nhwc" "f32 nchw"; do
    set -- $cfg
    BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_pdl_$1 REPS=2 MAX_MS=20 timeout 90 \
      tools/gpu/ab.sh /tmp/ew.txt "" "FREEDNN_OPS_PDL=1" -- --dt=$1 --layout=$2 | tail -2
  done
  PREBUILT=1 CONFIGS="f16:nhwc bf16:nhwc f32:nchw" MAX_MS=40 OUT=$OUT/ops timeout $(( 560 - $(el) )) \
    tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
  tail -3 $OUT/ops_log.txt
  python3 tools/ops_bars.py $OUT/ops/ops_*.json 2>&1 | grep -E "^==|PASS|FAIL" | head -20
fi
echo "done at $(el) s"
pack
