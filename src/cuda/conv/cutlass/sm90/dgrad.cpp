// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:cutlass_sm90_dgrad: backward data (dx = the transposed convolution of dy, unit stride only) on Hopper
// tensor cores (CUTLASS 3.x implicit GEMM, TMA im2col + wgmma; sm90_impl.h lists what it accepts). Serves
// CUDNN_CONVOLUTION_BWD_DATA_ALGO_1. Kernels: 128x128x64 tiles in 2x1 clusters, 128x64x64 when C <= 64.
#include "cuda/conv/cutlass/sm90/sm90_impl.h"
#include "cuda/conv/impls.h"

namespace fd::cuda::conv {
namespace {

sm90::KernelSet dgrad_kernels() {
  return {&sm90::dgrad_f16_128x128_c2, &sm90::dgrad_f16_128x64, &sm90::dgrad_bf16_128x128_c2, &sm90::dgrad_bf16_128x64,
          nullptr, nullptr, [](const fd::ConvProblem& p) { return p.ic; }};
}

class CutlassSm90Dgrad final : public sm90::Sm90ConvImpl {
 public:
  CutlassSm90Dgrad()
      : Sm90ConvImpl("cuda:cutlass_sm90_dgrad", fd::ConvDir::bwd_data, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
                     dgrad_kernels()) {}
};

}  // namespace

const fd::conv::ConvImpl* cutlass_sm90_dgrad_impl() {
  static const CutlassSm90Dgrad impl;
  return &impl;
}

}  // namespace fd::cuda::conv
