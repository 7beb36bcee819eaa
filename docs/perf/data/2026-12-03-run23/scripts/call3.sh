#!/usr/bin/env bash
# run 23 call 3 (prebuilt at the commit in .prebuilt/REV: to_chwn's plane tiles only with 16-byte loads, batch norm
# back to run 19's code): TF32 tests and memcheck, ncu of the 7x7 dgrad copy, ResNet-50 TF32 NCHW against NVIDIA
# and PyTorch, the ops batch in bf16 NHWC, the remaining A/B lines (pooling bf16 / f32, the wgrad's copy)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 100 ctest -L gpu -R "ConvSm90\.Tf32|BatchNorm|Pool" -j14 --timeout 90 --output-on-failure > $OUT/ctest3.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest3.txt | head -20
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=40 SUITE_TIMEOUT=35 PARALLEL=8 PER_TEST=1 \
  ONLY='ConvSm90\.Tf32(Dgrad|Wgrad)ShapesAndLayouts' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
grep -E "bwd_d .*(ic2048ih7|ic512ih7iw7oc2048)" tools/bench/batches/resnet50.txt > /tmp/k7.txt
FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench COUNT=3 \
  timeout 30 tools/gpu/kernel_times.sh /tmp/k7.txt --dt=f32 --layout=nchw --math=default > $OUT/kt_tf32.txt 2>&1
cut -c1-110 $OUT/kt_tf32.txt | head -8
echo "checks at $(el) s"
PREBUILT=1 TORCH_TIMEOUT=80 CONV_TIMEOUT=150 CONV_CONFIGS="f32:nchw:default" \
  OUT=$OUT/rn timeout 260 tools/gpu/h200_check.sh conv > $OUT/rn_log.txt 2>&1
grep -v "^NVIDIA" $OUT/rn_log.txt
echo "resnet at $(el) s"
PREBUILT=1 CONFIGS="bf16:nhwc" MAX_MS=60 OUT=$OUT/ops timeout 90 tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
python3 tools/ops_bars.py $OUT/ops/ops_bf16_nhwc.json 2>&1 | tail -3
echo "ops at $(el) s"
left=$(( 500 - $(el) ))
[ $left -gt 30 ] && BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=60 timeout $left tools/gpu/ab_pending.sh
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; grep "geomean" $f | tail -4; done
echo "done at $(el) s"
rm -f $OUT/rn/gpu-results.tgz $OUT/ops/gpu-results.tgz
pack
