#!/usr/bin/env bash
# Run 33 call 2: cuda:nchw_tf32 with 128-pixel tiles only (tests, A/B against the default choice on ResNet-50's
# TF32 forward and backward data, ncu on one layer), gemm_1x1's tests with two warpgroups now the default, then the
# TF32 table with the new kernel in Find where its tests passed.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
T=$build/tests/freednn_tests
timeout 60 $T --gtest_filter='ConvGpuNchwTf32.*:ConvGpuGemm1x1.NchwTf32*' > $OUT/nchw_tests.txt 2>&1
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  +(OK|FAILED) +\]|seed" $OUT/nchw_tests.txt | head -12
grep -A6 "Failure" $OUT/nchw_tests.txt | head -40
echo "tests at $(el) s"
knob=FREEDNN_NCHW_TF32=0
grep -q "^\[  PASSED  \] 3 tests" $OUT/nchw_tests.txt && knob=FREEDNN_NCHW_TF32=1 && echo "table with $knob"
grep -E "^conv (fwd|bwd_d) " tools/bench/batches/resnet50.txt | sort -u | grep -E "kh3|ih7iw7|ih14iw14.*sh2" > /tmp/fd.txt
[ $knob = FREEDNN_NCHW_TF32=1 ] && BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_nchw MAX_MS=2 timeout 100 \
  tools/gpu/ab.sh /tmp/fd.txt "" "FREEDNN_NCHW_TF32=1 --impl=cuda:nchw_tf32" -- --dt=f32 --layout=nchw \
  --math=default --algo=any | tail -24
echo "ab nchw at $(el) s"
if [ $knob = FREEDNN_NCHW_TF32=1 ]; then
  FREEDNN_NCHW_TF32=1 timeout 40 ncu --clock-control none --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section MemoryWorkloadAnalysis -k regex:nchw_tf32_kernel -c 1 \
    $build/tools/bench/freednn-bench --mode=P --no-yardsticks --iters=1 --max-ms=1 --dt=f32 --layout=nchw \
    --math=default --impl=cuda:nchw_tf32 "conv fwd f32 nchw g1mb64ic256ih14iw14oc256kh3kw3sh1sw1ph1pw1" \
    > $OUT/ncu.txt 2>&1
  grep -E "Duration|Compute \(SM\)|Memory Throughput|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Warp Cycles Per Issued|Registers Per|Achieved Occupancy|Stall|Bank" $OUT/ncu.txt | head -24
  echo "ncu at $(el) s"
fi
left=$(( 270 - $(el) ))
if [ $left -gt 100 ]; then
  env $knob PREBUILT=1 TORCH_TIMEOUT=70 CONV_TIMEOUT=140 CONV_CONFIGS="f32:nchw:default" \
    OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log_f32.txt 2>&1
  grep -v "^NVIDIA" $OUT/rn_log_f32.txt | tail -4
  rm -f $OUT/rn/gpu-results.tgz
fi
echo "done at $(el) s"
pack
