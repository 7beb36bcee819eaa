// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// sm_90a convolution kernel wgrad_f16_64x128_f32out (see sm90_conv_kernel.cuh): float partial sums of dw, split-K
// (sm90_wgrad_splitk.cuh, wgrad_split.h); one instantiation per file.
#include "cuda/conv/cutlass/sm90/kernels/sm90_wgrad_splitk.cuh"

FD_SM90_WGRAD_F32OUT(wgrad_f16_64x128_f32out, cutlass::half_t, 64, 128)
