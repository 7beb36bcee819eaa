#!/usr/bin/env bash
# For the next session (not run yet). FREEDNN_SM90_RASTER_N=1 (the grouped kernel's tiles n-fastest, written after
# run 28's device time ran out): its test, memcheck, an A/B against the default on ResNet-50's 16-bit forwards and
# stride-2 backward data (kernels forced), and ncu's DRAM throughput of the 1x1 stride-2 forward with and without.
# Needs the prebuilt of 07e692c or later (tools/gpu/prebuilt.sh pack); copy to .devrun/ with common.sh and run as
# `OUT=$OUT bash .devrun/next-raster-ab.sh`.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 150 $build/tests/freednn_tests --gtest_filter='ConvSm90.PingPongGrouped' > $OUT/pp.txt 2>&1
echo "PingPongGrouped: rc=$? $(grep -E "PASSED|FAILED" $OUT/pp.txt | tail -1)"; grep -E "Failure|trace" $OUT/pp.txt | head -8
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=120 SUITE_TIMEOUT=115 PARALLEL=2 PER_TEST=1 \
  ONLY='ConvSm90\.PingPongGrouped' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "tests at $(el) s"
grep -v "^#" tools/bench/batches/resnet50.txt | grep "^conv fwd" | grep -v ic3ih224 | sort -u > /tmp/fwd.txt
grep -v "^#" tools/bench/batches/resnet50.txt | grep "bwd_d" | grep "sh2sw2" | grep -v ic3ih224 | sort -u > /tmp/s2.txt
# tools/gpu/ab.sh: the two variants in turn, twice (REPS), per-case medians, ratios and geomeans in ab.txt
for dt in f16 bf16; do
  FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_fprop BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_fwd_$dt REPS=2 \
    timeout 150 tools/gpu/ab.sh /tmp/fwd.txt "" "FREEDNN_SM90_RASTER_N=1" -- --dt=$dt --layout=nhwc --algo=any | tail -2
  FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_s2_$dt REPS=2 \
    timeout 90 tools/gpu/ab.sh /tmp/s2.txt "" "FREEDNN_SM90_RASTER_N=1" -- --dt=$dt --layout=nhwc --algo=any | tail -8
done
echo "A/B at $(el) s"
grep "kh1kw1sh2" /tmp/fwd.txt | head -1 > /tmp/f1.txt
for v in X=0 FREEDNN_SM90_RASTER_N=1; do
  env $v DETAIL=1 FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_fprop BENCH=$build/tools/bench/freednn-bench COUNT=2 timeout 60 \
    tools/gpu/kernel_times.sh /tmp/f1.txt --dt=f16 --layout=nhwc --algo=any > $OUT/ncu_$v.txt 2>&1
  echo "== $v"; grep -E "Duration|DRAM Thr" $OUT/ncu_$v.txt | head -4
done
echo "done at $(el) s"

# if an H200 came: this tree's ResNet-50 f16 / bf16 tables (Find against Find, PyTorch too)
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && [ $(el) -lt 330 ]; then
  PREBUILT=1 TORCH_TIMEOUT=110 CONV_TIMEOUT=120 CONV_CONFIGS="f16:nhwc:tensor bf16:nhwc:tensor" OUT=$OUT/rn \
    tools/gpu/h200_check.sh conv > $OUT/rn_log.txt 2>&1; echo "conv tables rc=$? at $(el) s"
fi
pack
