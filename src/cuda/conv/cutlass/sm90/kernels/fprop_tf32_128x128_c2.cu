// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// sm_90a convolution kernel fprop_tf32_128x128_c2 (see sm90_conv_kernel.cuh); one instantiation per file. Float storage,
// TF32 tensor-core products, float sums and output.
#include "cuda/conv/cutlass/sm90/kernels/sm90_conv_kernel.cuh"

FD_SM90_CONV(fprop_tf32_128x128_c2, kFprop, float, 128, 128, 2)
