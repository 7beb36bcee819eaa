#!/usr/bin/env bash
# run 28 call 2: the row-wise pass over the empty stride phases (dgrad_phases16.cu) against 3285569's
# (ref fill_3285569): tests, memcheck, A/B on ResNet's stride-2 backward data (cutlass_sm90_dgrad forced), ncu
# kernel times of the 1x1 stride-2 backward data and forward (where their time goes)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 100 ctest -L gpu -R "ConvSm90|ConvFind" -j14 --timeout 90 --output-on-failure > $OUT/ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest.txt | head -10
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=60 SUITE_TIMEOUT=55 PARALLEL=2 PER_TEST=1 \
  ONLY='ConvSm90\.Dgrad16StridePhases' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "tests at $(el) s"
grep -v "^#" tools/bench/batches/resnet50.txt | grep "bwd_d" | grep "sh2sw2" | grep -v ic3ih224 | sort -u > /tmp/s2.txt
ref=$build/src/ref_fill_3285569/libcudnn.so.8.2.0
for rep in 1 2; do for dt in f16 bf16; do for lib in new ref; do
  extra=(); [ $lib = ref ] && extra=(--lib=$ref)
  FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad timeout 40 $build/tools/bench/freednn-bench --mode=P --dt=$dt --layout=nhwc \
    --algo=any --max-ms=10 --batch=/tmp/s2.txt "${extra[@]}" > $OUT/ab_${dt}_${lib}_$rep.txt 2>&1
  echo "$rep $dt $lib: $(grep TIMED $OUT/ab_${dt}_${lib}_$rep.txt | sed -E 's/.*g1mb64(ic[0-9]+ih[0-9]+)[^ ]*(kh[0-9])kw.*libcudnn.so[^ ]* ([0-9.]+) ms.*/\1\2 \3/' | tr '\n' ' ')"
done; done; done
echo "A/B at $(el) s"
grep "kh1kw1" /tmp/s2.txt > /tmp/s2_1x1.txt
for lib in new ref; do
  extra=(); [ $lib = ref ] && extra=(--lib=$ref)
  FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench COUNT=6 timeout 60 \
    tools/gpu/kernel_times.sh /tmp/s2_1x1.txt --dt=f16 --layout=nhwc --algo=any "${extra[@]}" > $OUT/kt_dgrad_$lib.txt 2>&1
  echo "== $lib"; cut -c1-150 $OUT/kt_dgrad_$lib.txt
done
grep -v "^#" tools/bench/batches/resnet50.txt | grep "^conv fwd" | grep "kh1kw1sh2" | head -1 > /tmp/f1.txt
DETAIL=1 BENCH=$build/tools/bench/freednn-bench COUNT=3 timeout 60 tools/gpu/kernel_times.sh /tmp/f1.txt --dt=f16 \
  --layout=nhwc --algo=any > $OUT/ncu_fwd1x1s2.txt 2>&1
grep -E "^  [A-Za-z_].*\(|Duration|DRAM Thr|L2 Cache Thr|Compute \(SM\)|Warp Cycles Per Issued|Achieved Occ|Grid Size|Registers" $OUT/ncu_fwd1x1s2.txt | cut -c1-150 | head -40
echo "done at $(el) s"
pack
