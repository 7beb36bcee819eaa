// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:cutlass_sm80_wgrad: backward filter as a CUTLASS implicit GEMM on tensor cores with parallel split-K
// over N*P*Q: each slice writes float partial sums to the workspace, a second kernel adds them in slice order
// (deterministic) and blends alpha/beta into dw in its own layout.
// Shared checks, plan and helper kernels: sm80_common.h; the CUTLASS kernels: sm80_kernels.h.
#include "cuda/conv/cutlass/sm80_common.h"
#include "cuda/conv/impls.h"

namespace fd::cuda::conv {
namespace {

class Sm80Wgrad final : public sm80::Sm80ConvImpl {
 public:
  const char* id() const override { return "cuda:cutlass_sm80_wgrad"; }
  bool serves(fd::ConvDir d, int algo) const override {
    return d == fd::ConvDir::bwd_filter &&
           (algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1);
  }

 protected:
  fd::ConvDir dir() const override { return fd::ConvDir::bwd_filter; }
};

}  // namespace

const fd::conv::ConvImpl* cutlass_sm80_wgrad_impl() {
  static const Sm80Wgrad impl;
  return &impl;
}

}  // namespace fd::cuda::conv
