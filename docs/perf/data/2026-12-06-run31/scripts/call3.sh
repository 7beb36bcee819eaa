#!/usr/bin/env bash
# Run 31 call 3: ncu of bn_cluster on the 16-bit ResNet-50 cases furthest below a same-size copy (training 14x14x1024
# and 7x7x2048, backward 7x7x2048), the plan it logs; then the MobileNet-v2 f16 table with the stride-2 TMA tile.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
B=$build/tools/bench/freednn-bench
i=0
for P in "bn train mode=spatial x=f32:64x1024x14x14" "bn train mode=spatial x=f32:64x2048x7x7" \
         "bn bwd mode=spatial x=f32:64x2048x7x7"; do
  i=$((i+1))
  CUDNN_LOGINFO_DBG=1 CUDNN_LOGDEST_DBG=stderr timeout 30 $B --mode=P --no-yardsticks --iters=3 --max-ms=2 --dt=f16 --layout=nhwc "$P" \
    > $OUT/plan$i.txt 2>&1
  grep -iE "cluster kernel|ms \(" $OUT/plan$i.txt | sort -u | head -4
  timeout 60 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section LaunchStats --section MemoryWorkloadAnalysis -k regex:bn_ -c 2 $B --mode=P --no-yardsticks --iters=1 \
    --max-ms=1 --dt=f16 --layout=nhwc "$P" > $OUT/ncu$i.txt 2>&1
  echo "== $P"; grep -E "^  [a-z_].*\(|Duration|Compute \(SM\)|Memory Throughput|DRAM Throughput|Warp Cycles Per Issued|Cluster Size|Grid Size|Registers Per|Dynamic Shared|Achieved Occupancy|Stall" $OUT/ncu$i.txt | head -24
done
echo "ncu at $(el) s"
for cfg in f16:nhwc:tensor; do
  PREBUILT=1 TORCH_TIMEOUT=50 CONV_TIMEOUT=90 CONV_CONFIGS="$cfg" \
    CONV_BATCH=tools/bench/batches/mobilenet_v2_depthwise.txt OUT=$OUT/mb timeout 200 \
    tools/gpu/h200_check.sh conv > $OUT/mb_log_${cfg%%:*}.txt 2>&1
  grep -v "^NVIDIA" $OUT/mb_log_${cfg%%:*}.txt | tail -4
  rm -f $OUT/mb/gpu-results.tgz
  echo "$cfg at $(el) s"
done
echo "done at $(el) s"
pack
