// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// One CUTLASS instantiation (see sm80_kernels.h): wgrad bf16 64x128x64 s3, for K <= 64 (a 128-row tile would
// leave half of its rows empty).
#include "cuda/conv/cutlass/sm80_launcher.cuh"

namespace fd::cuda::conv::sm80 {

const KernelOps& wgrad_bf16_64() {
  using Conv = Sm80Conv<Op::wgrad, cutlass::bfloat16_t, 64, 128, 64, 32, 64, 64, 3>;
  static const KernelOps ops = Conv::ops("bf16_64x128x64_s3");
  return ops;
}

}  // namespace fd::cuda::conv::sm80
