#!/usr/bin/env bash
# run 22 call 3 (prebuilt): patch_dgrad stages 128 bytes of dy channels per chunk (32 float channels: the TF32
# patch and packed filter both in shared memory); to_chwn on 64 x 64 tiles (FREEDNN_CHWN_TILE=32: the old ones).
# Tests touching both, memcheck; the stem; A/B of the transpose tiles over TF32 NCHW layers; ResNet-50 f16 / bf16
# against NVIDIA and PyTorch on the final 16-bit tree
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 100 ctest -L gpu -R "ConvGpuPatch|ConvSm90|ConvGpuGemm1x1" -j14 --timeout 90 --output-on-failure > $OUT/ctest3.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout" $OUT/ctest3.txt | head
echo "tests at $(( $(date +%s) - t0 )) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=50 SUITE_TIMEOUT=45 PARALLEL=14 PER_TEST=1 \
  ONLY='ConvGpuPatch\.BackwardData.*|ConvSm90\.(Tf32.*|Dgrad16StridePhases|Wgrad.*)' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep "^memcheck " $OUT/sanitize/summary.txt | awk '{print $2, $3, $4, $6, $7, $8}'
echo "memcheck at $(( $(date +%s) - t0 )) s"
echo "conv bwd_d f16 nhwc g1mb64ic3ih224iw224oc64kh7kw7sh2sw2ph3pw3" > /tmp/stem.txt
for cfg in f32:nchw:default f16:nhwc:tensor; do
  IFS=: read -r dt lay math <<< "$cfg"
  timeout 30 $build/tools/bench/freednn-bench --mode=P --algo=any --dt=$dt --layout=$lay --math=$math --max-ms=30 \
    --vs="$nv/libcudnn.so.9" --batch=/tmp/stem.txt --json=$OUT/stem_${dt}.json > $OUT/stem_${dt}.txt 2>&1
  echo "stem $cfg: $(grep -E '^[0-9]+:(TIMED|FAIL)' $OUT/stem_${dt}.txt | sed -E 's/ mode=xcorr.*alpha=1 beta=0//; s/libcudnn.so.8//' | cut -c60-260)"
done
echo ".devrun/abt.txt f32:nchw:any:default FREEDNN_CHWN_TILE=32;-" > /tmp/ab3.txt
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab AB_TIMEOUT=90 timeout 95 tools/gpu/ab_pending.sh /tmp/ab3.txt
tail -14 $OUT/ab/ab_1/ab.txt 2>/dev/null | cut -c1-140
echo "ab at $(( $(date +%s) - t0 )) s"
left=$(( 570 - ($(date +%s) - t0) ))
PREBUILT=1 TORCH_TIMEOUT=110 CONV_TIMEOUT=120 CONV_CONFIGS="f16:nhwc:tensor bf16:nhwc:tensor" \
  OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log.txt 2>&1
cat $OUT/rn_log.txt | grep -v "^NVIDIA"
echo "resnet at $(( $(date +%s) - t0 )) s"
rm -f $OUT/rn/gpu-results.tgz
pack
