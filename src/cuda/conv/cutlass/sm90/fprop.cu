// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:cutlass_sm90_fprop: forward convolution on Hopper tensor cores (CUTLASS 3.x implicit GEMM, TMA im2col +
// wgmma; sm90_impl.h lists what it accepts). Serves CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM. Kernels:
// 128x128x64 tiles in 2x1 clusters, 128x64x64 when K <= 64.
//
// The fused epilogue of cudnnConvolutionBiasActivationForward, y = act(alpha1 conv + alpha2 z + bias): CUTLASS
// writes alpha1 conv + alpha2 z into y (z as the epilogue's source when it has y's layout; that is also right
// when z is y), then one vectorized pass adds the bias (and alpha2 z when z has another layout) and applies the
// activation in place. No workspace; y is rounded to its type between the two steps.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/cutlass/sm90/sm90_impl.h"
#include "cuda/conv/impls.h"

namespace fd::cuda::conv {
namespace {

// y (packed NHWC, K % 8 == 0) = act(y + bias[k] + alpha2 z) with write_out's semantics (f.alpha2 == 0 when z is
// already in y), 8 channels (16 bytes) per thread.
template <class S>
__global__ void bias_act_kernel(S* y, int64_t vectors, int64_t K, int64_t P, int64_t Q, FusedDev f) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < vectors; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t base = i * 8, c0 = base % K, pix = base / K;
    const int64_t q = pix % Q, t = pix / Q, ph = t % P, n = t / P;
    const uint4 in = reinterpret_cast<const uint4*>(y)[i];
    const S* v = reinterpret_cast<const S*>(&in);
    uint4 out;
    S* o = reinterpret_cast<S*>(&out);
#pragma unroll
    for (int j = 0; j < 8; ++j) write_out<S, float>(o, j, widen(v[j]), 1.0f, 0.0f, f, n, c0 + j, 0, ph, q);
    reinterpret_cast<uint4*>(y)[i] = out;
  }
}

sm90::KernelSet fprop_kernels() {
  return {&sm90::fprop_f16_128x128_c2, &sm90::fprop_f16_128x64, &sm90::fprop_bf16_128x128_c2,
          &sm90::fprop_bf16_128x64, [](const fd::ConvProblem& p) { return p.oc; }};
}

class CutlassSm90Fprop final : public sm90::Sm90ConvImpl {
 public:
  CutlassSm90Fprop()
      : Sm90ConvImpl("cuda:cutlass_sm90_fprop", fd::ConvDir::fwd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                     fprop_kernels()) {}

  cudnnStatus_t run(const fd::ConvProblem& p, const fd::conv::ConvArgs& a) const override {
    if (a.fused == nullptr) return launch(p, a, a.out, a.alpha, a.beta);
    const fd::conv::FusedEpilogue& e = *a.fused;
    FusedDev f = fused_dev(&e);
    const void* c = a.out;
    double beta = 0.0;
    if (e.alpha2 != 0.0) {
      if (sm90::packed_nhwc(*e.z) && sm90::aligned16(e.z_data)) {  // same shape and type as y: y's layout
        c = e.z_data;
        beta = e.alpha2;
        f.alpha2 = 0.0;
      } else {
        FD_CHECK_SUPPORTED(e.z_data != a.out, "cuda:cutlass_sm90_fprop: z aliases y with another layout");
      }
    }
    FD_TRY(launch(p, a, c, a.alpha, beta));
    const int64_t vectors = p.mb * p.osp() * p.oc / 8;
    const int grid = grid_size(vectors, kBlock, a.handle->device);
    if (p.ydt == CUDNN_DATA_HALF)
      bias_act_kernel<__half><<<grid, kBlock, 0, a.handle->stream>>>(static_cast<__half*>(a.out), vectors, p.oc, p.oh,
                                                                     p.ow, f);
    else
      bias_act_kernel<__nv_bfloat16><<<grid, kBlock, 0, a.handle->stream>>>(static_cast<__nv_bfloat16*>(a.out),
                                                                            vectors, p.oc, p.oh, p.ow, f);
    FD_CUDA_LAUNCHED();
    return CUDNN_STATUS_SUCCESS;
  }
};

}  // namespace

const fd::conv::ConvImpl* cutlass_sm90_fprop_impl() {
  static const CutlassSm90Fprop impl;
  return &impl;
}

}  // namespace fd::cuda::conv
