// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// sm_90a convolution kernel wgrad_f16_64x128 (see sm90_conv_kernel.cuh); one instantiation per file.
#include "cuda/conv/cutlass/sm90/kernels/sm90_conv_kernel.cuh"

FD_SM90_CONV(wgrad_f16_64x128, kWgrad, cutlass::half_t, 64, 128, 1)
