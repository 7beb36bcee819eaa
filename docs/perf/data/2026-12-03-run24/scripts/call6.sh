#!/usr/bin/env bash
# run 24 call 6 (prebuilt at .prebuilt/REV): the tiled batch-norm inference (FREEDNN_BN_INFER=8): tests, memcheck,
# A/B against the default on the 7x7 / 14x14 / 28x28 inference cases in f16 and bf16
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 40 ctest -L gpu -R "BatchNorm" -j14 --timeout 35 --output-on-failure > $OUT/ctest6.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest6.txt | head -10
grep "^bn infer" tools/bench/batches/ops_bn_reduce.txt | grep -E "64x(2048x7x7|1024x14x14|512x28x28)" > /tmp/bni.txt
cat > /tmp/ab.txt <<AB
/tmp/bni.txt f16:nhwc -;FREEDNN_BN_INFER=8
/tmp/bni.txt bf16:nhwc -;FREEDNN_BN_INFER=8
AB
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=20 MAX_MS=5 timeout 42 tools/gpu/ab_pending.sh /tmp/ab.txt
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; grep -v "NOT_SUP" $f | grep -v "^ *-" | tail -6 | cut -c1-140; done
echo "ab at $(el) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=45 SUITE_TIMEOUT=40 PARALLEL=8 PER_TEST=1 \
  ONLY='BatchNorm\.InferLeanKernels' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "done at $(el) s"
pack
