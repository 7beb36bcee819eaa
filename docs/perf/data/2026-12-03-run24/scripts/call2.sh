#!/usr/bin/env bash
# run 24 call 2 (prebuilt here at the commit in .prebuilt/REV): the cluster batch norm (bn_cluster.cuh) -- its tests
# and sanitizers, its A/B against the other paths, its kernel times -- then the f16 NHWC ops batch against NVIDIA
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 100 ctest -L gpu -R "BatchNorm|Pool" -j14 --timeout 90 --output-on-failure > $OUT/ctest2.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest2.txt | head -20
grep -A12 "ClusterKernel" $OUT/ctest2.txt | grep -E "Failure|differs|error|FAILED" | head -10
echo "tests at $(el) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=40 SUITE_TIMEOUT=35 PARALLEL=6 PER_TEST=1 \
  ONLY='BatchNorm\.ClusterKernel|Pooling\.NhwcMaxBackwardOnePass' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=40 SUITE_TIMEOUT=35 PARALLEL=4 PER_TEST=1 \
  ONLY='BatchNorm\.ClusterKernel' tools/gpu/sanitize.sh racecheck > $OUT/racecheck_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "sanitizers at $(el) s"
grep "^bn " tools/bench/batches/ops_bn_reduce.txt > /tmp/bn.txt
cat > /tmp/ab.txt <<AB
/tmp/bn.txt f16:nhwc FREEDNN_BN_CLUSTER=0;-;FREEDNN_BN_CLUSTER_G=8;FREEDNN_BN_CLUSTER_G=2
/tmp/bn.txt bf16:nhwc FREEDNN_BN_CLUSTER=0;-
AB
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=70 MAX_MS=5 timeout 150 tools/gpu/ab_pending.sh /tmp/ab.txt
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; grep -v "NOT_SUP" $f | grep -v "^ *-" | tail -22 | cut -c1-140; done
echo "ab at $(el) s"
grep -E "64x(2048x7x7|1024x14x14|512x28x28)" /tmp/bn.txt | grep -v infer > /tmp/bns.txt
BENCH=$build/tools/bench/freednn-bench COUNT=2 timeout 45 tools/gpu/kernel_times.sh /tmp/bns.txt --dt=f16 --layout=nhwc > $OUT/kt_bn.txt 2>&1
cut -c1-150 $OUT/kt_bn.txt
CUDNN_LOGINFO_DBG=1 CUDNN_LOGDEST_DBG=stderr timeout 20 $build/tools/bench/freednn-bench --mode=P --no-yardsticks --iters=1 --max-ms=1 --dt=f16 --layout=nhwc --batch=/tmp/bns.txt 2>&1 | grep -i "cluster" | sort | uniq -c | head
echo "kt at $(el) s"
PREBUILT=1 CONFIGS="f16:nhwc" MAX_MS=60 OUT=$OUT/ops timeout 110 tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
python3 tools/ops_bars.py $OUT/ops/ops_f16_nhwc.json 2>&1 | head -40
echo "done at $(el) s"
rm -f $OUT/ops/gpu-results.tgz
pack
