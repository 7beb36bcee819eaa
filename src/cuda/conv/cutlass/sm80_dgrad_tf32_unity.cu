// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// One CUTLASS instantiation (see sm80_kernels.h): dgrad unity tf32 128x128x32 s3.
#include "cuda/conv/cutlass/sm80_launcher.cuh"

namespace fd::cuda::conv::sm80 {

const KernelOps& dgrad_tf32_unity() {
  using Conv = Sm80Conv<Op::dgrad_unity, float, 128, 128, 32, 64, 64, 32, 3>;
  static const KernelOps ops = Conv::ops("tf32_128x128x32_s3");
  return ops;
}

}  // namespace fd::cuda::conv::sm80
