#!/usr/bin/env bash
# run 26 call 3: finalize_kernel's interleaved partial loads (the three-kernel batch norm's middle kernel, 7.8 us
# under ncu at 14x14x1024 backward in call 1): the batch-norm tests and memcheck, kernel times, the f16 ops batch
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 70 ctest -L gpu -R "BatchNorm|Normaliz|FusedOps" -j14 --timeout 60 --output-on-failure > $OUT/ctest3.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest3.txt | head -10
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=45 SUITE_TIMEOUT=40 PARALLEL=8 PER_TEST=1 \
  ONLY='BatchNorm\.(BackwardRandom|ForwardTrainingRandom|Coop.*)' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
grep "^bn " tools/bench/batches/ops_bn_reduce.txt | grep -E "(train|bwd) .*64x(1024x14x14|512x28x28|256x56x56)" > /tmp/bnf.txt
BENCH=$build/tools/bench/freednn-bench COUNT=4 timeout 50 tools/gpu/kernel_times.sh /tmp/bnf.txt --dt=f16 --layout=nhwc > $OUT/kt_bn.txt 2>&1
cut -c1-110 $OUT/kt_bn.txt | head -40
echo "tests at $(el) s"
PREBUILT=1 CONFIGS="f16:nhwc" MAX_MS=40 OUT=$OUT/ops timeout 120 tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
python3 tools/ops_bars.py $OUT/ops/ops_f16_nhwc.json 2>&1 | head -12
rm -f $OUT/ops/gpu-results.tgz
echo "done at $(el) s"
pack
