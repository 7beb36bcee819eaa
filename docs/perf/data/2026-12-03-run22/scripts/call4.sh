#!/usr/bin/env bash
# run 22 call 4 (prebuilt; the tree of call 2: patch_dgrad shares each A fragment across the phases, the 16-bit
# single live phase grouped): ResNet-50 TF32 and FMA NCHW against NVIDIA and PyTorch; ncu per-kernel times of the
# TF32 7x7 1x1 backward data again (noise check of call 2)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
grep -E "bwd_d .*(ic2048ih7|ic512ih7iw7oc2048)" tools/bench/batches/resnet50.txt > /tmp/k7.txt
FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench COUNT=6 \
  timeout 40 tools/gpu/kernel_times.sh /tmp/k7.txt --dt=f32 --layout=nchw --math=default > $OUT/kt_tf32.txt 2>&1
cut -c1-130 $OUT/kt_tf32.txt | head -16
echo "kt at $(( $(date +%s) - t0 )) s"
left=$(( 575 - ($(date +%s) - t0) ))
PREBUILT=1 TORCH_TIMEOUT=100 CONV_TIMEOUT=125 CONV_CONFIGS="f32:nchw:default f32:nchw:fma" \
  OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log.txt 2>&1
grep -v "^NVIDIA" $OUT/rn_log.txt
echo "resnet at $(( $(date +%s) - t0 )) s"
rm -f $OUT/rn/gpu-results.tgz
pack
