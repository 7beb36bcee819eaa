#!/usr/bin/env bash
# For the next session (not run yet): the one-pass max-pooling backward of the final tree against its earlier
# forms, on whichever card comes (an H200 is wanted: run 27 timed only b540a46 there). Needs the .prebuilt archive
# of `tools/gpu/prebuilt.sh pack` with references kept as b540a46 and pool_7b92fcc (08fcb55's library: 7b92fcc's
# pooling code). Copy to .devrun/ with common.sh, run as `OUT=$OUT bash .devrun/next-pool-ab.sh`.
# The clocks and power are sampled during the A/B: on the H100 the lean kernel was 3.5 % faster under ncu (one
# launch at a time) and 5-6 % slower back to back (run 27 call 4): is that the power limit lowering the clocks?
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
(cd $build && timeout 60 ctest -L gpu -R "Pool" -j14 --timeout 50 --output-on-failure > $OUT/ctest_pool.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/ctest_pool.txt | head -10
grep "pool bwd mode=max" tools/bench/batches/ops_resnet50.txt > /tmp/pool.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,clocks_throttle_reasons.active --format=csv -lms 50 \
  > $OUT/smi.csv 2>&1 &
smi=$!
for rep in 1 2; do for dt in f16 bf16; do for lib in new b540a46 pool_7b92fcc; do
  extra=(); [ $lib != new ] && extra=(--lib=$build/src/ref_$lib/libcudnn.so.8.2.0)
  echo "$(date +%T.%N) start $rep $dt $lib" >> $OUT/marks.txt
  timeout 40 $build/tools/bench/freednn-bench --mode=P --dt=$dt --layout=nhwc --max-ms=40 --vs="$nv/libcudnn.so.9" \
    --batch=/tmp/pool.txt "${extra[@]}" > $OUT/pool_${dt}_${lib}_$rep.txt 2>&1
  echo "$rep $dt $lib: $(grep TIMED $OUT/pool_${dt}_${lib}_$rep.txt | sed 's/.*libcudnn.so[^ ]* //' | cut -c1-170)"
done; done; done
kill $smi
echo "A/B at $(el) s"
for lib in new pool_7b92fcc; do
  extra=(); [ $lib != new ] && extra=(--lib=$build/src/ref_$lib/libcudnn.so.8.2.0)
  DETAIL=1 BENCH=$build/tools/bench/freednn-bench COUNT=1 timeout 45 tools/gpu/kernel_times.sh /tmp/pool.txt --dt=f16 \
    --layout=nhwc "${extra[@]}" > $OUT/ncu_$lib.txt 2>&1
  echo "== $lib"; grep -E "Duration|DRAM Thr|Compute \(SM\)|Warp Cycles Per Issued|Achieved Occ" $OUT/ncu_$lib.txt
done
echo "done at $(el) s"
pack
