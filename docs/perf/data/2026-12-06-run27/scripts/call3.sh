#!/usr/bin/env bash
# run 27 call 3 (the final tree's CUDA code: b540a46 + the pool kernel's working-tree diff, committed after this
# call): the one-pass max-pooling backward A/B against b540a46's library (carried in the same archive,
# build/h200/src/old_b540a46), interleaved, NVIDIA beside; the ops batch in all three configs; the whole gpu suite
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
old=$build/src/old_b540a46/libcudnn.so.8.2.0
grep "pool bwd mode=max" tools/bench/batches/ops_resnet50.txt > /tmp/pool.txt
for rep in 1 2; do for dt in f16 bf16; do for lib in new old; do
  extra=(); [ $lib = old ] && extra=(--lib=$old)
  timeout 40 $build/tools/bench/freednn-bench --mode=P --dt=$dt --layout=nhwc --max-ms=40 --vs="$nv/libcudnn.so.9" \
    --batch=/tmp/pool.txt "${extra[@]}" > $OUT/pool_${dt}_${lib}_$rep.txt 2>&1
  echo "$rep $dt $lib: $(grep TIMED $OUT/pool_${dt}_${lib}_$rep.txt | sed 's/.*libcudnn.so[^ ]* //' | cut -c1-170)"
done; done; done
echo "pool A/B at $(el) s"
PREBUILT=1 CONFIGS="f16:nhwc bf16:nhwc f32:nchw" MAX_MS=40 OUT=$OUT/ops timeout 150 tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
for c in f16_nhwc bf16_nhwc f32_nchw; do python3 tools/ops_bars.py $OUT/ops/ops_$c.json 2>&1 | head -60 > $OUT/bars_$c.txt; head -5 $OUT/bars_$c.txt; done
rm -f $OUT/ops/gpu-results.tgz
echo "ops at $(el) s"
(cd $build && timeout 220 ctest -L gpu -j14 --timeout 120 --output-on-failure > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception|Not Run" $OUT/gpu_ctest.txt | head -20
echo "suite at $(el) s"
echo "done at $(el) s"
pack
