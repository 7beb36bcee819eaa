// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// One CUTLASS instantiation (see sm80_kernels.h): fprop TF32 over a space-to-depth copy (few-channel iterators,
// C a multiple of 4), 128x64x32 s4.
#include "cuda/conv/cutlass/sm80_launcher.cuh"

namespace fd::cuda::conv::sm80 {

const KernelOps& fprop_tf32_few() {
  using Conv = Sm80Conv<Op::fprop_few, float, 128, 64, 32, 64, 32, 32, 4>;
  static const KernelOps ops = Conv::ops("tf32_few_128x64x32_s4");
  return ops;
}

}  // namespace fd::cuda::conv::sm80
