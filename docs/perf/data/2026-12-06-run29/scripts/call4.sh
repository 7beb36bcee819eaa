#!/usr/bin/env bash
# run 29 call 4: CUTLASS's dgrad collective on the grouped persistent kernel (unit-stride 16-bit dgrad, default on):
# the conv gpu tests, memcheck of Dgrad16UnitStrideForms, A/B of the three unit-stride forms, then the ResNet-50 f16
# table (Find against Find, NVIDIA and PyTorch in the same call) as time allows
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 100 $build/tests/freednn_tests --gtest_filter='ConvSm90.Dgrad16UnitStrideForms' > $OUT/forms.txt 2>&1
echo "Dgrad16UnitStrideForms: rc=$? $(grep -E "PASSED|FAILED" $OUT/forms.txt | tail -1)"; grep -E "Failure|trace|rror" $OUT/forms.txt | head -8
(cd $build && timeout 100 ctest -L gpu -R "Conv" -j14 --timeout 90 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "conv tests at $(el) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=80 SUITE_TIMEOUT=75 PARALLEL=2 PER_TEST=1 \
  ONLY='ConvSm90\.Dgrad16UnitStrideForms' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "memcheck at $(el) s"
grep -v "^#" tools/bench/batches/resnet50.txt | grep "bwd_d" | grep "sh1sw1" | grep -v ic3ih224 | sort -u > /tmp/u1.txt
for dt in f16 bf16; do
  FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_u1_$dt REPS=2 \
    timeout 100 tools/gpu/ab.sh /tmp/u1.txt "" "FREEDNN_SM90_DGRAD16_GROUPED=0" \
    "FREEDNN_SM90_DGRAD16_GROUPED=0 FREEDNN_SM90_DGRAD16_FORWARD=0" -- --dt=$dt --layout=nhwc --algo=any | tail -3
done
echo "A/B at $(el) s"
if [ $(el) -lt 340 ]; then
  PREBUILT=1 TORCH_TIMEOUT=60 CONV_TIMEOUT=110 CONV_CONFIGS="f16:nhwc:tensor" \
    OUT=$OUT/rn timeout $(( 540 - $(el) )) tools/gpu/h200_check.sh conv > $OUT/rn_log.txt 2>&1
  grep -v "^NVIDIA" $OUT/rn_log.txt | tail -4
  rm -f $OUT/rn/gpu-results.tgz
fi
echo "done at $(el) s"
pack
