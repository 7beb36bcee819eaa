#!/usr/bin/env bash
# run 23 call 4 (prebuilt at .prebuilt/REV: the one-pass max-pooling backward trimmed to 16-bit): the pooling tests,
# memcheck on the one-pass tests, the f16 / bf16 pool batch against NVIDIA
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 60 ctest -L gpu -R "Pool" -j14 --timeout 50 --output-on-failure > $OUT/ctest4.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest4.txt | head
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=35 SUITE_TIMEOUT=30 PARALLEL=4 PER_TEST=1 \
  ONLY='Pooling\.NhwcMaxBackwardOnePass.*' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
for dt in f16 bf16; do timeout 25 $build/tools/bench/freednn-bench --mode=P --dt=$dt --layout=nhwc --max-ms=60 --vs=$nv/libcudnn.so.9 \
  --batch=tools/bench/batches/pool_ab.txt --json=$OUT/pool_$dt.json > $OUT/pool_$dt.txt 2>&1; grep "pool bwd mode=max" $OUT/pool_$dt.txt | cut -c1-120; done
echo "done at $(( $(date +%s) - t0 )) s"
pack
