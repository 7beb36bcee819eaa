// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// sm_90a grouped persistent forward fprop_bf16_128x128_grouped (see sm90_conv_grouped.cuh); one instantiation per
// file.
#include "cuda/conv/cutlass/sm90/kernels/sm90_conv_grouped.cuh"

FD_SM90_CONV_GROUPED(fprop_bf16_128x128_grouped, kFprop, cutlass::bfloat16_t, 128, 128, false)
