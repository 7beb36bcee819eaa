#!/usr/bin/env bash
# run 27 call 4: the final tree's CUDA code (18656dc's kernels; the pooling host code's shared window table and
# FD_LAUNCH_STATUS, committed after this call): the pool tests and the one-pass kernel's memcheck; the pool
# backward against b540a46's and 08fcb55's libraries (08fcb55's pooling code is 7b92fcc's), interleaved, NVIDIA
# beside; the f16 / bf16 ops batch
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 60 ctest -L gpu -R "Pool" -j14 --timeout 50 --output-on-failure > $OUT/ctest_pool.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest_pool.txt | head -10
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=30 SUITE_TIMEOUT=28 PARALLEL=2 PER_TEST=1 \
  ONLY='Pooling\.NhwcMaxBackwardOnePass' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^(memcheck|racecheck) " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
echo "tests at $(el) s"
grep "pool bwd mode=max" tools/bench/batches/ops_resnet50.txt > /tmp/pool.txt
for rep in 1 2; do for dt in f16 bf16; do for lib in new b540a46 08fcb55; do
  extra=(); [ $lib != new ] && extra=(--lib=$build/src/old_$lib/libcudnn.so.8.2.0)
  timeout 40 $build/tools/bench/freednn-bench --mode=P --dt=$dt --layout=nhwc --max-ms=40 --vs="$nv/libcudnn.so.9" \
    --batch=/tmp/pool.txt "${extra[@]}" > $OUT/pool_${dt}_${lib}_$rep.txt 2>&1
  echo "$rep $dt $lib: $(grep TIMED $OUT/pool_${dt}_${lib}_$rep.txt | sed 's/.*libcudnn.so[^ ]* //' | cut -c1-170)"
done; done; done
echo "pool A/B at $(el) s"
PREBUILT=1 CONFIGS="f16:nhwc bf16:nhwc" MAX_MS=40 OUT=$OUT/ops timeout 120 tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
for c in f16_nhwc bf16_nhwc; do python3 tools/ops_bars.py $OUT/ops/ops_$c.json 2>&1 | head -60 > $OUT/bars_$c.txt; head -5 $OUT/bars_$c.txt; done
rm -f $OUT/ops/gpu-results.tgz
echo "done at $(el) s"
pack
