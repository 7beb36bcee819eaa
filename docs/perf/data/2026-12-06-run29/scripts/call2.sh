#!/usr/bin/env bash
# run 29 call 2: n-fastest tiles by default, the unit-stride 16-bit dgrad as a forward on the grouped kernel (default
# on), TF32 on the grouped kernel (knob, off): the whole gpu suite, memcheck of the new tests, A/B of both, then the
# ResNet-50 f16 table (Find against Find, NVIDIA and PyTorch in the same call) as time allows
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 110 ctest -L gpu -j14 --timeout 100 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=100 SUITE_TIMEOUT=95 PARALLEL=2 PER_TEST=1 \
  ONLY='ConvSm90\.(Dgrad16UnitStrideForward|Tf32Persistent)' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "memcheck at $(el) s"
grep -v "^#" tools/bench/batches/resnet50.txt | grep "bwd_d" | grep "sh1sw1" | grep -v ic3ih224 | sort -u > /tmp/u1.txt
for dt in f16 bf16; do
  FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_u1_$dt REPS=2 \
    timeout 90 tools/gpu/ab.sh /tmp/u1.txt "" "FREEDNN_SM90_DGRAD16_FORWARD=0" -- --dt=$dt --layout=nhwc --algo=any | tail -2
done
echo "A/B 16 at $(el) s"
grep -v "^#" tools/bench/batches/resnet50.txt | grep "^conv fwd" | grep -v ic3ih224 | sort -u > /tmp/fwd.txt
grep -v "^#" tools/bench/batches/resnet50.txt | grep "bwd_d" | grep -v ic3ih224 | sort -u > /tmp/bd.txt
FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_fprop BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_tf32_fwd REPS=2 \
  timeout 100 tools/gpu/ab.sh /tmp/fwd.txt "" "FREEDNN_SM90_TF32_PERSISTENT=1" -- --dt=f32 --layout=nchw --math=default --algo=any | tail -2
FREEDNN_ONLY_IMPL=cuda:cutlass_sm90_dgrad BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_tf32_bd REPS=2 \
  timeout 100 tools/gpu/ab.sh /tmp/bd.txt "" "FREEDNN_SM90_TF32_PERSISTENT=1" -- --dt=f32 --layout=nchw --math=default --algo=any | tail -2
echo "A/B tf32 at $(el) s"
left=$(( 570 - $(el) ))
if [ $left -gt 100 ]; then
  PREBUILT=1 TORCH_TIMEOUT=60 CONV_TIMEOUT=110 CONV_CONFIGS="f16:nhwc:tensor" \
    OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log.txt 2>&1
  grep -v "^NVIDIA" $OUT/rn_log.txt | tail -6
  rm -f $OUT/rn/gpu-results.tgz
fi
echo "done at $(el) s"
pack
