#!/usr/bin/env bash
# run 27 call 1a: .prebuilt/h200.tar.xz (7b92fcc + the leaner one-pass max-pooling backward) in build/h200 (kept
# on the device for call 1b): the pool and batch-norm tests (7b92fcc's batch norm never ran on an
# H200), the one-pass kernel's sanitizers.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 90 ctest -L gpu -R "Pool|BatchNorm|Normaliz|FusedOps" -j14 --timeout 80 --output-on-failure > $OUT/ctest_pool.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest_pool.txt | head -10
for tool in memcheck racecheck; do
OUT=$OUT/$tool TESTS=$build/tests/freednn_tests BUDGET=40 SUITE_TIMEOUT=38 PARALLEL=2 PER_TEST=1 \
  ONLY="Pooling\.NhwcMaxBackwardOnePass$( [ $tool = memcheck ] && echo '|BatchNorm\.ClusterKernel')" tools/gpu/sanitize.sh $tool > $OUT/${tool}_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/$tool/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
done
echo "pool tests at $(el) s"
echo "done at $(el) s"
pack
