#!/usr/bin/env bash
# Run 41 call 4: the patch tests (the FMA fused epilogue with z = y), then the f16 / bf16 / FMA tables and
# MobileNet with the stem kernels' change (cfdb322).
# Run: OUT=$OUT bash .devrun/call4.sh 2>&1 | tail -30   (carry .prebuilt)
set -u
mkdir -p $OUT/t; . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
FREEDNN_BACKEND=cuda timeout 60 $build/tests/freednn_tests --gtest_filter='ConvGpuPatch.*' > $OUT/t/patch_tests.txt 2>&1
echo "patch tests rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|seed" $OUT/t/patch_tests.txt | head -6
(cd $OUT/t && tar czf ../tests.tgz . ) && rm -rf $OUT/t
OUT=$OUT/tables PARTS="table mobilenet" CONFIGS="f16:nhwc:tensor bf16:nhwc:tensor f32:nchw:fma" LIMIT=${LIMIT:-420} \
  bash .devrun/call1.sh 2>&1 | tail -14
