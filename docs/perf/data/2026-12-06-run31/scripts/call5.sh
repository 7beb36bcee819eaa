#!/usr/bin/env bash
# Run 31 call 5: the depthwise kernels as programmatic dependents (FREEDNN_OPS_PDL, on by default): the whole gpu
# suite (OpsPdl.DepthwiseChainMatchesPlainLaunches new), A/B against FREEDNN_OPS_PDL=0 on MobileNet-v2's 30 cases
# (cuda:depthwise forced), the MobileNet-v2 f16 table against NVIDIA and PyTorch.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 150 ctest -L gpu -j14 --timeout 140 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=60 SUITE_TIMEOUT=55 PARALLEL=1 PER_TEST=1 \
  ONLY='OpsPdl\.DepthwiseChainMatchesPlainLaunches' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "memcheck at $(el) s"
for dt in f16 f32; do
  FREEDNN_ONLY_IMPL=cuda:depthwise BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_dwpdl_$dt MAX_MS=2 REPS=2 \
    timeout 80 tools/gpu/ab.sh tools/bench/batches/mobilenet_v2_depthwise.txt "" "FREEDNN_OPS_PDL=0" -- --dt=$dt \
    --layout=nhwc --algo=any | tail -2
done
echo "A/B at $(el) s"
PREBUILT=1 TORCH_TIMEOUT=50 CONV_TIMEOUT=90 CONV_CONFIGS="f16:nhwc:tensor" \
  CONV_BATCH=tools/bench/batches/mobilenet_v2_depthwise.txt OUT=$OUT/mb timeout 200 \
  tools/gpu/h200_check.sh conv > $OUT/mb_log_f16.txt 2>&1
grep -v "^NVIDIA" $OUT/mb_log_f16.txt | tail -4
rm -f $OUT/mb/gpu-results.tgz
echo "done at $(el) s"
pack
