#!/usr/bin/env bash
# Run 41 call 3: the patch kernels' leaner staging and epilogues (uncommitted on 3b646aa): ConvGpuPatch tests,
# then A/B against 3b646aa's library (ref_main_3b6) on the stem's forward and backward data, TF32 NCHW and f16 /
# bf16 NHWC; then the whole gpu suite.
# Run: OUT=$OUT bash .devrun/call3.sh 2>&1 | tee $OUT/log.txt | tail -60   (carry .prebuilt)
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cat .prebuilt/REV
T=$build/tests/freednn_tests
export FREEDNN_BACKEND=cuda
timeout 120 $T --gtest_filter='ConvGpuPatch.*' > $OUT/patch_tests.txt 2>&1
echo "patch tests rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|seed|Failure" $OUT/patch_tests.txt | head -12
REF=--lib=$build/src/ref_main_3b6/libcudnn.so.8.2.0
for d in fwd bwd_d bwd_w; do printf '%s\n' "conv $d f16 nhwc g1mb64ic3ih224iw224oc64kh7kw7sh2sw2ph3pw3" > /tmp/stem_$d.txt; done
for cfg in "f32 nchw --math=default" "f16 nhwc" "bf16 nhwc" "f32 nchw --math=fma"; do
  set -- $cfg
  if [ "${3:-}" = "--math=fma" ]; then impls="fwd:cuda:patch_fma_fprop bwd_d:cuda:patch_fma_dgrad bwd_w:cuda:patch_fma_wgrad"
  else impls="fwd:cuda:patch_fprop bwd_d:cuda:patch_dgrad bwd_w:cuda:patch_wgrad"; fi
  for d in $impls; do
    dir=${d%%:*}; impl=${d#*:}; tag=${1}_${3:-x}_$dir; tag=${tag//--math=/}
    REPS=3 MAX_MS=20 OUT=$OUT/ab_$tag timeout 100 tools/gpu/ab.sh /tmp/stem_$dir.txt "" "$REF" -- --dt=$1 --layout=$2 ${3:-} --impl=$impl > /dev/null 2>&1
    echo "== $cfg $dir $impl"; grep -v "^#" $OUT/ab_$tag/ab.txt | tail -2
  done
done
echo "ab at $(el) s"
(cd $build && timeout 200 ctest -L gpu -j14 --timeout 90 --output-on-failure > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "done at $(el) s"
pack
