#!/usr/bin/env bash
# run 22 call 2 (prebuilt): patch_dgrad feeds each dy fragment to every stride phase that uses its offset (one A
# load per offset instead of per tap); the 16-bit single live phase on the grouped kernel by default. The patch and
# sm90 dgrad tests, memcheck over patch_dgrad's test; the stem's backward data (Find, against NVIDIA) in TF32 NCHW,
# f16 / bf16 NHWC, and patch_dgrad forced; ncu per-kernel times of the TF32 NCHW 7x7 / 14x14 1x1 backward data
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 100 ctest -L gpu -R "ConvGpuPatch|ConvSm90\.Dgrad16|ConvFind" -j14 --timeout 90 --output-on-failure > $OUT/ctest2.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout" $OUT/ctest2.txt | head
echo "tests at $(( $(date +%s) - t0 )) s"
OUT=$OUT TESTS=$build/tests/freednn_tests BUDGET=60 SUITE_TIMEOUT=55 PARALLEL=14 PER_TEST=1 \
  ONLY='ConvGpuPatch\.BackwardData.*|ConvSm90\.Dgrad16StridePhases' tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep "^memcheck " $OUT/sanitize/summary.txt | awk '{print $2, $3, $4, $6, $7, $8}'
echo "memcheck at $(( $(date +%s) - t0 )) s"
echo "conv bwd_d f16 nhwc g1mb64ic3ih224iw224oc64kh7kw7sh2sw2ph3pw3" > /tmp/stem.txt
for cfg in f32:nchw:default f16:nhwc:tensor bf16:nhwc:tensor; do
  IFS=: read -r dt lay math <<< "$cfg"
  for only in "" cuda:patch_dgrad; do
    FREEDNN_ONLY_IMPL=$only timeout 40 $build/tools/bench/freednn-bench --mode=P --algo=any --dt=$dt --layout=$lay --math=$math --max-ms=30 \
      --vs="$nv/libcudnn.so.9" --batch=/tmp/stem.txt --json=$OUT/stem_${dt}_${only#cuda:}.json > $OUT/stem_${dt}_${only#cuda:}.txt 2>&1
    echo "stem $cfg only=${only:-none}: $(grep -E '^[0-9]+:(TIMED|FAIL)' $OUT/stem_${dt}_${only#cuda:}.txt | sed -E 's/ mode=xcorr.*alpha=1 beta=0//; s/libcudnn.so.8//' | cut -c40-260)"
  done
done
echo "stem at $(( $(date +%s) - t0 )) s"
grep -E "bwd_d .*(ic2048ih7|ic512ih7iw7oc2048|ic1024ih14iw14oc256|ic256ih14iw14oc1024)" tools/bench/batches/resnet50.txt > /tmp/k7.txt
for impl in cutlass_sm90_dgrad gemm_1x1; do
  FREEDNN_ONLY_IMPL=cuda:$impl BENCH=$build/tools/bench/freednn-bench COUNT=8 \
    timeout 90 tools/gpu/kernel_times.sh /tmp/k7.txt --dt=f32 --layout=nchw --math=default > $OUT/kt_tf32_$impl.txt 2>&1
  cut -c1-150 $OUT/kt_tf32_$impl.txt | head -40
done
echo "done at $(( $(date +%s) - t0 )) s"
pack
