// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// One CUTLASS instantiation (see sm80_kernels.h): fprop f16 64x64x64 s4.
#include "cuda/conv/cutlass/sm80_launcher.cuh"

namespace fd::cuda::conv::sm80 {

const KernelOps& fprop_f16_64() {
  using Conv = Sm80Conv<Op::fprop, cutlass::half_t, 64, 64, 64, 32, 32, 64, 4>;
  static const KernelOps ops = Conv::ops("f16_64x64x64_s4");
  return ops;
}

}  // namespace fd::cuda::conv::sm80
