#!/usr/bin/env bash
# Run 31 call 8: the final tree's OpsPdl tests (expect_same_bits factored out of the two chains)
set -u
mkdir -p $OUT; . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader
FREEDNN_BACKEND=cuda timeout 60 $build/tests/freednn_tests --gtest_filter='OpsPdl.*' 2>&1 | tail -8
