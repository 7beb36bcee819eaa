#!/usr/bin/env bash
# run 21 call 6 (prebuilt, the tree of call 4): ncu per-kernel times of the 16-bit 1x1 stride-2 56 -> 28 backward
# data (the last backward-data cases below 0.8 of NVIDIA's best), both data types
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
for dt in bf16 f16; do
  echo "conv bwd_d $dt nhwc g1mb64ic256ih56iw56oc512kh1kw1sh2sw2ph0pw0" > /tmp/k1.txt
  FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench COUNT=6 \
    timeout 40 tools/gpu/kernel_times.sh /tmp/k1.txt --dt=$dt --layout=nhwc > $OUT/kt_1x1s2_$dt.txt 2>&1
  head -8 $OUT/kt_1x1s2_$dt.txt | cut -c1-140
done
echo "done at $(( $(date +%s) - t0 )) s"
