#!/usr/bin/env bash
# run 23 call 2 (prebuilt: the plane GEMMs removed, to_chwn's plane tiles, the one-pass max-pooling backward
# rewritten and on by default, batch norm's mirrored apply walk): tests, sanitizers on the changed paths, ncu kernel
# times (TF32 7x7 1x1 backward data, pool1 backward), the queued A/B lines
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 150 ctest -L gpu -R "ConvSm90|ConvGpuGemm1x1|Pool|BatchNorm" -j14 --timeout 120 --output-on-failure > $OUT/ctest2.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest2.txt | head -20
echo "tests at $(( $(date +%s) - t0 )) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=60 SUITE_TIMEOUT=55 PARALLEL=10 PER_TEST=1 \
  ONLY='ConvSm90\.Tf32(Dgrad|Wgrad)ShapesAndLayouts|Pooling\.NhwcMaxBackwardOnePass.*|BatchNorm\.MirroredApplyMatchesPlainWalk' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=45 SUITE_TIMEOUT=40 PARALLEL=4 PER_TEST=1 \
  ONLY='Pooling\.NhwcMaxBackwardOnePass' tools/gpu/sanitize.sh racecheck > $OUT/racecheck_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "sanitizers at $(( $(date +%s) - t0 )) s"
grep -E "bwd_d .*(ic2048ih7|ic512ih7iw7oc2048)" tools/bench/batches/resnet50.txt > /tmp/k7.txt
FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench COUNT=6 \
  timeout 40 tools/gpu/kernel_times.sh /tmp/k7.txt --dt=f32 --layout=nchw --math=default > $OUT/kt_tf32.txt 2>&1
cut -c1-130 $OUT/kt_tf32.txt | head -16
grep "pool bwd mode=max" tools/bench/batches/pool_ab.txt > /tmp/kp.txt
BENCH=$build/tools/bench/freednn-bench COUNT=4 timeout 30 tools/gpu/kernel_times.sh /tmp/kp.txt --dt=f16 --layout=nhwc > $OUT/kt_pool.txt 2>&1
cut -c1-130 $OUT/kt_pool.txt | head -8
echo "kt at $(( $(date +%s) - t0 )) s"
left=$(( 570 - ($(date +%s) - t0) ))
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=90 timeout $left tools/gpu/ab_pending.sh
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; grep -v "NOT_SUP" $f | grep -v "^ *-" | tail -30 | cut -c1-150; done
echo "done at $(( $(date +%s) - t0 )) s"
pack
