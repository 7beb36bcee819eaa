#!/usr/bin/env bash
# run 30 call 8: after tma_kernel_runs: the depthwise and halo tests, and a short A/B showing the TMA kernels still run
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 70 ctest -L gpu -R "ConvGpuDepthwise|ConvGpuHaloWgrad" -j8 --timeout 65 > $OUT/dw_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/dw_ctest.txt | head -10
echo "tests at $(el) s"
grep "g144mb64ic144ih56" tools/bench/batches/mobilenet_v2_depthwise.txt | grep sh1 > /tmp/m3.txt
FREEDNN_ONLY_IMPL=cuda:depthwise BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab MAX_MS=2 \
  timeout 40 tools/gpu/ab.sh /tmp/m3.txt "" "FREEDNN_DW_TILE_TMA=0 FREEDNN_DW_WGRAD_TILE_TMA=0" -- --dt=f16 --layout=nhwc --algo=any | tail -5
echo "done at $(el) s"
