#!/usr/bin/env bash
# run 21 call 3 (prebuilt): the grouped kernel's per-tile store_tail fix; the grouped stride phases (16-bit with two
# or more live phases, and TF32) and the persistent 16-bit forward on by default. The gpu suite; the TF32 A/B (grouped phases vs separate launches); ResNet-50 f16 / bf16 against NVIDIA
# and PyTorch
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 TESTS_TIMEOUT=170 OUT=$OUT/t tools/gpu/h200_check.sh tests > /dev/null 2>&1
rm -f $OUT/t/gpu-results.tgz
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Not Run" $OUT/t/gpu_ctest.txt | head -20
echo "tests at $(( $(date +%s) - t0 )) s"
o=FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad
cat > /tmp/ab3.txt <<AB
tools/bench/batches/resnet50_bwd_d_s2.txt f32:nchw:any:default $o,FREEDNN_SM90_PHASES_GROUPED=0;$o
AB
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=50 timeout 60 tools/gpu/ab_pending.sh /tmp/ab3.txt
tail -9 $OUT/ab/ab_1/ab.txt 2>/dev/null | cut -c1-150
echo "ab at $(( $(date +%s) - t0 )) s"
left=$(( 565 - ($(date +%s) - t0) ))
PREBUILT=1 TORCH_TIMEOUT=110 CONV_TIMEOUT=120 CONV_CONFIGS="f16:nhwc:tensor bf16:nhwc:tensor" \
  OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log.txt 2>&1
echo "resnet at $(( $(date +%s) - t0 )) s"
rm -f $OUT/rn/gpu-results.tgz
ls $OUT/rn
pack
