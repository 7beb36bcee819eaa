#!/usr/bin/env bash
# Run 42's first call (written in run 41, not run there: no device time was left): the whole gpu suite (run 41's
# last commits are unrun), the patch tests (the FMA
# fused epilogue with z = y), per-kernel times of the FMA 3x3 56x56 winograd layers, then the FMA and f16 tables
# after the stem change (cfdb322). Run: LIMIT=540 OUT=$OUT bash .devrun/next.sh 2>&1 | tail -40   (carry .prebuilt)
set -u
mkdir -p $OUT/t; . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && FREEDNN_BACKEND=cuda timeout 200 ctest -L gpu -j14 --timeout 90 --output-on-failure > $OUT/t/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/t/gpu_ctest.txt | head -10
FREEDNN_BACKEND=cuda timeout 60 $build/tests/freednn_tests --gtest_filter='ConvGpuPatch.*' > $OUT/t/patch_tests.txt 2>&1
echo "patch tests rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|seed" $OUT/t/patch_tests.txt | head -6
printf '%s\n' "conv fwd f32 nchw g1mb64ic64ih56iw56oc64kh3kw3sh1sw1ph1pw1" "conv bwd_d f32 nchw g1mb64ic64ih56iw56oc64kh3kw3sh1sw1ph1pw1" > /tmp/w.txt
FREEDNN_BACKEND=cuda BENCH=$build/tools/bench/freednn-bench COUNT=8 timeout 40 tools/gpu/kernel_times.sh /tmp/w.txt --math=fma --algo=any > $OUT/t/wino_kernels.txt 2>&1
cat $OUT/t/wino_kernels.txt | head -24
(cd $OUT/t && tar czf ../tests.tgz . ) && rm -rf $OUT/t
OUT=$OUT/tables PARTS="table" CONFIGS="f32:nchw:fma f16:nhwc:tensor" LIMIT=${LIMIT:-230} \
  bash .devrun/call1.sh 2>&1 | tail -10
