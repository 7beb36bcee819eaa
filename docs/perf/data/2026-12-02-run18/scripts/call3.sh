#!/usr/bin/env bash
# call 3 (prebuilt): A/B of the sum's PDL launch and of the new wgmma default; then compute-sanitizer over the whole
# suite, test by test, 14 at a time: memcheck, then racecheck over the shared-memory families.
set -u
mkdir -p $OUT
t0=$(date +%s)
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1   # unpack only
build=build/h200
nv=$(python3 -c 'import nvidia.cudnn as m;print(list(m.__path__)[0]+"/lib")' 2>/dev/null)
for d in "$nv"/../../*/lib; do export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; done
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=45 timeout 100 tools/gpu/ab_pending.sh
(cd $OUT && tar czf results3.tgz ab 2>/dev/null)
echo "ab done at $(( $(date +%s) - t0 )) s"
# the sum's PDL launch under the sanitizers too when the A/B took it (f16 geomean below 0.99)
g=$(grep -E '^\[1\]' $OUT/ab/ab_1/ab.txt 2>/dev/null | sed -E 's/.*geomean ([0-9.]+).*/\1/')
if [ -n "$g" ] && awk -v g="$g" 'BEGIN{exit !(g < 0.99)}'; then export FREEDNN_DW_SUM_PDL=1; fi
echo "sanitizers with FREEDNN_DW_SUM_PDL=${FREEDNN_DW_SUM_PDL:-0} (A/B geomean $g)" | tee $OUT/pdl.txt
long="ConvGpuDepthwise|BatchNorm\.|ReduceTensor|TensorOps\.Transform|ConvCutlass|Pooling\.|ConvGpuHaloWgrad|ConvSm90|Softmax"
left=$(( 400 - ($(date +%s) - t0) ))
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=$left SUITE_TIMEOUT=$left PARALLEL=14 PER_TEST=1 FIRST="$long" \
  tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
(cd $OUT && tar czf results3.tgz ab pdl.txt sanitize memcheck_log.txt 2>/dev/null)
echo "memcheck done at $(( $(date +%s) - t0 )) s"
left=$(( 565 - ($(date +%s) - t0) ))
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=$left SUITE_TIMEOUT=$left PARALLEL=14 PER_TEST=1 \
  SUITES="Softmax|Pool|BatchNorm|Reduce|ConvGpuDepthwise|ConvGpuHaloWgrad|Lrn|Dropout|SpatialTransformer|TensorOps|Normalization" \
  FIRST="ConvGpuDepthwise|ConvGpuHaloWgrad|BatchNorm\.Coop" tools/gpu/sanitize.sh racecheck > $OUT/racecheck_log.txt 2>&1
echo "racecheck done at $(( $(date +%s) - t0 )) s"
for t in memcheck racecheck; do echo "$t: $(grep "^$t " $OUT/sanitize/summary.txt | awk '{print $3}' | sort | uniq -c | tr '\n' ' ')"; done
grep -v " PASS " $OUT/sanitize/summary.txt | head -30
(cd $OUT && tar czf results3.tgz ab pdl.txt sanitize memcheck_log.txt racecheck_log.txt 2>/dev/null)
