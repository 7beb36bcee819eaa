#!/usr/bin/env bash
# run 27 call 5: ncu detail of the one-pass max-pooling backward, the final kernel against 08fcb55's (7b92fcc's
# pooling code), f16 pool1: why the lean kernel is slower on an H100 while faster on the H200
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader
grep "pool bwd mode=max" tools/bench/batches/ops_resnet50.txt > /tmp/pool.txt
for lib in new 08fcb55; do
  extra=(); [ $lib != new ] && extra=(--lib=$build/src/old_$lib/libcudnn.so.8.2.0)
  DETAIL=1 BENCH=$build/tools/bench/freednn-bench COUNT=1 timeout 45 tools/gpu/kernel_times.sh /tmp/pool.txt --dt=f16 --layout=nhwc "${extra[@]}" > $OUT/ncu_$lib.txt 2>&1
  echo "== $lib"; grep -E "Duration|DRAM Thr|Compute \(SM\)|Warp Cycles Per Issued|Achieved Occ|Issue Slots|L1/TEX Hit|Mem Busy|Max Bandwidth|Executed Ipc A" $OUT/ncu_$lib.txt | head -12
done
echo "done at $(( $(date +%s) - t0 )) s"
pack
