// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:cutlass_simt_wgrad: backward filter as a CUTLASS 2.x implicit GEMM on CUDA cores (float FMA, multistage
// cp.async, 128x128x8 tiles), for float data under CUDNN_FMA_MATH, where the tensor-core kernels may not run, and as
// a Find candidate under the other math types. Any C and K (one-element accesses); operands that are not packed NHWC
// (KRSC) go through packed copies in the workspace. Parallel split-K over N*P*Q into float partial sums, added in
// slice order (deterministic). The plan, checks and helper kernels are cuda:cutlass_sm80_*'s (sm80_common.h, its
// `simt` flag).
#include "cuda/conv/cutlass/sm80_common.h"
#include "cuda/conv/impls.h"

namespace fd::cuda::conv {
namespace {

class SimtWgrad final : public sm80::Sm80ConvImpl {
 public:
  const char* id() const override { return "cuda:cutlass_simt_wgrad"; }
  bool serves(fd::ConvDir d, int algo) const override {
    return d == fd::ConvDir::bwd_filter && (algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1);
  }

 protected:
  fd::ConvDir dir() const override { return fd::ConvDir::bwd_filter; }
  bool simt() const override { return true; }
};

}  // namespace

const fd::conv::ConvImpl* cutlass_simt_wgrad_impl() {
  static const SimtWgrad impl;
  return &impl;
}

}  // namespace fd::cuda::conv
