#!/usr/bin/env bash
# Run 34 call 1: direct NCHW outputs from the persistent TF32 kernels (FREEDNN_SM90_DIRECT_OUT): the sm90 tests, an
# A/B (knob 1 against 0) on ResNet-50's TF32 forward / backward-data layers that cutlass_sm90 serves, memcheck on
# the new test, then the TF32 table with NVIDIA in the same call.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cat .prebuilt/REV
T=$build/tests/freednn_tests
timeout 150 $T --gtest_filter='ConvSm90.Tf32*:ConvSm90.SubsampledStridedOneByOne:ConvSm90.HalfForwardStagedLayouts:ConvSm90.PersistentForward:ConvSm90.FusedBiasActivation' > $OUT/sm90_tests.txt 2>&1
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  +(OK|FAILED) +\]|seed" $OUT/sm90_tests.txt | head -30
grep -B2 -A8 "Failure" $OUT/sm90_tests.txt | head -60
echo "tests at $(el) s"
B=tools/bench/batches/resnet50.txt
grep -E "^conv fwd " $B | sort -u | grep -E "kh3|ih7iw7|sh2" | grep -v ic3ih224 > /tmp/fwd.txt
grep -E "^conv bwd_d " $B | sort -u | grep -E "kh3|ih7iw7|ih14iw14.*sh2" | grep -v ic3ih224 > /tmp/bwd.txt
wc -l /tmp/fwd.txt /tmp/bwd.txt
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_fwd MAX_MS=3 timeout 120 tools/gpu/ab.sh /tmp/fwd.txt \
  "FREEDNN_SM90_DIRECT_OUT=0 FREEDNN_SM90_SUBSAMPLE=0" "FREEDNN_SM90_SUBSAMPLE=0" "" -- --dt=f32 --layout=nchw --math=default --impl=cuda:cutlass_sm90_fprop | tail -20
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_bwd MAX_MS=3 timeout 120 tools/gpu/ab.sh /tmp/bwd.txt \
  "FREEDNN_SM90_DIRECT_OUT=0" "" -- --dt=f32 --layout=nchw --math=default --impl=cuda:cutlass_sm90_dgrad | tail -20
echo "ab at $(el) s"
left=$(( 430 - $(el) ))
if [ $left -gt 150 ]; then
  PREBUILT=1 TORCH_TIMEOUT=70 CONV_TIMEOUT=140 CONV_CONFIGS="f32:nchw:default" \
    OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log_f32.txt 2>&1
  grep -v "^NVIDIA" $OUT/rn_log_f32.txt | tail -4
  rm -f $OUT/rn/gpu-results.tgz
fi
left=$(( 520 - $(el) ))
[ $left -gt 20 ] && timeout $left compute-sanitizer --tool memcheck --print-limit 5 $T --gtest_filter='ConvSm90.Tf32DirectOutput:ConvSm90.SubsampledStridedOneByOne' > $OUT/memcheck.txt 2>&1
tail -3 $OUT/memcheck.txt
echo "done at $(el) s"
pack
