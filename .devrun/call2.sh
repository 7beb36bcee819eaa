#!/usr/bin/env bash
# run 30 call 2: wgmma issue rate by N (tools/gpu/wgmma_rate_probe.cu), and halo_wgrad's tensor-pipe use under ncu
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -o /tmp/wgmma_rate tools/gpu/wgmma_rate_probe.cu > $OUT/nvcc.txt 2>&1
timeout 60 /tmp/wgmma_rate | tee $OUT/rate.txt
echo "probe at $(el) s"
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
ncu --query-metrics 2>/dev/null | grep -i -E "tensor|gmma" | head -40 > $OUT/metrics.txt
cat $OUT/metrics.txt | cut -c1-120
P="conv bwd_w f16 nhwc g1mb64ic64ih56iw56oc64kh3kw3sh1sw1ph1pw1"
for m in $(grep -o -E "^sm__pipe_tensor[a-z_]*gmma[a-z_]*|^sm__inst_executed_pipe_tensor[a-z_]*" $OUT/metrics.txt | sort -u | head -6); do
  ms="${ms:+$ms,}$m.avg.pct_of_peak_sustained_active"
done
echo "metrics: ${ms:-none}"
FREEDNN_ONLY_IMPL=cuda:halo_wgrad timeout 120 ncu --clock-control none ${ms:+--metrics $ms} --section SpeedOfLight \
  --section Occupancy --section WarpStateStats -c 4 $build/tools/bench/freednn-bench --mode=P --no-yardsticks \
  --iters=1 --max-ms=1 $P > $OUT/ncu_halo.txt 2>&1
grep -E "^  [a-z_].*\(|Duration|pct|Compute \(SM\)|Occupancy|Stall|Issued Warp|Warp Cycles|sm__|Registers" $OUT/ncu_halo.txt | head -60
echo "done at $(el) s"
