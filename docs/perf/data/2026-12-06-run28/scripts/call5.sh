#!/usr/bin/env bash
# run 28 call 5: the grouped persistent kernel's ping-pong form (FREEDNN_SM90_PINGPONG=1): tests, memcheck, A/B
# against the one-consumer form on ResNet's 16-bit forwards (cutlass_sm90_fprop forced) and stride-2 backward data
# (cutlass_sm90_dgrad forced)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 120 $build/tests/freednn_tests --gtest_filter='ConvSm90.PingPongGrouped' > $OUT/pp.txt 2>&1
echo "PingPongGrouped: rc=$? $(grep -E "PASSED|FAILED" $OUT/pp.txt | tail -1)"; grep -E "Failure|trace|error" $OUT/pp.txt | head -8
(cd $build && FREEDNN_SM90_PINGPONG=1 timeout 100 ctest -L gpu -R "ConvSm90|ConvFind" -j14 --timeout 90 --output-on-failure > $OUT/ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest.txt | head -10
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=80 SUITE_TIMEOUT=75 PARALLEL=2 PER_TEST=1 \
  ONLY='ConvSm90\.PingPongGrouped' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "tests at $(el) s"
grep -v "^#" tools/bench/batches/resnet50.txt | grep "^conv fwd" | grep -v ic3ih224 | sort -u > /tmp/fwd.txt
grep -v "^#" tools/bench/batches/resnet50.txt | grep "bwd_d" | grep "sh2sw2" | grep -v ic3ih224 | sort -u > /tmp/s2.txt
for rep in 1 2; do for dt in f16 bf16; do for v in X=0 FREEDNN_SM90_PINGPONG=1; do
  env $v FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_fprop timeout 60 $build/tools/bench/freednn-bench --mode=P --dt=$dt --layout=nhwc \
    --algo=any --max-ms=4 --batch=/tmp/fwd.txt > $OUT/ab.txt 2>&1
  sed "s/^/$rep $dt $v fwd | /" $OUT/ab.txt >> $OUT/ab_all.txt
  echo "$rep $dt $v fwd: $(grep TIMED $OUT/ab.txt | sed -E 's/.*g1mb64(ic[0-9]+ih[0-9]+)[^ ]*oc([0-9]+)kh([0-9])kw[0-9]sh([0-9]).*libcudnn.so[^ ]* ([0-9.]+) ms.*/\1k\2r\3s\4 \5/' | tr '\n' ' ')"
  env $v FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad timeout 40 $build/tools/bench/freednn-bench --mode=P --dt=$dt --layout=nhwc \
    --algo=any --max-ms=4 --batch=/tmp/s2.txt > $OUT/ab.txt 2>&1
  sed "s/^/$rep $dt $v bwd_d | /" $OUT/ab.txt >> $OUT/ab_all.txt
  echo "$rep $dt $v bwd_d: $(grep TIMED $OUT/ab.txt | sed -E 's/.*g1mb64(ic[0-9]+ih[0-9]+)[^ ]*(kh[0-9])kw.*libcudnn.so[^ ]* ([0-9.]+) ms.*/\1\2 \3/' | tr '\n' ' ')"
done; done; done
echo "done at $(el) s"
pack
