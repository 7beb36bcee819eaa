#!/usr/bin/env bash
# run 23 call 2 (prebuilt at c99b173: the plane GEMMs removed, to_chwn's plane tiles, the one-pass max-pooling
# backward rewritten and on by default, batch norm's mirrored apply walk; every earlier start refused, so one call
# does it all): tests, memcheck / racecheck on the changed paths, ncu kernel times, the queued A/B lines, the ops
# batch in f16 NHWC against NVIDIA, then ResNet-50 TF32 NCHW against NVIDIA and PyTorch with the time left
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 110 ctest -L gpu -R "ConvSm90|ConvGpuGemm1x1|Pool|BatchNorm" -j14 --timeout 100 --output-on-failure > $OUT/ctest2.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest2.txt | head -20
echo "tests at $(el) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=50 SUITE_TIMEOUT=45 PARALLEL=10 PER_TEST=1 \
  ONLY='ConvSm90\.Tf32(Dgrad|Wgrad)ShapesAndLayouts|Pooling\.NhwcMaxBackwardOnePass.*|BatchNorm\.MirroredApplyMatchesPlainWalk' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=35 SUITE_TIMEOUT=30 PARALLEL=4 PER_TEST=1 \
  ONLY='Pooling\.NhwcMaxBackwardOnePass' tools/gpu/sanitize.sh racecheck > $OUT/racecheck_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "sanitizers at $(el) s"
grep -E "bwd_d .*(ic2048ih7|ic512ih7iw7oc2048)" tools/bench/batches/resnet50.txt > /tmp/k7.txt
FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench COUNT=6 \
  timeout 30 tools/gpu/kernel_times.sh /tmp/k7.txt --dt=f32 --layout=nchw --math=default > $OUT/kt_tf32.txt 2>&1
cut -c1-130 $OUT/kt_tf32.txt | head -16
grep "pool bwd mode=max" tools/bench/batches/pool_ab.txt > /tmp/kp.txt
BENCH=$build/tools/bench/freednn-bench COUNT=4 timeout 25 tools/gpu/kernel_times.sh /tmp/kp.txt --dt=f16 --layout=nhwc > $OUT/kt_pool.txt 2>&1
cut -c1-130 $OUT/kt_pool.txt | head -8
echo "kt at $(el) s"
# the A/B lines that decide defaults (the full list is tools/gpu/ab_pending.txt)
grep -E "sm90_dgrad,FREEDNN_CHWN|pool_ab.txt f16|ops_bn_reduce.txt f16" tools/gpu/ab_pending.txt > /tmp/ab.txt
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=75 timeout 200 tools/gpu/ab_pending.sh /tmp/ab.txt
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; grep -v "NOT_SUP" $f | grep -v "^ *-" | tail -28 | cut -c1-150; done
echo "ab at $(el) s"
PREBUILT=1 CONFIGS="f16:nhwc" MAX_MS=60 OUT=$OUT/ops timeout 100 tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
python3 tools/ops_bars.py $OUT/ops/ops_f16_nhwc.json 2>&1 | tail -4
echo "ops at $(el) s"
left=$(( 575 - $(el) ))
[ $left -gt 60 ] && PREBUILT=1 TORCH_TIMEOUT=60 CONV_TIMEOUT=120 CONV_CONFIGS="f32:nchw:default" MAX_MS=10 \
  OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log.txt 2>&1
grep -v "^NVIDIA" $OUT/rn_log.txt 2>/dev/null
echo "done at $(el) s"
rm -f $OUT/rn/gpu-results.tgz $OUT/ops/gpu-results.tgz
pack
