// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// One CUTLASS instantiation (see sm80_kernels.h): wgrad f32 FMA (SIMT) 128x128x8 s4.
#include "cuda/conv/cutlass/sm80_launcher.cuh"

namespace fd::cuda::conv::sm80 {

const KernelOps& simt_wgrad_f32() {
  using Conv = Sm80Conv<Op::wgrad, float, 128, 128, 8, 32, 64, 8, 4, /*Simt=*/true>;
  static const KernelOps ops = Conv::ops("simt_wgrad_f32_128x128x8_s4");
  return ops;
}

}  // namespace fd::cuda::conv::sm80
