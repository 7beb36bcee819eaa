// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:cutlass_sm80_dgrad: backward data as a CUTLASS implicit GEMM on tensor cores: the unit-stride dgrad
// kernel, or CUTLASS's strided-dgrad kernel (one GEMM per filter phase) for stride > 1.
// Shared checks, plan and helper kernels: sm80_common.h; the CUTLASS kernels: sm80_kernels.h.
#include "cuda/conv/cutlass/sm80_common.h"
#include "cuda/conv/impls.h"

namespace fd::cuda::conv {
namespace {

class Sm80Dgrad final : public sm80::Sm80ConvImpl {
 public:
  const char* id() const override { return "cuda:cutlass_sm80_dgrad"; }
  bool serves(fd::ConvDir d, int algo) const override {
    return d == fd::ConvDir::bwd_data &&
           (algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1);
  }

 protected:
  fd::ConvDir dir() const override { return fd::ConvDir::bwd_data; }
};

}  // namespace

const fd::conv::ConvImpl* cutlass_sm80_dgrad_impl() {
  static const Sm80Dgrad impl;
  return &impl;
}

}  // namespace fd::cuda::conv
