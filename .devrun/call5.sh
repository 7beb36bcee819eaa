#!/usr/bin/env bash
# run 30 call 5: the depthwise tile kernels on TMA: their tests (and halo_wgrad's), memcheck, A/B against cp.async on
# MobileNet-v2's depthwise batch (f16, bf16)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 150 ctest -L gpu -R "ConvGpuDepthwise|ConvGpuHaloWgrad" -j8 --timeout 140 > $OUT/dw_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/dw_ctest.txt | head -10
echo "tests at $(el) s"
M=tools/bench/batches/mobilenet_v2_depthwise.txt
for dt in f16 bf16; do
  FREEDNN_ONLY_IMPL=cuda:depthwise BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_$dt REPS=2 \
    timeout 100 tools/gpu/ab.sh $M "" "FREEDNN_DW_TILE_TMA=0 FREEDNN_DW_WGRAD_TILE_TMA=0" -- --dt=$dt --layout=nhwc --algo=any | tail -34
done
echo "A/B at $(el) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=120 SUITE_TIMEOUT=110 PARALLEL=2 PER_TEST=1 \
  ONLY='ConvGpuDepthwise\.(BackwardFilterTileNhwc|TileStride1Nhwc)' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "done at $(el) s"
pack
