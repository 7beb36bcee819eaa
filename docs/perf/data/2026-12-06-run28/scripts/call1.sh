#!/usr/bin/env bash
# For the next session (not run yet). 1. The one-pass max-pooling backward of the final tree against its earlier
# forms, on whichever card comes (an H200 is wanted: run 27 timed only b540a46 there). Needs the .prebuilt archive
# of `tools/gpu/prebuilt.sh pack` with references kept as b540a46 and pool_7b92fcc (08fcb55's library: 7b92fcc's
# pooling code). Copy to .devrun/ with common.sh, run as `OUT=$OUT bash .devrun/next-pool-ab.sh`.
# The clocks and power are sampled during the A/B: on the H100 the lean kernel was 3.5 % faster under ncu (one
# launch at a time) and 5-6 % slower back to back (run 27 call 4): is that the power limit lowering the clocks?
# 2. bn_cluster's two chunks on clusters of 8 (no new code: 08fcb55's library and its knobs).
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
# bn_cluster with two chunks on clusters of 8 (64-channel chunks, 128-byte row pieces), on 08fcb55's library (the
# two-chunk code; run 27's plan took clusters of 2 with 16-channel chunks and ran 1.18x slower): the plan it finds
# (info log), then the times against one chunk
grep "^bn " tools/bench/batches/ops_bn_reduce.txt | grep -E "(train|bwd) .*64x(2048x7x7|1024x14x14)" > /tmp/bnc.txt
ref=$build/src/ref_pool_7b92fcc/libcudnn.so.8.2.0
for v in "FREEDNN_BN_CLUSTER_SUB=1" "FREEDNN_BN_CLUSTER_SUB=2 FREEDNN_BN_CLUSTER_G=8" "FREEDNN_BN_CLUSTER_SUB=1 FREEDNN_BN_CLUSTER_G=8"; do
  env $v CUDNN_LOGINFO_DBG=1 CUDNN_LOGDEST_DBG=stderr timeout 30 $build/tools/bench/freednn-bench --mode=C --lib=$ref \
    --dt=f16 --layout=nhwc --batch=/tmp/bnc.txt > $OUT/bn_plan.txt 2>&1
  echo "== $v: $(grep -E "PASSED|FAILED" $OUT/bn_plan.txt | cut -c1-12 | tr '\n' ' ')"
  grep "cluster kernel" $OUT/bn_plan.txt | sort -u | cut -c1-150 | head -3
  env $v timeout 40 $build/tools/bench/freednn-bench --mode=P --lib=$ref --dt=f16 --layout=nhwc --max-ms=5 \
    --batch=/tmp/bnc.txt 2>&1 | grep TIMED | sed -E 's/ api=bn mode=spatial.*x=f16:([0-9x]+):.*libcudnn.so[^ ]* / \1 /' | cut -c1-90
done
echo "pool+bn at $(el) s"
PREBUILT=1 CONFIGS="f16:nhwc bf16:nhwc f32:nchw" MAX_MS=40 OUT=$OUT/ops timeout 150 tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
for c in f16_nhwc bf16_nhwc f32_nchw; do python3 tools/ops_bars.py $OUT/ops/ops_$c.json 2>&1 | head -60 > $OUT/bars_$c.txt; head -8 $OUT/bars_$c.txt; done
rm -f $OUT/ops/gpu-results.tgz
echo "ops at $(el) s"
left=$(( 560 - $(el) ))
PREBUILT=1 TORCH_TIMEOUT=110 CONV_TIMEOUT=120 CONV_CONFIGS="f16:nhwc:tensor bf16:nhwc:tensor" \
  OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log.txt 2>&1
grep -v "^NVIDIA" $OUT/rn_log.txt | tail -20
rm -f $OUT/rn/gpu-results.tgz
echo "resnet at $(el) s"
left=$(( 575 - $(el) ))
if [ $left -gt 80 ]; then
PREBUILT=1 TORCH_TIMEOUT=60 CONV_TIMEOUT=50 CONV_CONFIGS="f16:nhwc:tensor" CONV_BATCH=tools/bench/batches/mobilenet_v2_depthwise.txt \
  OUT=$OUT/mb timeout $left tools/gpu/h200_check.sh conv > $OUT/mb_log.txt 2>&1
rm -f $OUT/mb/gpu-results.tgz
fi
echo "done at $(el) s"
pack
