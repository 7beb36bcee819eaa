#!/usr/bin/env bash
# Run 45's second call, on the machine call 1 left warm: the four ResNet-50 tables (Find against Find, NVIDIA cuDNN
# 9.19 and PyTorch in the same call) and MobileNet-v2 depthwise. On an H200 these are the first since run 27.
# Run: OUT=$OUT LIMIT=540 bash .devrun/run45-call2.sh 2>&1 | tee $OUT/log.txt | tail -60   (carry what call 1 carried)
set -u
PARTS="table mobilenet" CONFIGS="f16:nhwc:tensor bf16:nhwc:tensor f32:nchw:default f32:nchw:fma" \
  LIMIT=${LIMIT:-540} bash .devrun/parts.sh
