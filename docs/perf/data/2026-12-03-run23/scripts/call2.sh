#!/usr/bin/env bash
# run 23 call 2 (prebuilt: the plane GEMMs removed, to_chwn's plane tiles): ConvSm90 tests, memcheck on the TF32
# dgrad / wgrad tests, ncu kernel times of the TF32 7x7 1x1 backward data, the A/B of the plane tiles
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 120 ctest -L gpu -R "ConvSm90|ConvGpuGemm1x1|ConvFind" -j14 --timeout 100 --output-on-failure > $OUT/ctest2.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  " $OUT/ctest2.txt | head -20
echo "tests at $(( $(date +%s) - t0 )) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=80 SUITE_TIMEOUT=75 PARALLEL=8 PER_TEST=1 \
  ONLY='ConvSm90\.Tf32(Dgrad|Wgrad).*' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep "^memcheck " $OUT/sanitize/summary.txt | awk '{print $2, $3, $4, $6, $7, $8}'
echo "memcheck at $(( $(date +%s) - t0 )) s"
grep -E "bwd_d .*(ic2048ih7|ic512ih7iw7oc2048)" tools/bench/batches/resnet50.txt > /tmp/k7.txt
FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench COUNT=6 \
  timeout 40 tools/gpu/kernel_times.sh /tmp/k7.txt --dt=f32 --layout=nchw --math=default > $OUT/kt_tf32.txt 2>&1
cut -c1-130 $OUT/kt_tf32.txt | head -16
echo "kt at $(( $(date +%s) - t0 )) s"
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=130 timeout 280 tools/gpu/ab_pending.sh
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; grep -v "  0.0000\|NOT_SUP" $f | tail -28 | cut -c1-150; done
echo "done at $(( $(date +%s) - t0 )) s"
pack
