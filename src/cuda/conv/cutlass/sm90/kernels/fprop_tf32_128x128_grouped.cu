// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// sm_90a grouped persistent forward fprop_tf32_128x128_grouped (see sm90_conv_grouped.cuh); one instantiation per
// file. Float storage, TF32 wgmma: the float dgrad's stride phases in one launch (dgrad_tf32.h).
#include "cuda/conv/cutlass/sm90/kernels/sm90_conv_grouped.cuh"

FD_SM90_CONV_GROUPED(fprop_tf32_128x128_grouped, kFprop, float, 128, 128, false)
