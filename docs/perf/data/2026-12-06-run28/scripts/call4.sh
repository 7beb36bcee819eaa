#!/usr/bin/env bash
# run 28 call 4: to_chwn's 16-bit channel tiles (the stride phases' sub-filters) against the 32 x 32 tiles
# (FREEDNN_CHWN_CHANNEL=0) and 3285569 (ref); tests, memcheck, A/B on ResNet's stride-2 backward data, ncu times
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 100 ctest -L gpu -R "ConvSm90|ConvFind" -j14 --timeout 90 --output-on-failure > $OUT/ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest.txt | head -10
FREEDNN_CHWN_CHANNEL=0 $build/tests/freednn_tests --gtest_filter='ConvSm90.Dgrad16StridePhases' > $OUT/t0.txt 2>&1
echo "CHWN_CHANNEL=0: $(grep -E "PASSED|FAILED" $OUT/t0.txt | tail -1)"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=60 SUITE_TIMEOUT=55 PARALLEL=2 PER_TEST=1 \
  ONLY='ConvSm90\.Dgrad16StridePhases' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "tests at $(el) s"
grep -v "^#" tools/bench/batches/resnet50.txt | grep "bwd_d" | grep "sh2sw2" | grep -v ic3ih224 | sort -u > /tmp/s2.txt
ref=$build/src/ref_fill_3285569/libcudnn.so.8.2.0
for rep in 1 2; do for dt in f16 bf16; do for v in new ref "FREEDNN_CHWN_CHANNEL=0" "FREEDNN_SM90_PHASES_SERIAL=1"; do
  extra=(); case "$v" in ref*) extra=(--lib=$ref);; esac
  e="X=0"; case "$v" in *FREEDNN*) e=$v;; esac
  env $e FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad timeout 40 $build/tools/bench/freednn-bench --mode=P --dt=$dt --layout=nhwc \
    --algo=any --max-ms=10 --batch=/tmp/s2.txt "${extra[@]}" > $OUT/ab.txt 2>&1
  echo "$rep $dt $v: $(grep TIMED $OUT/ab.txt | sed -E 's/.*g1mb64(ic[0-9]+ih[0-9]+)[^ ]*(kh[0-9])kw.*libcudnn.so[^ ]* ([0-9.]+) ms.*/\1\2 \3/' | tr '\n' ' ')"
  sed "s/^/$rep $dt $v | /" $OUT/ab.txt >> $OUT/ab_all.txt
done; done; done
echo "A/B at $(el) s"
FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench COUNT=4 timeout 90 \
  tools/gpu/kernel_times.sh /tmp/s2.txt --dt=f16 --layout=nhwc --algo=any > $OUT/kt_dgrad_s2.txt 2>&1
grep -E "==|to_chwn" $OUT/kt_dgrad_s2.txt | cut -c1-110
echo "done at $(el) s"
pack
