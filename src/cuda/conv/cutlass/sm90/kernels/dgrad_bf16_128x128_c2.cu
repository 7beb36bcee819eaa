// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// sm_90a convolution kernel dgrad_bf16_128x128_c2 (see sm90_conv_kernel.cuh); one instantiation per file.
#include "cuda/conv/cutlass/sm90/kernels/sm90_conv_kernel.cuh"

FD_SM90_CONV(dgrad_bf16_128x128_c2, kDgrad, cutlass::bfloat16_t, 128, 128, 2)
