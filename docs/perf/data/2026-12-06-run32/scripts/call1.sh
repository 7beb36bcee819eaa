#!/usr/bin/env bash
# Run 32 call 1: the whole gpu suite (aligned.h refactor; the new NCHW TF32 1x1 backward filter kernel
# wgrad1x1_tf32.cu and its test), an A/B of that kernel against the slot GEMMs (FREEDNN_WGRAD1X1_WGMMA=0) on
# ResNet-50's 1x1 backward filters in TF32 NCHW through cuda:gemm_1x1 with NVIDIA alongside, then the TF32 table.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 150 ctest -L gpu -j14 --timeout 140 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
ONLY='ConvGpuGemm1x1\.NchwTf32BackwardFilterOneGemm' TESTS=$build/tests/freednn_tests BUDGET=60 \
  tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
grep "^conv bwd_w" tools/bench/batches/resnet50.txt | grep "kh1kw1" | sort -u > /tmp/w1.txt
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_w1 MAX_MS=5 timeout 150 tools/gpu/ab.sh /tmp/w1.txt \
  "" "FREEDNN_WGRAD1X1_WGMMA=0" -- --dt=f32 --layout=nchw --math=default --impl=cuda:gemm_1x1 | tail -16
timeout 90 $build/tools/bench/freednn-bench --mode=P --no-yardsticks --max-ms=8 --dt=f32 --layout=nchw \
  --math=default --impl=cuda:gemm_1x1 --vs=$nv/libcudnn.so.9 --batch=/tmp/w1.txt > $OUT/w1_vs.txt 2>&1
grep TIMED $OUT/w1_vs.txt | sed 's/^.*g1mb64/g1mb64/; s/dh1dw1.*libcudnn.so.8//; s/TFLOP.*vs:/ vs:/; s/impl=algo.*//' | cut -c1-150
echo "ab at $(el) s"
left=$(( 560 - $(el) ))
[ $left -gt 120 ] && PREBUILT=1 TORCH_TIMEOUT=70 CONV_TIMEOUT=140 CONV_CONFIGS="f32:nchw:default" \
    OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log_f32.txt 2>&1
grep -v "^NVIDIA" $OUT/rn_log_f32.txt | tail -4; rm -f $OUT/rn/gpu-results.tgz
echo "done at $(el) s"
pack
