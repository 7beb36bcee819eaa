#!/usr/bin/env bash
# Run 44's second call, on the machine call 1 left warm (its build tree, or .prebuilt): the four ResNet-50 tables
# (Find against Find, NVIDIA cuDNN 9.19 and PyTorch in the same call), MobileNet-v2 depthwise, then memcheck and
# racecheck over the suites whose kernels changed since run 42's sanitizer pass (BatchNorm: the grid form and the
# PIPE option; Winograd: the split over K and the row stores).
# Run: OUT=$OUT bash .devrun/run44-call2.sh 2>&1 | tee $OUT/log.txt | tail -60   (carry what call 1 carried)
# call1.sh unpacks .prebuilt when it is there; without it, build/h200 must be call 1's tree (chain the calls).
set -u
SUITES="BatchNorm|ConvGpuFft|ConvGpuWinograd" RACE_SUITES="BatchNorm" RACE_BUDGET=60 \
  PARTS="table mobilenet san" CONFIGS="f16:nhwc:tensor bf16:nhwc:tensor f32:nchw:default f32:nchw:fma" \
  LIMIT=${LIMIT:-560} bash .devrun/parts.sh
