#!/usr/bin/env bash
# Run 31 call 2: FREEDNN_OPS_PDL on by default and extended to batch norm (cluster, inference, statistics kernels),
# pooling, softmax and the reductions; the stride-2 depthwise tile kernel on every size where its TMA form runs.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 150 ctest -L gpu -j14 --timeout 140 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=110 SUITE_TIMEOUT=105 PARALLEL=2 PER_TEST=1 \
  ONLY='OpsPdl\..*' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "memcheck at $(el) s"
# stride-2 depthwise forward, the two large layers: TMA tile (new default) against the walk
grep "sh2sw2" tools/bench/batches/mobilenet_v2_depthwise.txt | grep "^conv fwd" | head -2 > /tmp/s2.txt
for dt in bf16 f32; do
  FREEDNN_ONLY_IMPL=cuda:depthwise BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_s2_$dt MAX_MS=2 \
    timeout 40 tools/gpu/ab.sh /tmp/s2.txt "" "FREEDNN_DW_TILE_S2=0" -- --dt=$dt --layout=nhwc --algo=any | tail -4
done
echo "dw A/B at $(el) s"
# PDL on (default) against off, on the ops batch's non-elementwise lines
grep -E "^(bn|pool|softmax|reduce) " tools/bench/batches/ops_resnet50.txt > /tmp/nonew.txt
for cfg in "f16 nhwc" "f32 nchw"; do
  set -- $cfg
  BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_pdl_$1 REPS=2 MAX_MS=20 timeout 110 \
    tools/gpu/ab.sh /tmp/nonew.txt "" "FREEDNN_OPS_PDL=0" -- --dt=$1 --layout=$2 | tail -2
done
echo "pdl A/B at $(el) s"
PREBUILT=1 CONFIGS="f16:nhwc bf16:nhwc f32:nchw" MAX_MS=40 OUT=$OUT/ops timeout $(( 570 - $(el) )) \
  tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
tail -3 $OUT/ops_log.txt
python3 tools/ops_bars.py $OUT/ops/ops_*.json 2>&1 | grep -E "^==|PASS|FAIL|same-size" | head -24
echo "done at $(el) s"
pack
