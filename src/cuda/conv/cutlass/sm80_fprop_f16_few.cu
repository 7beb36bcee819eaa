// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// One CUTLASS instantiation (see sm80_kernels.h): fprop f16 over a space-to-depth copy (few-channel iterators,
// C a multiple of 4), 128x64x64 s3.
#include "cuda/conv/cutlass/sm80_launcher.cuh"

namespace fd::cuda::conv::sm80 {

const KernelOps& fprop_f16_few() {
  using Conv = Sm80Conv<Op::fprop_few, cutlass::half_t, 128, 64, 64, 64, 32, 64, 3>;
  static const KernelOps ops = Conv::ops("f16_few_128x64x64_s3");
  return ops;
}

}  // namespace fd::cuda::conv::sm80
