// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Which 16-bit 128x128 grouped persistent kernel runs the persistent forward and the 16-bit dgrad's stride phases
// (sm90_grouped.h): two consumer warp groups in turn unless FREEDNN_SM90_PINGPONG=0 (read at every call), which
// keeps the one-consumer form. H100 run 28 (ResNet-50, N = 64, same call): 0.95x the one-consumer time on the
// 16-bit forwards (0.83-0.86x on the short-K 1x1 layers, 0.98-1.03x on the 56 x 56 ones), 0.90-0.92x on the
// stride-2 backward data. And whether the unit-stride 16-bit dgrad runs on the grouped dgrad kernels.
#include "core/env.h"
#include "cuda/conv/cutlass/sm90/sm90_grouped.h"

namespace fd::cuda::conv::sm90 {

const GroupKernel& grouped_16bit_128x128(bool bf16) {
  if (fd::env_flag_or("FREEDNN_SM90_PINGPONG", true))
    return bf16 ? fprop_bf16_128x128_pingpong() : fprop_f16_128x128_pingpong();
  return bf16 ? fprop_bf16_128x128_grouped() : fprop_f16_128x128_grouped();
}

bool dgrad16_grouped_wanted() { return fd::env_flag_or("FREEDNN_SM90_DGRAD16_GROUPED", true); }

}  // namespace fd::cuda::conv::sm90
