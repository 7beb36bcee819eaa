#!/usr/bin/env bash
# Run 31 call 6: the conv staging kernels (to_nhwc / from_nhwc / bias_act, to_chwn, the TF32 dgrad's dx_from_phases,
# the TF32 wgrad's finish, the split wgrad's finish) as programmatic dependents under FREEDNN_OPS_PDL; the whole gpu
# suite (OpsPdl.DepthwiseChainMatchesPlainLaunches rescaled), then A/B against FREEDNN_OPS_PDL=0 on ResNet-50 TF32
# NCHW (the heuristics' choice, unique layers).
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 150 ctest -L gpu -j14 --timeout 140 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
grep -v "^#" tools/bench/batches/resnet50.txt | sort -u > /tmp/rn.txt
BENCH=$build/tools/bench/freednn-bench OUT=$OUT/ab_tf32 MAX_MS=3 timeout 200 tools/gpu/ab.sh /tmp/rn.txt "" \
  "FREEDNN_OPS_PDL=0" -- --dt=f32 --layout=nchw --math=default | tail -2
echo "done at $(el) s"
pack
