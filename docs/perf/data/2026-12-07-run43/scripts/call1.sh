#!/usr/bin/env bash
# Run 43 call 2: bn_cluster's phases on the 16-bit cases below a same-size copy (the trace library ref_bntrace:
# -DFREEDNN_BN_CLUSTER_TRACE, with the grid-barrier form), cluster and grid form; the grid form's tests; an A/B of
# the grid form (chunk widths 128 / 256 / 64 bytes) against the cluster kernel; ncu of both on 14x14 training.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cat .prebuilt/REV
B=$build/tools/bench/freednn-bench
TL=$build/src/ref_bntrace/libcudnn.so.8.2.0
FREEDNN_BACKEND=cuda timeout 100 $build/tests/freednn_tests --gtest_filter='BatchNorm.Cluster*' > $OUT/test_cluster.txt 2>&1
echo "ClusterKernel rc=$?"; grep -E "PASSED|FAILED|Failure" $OUT/test_cluster.txt | head -5
i=0
for P in "bn train mode=spatial x=f32:64x1024x14x14" "bn train mode=spatial x=f32:64x2048x7x7" \
         "bn bwd mode=spatial x=f32:64x2048x7x7" "bn bwd mode=spatial x=f32:64x1024x14x14"; do
  i=$((i+1)); echo "== $i $P"
  for gr in 0 1; do
    FREEDNN_BN_CLUSTER_GRID=$gr CUDNN_LOGINFO_DBG=1 CUDNN_LOGDEST_DBG=stderr timeout 30 $B --mode=P --max-ms=20 \
      --dt=f16 --layout=nhwc "$P" > $OUT/plan${i}_g$gr.txt 2>&1
    grep -iE "cluster kernel|refused" $OUT/plan${i}_g$gr.txt | sort -u | head -2
    grep TIMED $OUT/plan${i}_g$gr.txt | sed 's/.*libcudnn.so.8//' | cut -c1-200
    FREEDNN_BN_CLUSTER_GRID=$gr timeout 30 $B --lib=$TL --mode=P --no-yardsticks --iters=3 --max-ms=1 --dt=f16 \
      --layout=nhwc "$P" > $OUT/trace${i}_g$gr.txt 2>&1
    echo "trace lines $(grep -c bntrace $OUT/trace${i}_g$gr.txt)"
  done
done
echo "traces at $(el) s"
: > /tmp/bn.txt
for d in train bwd; do for l in 64x2048x7x7 64x1024x14x14 64x512x28x28; do
  echo "bn $d mode=spatial x=f32:$l" >> /tmp/bn.txt; done; done
for dt in f16 bf16; do
  REPS=3 MAX_MS=10 OUT=$OUT/ab_$dt timeout 150 tools/gpu/ab.sh /tmp/bn.txt "" "FREEDNN_BN_CLUSTER_GRID=1" \
    "FREEDNN_BN_CLUSTER_GRID=1 FREEDNN_BN_CLUSTER_GRID_CW=16" "FREEDNN_BN_CLUSTER_GRID=1 FREEDNN_BN_CLUSTER_GRID_CW=4" \
    -- --dt=$dt --layout=nhwc > /dev/null 2>&1
  echo "ab $dt rc=$?"; grep -v "^#" $OUT/ab_$dt/ab.txt | tail -12
done
echo "ab at $(el) s"
for gr in 0 1; do
  FREEDNN_BN_CLUSTER_GRID=$gr timeout 60 ncu --clock-control none --section SpeedOfLight --section WarpStateStats \
    --section MemoryWorkloadAnalysis -k regex:bn_cluster -s 2 -c 1 $B --mode=P --no-yardsticks --iters=3 --max-ms=1 \
    --dt=f16 --layout=nhwc "bn train mode=spatial x=f32:64x1024x14x14" > $OUT/ncu_g$gr.txt 2>&1
  echo "ncu grid=$gr"; grep -E "Duration|DRAM Throughput|L2 Cache Throughput|L2 Hit|Mem Busy" $OUT/ncu_g$gr.txt | head -6
done
echo "done at $(el) s"
pack
