#!/usr/bin/env bash
# For the next session's first GPU call (not run). Run 32 wrote a two-warpgroup form of wgrad1x1_tf32 (a 256 x 128
# tile along k, full / empty mbarriers per stage, four stages; FREEDNN_WGRAD1X1_WM=2) after its last call; it never
# ran on a GPU, so it is kept out of the tree as data/2026-12-06-run32/wgrad1x1_two_warpgroups.patch. Before this
# call: `git apply` that patch, build and `tools/gpu/prebuilt.sh pack`. This runs the whole gpu suite (the patched
# test runs the kernel on one and two warpgroups), memcheck on the new test, the A/B one / two warpgroups / slot
# GEMMs on ResNet-50's 1x1 backward filters, then the TF32 table (and on an H200 the f16 table).
# Copy to .devrun/ with common.sh and run as `OUT=$OUT bash .devrun/next-call1.sh`.
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 150 ctest -L gpu -j14 --timeout 140 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
PER_TEST=1 SUITES=ConvGpuGemm1x1 ONLY='ConvGpuGemm1x1\.NchwTf32' TESTS=$build/tests/freednn_tests BUDGET=60 \
  tools/gpu/sanitize.sh memcheck > $OUT/memcheck_log.txt 2>&1
grep -E "^memcheck " $OUT/sanitize/summary.txt | awk '{print $1, $2, $3, $4, $6, $7, $8}'
grep "^conv bwd_w" tools/bench/batches/resnet50.txt | grep "kh1kw1" | sort -u > /tmp/w1.txt
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_w1 MAX_MS=5 timeout 150 tools/gpu/ab.sh /tmp/w1.txt \
  "" "FREEDNN_WGRAD1X1_WM=2" "FREEDNN_WGRAD1X1_WGMMA=0" -- --dt=f32 --layout=nchw --math=default \
  --impl=cuda:gemm_1x1 | tail -18
echo "ab at $(el) s"
cfgs="f32:nchw:default"
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && cfgs="$cfgs f16:nhwc:tensor"
for cfg in $cfgs; do
  left=$(( 540 - $(el) ))
  [ $left -gt 110 ] || break
  PREBUILT=1 TORCH_TIMEOUT=70 CONV_TIMEOUT=140 CONV_CONFIGS="$cfg" \
    OUT=$OUT/rn timeout $left tools/gpu/h200_check.sh conv > $OUT/rn_log_${cfg%%:*}.txt 2>&1
  grep -v "^NVIDIA" $OUT/rn_log_${cfg%%:*}.txt | tail -4
  rm -f $OUT/rn/gpu-results.tgz
  echo "$cfg at $(el) s"
done
echo "done at $(el) s"
pack
