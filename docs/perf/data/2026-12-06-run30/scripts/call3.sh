#!/usr/bin/env bash
# run 30 call 3: halo_wgrad's TMA kernel: its tests (all four kernels), memcheck, A/B against the cp.async wgmma
# kernel on ResNet-50's four 3x3 stride-1 backward filters (f16, bf16), ncu of both on the 56x56x64 layer, then the
# same layer against NVIDIA and PyTorch
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 150 $build/tests/freednn_tests --gtest_filter='ConvGpuHaloWgrad.*' > $OUT/halo_tests.txt 2>&1
echo "halo tests rc=$? $(grep -E "PASSED|FAILED" $OUT/halo_tests.txt | tail -2 | tr '\n' ' ')"; grep -E "Failure|rror|halo " $OUT/halo_tests.txt | head -12
echo "tests at $(el) s"
grep -v "^#" tools/bench/batches/resnet50.txt | grep "bwd_w" | grep kh3 | grep sh1sw1 | sort -u > /tmp/h3.txt
for dt in f16 bf16; do
  FREEDNN_ONLY_IMPL=cuda:halo_wgrad BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_$dt REPS=2 \
    timeout 80 tools/gpu/ab.sh /tmp/h3.txt "" "FREEDNN_HALO_WGRAD_TMA=0" -- --dt=$dt --layout=nhwc --algo=any | tail -6
done
echo "A/B at $(el) s"
P="conv bwd_w f16 nhwc g1mb64ic64ih56iw56oc64kh3kw3sh1sw1ph1pw1"
for v in 1 0; do
  FREEDNN_HALO_WGRAD_TMA=$v FREEDNN_ONLY_IMPL=cuda:halo_wgrad timeout 60 ncu --clock-control none --section SpeedOfLight \
    --section Occupancy --section WarpStateStats -c 2 $build/tools/bench/freednn-bench --mode=P --no-yardsticks \
    --iters=1 --max-ms=1 $P > $OUT/ncu_tma$v.txt 2>&1
  echo "TMA=$v"; grep -E "^  [a-z_].*\(|Duration|Compute \(SM\)|Warp Cycles Per Issued|L2 Cache Throughput|DRAM Throughput" $OUT/ncu_tma$v.txt | head -14
done
echo "ncu at $(el) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=100 SUITE_TIMEOUT=95 PARALLEL=2 PER_TEST=1 \
  ONLY='ConvGpuHaloWgrad\.ShapesTypesModesWgmmaTma' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "memcheck at $(el) s"
nv=$(python3 -c 'import nvidia.cudnn as m;print(list(m.__path__)[0]+"/lib/libcudnn.so.9")')
for dt in f16 bf16; do
  timeout 60 $build/tools/bench/freednn-bench --mode=P --max-ms=40 --algo=any --vs=$nv --dt=$dt --layout=nhwc \
    --batch=/tmp/h3.txt > $OUT/vs_$dt.txt 2>&1; grep -E "TIMED|ratio" $OUT/vs_$dt.txt | cut -c1-260
done
echo "done at $(el) s"
