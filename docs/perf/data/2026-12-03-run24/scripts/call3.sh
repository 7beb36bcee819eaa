#!/usr/bin/env bash
# run 24 call 3 (prebuilt at .prebuilt/REV): bn_cluster with unrolled stash loops -- tests, memcheck, A/B (off / on /
# two blocks per SM), ncu detail of its 7x7 runs -- then the ops batch against NVIDIA in f16 and bf16 NHWC
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 60 ctest -L gpu -R "BatchNorm" -j14 --timeout 50 --output-on-failure > $OUT/ctest3.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest3.txt | head -10
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=30 SUITE_TIMEOUT=25 PARALLEL=4 PER_TEST=1 \
  ONLY='BatchNorm\.ClusterKernel' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "tests at $(el) s"
grep "^bn " tools/bench/batches/ops_bn_reduce.txt | grep -E "64x(2048x7x7|1024x14x14|512x28x28)" | grep -v infer > /tmp/bns.txt
cat > /tmp/ab.txt <<AB
/tmp/bns.txt f16:nhwc FREEDNN_BN_CLUSTER=0;-;FREEDNN_BN_CLUSTER_WAVES=2
/tmp/bns.txt bf16:nhwc FREEDNN_BN_CLUSTER=0;-;FREEDNN_BN_CLUSTER_WAVES=2
AB
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=45 MAX_MS=5 timeout 95 tools/gpu/ab_pending.sh /tmp/ab.txt
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; grep -v "NOT_SUP" $f | grep -v "^ *-" | tail -10 | cut -c1-130; done
echo "ab at $(el) s"
grep "2048x7x7" /tmp/bns.txt > /tmp/b7.txt
DETAIL=1 BENCH=$build/tools/bench/freednn-bench COUNT=1 timeout 45 tools/gpu/kernel_times.sh /tmp/b7.txt --dt=f16 --layout=nhwc > $OUT/ncu_bn.txt 2>&1
grep -E "==|Duration|DRAM Throughput|Achieved Occ|Registers|Stall|Warp Cycles" $OUT/ncu_bn.txt | head -40 | cut -c1-140
echo "ncu at $(el) s"
PREBUILT=1 CONFIGS="f16:nhwc bf16:nhwc" MAX_MS=40 OUT=$OUT/ops timeout 170 tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
python3 tools/ops_bars.py $OUT/ops/ops_f16_nhwc.json $OUT/ops/ops_bf16_nhwc.json 2>&1 | grep -v "^           [0-9]" | head -20
echo "done at $(el) s"
rm -f $OUT/ops/gpu-results.tgz
pack
