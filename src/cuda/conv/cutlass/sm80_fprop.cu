// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:cutlass_sm80_fprop: forward convolution as a CUTLASS implicit GEMM on tensor cores (mma.sync, multistage
// cp.async), f16/bf16 with float sums or f32 as TF32; NHWC operands directly, others through packed copies in the
// workspace.
// The fused bias/z/activation epilogue of cudnnConvolutionBiasActivationForward runs as a second in-place pass.
// Shared checks, plan and helper kernels: sm80_common.h; the CUTLASS kernels: sm80_kernels.h.
#include "cuda/conv/cutlass/sm80_common.h"
#include "cuda/conv/impls.h"

namespace fd::cuda::conv {
namespace {

class Sm80Fprop final : public sm80::Sm80ConvImpl {
 public:
  const char* id() const override { return "cuda:cutlass_sm80_fprop"; }
  bool serves(fd::ConvDir d, int algo) const override {
    return d == fd::ConvDir::fwd &&
           (algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
            algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
  }

 protected:
  fd::ConvDir dir() const override { return fd::ConvDir::fwd; }
};

}  // namespace

const fd::conv::ConvImpl* cutlass_sm80_fprop_impl() {
  static const Sm80Fprop impl;
  return &impl;
}

}  // namespace fd::cuda::conv
