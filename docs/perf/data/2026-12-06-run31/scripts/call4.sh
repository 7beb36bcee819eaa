#!/usr/bin/env bash
# Run 31 call 4: bn_cluster's blocks per cluster (FREEDNN_BN_CLUSTER_G: 2 is what the plan takes; 4 and 8 give wider
# channel chunks, 64 / 128 bytes per row at 14x14x1024) on the 16-bit training and backward cases, f16 and bf16.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
printf '%s\n' "bn train mode=spatial x=f32:64x512x28x28" "bn train mode=spatial x=f32:64x1024x14x14" \
  "bn train mode=spatial x=f32:64x2048x7x7" "bn bwd mode=spatial x=f32:64x512x28x28" \
  "bn bwd mode=spatial x=f32:64x1024x14x14" "bn bwd mode=spatial x=f32:64x2048x7x7" > /tmp/bnc.txt
for dt in f16 bf16; do
  BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_g_$dt REPS=2 MAX_MS=10 timeout 100 tools/gpu/ab.sh /tmp/bnc.txt \
    "" "FREEDNN_BN_CLUSTER_G=4" "FREEDNN_BN_CLUSTER_G=8" "FREEDNN_BN_CLUSTER_G=1" -- --dt=$dt --layout=nhwc | tail -11
done
for G in 4 8; do
  CUDNN_LOGINFO_DBG=1 CUDNN_LOGDEST_DBG=stderr FREEDNN_BN_CLUSTER_G=$G timeout 30 $build/tools/bench/freednn-bench \
    --mode=P --no-yardsticks --iters=1 --max-ms=1 --dt=f16 --layout=nhwc --batch=/tmp/bnc.txt 2>&1 | grep "cluster kernel" | sort -u
done
echo "done at $(el) s"
pack
