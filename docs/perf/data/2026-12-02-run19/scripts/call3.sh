#!/usr/bin/env bash
# call 3 (prebuilt, BN_PDL and GATHER_W2 on by default): the changed families' gpu tests, then ResNet-50 f16 / bf16
# NHWC and MobileNet-v2 depthwise f16 against NVIDIA (Find vs Find) and PyTorch
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 tools/gpu/h200_check.sh none > /dev/null 2>&1
(cd $build && timeout 90 ctest -L gpu -R "BatchNorm|ConvGpuGemm1x1|Pooling|Normalization|FusedOps" -j8 --timeout 80 \
  --output-on-failure > $OUT/ctest3.txt 2>&1); grep -E "tests passed|\*\*\*Failed|Not Run" $OUT/ctest3.txt | head
echo "tests at $(( $(date +%s) - t0 )) s"
PREBUILT=1 TORCH_TIMEOUT=110 CONV_TIMEOUT=120 CONV_CONFIGS="f16:nhwc:tensor bf16:nhwc:tensor" \
  OUT=$OUT/rn tools/gpu/h200_check.sh conv
echo "resnet at $(( $(date +%s) - t0 )) s"
PREBUILT=1 TORCH_TIMEOUT=80 CONV_TIMEOUT=60 CONV_CONFIGS="f16:nhwc:tensor" CONV_BATCH=tools/bench/batches/mobilenet_v2_depthwise.txt \
  OUT=$OUT/mb tools/gpu/h200_check.sh conv
echo "mobilenet at $(( $(date +%s) - t0 )) s"
rm -f $OUT/rn/gpu-results.tgz $OUT/mb/gpu-results.tgz
pack
