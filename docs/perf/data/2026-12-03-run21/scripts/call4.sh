#!/usr/bin/env bash
# run 21 call 4 (prebuilt): gemm_1x1's TF32 GEMMs on cuBLASLt (timed per shape at the workspace query / Find), the
# stride phases' sub-filters (and the float paths' transposes) copied in one launch; the conv tests; memcheck over the grouped kernel's tests; ResNet-50 TF32 and FMA NCHW against NVIDIA
# and PyTorch
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 120 ctest -L gpu -R "ConvGpuGemm1x1|ConvSm90|ConvFind|TensorOps|ThreadSafety|lenet|smoke" -j14 --timeout 90 --output-on-failure \
  > $OUT/ctest4.txt 2>&1); grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout" $OUT/ctest4.txt | head
echo "tests at $(( $(date +%s) - t0 )) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=80 SUITE_TIMEOUT=80 PARALLEL=14 PER_TEST=1 \
  ONLY='ConvSm90\.(Dgrad16StridePhases|PersistentForward|Tf32DgradShapesAndLayouts)|ConvGpuGemm1x1\.Tf32OnCublasLt' \
  tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep "^memcheck " $OUT/sanitize/summary.txt | awk '{print $2, $3, $4}'
echo "memcheck at $(( $(date +%s) - t0 )) s"
for dt in f16 bf16; do  # the stride-2 backward data again, the sub-filters now copied in one launch
  timeout 35 $build/tools/bench/freednn-bench --mode=P --algo=any --dt=$dt --layout=nhwc --math=tensor --max-ms=20 \
    --vs="$nv/libcudnn.so.9" --batch=tools/bench/batches/resnet50_bwd_d_s2.txt --json=$OUT/s2_$dt.json > $OUT/s2_$dt.txt 2>&1
  grep -E "^[0-9]+:TIMED" $OUT/s2_$dt.txt | sed -E 's/ mode=xcorr.*libcudnn.so.8//' | cut -c1-150
done
echo "s2 at $(( $(date +%s) - t0 )) s"
echo "conv bwd_d f16 nhwc g1mb64ic128ih56iw56oc128kh3kw3sh2sw2ph1pw1" > /tmp/kt.txt
FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench COUNT=6 \
  timeout 40 tools/gpu/kernel_times.sh /tmp/kt.txt --dt=f16 --layout=nhwc > $OUT/kt_s2.txt 2>&1; head -8 $OUT/kt_s2.txt | cut -c1-120
left=$(( 565 - ($(date +%s) - t0) ))
PREBUILT=1 TORCH_TIMEOUT=100 CONV_TIMEOUT=120 CONV_CONFIGS="f32:nchw:default f32:nchw:fma" \
  OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log.txt 2>&1
echo "resnet at $(( $(date +%s) - t0 )) s"
rm -f $OUT/rn/gpu-results.tgz
ls $OUT/rn
left=$(( 575 - ($(date +%s) - t0) ))
if [ $left -gt 40 ]; then  # gemm_1x1 forced: cuBLAS's default against cuBLASLt's timed answer, TF32 NCHW 1x1 layers
  grep "kh1kw1" tools/bench/batches/resnet50.txt > /tmp/r1x1.txt
  o=FREEDNN_ONLY_IMPL=cuda:gemm_1x1
  echo "/tmp/r1x1.txt f32:nchw:any:default $o,FREEDNN_GEMM1X1_LT=0;$o" > /tmp/ab4.txt
  BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=$(( left - 10 )) timeout $left tools/gpu/ab_pending.sh /tmp/ab4.txt
  tail -4 $OUT/ab/ab_1/ab.txt 2>/dev/null | cut -c1-150
fi
echo "done at $(( $(date +%s) - t0 )) s"
pack
