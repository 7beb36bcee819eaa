#!/usr/bin/env bash
# Run 43's first call (written in run 42, not run there: no device time was left). The commits after run 42's calls
# (9425614: Winograd backward filter split over K, fec5f59: Winograd row stores; both off by default) are unrun:
# the whole gpu suite, their tests alone (the knobs are read once per process), then an A/B of the knobs over
# ResNet-50's FMA 3x3 stride-1 lines, then the FMA table if time is left.
# Run: OUT=$OUT bash .devrun/next.sh 2>&1 | tee $OUT/log.txt | tail -50   (carry .prebuilt)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cat .prebuilt/REV
T=$build/tests/freednn_tests
(cd $build && FREEDNN_BACKEND=cuda timeout 220 ctest -L gpu -j14 --timeout 90 --output-on-failure > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -12
export FREEDNN_BACKEND=cuda
for t in WgradSplitAgainstReference WgradSplitChunkedAgainstReference RowStoresAgainstReference ChunkedAgainstReference; do
  timeout 120 $T --gtest_filter="ConvGpuWinograd.$t" > $OUT/wino_$t.txt 2>&1
  echo "winograd $t rc=$?"; grep -E "SKIPPED|FAILED  \]|Failure" $OUT/wino_$t.txt | head -4
done
echo "tests at $(el) s"
: > /tmp/wino.txt
for d in fwd bwd_d bwd_w; do for l in ic64ih56iw56oc64 ic128ih28iw28oc128 ic256ih14iw14oc256 ic512ih7iw7oc512; do
  echo "conv $d f32 nchw g1mb64${l}kh3kw3sh1sw1ph1pw1" >> /tmp/wino.txt; done; done
REPS=3 MAX_MS=15 OUT=$OUT/ab_wino timeout 250 tools/gpu/ab.sh /tmp/wino.txt "" "FREEDNN_WINOGRAD_WGRAD_SPLIT=0" \
  "FREEDNN_WINOGRAD_WGRAD_SPLIT=4" "FREEDNN_WINOGRAD_ROW_STORES=1" -- --dt=f32 --layout=nchw --math=fma \
  --impl=cuda:winograd > /dev/null 2>&1
echo "ab rc=$?"; grep -v "^#" $OUT/ab_wino/ab.txt | tail -22
echo "ab at $(el) s"
pack
