// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:cutlass_simt_fprop: forward convolution as a CUTLASS 2.x implicit GEMM on CUDA cores (float FMA, multistage
// cp.async, 128x128x8 tiles), for float data under CUDNN_FMA_MATH, where the tensor-core kernels may not run, and as
// a Find candidate under the other math types. Any C and K (one-element accesses); operands that are not packed NHWC
// (KRSC) go through packed copies in the workspace. The fused bias/activation epilogue runs as a second pass. The
// plan, checks and helper kernels are cuda:cutlass_sm80_*'s (sm80_common.h, its `simt` flag).
#include "cuda/conv/cutlass/sm80_common.h"
#include "cuda/conv/impls.h"

namespace fd::cuda::conv {
namespace {

class SimtFprop final : public sm80::Sm80ConvImpl {
 public:
  const char* id() const override { return "cuda:cutlass_simt_fprop"; }
  bool serves(fd::ConvDir d, int algo) const override {
    return d == fd::ConvDir::fwd && (algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
                                     algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
  }

 protected:
  fd::ConvDir dir() const override { return fd::ConvDir::fwd; }
  bool simt() const override { return true; }
};

}  // namespace

const fd::conv::ConvImpl* cutlass_simt_fprop_impl() {
  static const SimtFprop impl;
  return &impl;
}

}  // namespace fd::cuda::conv
