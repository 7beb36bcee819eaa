#!/usr/bin/env bash
# run 22 call 1 (prebuilt at 003d0f8): first GPU run of fa18c6b (shared WsPipelines), 297ee9e (fill pass beside the
# grouped launch; opt-in GROUPED_SINGLE) and 003d0f8. ConvSm90 tests, memcheck over the changed tests, the queued
# A/B (GROUPED_SINGLE on the 16-bit stride-2 dgrad), ncu kernel times of the 1x1 s2 56->28 layer both ways
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 100 ctest -L gpu -R "ConvSm90|ConvGpuGemm1x1|ConvFind" -j14 --timeout 90 --output-on-failure > $OUT/ctest1.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout" $OUT/ctest1.txt | head
echo "tests at $(( $(date +%s) - t0 )) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=90 SUITE_TIMEOUT=85 PARALLEL=14 PER_TEST=1 \
  ONLY='ConvSm90\.(Dgrad16StridePhases|PersistentForward|Tf32DgradShapesAndLayouts|Wgrad.*)' \
  tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep "^memcheck " $OUT/sanitize/summary.txt | awk '{print $2, $3, $4, $6, $7, $8}'
echo "memcheck at $(( $(date +%s) - t0 )) s"
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=100 timeout 210 tools/gpu/ab_pending.sh
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; tail -9 $f | cut -c1-160; done
echo "ab at $(( $(date +%s) - t0 )) s"
for v in 0 1; do
  echo "conv bwd_d bf16 nhwc g1mb64ic256ih56iw56oc512kh1kw1sh2sw2ph0pw0" > /tmp/k1.txt
  FREEDNN_SM90_PHASES_GROUPED_SINGLE=$v FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench COUNT=6 \
    timeout 40 tools/gpu/kernel_times.sh /tmp/k1.txt --dt=bf16 --layout=nhwc > $OUT/kt_1x1s2_single$v.txt 2>&1
  head -10 $OUT/kt_1x1s2_single$v.txt | cut -c1-150
done
echo "done at $(( $(date +%s) - t0 )) s"
pack
