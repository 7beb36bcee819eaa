// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// sm_90a grouped persistent unit-stride backward data dgrad_f16_128x64_grouped (C <= 64): CUTLASS's dgrad
// collective on one consumer warp group (see sm90_conv_grouped.cuh); one instantiation per file.
#include "cuda/conv/cutlass/sm90/kernels/sm90_conv_grouped.cuh"

FD_SM90_CONV_GROUPED(dgrad_f16_128x64_grouped, kDgrad, cutlass::half_t, 128, 64, false)
