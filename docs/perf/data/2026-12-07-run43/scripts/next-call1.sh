#!/usr/bin/env bash
# Run 44's first call (written in run 43, not run there: no device time was left): the gpu suite on d5b6dbc
# (Winograd's new defaults, bn_cluster's grid form by default on 16-bit 14x14, FREEDNN_BN_CLUSTER_PIPE), the phase
# stamps again, an A/B of FREEDNN_BN_CLUSTER_PIPE=1 in both forms and against db931bd (ref_grid_nopipe: the cluster
# kernel by default, the kernel of run 43's calls), then the FMA table with NVIDIA and PyTorch.
# Run: LIMIT=520 OUT=$OUT bash .devrun/next.sh 2>&1 | tee $OUT/log.txt | tail -80   (carry .prebuilt)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
LIMIT=${LIMIT:-430}  # the call's limit less the pack's time
left() { echo $(( LIMIT - $(el) )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cat .prebuilt/REV
B=$build/tools/bench/freednn-bench
TL=$build/src/ref_bntrace/libcudnn.so.8.2.0
OLD=$build/src/ref_grid_nopipe/libcudnn.so.8.2.0
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
  for pp in 0 1; do
    FREEDNN_BN_CLUSTER_PIPE=$pp timeout 30 $B --lib=$TL --mode=P --no-yardsticks --iters=3 --max-ms=1 --dt=f16 \
      --layout=nhwc "$P" > $OUT/trace${i}_p$pp.txt 2>&1
    python3 tools/gpu/bn_trace_summary.py $OUT/trace${i}_p$pp.txt
  done
done
: > /tmp/bn.txt
for d in train bwd; do for l in 64x2048x7x7 64x1024x14x14; do echo "bn $d mode=spatial x=f32:$l" >> /tmp/bn.txt; done; done
for dt in f16 bf16; do
  [ $(left) -gt 100 ] || break
  REPS=3 MAX_MS=10 OUT=$OUT/ab_$dt timeout $(( $(left) < 150 ? $(left) : 150 )) tools/gpu/ab.sh /tmp/bn.txt "" "FREEDNN_BN_CLUSTER_PIPE=1" \
    "FREEDNN_BN_CLUSTER_GRID=0" "FREEDNN_BN_CLUSTER_GRID=0 FREEDNN_BN_CLUSTER_PIPE=1" "--lib=$OLD" \
    -- --dt=$dt --layout=nhwc > /dev/null 2>&1
  echo "ab $dt rc=$?"; grep -v "^#" $OUT/ab_$dt/ab.txt | tail -12
done
echo "ab at $(el) s"
# the FMA NCHW table with Winograd's new defaults, NVIDIA cuDNN 9.19 and PyTorch in the same call
[ $(left) -gt 120 ] && TORCH=1 PREBUILT=1 TORCH_TIMEOUT=90 CONV_TIMEOUT=150 CONV_CONFIGS="f32:nchw:fma" \
  OUT=$OUT/rn timeout $(left) tools/gpu/h200_check.sh conv > $OUT/rn_log.txt 2>&1
grep -v "^NVIDIA" $OUT/rn_log.txt | tail -4
rm -f $OUT/rn/gpu-results.tgz
echo "done at $(el) s"
pack
