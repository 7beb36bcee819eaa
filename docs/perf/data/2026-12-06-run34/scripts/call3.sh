#!/usr/bin/env bash
# Run 34 call 3: the whole gpu suite on the final tree's binaries (direct output removed, subsampling kept).
mkdir -p $OUT && . .devrun/common.sh && PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd build/h200 && timeout 125 ctest -L gpu -j14 --timeout 120 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
