#!/usr/bin/env bash
# run 26 call 2: ResNet-50 TF32 NCHW against NVIDIA and PyTorch (first since to_chwn's flat tiles went default),
# and the queued A/B of to_chwn's plane tiles on the TF32 wgrad (150 s)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
PREBUILT=1 TORCH_TIMEOUT=80 CONV_TIMEOUT=150 CONV_CONFIGS="f32:nchw:default" \
  OUT=$OUT/rn timeout 260 tools/gpu/h200_check.sh conv > $OUT/rn_log.txt 2>&1
grep -v "^NVIDIA" $OUT/rn_log.txt | tail -20
echo "resnet at $(el) s"
grep "cutlass_sm90_wgrad" tools/gpu/ab_pending.txt | grep -v "^#" > /tmp/ab.txt
left=$(( 560 - $(el) ))
[ $left -gt 60 ] && BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=$(( left - 10 )) MAX_MS=5 timeout $left tools/gpu/ab_pending.sh /tmp/ab.txt
for f in $OUT/ab/ab_*/ab.txt; do echo "== $f"; grep "geomean" $f | tail -4; done
echo "done at $(el) s"
rm -f $OUT/rn/gpu-results.tgz
pack
