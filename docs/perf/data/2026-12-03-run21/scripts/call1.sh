#!/usr/bin/env bash
# run 21 call 1 (prebuilt b32a1b4): the gpu suite (the grouped persistent kernel's first run), memcheck over its
# tests, the queued A/B lines (grouped stride phases, persistent forward), per-kernel times of profile_run20
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 170 ctest -L gpu -j14 --timeout 90 --output-on-failure > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*|Failed|Not Run" $OUT/gpu_ctest.txt | head -30
echo "tests at $(( $(date +%s) - t0 )) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=90 SUITE_TIMEOUT=90 PARALLEL=14 PER_TEST=1 \
  ONLY='ConvSm90\.(Dgrad16|Persistent)' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep "^memcheck " $OUT/sanitize/summary.txt | awk '{print $2, $3}'
echo "memcheck at $(( $(date +%s) - t0 )) s"
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=60 timeout 250 tools/gpu/ab_pending.sh
echo "ab at $(( $(date +%s) - t0 )) s"
for g in 0 1; do
  FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad FREEDNN_SM90_PHASES_GROUPED=$g BENCH=$build/tools/bench/freednn-bench COUNT=12 \
    timeout 40 tools/gpu/kernel_times.sh tools/bench/batches/profile_run20.txt --dt=f16 --layout=nhwc > $OUT/kt_grouped$g.txt 2>&1
done
cat $OUT/kt_grouped*.txt | head -60
timeout 90 .devrun/bin/gemm1x1_probe > $OUT/gemm1x1_probe.txt 2>&1; cat $OUT/gemm1x1_probe.txt
echo "done at $(( $(date +%s) - t0 )) s"
pack
