#!/usr/bin/env bash
# run 26 call 1 (twenty-third session, prebuilt here): the batch-norm / pooling tests after TensorView::offset's
# generic path was rolled (bn_cluster 10.7K -> 4.3K SASS instructions), the statistics inputs prefetched before the
# cluster barrier, the relaxed exit arrive, and the tiled inference by default below 32 MB; their sanitizers;
# ncu of the small batch norms (kernel times cold, warp states); the ops batch against NVIDIA in all three configs
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 70 ctest -L gpu -R "BatchNorm|Pool|Normaliz|FusedOps" -j14 --timeout 60 --output-on-failure > $OUT/ctest1.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest1.txt | head -10
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=45 SUITE_TIMEOUT=40 PARALLEL=8 PER_TEST=1 \
  ONLY='BatchNorm\.(InferLeanKernels|ClusterKernel|ForwardTrainingRandom|BackwardRandom)' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=35 SUITE_TIMEOUT=30 PARALLEL=4 PER_TEST=1 \
  ONLY='BatchNorm\.ClusterKernel' tools/gpu/sanitize.sh racecheck > $OUT/racecheck_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "tests at $(el) s"
grep "^bn " tools/bench/batches/ops_bn_reduce.txt | grep -E "64x(2048x7x7|1024x14x14)" > /tmp/bns.txt
BENCH=$build/tools/bench/freednn-bench COUNT=4 timeout 40 tools/gpu/kernel_times.sh /tmp/bns.txt --dt=f16 --layout=nhwc > $OUT/kt_bn.txt 2>&1
cut -c1-140 $OUT/kt_bn.txt | head -30
grep -E "train|bwd" /tmp/bns.txt | grep 2048x7x7 > /tmp/bn7.txt
DETAIL=1 BENCH=$build/tools/bench/freednn-bench COUNT=1 timeout 60 tools/gpu/kernel_times.sh /tmp/bn7.txt --dt=f16 --layout=nhwc > $OUT/ncu_bn7.txt 2>&1
grep -E "==|Duration|DRAM Thr|Stall|Warp Cycles|Eligible|Registers" $OUT/ncu_bn7.txt | head -30
echo "ncu at $(el) s"
PREBUILT=1 CONFIGS="f16:nhwc bf16:nhwc f32:nchw" MAX_MS=40 OUT=$OUT/ops timeout 330 tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
for c in f16_nhwc bf16_nhwc f32_nchw; do python3 tools/ops_bars.py $OUT/ops/ops_$c.json 2>&1 | head -60 > $OUT/bars_$c.txt; head -8 $OUT/bars_$c.txt; done
grep -hE "^bn " $OUT/ops/ops_f16_nhwc.txt | cut -c1-160 | head -20
rm -f $OUT/ops/gpu-results.tgz
echo "done at $(el) s"
pack
