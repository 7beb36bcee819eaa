// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// sm_90a grouped persistent forward fprop_tf32_128x64_grouped (see sm90_conv_grouped.cuh); one instantiation per
// file. Float storage, TF32 products: the narrow (K or C <= 64) float forwards and dgrad phases that write an NCHW
// output directly.
#include "cuda/conv/cutlass/sm90/kernels/sm90_conv_grouped.cuh"

FD_SM90_CONV_GROUPED(fprop_tf32_128x64_grouped, kFprop, float, 128, 64, false)
