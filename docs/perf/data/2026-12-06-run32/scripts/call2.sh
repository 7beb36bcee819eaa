#!/usr/bin/env bash
# Run 32 call 2: wgrad1x1_tf32 with one wave of blocks (floor, not ceil) and gated to shapes whose slot partials
# come to >= 30 % of the inputs; its tests, the A/B against the slot GEMMs, the TF32 table; then the f16 / bf16
# ResNet-50 tables (not run since run 30).
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 100 ctest -L gpu -R 'ConvGpuGemm1x1|ConvFind' -j14 --timeout 90 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
PER_TEST=1 SUITES=ConvGpuGemm1x1 ONLY='ConvGpuGemm1x1\.NchwTf32' TESTS=$build/tests/freednn_tests BUDGET=60 \
  tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
grep "^conv bwd_w" tools/bench/batches/resnet50.txt | grep "kh1kw1" | sort -u > /tmp/w1.txt
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_w1 MAX_MS=5 timeout 150 tools/gpu/ab.sh /tmp/w1.txt \
  "" "FREEDNN_WGRAD1X1_WGMMA=0" -- --dt=f32 --layout=nchw --math=default --impl=cuda:gemm_1x1 | tail -16
echo "ab at $(el) s"
B=$build/tools/bench/freednn-bench
timeout 60 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
  --section LaunchStats --section MemoryWorkloadAnalysis -k regex:wgrad1x1 -c 1 $B --mode=P --no-yardsticks \
  --iters=1 --max-ms=1 --dt=f32 --layout=nchw --math=default --impl=cuda:gemm_1x1 \
  "conv bwd_w f32 nchw g1mb64ic1024ih14iw14oc256kh1kw1sh1sw1ph0pw0" > $OUT/ncu_w1.txt 2>&1
grep -E "Duration|Compute \(SM\)|Memory Throughput|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|L2 Hit|Warp Cycles Per Issued|Grid Size|Registers Per|Achieved Occupancy|Theoretical Occ|Waves Per|Stall" $OUT/ncu_w1.txt | head -20
echo "ncu at $(el) s"
for cfg in f32:nchw:default f16:nhwc:tensor bf16:nhwc:tensor; do
  left=$(( 430 - $(el) ))
  [ $left -gt 110 ] || break
  PREBUILT=1 TORCH_TIMEOUT=70 CONV_TIMEOUT=140 CONV_CONFIGS="$cfg" \
    OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log_${cfg%%:*}.txt 2>&1
  grep -v "^NVIDIA" $OUT/rn_log_${cfg%%:*}.txt | tail -4
  rm -f $OUT/rn/gpu-results.tgz
  echo "$cfg at $(el) s"
done
echo "done at $(el) s"
pack
