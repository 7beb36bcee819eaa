#!/usr/bin/env bash
# Run 31 call 7 (the session's final tree): the whole gpu suite with winograd's transforms as programmatic
# dependents too, then the ResNet-50 TF32 NCHW table (Find against Find, PyTorch in the same call).
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
el() { echo $(( $(date +%s) - t0 )); }
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
(cd $build && timeout 150 ctest -L gpu -j14 --timeout 140 > $OUT/gpu_ctest.txt 2>&1)
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Failed  |Exception" $OUT/gpu_ctest.txt | head -10
echo "suite at $(el) s"
PREBUILT=1 TORCH_TIMEOUT=70 CONV_TIMEOUT=140 CONV_CONFIGS="f32:nchw:default" OUT=$OUT/rn timeout $(( 330 - $(el) )) \
  tools/gpu/h200_check.sh conv > $OUT/rn_log_f32.txt 2>&1
grep -v "^NVIDIA" $OUT/rn_log_f32.txt | tail -4
rm -f $OUT/rn/gpu-results.tgz
echo "done at $(el) s"
pack
