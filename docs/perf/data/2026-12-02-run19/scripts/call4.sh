#!/usr/bin/env bash
# call 4 (prebuilt, same tree as call 3): ResNet-50 TF32 and FMA NCHW against NVIDIA and PyTorch, then the
# sanitizers again over the families whose defaults changed (batch norm's PDL launches, the gemm_1x1 word gather)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 TORCH_TIMEOUT=110 CONV_TIMEOUT=120 CONV_CONFIGS="f32:nchw:default f32:nchw:fma" OUT=$OUT/rn tools/gpu/h200_check.sh conv
echo "resnet at $(( $(date +%s) - t0 )) s"
rm -f $OUT/rn/gpu-results.tgz
only='BatchNorm|ConvGpuGemm1x1|Normalization'
left=$(( 480 - ($(date +%s) - t0) ))
[ $left -gt 30 ] && OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=$left SUITE_TIMEOUT=$left PARALLEL=14 PER_TEST=1 \
  SPLIT="$LONG" PARTS=4 ONLY="$only" FIRST="$LONG" tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
left=$(( 560 - ($(date +%s) - t0) ))
[ $left -gt 30 ] && OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=$left SUITE_TIMEOUT=$left PARALLEL=14 PER_TEST=1 \
  SPLIT="$LONG" PARTS=4 ONLY='BatchNorm|Normalization' FIRST="$LONG" tools/gpu/sanitize.sh racecheck > $OUT/racecheck_log.txt 2>&1
for t in memcheck racecheck; do echo "$t: $(grep "^$t " $OUT/sanitize/summary.txt | awk '{print $3}' | sort | uniq -c | tr '\n' ' ')"; done
grep -v " PASS " $OUT/sanitize/summary.txt | head -20
pack
