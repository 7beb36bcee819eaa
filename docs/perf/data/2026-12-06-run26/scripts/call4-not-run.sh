#!/usr/bin/env bash
# run 26 call 4: bn_cluster with one or two chunks per cluster (FREEDNN_BN_CLUSTER_SUB=2): tests, sanitizers,
# the A/B against one chunk, kernel times of both (one chunk's against call 1's / call 3's: the loop around it)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 40 ctest -L gpu -R "BatchNorm" -j14 --timeout 35 --output-on-failure > $OUT/ctest4.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest4.txt | head -10
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=20 SUITE_TIMEOUT=18 PARALLEL=2 PER_TEST=1 \
  ONLY='BatchNorm\.ClusterKernel' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "tests at $(el) s"
grep "^bn " tools/bench/batches/ops_bn_reduce.txt | grep -E "(train|bwd) .*64x(2048x7x7|1024x14x14)" > /tmp/bnc.txt
FREEDNN_BN_CLUSTER_SUB=2 CUDNN_LOGINFO_DBG=1 CUDNN_LOGDEST_DBG=stderr timeout 30 $build/tools/bench/freednn-bench \
  --mode=C --dt=f16 --layout=nhwc --batch=/tmp/bnc.txt > $OUT/sub2_check.txt 2>&1
grep -E "PASSED|FAILED|NOT_SUP" $OUT/sub2_check.txt | cut -c1-50; grep "cluster kernel" $OUT/sub2_check.txt | sort -u | cut -c1-170 | head -4
cat > /tmp/ab.txt <<AB
/tmp/bnc.txt f16:nhwc -;FREEDNN_BN_CLUSTER_SUB=2
AB
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=30 MAX_MS=5 timeout 35 tools/gpu/ab_pending.sh /tmp/ab.txt
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; grep -v "NOT_SUP" $f | grep -v "^ *-" | tail -7 | cut -c1-140; done
BENCH=$build/tools/bench/freednn-bench COUNT=2 timeout 30 tools/gpu/kernel_times.sh /tmp/bnc.txt --dt=f16 --layout=nhwc > $OUT/kt_sub1.txt 2>&1
FREEDNN_BN_CLUSTER_SUB=2 BENCH=$build/tools/bench/freednn-bench COUNT=2 timeout 30 tools/gpu/kernel_times.sh /tmp/bnc.txt --dt=f16 --layout=nhwc > $OUT/kt_sub2.txt 2>&1
paste -d'|' <(cut -c1-60 $OUT/kt_sub1.txt) <(cut -c1-60 $OUT/kt_sub2.txt) | head -16
echo "done at $(el) s"
pack
