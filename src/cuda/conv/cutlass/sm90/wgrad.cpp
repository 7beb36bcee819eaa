// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:cutlass_sm90_wgrad: backward filter (dw, a GEMM over N*P*Q) on Hopper tensor cores (CUTLASS 3.x implicit
// GEMM, TMA im2col + wgmma; sm90_impl.h lists what it accepts). Serves CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1.
// Kernels: 128x128x64 tiles, 64x128x64 when K <= 64.
#include "cuda/conv/cutlass/sm90/sm90_impl.h"
#include "cuda/conv/impls.h"

namespace fd::cuda::conv {
namespace {

sm90::KernelSet wgrad_kernels() {
  return {&sm90::wgrad_f16_128x128, &sm90::wgrad_f16_64x128, &sm90::wgrad_bf16_128x128, &sm90::wgrad_bf16_64x128,
          [](const fd::ConvProblem& p) { return p.oc; }};
}

class CutlassSm90Wgrad final : public sm90::Sm90ConvImpl {
 public:
  CutlassSm90Wgrad()
      : Sm90ConvImpl("cuda:cutlass_sm90_wgrad", fd::ConvDir::bwd_filter, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1,
                     wgrad_kernels()) {}
};

}  // namespace

const fd::conv::ConvImpl* cutlass_sm90_wgrad_impl() {
  static const CutlassSm90Wgrad impl;
  return &impl;
}

}  // namespace fd::cuda::conv
