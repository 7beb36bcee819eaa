#!/usr/bin/env bash
# run 20 call 4 (prebuilt, same tree as call 3): ResNet-50 TF32 and FMA NCHW, MobileNet-v2 depthwise f16, against
# NVIDIA and PyTorch
set -u
mkdir -p $OUT; t0=$(date +%s); . .devrun/common.sh
PREBUILT=1 TORCH_TIMEOUT=100 CONV_TIMEOUT=120 CONV_CONFIGS="f32:nchw:default f32:nchw:fma" OUT=$OUT/rn tools/gpu/h200_check.sh conv
echo "resnet at $(( $(date +%s) - t0 )) s"
PREBUILT=1 TORCH_TIMEOUT=60 CONV_TIMEOUT=50 CONV_CONFIGS="f16:nhwc:tensor" CONV_BATCH=tools/bench/batches/mobilenet_v2_depthwise.txt \
  OUT=$OUT/mb tools/gpu/h200_check.sh conv
echo "mobilenet at $(( $(date +%s) - t0 )) s"
rm -f $OUT/rn/gpu-results.tgz $OUT/mb/gpu-results.tgz
pack
