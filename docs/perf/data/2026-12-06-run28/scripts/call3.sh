#!/usr/bin/env bash
# run 28 call 3: how the 1x1 stride-2 backward data's GEMM and its pass over the empty phases share the GPU:
# the pass after the kernel on one stream (FREEDNN_SM90_PHASES_SERIAL=1), the pass on k blocks per SM
# (FREEDNN_SM90_FILL_BLOCKS_PER_SM=k), against 3285569's pass (ref); ncu of the 1x1 stride-2 forward on
# cutlass_sm90_fprop and of the 3x3 stride-2 backward data
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for v in "X=0" "FREEDNN_SM90_PHASES_SERIAL=1" "FREEDNN_SM90_FILL_BLOCKS_PER_SM=1" "FREEDNN_SM90_FILL_BLOCKS_PER_SM=4"; do
  env $v $build/tests/freednn_tests --gtest_filter='ConvSm90.Dgrad16StridePhases' > $OUT/t.txt 2>&1
  echo "$v: $(grep -E "PASSED|FAILED" $OUT/t.txt | tail -1)"
done
echo "tests at $(el) s"
grep -v "^#" tools/bench/batches/resnet50.txt | grep "bwd_d" | grep "kh1kw1sh2sw2" | sort -u > /tmp/s2.txt
ref=$build/src/ref_fill_3285569/libcudnn.so.8.2.0
for rep in 1 2; do for dt in f16 bf16; do for v in new ref "FREEDNN_SM90_PHASES_SERIAL=1" "FREEDNN_SM90_FILL_BLOCKS_PER_SM=1" "FREEDNN_SM90_FILL_BLOCKS_PER_SM=2" "FREEDNN_SM90_FILL_BLOCKS_PER_SM=4" "ref FREEDNN_SM90_PHASES_SERIAL=1"; do
  extra=(); case "$v" in ref*) extra=(--lib=$ref);; esac
  e="X=0"; case "$v" in *FREEDNN*) e=${v#ref };; esac
  env $e FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad timeout 40 $build/tools/bench/freednn-bench --mode=P --dt=$dt --layout=nhwc \
    --algo=any --max-ms=10 --batch=/tmp/s2.txt "${extra[@]}" > $OUT/ab.txt 2>&1
  echo "$rep $dt $v: $(grep TIMED $OUT/ab.txt | sed -E 's/.*g1mb64(ic[0-9]+ih[0-9]+)[^ ]*(kh[0-9])kw.*libcudnn.so[^ ]* ([0-9.]+) ms.*/\1\2 \3/' | tr '\n' ' ')"
  cat $OUT/ab.txt >> $OUT/ab_all.txt
done; done; done
echo "A/B at $(el) s"
head -1 /tmp/s2.txt > /tmp/s2a.txt
DETAIL=1 FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench COUNT=3 timeout 60 \
  tools/gpu/kernel_times.sh /tmp/s2a.txt --dt=f16 --layout=nhwc --algo=any > $OUT/ncu_dgrad1x1s2.txt 2>&1
grep -E "^  [A-Za-z_].*\(|Duration|DRAM Thr|L2 Cache Thr|Compute \(SM\)|Warp Cycles Per Issued|Achieved Occ|Grid Size|Block Size|Registers" $OUT/ncu_dgrad1x1s2.txt | cut -c1-120 | head -40
grep -v "^#" tools/bench/batches/resnet50.txt | grep "^conv fwd" | grep "kh1kw1sh2" | head -1 > /tmp/f1.txt
DETAIL=1 FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_fprop BENCH=$build/tools/bench/freednn-bench COUNT=2 timeout 60 \
  tools/gpu/kernel_times.sh /tmp/f1.txt --dt=f16 --layout=nhwc --algo=any > $OUT/ncu_fwd1x1s2.txt 2>&1
grep -E "^  [A-Za-z_].*\(|Duration|DRAM Thr|L2 Cache Thr|Compute \(SM\)|Warp Cycles Per Issued|Achieved Occ|Grid Size|Block Size|Registers" $OUT/ncu_fwd1x1s2.txt | cut -c1-120 | head -30
grep -v "^#" tools/bench/batches/resnet50.txt | grep "bwd_d" | grep "ic128ih56iw56oc128kh3kw3sh2" > /tmp/d3.txt
FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench COUNT=4 timeout 40 \
  tools/gpu/kernel_times.sh /tmp/d3.txt --dt=f16 --layout=nhwc --algo=any > $OUT/kt_dgrad3x3s2.txt 2>&1
cut -c1-150 $OUT/kt_dgrad3x3s2.txt
echo "done at $(el) s"
pack
