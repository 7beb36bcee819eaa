#!/usr/bin/env bash
# call 4 (prebuilt): compute-sanitizer over the units call 3 did not reach (its summary carried: units in it are
# skipped, its TIMEOUT ones too), with the defaults of this tree (the sum's PDL launch on).
set -u
mkdir -p $OUT/sanitize
cp .devrun/san4/summary3.txt $OUT/sanitize/summary.txt
t0=$(date +%s)
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1   # unpack only
build=build/h200
export FREEDNN_DW_SUM_PDL=1
export OMP_NUM_THREADS=2  # 15 test processes at once: few reference threads each
first="ConvGpuDepthwise|BatchNorm\.InferLean|ReduceTensor|Pooling\.|ConvGpuPatch|ConvGpuGemm1x1|TensorOps|Softmax|ConvGpuFft|ConvGpuWinograd|FusedOps|Normalization|SpatialTransformer|ReduceTensor"
left=$(( 200 - ($(date +%s) - t0) ))
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=$left SUITE_TIMEOUT=$left PARALLEL=15 PER_TEST=1 FIRST="$first" \
  tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
(cd $OUT && tar czf results4.tgz sanitize memcheck_log.txt 2>/dev/null)
echo "memcheck done at $(( $(date +%s) - t0 )) s"
left=$(( 262 - ($(date +%s) - t0) ))
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=$left SUITE_TIMEOUT=$left PARALLEL=15 PER_TEST=1 \
  SUITES="Softmax|Pool|BatchNorm|Reduce|ConvGpuDepthwise|ConvGpuHaloWgrad|Lrn|Dropout|SpatialTransformer|TensorOps|Normalization" \
  FIRST="ConvGpuDepthwise|BatchNorm\.Coop|BatchNorm\.InferLean|Pooling\.|TensorOps|ReduceTensor" tools/gpu/sanitize.sh racecheck > $OUT/racecheck_log.txt 2>&1
echo "racecheck done at $(( $(date +%s) - t0 )) s"
for t in memcheck racecheck; do echo "$t: $(grep "^$t " $OUT/sanitize/summary.txt | awk '{print $3}' | sort | uniq -c | tr '\n' ' ')"; done
grep -v " PASS " $OUT/sanitize/summary.txt | grep -v TIMEOUT | head -20
(cd $OUT && tar czf results4.tgz sanitize memcheck_log.txt racecheck_log.txt 2>/dev/null)
