#!/usr/bin/env bash
# run 20 call 5 (prebuilt): the stride phases one after the other on one stream (FREEDNN_SM90_PHASES_SERIAL=1)
# against the concurrent streams, each side twice (how much the concurrent phases vary); the bf16 ResNet backward
# filter layers twice (the 14 -> 7 stride-2 one ran 1.8x slower in call 3 than in run 19); memcheck over the
# stride-phase tests (the narrow and serial sub-cases)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
o=FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad
cat > /tmp/ab5.txt <<AB
tools/bench/batches/resnet50_bwd_d_s2.txt f16:nhwc:any:tensor $o;$o,FREEDNN_SM90_PHASES_SERIAL=1;$o;$o,FREEDNN_SM90_PHASES_SERIAL=1
tools/bench/batches/resnet50_bwd_d_s2.txt bf16:nhwc:any:tensor $o;$o,FREEDNN_SM90_PHASES_SERIAL=1;$o;$o,FREEDNN_SM90_PHASES_SERIAL=1
tools/bench/batches/resnet50_bwd_d_s2.txt f32:nchw:any:default $o;$o,FREEDNN_SM90_PHASES_SERIAL=1
tools/bench/batches/resnet50_bwd_w.txt bf16:nhwc:any:tensor -;-
AB
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=100 timeout 260 tools/gpu/ab_pending.sh /tmp/ab5.txt
echo "ab at $(( $(date +%s) - t0 )) s"
left=$(( 380 - ($(date +%s) - t0) ))
[ $left -gt 30 ] && OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=$left SUITE_TIMEOUT=$left PARALLEL=14 PER_TEST=1 \
  ONLY='ConvSm90\.(Dgrad16|DeepPipeline|Tf32Dgrad)' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep "^memcheck " $OUT/sanitize/summary.txt | awk '{print $2, $3}'
(cd $build && timeout 60 ctest -L gpu -R "ConvSm90" -j8 --timeout 50 > $OUT/ctest5.txt 2>&1); grep -E "tests passed|\*\*\*Failed" $OUT/ctest5.txt
echo "done at $(( $(date +%s) - t0 )) s"
pack
