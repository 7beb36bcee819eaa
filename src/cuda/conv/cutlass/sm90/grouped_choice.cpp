// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Which 16-bit 128x128 grouped persistent kernel runs the persistent forward and the 16-bit dgrad's stride phases
// (sm90_grouped.h): one consumer warp group, or two in turn under FREEDNN_SM90_PINGPONG=1.
#include "core/env.h"
#include "cuda/conv/cutlass/sm90/sm90_grouped.h"

namespace fd::cuda::conv::sm90 {

const GroupKernel& grouped_16bit_128x128(bool bf16) {
  if (fd::env_flag("FREEDNN_SM90_PINGPONG")) return bf16 ? fprop_bf16_128x128_pingpong() : fprop_f16_128x128_pingpong();
  return bf16 ? fprop_bf16_128x128_grouped() : fprop_f16_128x128_grouped();
}

}  // namespace fd::cuda::conv::sm90
