#!/usr/bin/env bash
# Run 42 call A: the whole gpu suite (run 41's last commits, the CUDA fused ops and the chunked Winograd are unrun),
# the patch tests, memcheck over the fused ops, the Winograd kernels' times, and an A/B of Winograd chunk budgets
# (FREEDNN_WINOGRAD_CHUNK_MB) over ResNet-50's FMA 3x3 stride-1 layers in all three directions.
# Run: OUT=$OUT bash .devrun/call_a.sh 2>&1 | tee $OUT/log.txt | tail -60   (carry .prebuilt)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cat .prebuilt/REV
T=$build/tests/freednn_tests
(cd $build && FREEDNN_BACKEND=cuda timeout 220 ctest -L gpu -j14 --timeout 90 --output-on-failure > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -12
grep -cE "FusedOps|ConvGpuWinograd" $OUT/gpu_ctest.txt
export FREEDNN_BACKEND=cuda
timeout 60 $T --gtest_filter='ConvGpuPatch.*' > $OUT/patch_tests.txt 2>&1
echo "patch tests rc=$?"; grep -E "FAILED  \]|Failure" $OUT/patch_tests.txt | head -6
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 120 $CS --tool memcheck --error-exitcode 9 $T --gtest_filter='FusedOps.*' > $OUT/fused_memcheck.txt 2>&1
echo "fused memcheck rc=$?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/fused_memcheck.txt | tail -3
echo "tests at $(el) s"
printf '%s\n' "conv fwd f32 nchw g1mb64ic64ih56iw56oc64kh3kw3sh1sw1ph1pw1" "conv bwd_w f32 nchw g1mb64ic64ih56iw56oc64kh3kw3sh1sw1ph1pw1" > /tmp/w.txt
BENCH=$build/tools/bench/freednn-bench COUNT=8 timeout 40 tools/gpu/kernel_times.sh /tmp/w.txt --math=fma --impl=cuda:winograd > $OUT/wino_kernels.txt 2>&1
head -30 $OUT/wino_kernels.txt
: > /tmp/wino.txt
for d in fwd bwd_d bwd_w; do for l in ic64ih56iw56oc64 ic128ih28iw28oc128 ic256ih14iw14oc256 ic512ih7iw7oc512; do
  echo "conv $d f32 nchw g1mb64${l}kh3kw3sh1sw1ph1pw1" >> /tmp/wino.txt; done; done
REPS=3 MAX_MS=15 OUT=$OUT/ab_wino timeout 250 tools/gpu/ab.sh /tmp/wino.txt "" "FREEDNN_WINOGRAD_CHUNK_MB=16" \
  "FREEDNN_WINOGRAD_CHUNK_MB=32" "FREEDNN_WINOGRAD_CHUNK_MB=64" -- --dt=f32 --layout=nchw --math=fma \
  --impl=cuda:winograd > /dev/null 2>&1
echo "ab rc=$?"; grep -v "^#" $OUT/ab_wino/ab.txt | tail -22
echo "done at $(el) s"
pack
