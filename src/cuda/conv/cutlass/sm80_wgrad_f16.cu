// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// One CUTLASS instantiation (see sm80_kernels.h): wgrad f16 128x128x64 s3.
#include "cuda/conv/cutlass/sm80_launcher.cuh"

namespace fd::cuda::conv::sm80 {

const KernelOps& wgrad_f16() {
  using Conv = Sm80Conv<Op::wgrad, cutlass::half_t, 128, 128, 64, 64, 64, 64, 3>;
  static const KernelOps ops = Conv::ops("f16_128x128x64_s3");
  return ops;
}

}  // namespace fd::cuda::conv::sm80
