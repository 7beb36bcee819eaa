#!/usr/bin/env bash
# run 21 call 6 (prebuilt): the grouped and split-K wgrad kernels with their pipeline setup in one shared helper
# (sm90_ws_pipelines.cuh; the wgrad's PTX unchanged, the grouped kernel's one parameter load moved): their tests;
# ncu per-kernel times of the 16-bit 1x1 stride-2 56 -> 28 backward data (the last backward-data case below 0.8)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 75 ctest -L gpu -R "ConvSm90" -j14 --timeout 70 --output-on-failure > $OUT/ctest6.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout" $OUT/ctest6.txt | head
echo "tests at $(( $(date +%s) - t0 )) s"
for dt in bf16; do
  echo "conv bwd_d $dt nhwc g1mb64ic256ih56iw56oc512kh1kw1sh2sw2ph0pw0" > /tmp/k1.txt
  FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench COUNT=6 \
    timeout 30 tools/gpu/kernel_times.sh /tmp/k1.txt --dt=$dt --layout=nhwc > $OUT/kt_1x1s2_$dt.txt 2>&1
  head -8 $OUT/kt_1x1s2_$dt.txt | cut -c1-140
done
echo "done at $(( $(date +%s) - t0 )) s"
