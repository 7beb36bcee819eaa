// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// sm_90a convolution kernel fprop_f16_128x64_s4 (see sm90_conv_kernel.cuh): fprop_f16_128x64 with a 4-stage pipeline,
// two CTAs per SM (the default; FREEDNN_SM90_STAGES=0 turns it off); one instantiation per file.
#include "cuda/conv/cutlass/sm90/kernels/sm90_conv_kernel.cuh"

FD_SM90_CONV_STAGES(fprop_f16_128x64_s4, kFprop, cutlass::half_t, 128, 64, 1, 4)
