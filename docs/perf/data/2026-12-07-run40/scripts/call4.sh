#!/usr/bin/env bash
# Run 40 call 6: the flat chwn tiles for any plane size (the TF32 staging copies of KCRS filters): the new test and
# the whole gpu suite; A/B against the library before (build/h200/src/ref_main_e99) on ResNet-50's 3x3 / 7x7 TF32
# NCHW layers, forced to the sm90 impls, per direction; ncu kernel times of the 7x7 3x3 forward.
# Run: OUT=$OUT bash .devrun/call4.sh 2>&1 | tee $OUT/log.txt | tail -60   (carry .prebuilt)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cat .prebuilt/REV
T=$build/tests/freednn_tests
export FREEDNN_BACKEND=cuda
timeout 90 $T --gtest_filter='ConvSm90.Tf32*' > $OUT/tf32.txt 2>&1
echo "ConvSm90.Tf32* rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|seed" $OUT/tf32.txt | head -8
(cd $build && timeout 200 ctest -L gpu -j14 --timeout 90 --output-on-failure > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
REF=--lib=$build/src/ref_main_e99/libcudnn.so.8.2.0
for d in fwd:cutlass_sm90_fprop bwd_d:cutlass_sm90_dgrad bwd_w:cutlass_sm90_wgrad; do
  grep -E "^conv ${d%%:*} .*kh(3|7)" tools/bench/batches/resnet50.txt | sed 's/ *#.*//' > /tmp/ab_${d%%:*}.txt
  BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_${d%%:*} MAX_MS=4 REPS=3 timeout 100 tools/gpu/ab.sh /tmp/ab_${d%%:*}.txt \
    "" "$REF" -- --dt=f32 --layout=nchw --math=default --impl=cuda:${d##*:} | tail -12
done
echo "ab at $(el) s"
printf '%s\n' "conv fwd f32 nchw g1mb64ic512ih7iw7oc512kh3kw3sh1sw1ph1pw1" > /tmp/k.txt
BENCH=$build/tools/bench/freednn-bench COUNT=3 timeout 60 tools/gpu/kernel_times.sh /tmp/k.txt --dt=f32 --layout=nchw \
  --math=default --impl=cuda:cutlass_sm90_fprop 2>&1 | head -6
echo "done at $(el) s"
pack
