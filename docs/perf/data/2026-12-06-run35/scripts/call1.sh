#!/usr/bin/env bash
# Run 35 call 1: the whole gpu suite on this tree (cc90 check, tile_span shared, the TF32 forward staged through
# to_chwn, from_nhwc's flat stores); A/B of FREEDNN_SM90_FWD_CHWN and FREEDNN_FROM_NHWC_FLAT on the TF32 forwards cutlass_sm90_fprop serves; per-kernel times of the
# slowest TF32 layers; the TF32 NCHW ResNet-50 table (Find against Find, NVIDIA cuDNN 9.19 and PyTorch in the same
# call); on an H200 also the f16 table.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
gpu=$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader); echo "$gpu"
cat .prebuilt/REV
(cd $build && timeout 170 ctest -L gpu -j14 --timeout 120 --output-on-failure > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
B=tools/bench/batches/resnet50.txt
grep -E "^conv fwd " $B | sort -u | grep -v ic3ih224 > /tmp/fwd.txt
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_chwn MAX_MS=3 REPS=2 timeout 100 tools/gpu/ab.sh /tmp/fwd.txt \
  "" "FREEDNN_SM90_FWD_CHWN=0" "FREEDNN_FROM_NHWC_FLAT=0" -- --dt=f32 --layout=nchw --math=default \
  --impl=cuda:cutlass_sm90_fprop | tail -26
grep -E "^conv bwd_d " $B | sort -u | grep "ih7iw7" > /tmp/bwd7.txt
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_flat_bwd MAX_MS=3 REPS=2 timeout 40 tools/gpu/ab.sh /tmp/bwd7.txt \
  "" "FREEDNN_FROM_NHWC_FLAT=0" -- --dt=f32 --layout=nchw --math=default --impl=cuda:cutlass_sm90_dgrad | tail -6
echo "ab at $(el) s"
BENCH=$build/tools/bench/freednn-bench COUNT=8 timeout 70 tools/gpu/kernel_times.sh .devrun/kt_fwd.txt --dt=f32 \
  --layout=nchw --math=default --impl=cuda:cutlass_sm90_fprop > $OUT/kt_fwd.txt 2>&1
BENCH=$build/tools/bench/freednn-bench COUNT=8 timeout 60 tools/gpu/kernel_times.sh .devrun/kt_bwd.txt --dt=f32 \
  --layout=nchw --math=default --impl=cuda:cutlass_sm90_dgrad > $OUT/kt_bwd.txt 2>&1
cat $OUT/kt_fwd.txt $OUT/kt_bwd.txt | cut -c1-140 | head -70
echo "kernel times at $(el) s"
cfgs="f32:nchw:default"
[[ "$gpu" == *H200* ]] && cfgs="f32:nchw:default f16:nhwc:tensor"
for cfg in $cfgs; do
  left=$(( 578 - $(el) ))
  [ $left -gt 120 ] || break
  PREBUILT=1 TORCH_TIMEOUT=70 CONV_TIMEOUT=140 CONV_CONFIGS="$cfg" \
    OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log_${cfg%%:*}.txt 2>&1
  grep -v "^NVIDIA" $OUT/rn_log_${cfg%%:*}.txt | tail -4
  rm -f $OUT/rn/gpu-results.tgz
  echo "$cfg at $(el) s"
done
echo "done at $(el) s"
pack
