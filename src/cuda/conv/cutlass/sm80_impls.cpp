// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The CUTLASS 2.x implicit-GEMM convolutions (multistage cp.async; the shared checks, plan and helper kernels in
// sm80_common.h, the kernels in sm80_kernels.h), one implementation per direction and kernel family:
//   cuda:cutlass_sm80_fprop / _dgrad / _wgrad  tensor cores (mma.sync): f16/bf16 with float sums, f32 as TF32;
//   cuda:cutlass_simt_fprop / _dgrad / _wgrad  CUDA cores (float FMA, 128x128x8 tiles), for float data under
//       CUDNN_FMA_MATH, where the tensor-core kernels may not run, and as Find candidates under the other math
//       types; any C and K (one-element accesses).
// Both: NHWC operands directly, others through packed copies in the workspace; the fused bias/z/activation
// epilogue of cudnnConvolutionBiasActivationForward as a second pass; backward data on the unit-stride kernel or
// CUTLASS's strided dgrad (one GEMM per filter phase, dilation 1); backward filter with parallel split-K over
// N*P*Q into float partial sums, added in slice order (deterministic) and blended into dw in its own layout.
#include "cuda/conv/cutlass/sm80_common.h"
#include "cuda/conv/impls.h"

namespace fd::cuda::conv {

using sm80::Sm80ConvImpl;

const fd::conv::ConvImpl* cutlass_sm80_fprop_impl() {
  static const Sm80ConvImpl impl("cuda:cutlass_sm80_fprop", fd::ConvDir::fwd, false,
                                 CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                                 CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
  return &impl;
}
const fd::conv::ConvImpl* cutlass_sm80_dgrad_impl() {
  static const Sm80ConvImpl impl("cuda:cutlass_sm80_dgrad", fd::ConvDir::bwd_data, false,
                                 CUDNN_CONVOLUTION_BWD_DATA_ALGO_1);
  return &impl;
}
const fd::conv::ConvImpl* cutlass_sm80_wgrad_impl() {
  static const Sm80ConvImpl impl("cuda:cutlass_sm80_wgrad", fd::ConvDir::bwd_filter, false,
                                 CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1);
  return &impl;
}
const fd::conv::ConvImpl* cutlass_simt_fprop_impl() {
  static const Sm80ConvImpl impl("cuda:cutlass_simt_fprop", fd::ConvDir::fwd, true,
                                 CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                 CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
  return &impl;
}
const fd::conv::ConvImpl* cutlass_simt_dgrad_impl() {
  static const Sm80ConvImpl impl("cuda:cutlass_simt_dgrad", fd::ConvDir::bwd_data, true,
                                 CUDNN_CONVOLUTION_BWD_DATA_ALGO_1);
  return &impl;
}
const fd::conv::ConvImpl* cutlass_simt_wgrad_impl() {
  static const Sm80ConvImpl impl("cuda:cutlass_simt_wgrad", fd::ConvDir::bwd_filter, true,
                                 CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1);
  return &impl;
}

}  // namespace fd::cuda::conv
