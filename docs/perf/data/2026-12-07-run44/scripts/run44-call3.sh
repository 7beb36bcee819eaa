#!/usr/bin/env bash
# Run 44's third call: batch norm's tests with FREEDNN_BN_CLUSTER_PIPE=1 (before flipping its default), then
# memcheck over BatchNorm (PIPE=1), ConvGpuUnaligned and ConvGpuDepthwise, racecheck over BatchNorm (PIPE=1).
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
LIMIT=${LIMIT:-380}
left() { echo $(( LIMIT - $(el) )); }
[ -x $build/tests/freednn_tests ] || PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
cat .prebuilt/REV
T=$build/tests/freednn_tests
FREEDNN_BACKEND=cuda FREEDNN_BN_CLUSTER_PIPE=1 timeout 120 $T --gtest_filter='BatchNorm*' > $OUT/bn_pipe1.txt 2>&1
echo "bn pipe=1 rc=$?"; grep -E "PASSED|FAILED" $OUT/bn_pipe1.txt | head -8
echo "at $(el) s"
FREEDNN_BN_CLUSTER_PIPE=1 FREEDNN_BACKEND=cuda SUITES="BatchNorm|ConvGpuUnaligned|ConvGpuDepthwise" BUDGET=$(( $(left) - 90 )) \
  OUT=$OUT/mem timeout $(( $(left) - 80 )) tools/gpu/sanitize.sh memcheck > $OUT/mem_log.txt 2>&1
echo "memcheck rc=$?"; tail -8 $OUT/mem_log.txt
echo "at $(el) s"
FREEDNN_BN_CLUSTER_PIPE=1 FREEDNN_BACKEND=cuda SUITES="BatchNorm" BUDGET=$(( $(left) - 15 )) \
  OUT=$OUT/race timeout $(( $(left) - 5 )) tools/gpu/sanitize.sh racecheck > $OUT/race_log.txt 2>&1
echo "racecheck rc=$?"; tail -6 $OUT/race_log.txt
echo "done at $(el) s"
pack
