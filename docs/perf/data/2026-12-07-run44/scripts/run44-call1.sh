#!/usr/bin/env bash
# Run 44's first call: the gpu suite on d5b6dbc+ (Winograd's new defaults, bn_cluster's grid form by default on
# 16-bit 14x14, FREEDNN_BN_CLUSTER_PIPE), bn_cluster's phase stamps with PIPE 0/1 (and the grid form on 7x7), an A/B
# of PIPE in both forms and of the three-kernel path (FREEDNN_BN_CLUSTER=0, PDL on), then the ops batch against
# NVIDIA cuDNN 9.19 (the defaults as built).
# Run: LIMIT=520 OUT=$OUT bash .devrun/run44-call1.sh 2>&1 | tee $OUT/log.txt | tail -80
#   carry .prebuilt (tools/gpu/prebuilt.sh trace bntrace, then pack: ~35 min on 2 cores with a cold ccache), or,
#   where none was built, carry .deps/cutlass: the call then builds there (~4 min of device time; no trace library,
#   so no phase stamps).
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
LIMIT=${LIMIT:-430}  # the call's limit less the pack's time
left() { echo $(( LIMIT - $(el) )); }
PB=keep; [ -f .prebuilt/h200.tar.xz ] && PB=1
if [ $PB = 1 ]; then
  PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1; cat .prebuilt/REV
else
  OUT=$OUT/build tools/gpu/h200_check.sh none > /dev/null 2>&1 || { tail -20 $OUT/build/build.txt; pack; exit 1; }
  echo "built here at $(el) s: $(git rev-parse --short HEAD 2>/dev/null)"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
B=$build/tools/bench/freednn-bench
TL=$build/src/ref_bntrace/libcudnn.so.8.2.0
(cd $build && FREEDNN_BACKEND=cuda timeout 220 ctest -L gpu -j14 --timeout 90 --output-on-failure > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -12
echo "suite at $(el) s"
i=0
for P in "bn train mode=spatial x=f32:64x1024x14x14" "bn train mode=spatial x=f32:64x2048x7x7" \
         "bn bwd mode=spatial x=f32:64x2048x7x7"; do
  i=$((i+1)); echo "== $i $P"
  CUDNN_LOGINFO_DBG=1 CUDNN_LOGDEST_DBG=stderr timeout 30 $B --mode=P --max-ms=20 --dt=f16 --layout=nhwc "$P" \
    > $OUT/plan$i.txt 2>&1
  grep -iE "cluster kernel|refused" $OUT/plan$i.txt | sort -u | head -2
  grep TIMED $OUT/plan$i.txt | sed 's/.*libcudnn.so.8//' | cut -c1-200
  [ -f $TL ] || continue
  for v in "FREEDNN_BN_CLUSTER_PIPE=0" "FREEDNN_BN_CLUSTER_PIPE=1" "FREEDNN_BN_CLUSTER_GRID=1" \
           "FREEDNN_BN_CLUSTER_GRID=1 FREEDNN_BN_CLUSTER_PIPE=1"; do
    [ $i = 1 ] && [ "${v#*GRID}" != "$v" ] && continue  # 14x14 takes the grid form by default
    echo "-- $v"; f=$OUT/trace${i}_$(echo $v | tr -dc '0-9A-Z_' | cut -c1-60).txt
    env $v timeout 30 $B --lib=$TL --mode=P --no-yardsticks --iters=3 --max-ms=1 --dt=f16 --layout=nhwc "$P" > $f 2>&1
    python3 tools/gpu/bn_trace_summary.py $f
  done
done
echo "traces at $(el) s"
: > /tmp/bn.txt
for d in train bwd; do for l in 64x2048x7x7 64x1024x14x14; do echo "bn $d mode=spatial x=f32:$l" >> /tmp/bn.txt; done; done
for dt in f16 bf16; do
  [ $(left) -gt 150 ] || break
  REPS=3 MAX_MS=10 OUT=$OUT/ab_$dt timeout $(( $(left) - 60 < 150 ? $(left) - 60 : 150 )) tools/gpu/ab.sh /tmp/bn.txt "" \
    "FREEDNN_BN_CLUSTER_PIPE=1" "FREEDNN_BN_CLUSTER_GRID=0" "FREEDNN_BN_CLUSTER_GRID=0 FREEDNN_BN_CLUSTER_PIPE=1" \
    "FREEDNN_BN_CLUSTER=0" -- --dt=$dt --layout=nhwc > /dev/null 2>&1
  echo "ab $dt rc=$?"; grep -v "^#" $OUT/ab_$dt/ab.txt | tail -12
done
echo "ab at $(el) s"
if [ $(left) -gt 70 ]; then
  PREBUILT=$PB MAX_MS=40 OUT=$OUT/ops timeout $(left) tools/gpu/h200_check.sh bench > $OUT/ops_log.txt 2>&1
  rm -f $OUT/ops/gpu-results.tgz
  python3 tools/ops_bars.py $OUT/ops/ops_f32_nchw.json $OUT/ops/ops_f16_nhwc.json $OUT/ops/ops_bf16_nhwc.json 2>&1 | grep -E "^==|PASS|FAIL" | tail -5
fi
echo "done at $(el) s"
pack
