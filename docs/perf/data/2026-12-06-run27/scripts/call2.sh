#!/usr/bin/env bash
# run 27 call 2: the one-pass max-pooling backward with its shared-memory vectors read once per thread and packed
# rows loaded without the pixel / vector split (b540a46 + working-tree diff): pool tests and sanitizers, its times
# (NVIDIA beside; call 1b's figures for b540a46: f16 0.0711 ms, bf16 0.0730, ncu 70.3 us), ncu detail; the ops batch
# against NVIDIA in all three configs
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 60 ctest -L gpu -R "Pool" -j14 --timeout 50 --output-on-failure > $OUT/ctest_pool.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest_pool.txt | head -10
for tool in memcheck racecheck; do
OUT=$OUT/$tool TESTS=$build/tests/freednn_tests BUDGET=40 SUITE_TIMEOUT=38 PARALLEL=2 PER_TEST=1 \
  ONLY='Pooling\.NhwcMaxBackwardOnePass' tools/gpu/sanitize.sh $tool > $OUT/${tool}_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/$tool/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
done
echo "pool tests at $(el) s"
grep "pool bwd mode=max" tools/bench/batches/ops_resnet50.txt > /tmp/pool.txt
for dt in f16 bf16; do
  timeout 40 $build/tools/bench/freednn-bench --mode=P --dt=$dt --layout=nhwc --max-ms=40 --vs="$nv/libcudnn.so.9" \
    --batch=/tmp/pool.txt > $OUT/pool_${dt}.txt 2>&1
  echo "$dt: $(grep TIMED $OUT/pool_${dt}.txt | sed 's/.*libcudnn.so[^ ]* //' | cut -c1-200)"
done
BENCH=$build/tools/bench/freednn-bench COUNT=3 timeout 40 tools/gpu/kernel_times.sh /tmp/pool.txt --dt=f16 --layout=nhwc > $OUT/kt_pool.txt 2>&1; tail -3 $OUT/kt_pool.txt | cut -c1-120
DETAIL=1 BENCH=$build/tools/bench/freednn-bench COUNT=1 timeout 60 tools/gpu/kernel_times.sh /tmp/pool.txt --dt=f16 --layout=nhwc > $OUT/ncu_pool.txt 2>&1
grep -E "==|Duration|DRAM Thr|Stall|Warp Cycles|Eligible|Registers|Issue Slots|Achieved Occ|SM Busy|Executed Ipc" $OUT/ncu_pool.txt | head -30
echo "pool at $(el) s"
PREBUILT=1 CONFIGS="f16:nhwc bf16:nhwc f32:nchw" MAX_MS=40 OUT=$OUT/ops timeout 330 tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
for c in f16_nhwc bf16_nhwc f32_nchw; do python3 tools/ops_bars.py $OUT/ops/ops_$c.json 2>&1 | head -60 > $OUT/bars_$c.txt; head -8 $OUT/bars_$c.txt; done
rm -f $OUT/ops/gpu-results.tgz
echo "done at $(el) s"
pack
