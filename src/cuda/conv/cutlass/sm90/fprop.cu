// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:cutlass_sm90_fprop: forward convolution on Hopper tensor cores (CUTLASS 3.x implicit GEMM, TMA im2col + wgmma;
// sm90_impl.h lists what it accepts). Serves CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM. Kernels: 128x128x64
// tiles in 2x1 clusters, 128x64x64 when K <= 64 (sm90_impl.h's pick_kernel: pipeline depths); float data as TF32 (where
// tf32_allowed): 128x128x32 in 2x1 clusters, 128x64x32 when K <= 64. Operands in other layouts or channel counts are
// staged through the workspace (run_staged), and so are the folded space-to-depth copies of a stem-like forward
// (FREEDNN_SM90_S2D=0: off).
//
// The fused epilogue of cudnnConvolutionBiasActivationForward, y = act(alpha1 conv + alpha2 z + bias): CUTLASS
// writes alpha1 conv + alpha2 z into y (z as the epilogue's source when it has y's layout; that is also right
// when z is y), then one vectorized pass adds the bias (and alpha2 z when z has another layout) and applies the
// activation in place. No workspace; y is rounded to its type between the two steps.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "core/env.h"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/cutlass/sm90/chwn_copy.h"
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


// Float data: the staged copies of x (N, C, H, W; the strided view of the pixels a strided 1x1 filter reads where
// s.sub) and of the filter (K, C, R, S) as NHWC / KRSC, channels zero-padded, in one launch of chwn_copy.h's
// transposing copy (the float dgrad's staging: 16-byte loads over whole planes, 7 x 7 ones included) instead of two
// of to_nhwc. FREEDNN_SM90_FWD_CHWN=0 (read at every call) keeps to_nhwc. Why: run 34's same-call table had the
// TF32 7 x 7 3x3 forward at 82.5 us against 72.4 for the backward data of the same shape, which runs the same
// persistent kernel and output pass but stages through to_chwn.
bool chwn_staging(const fd::ConvProblem& p, const sm90::Staging& s) {
  return p.xdt == CUDNN_DATA_FLOAT && !s.s2d && (s.x || s.w) && fd::env_flag_or("FREEDNN_SM90_FWD_CHWN", true);
}

// The part of x the staged copy holds (not space-to-depth): all of it, or (s.sub) the strided view of the pixels a
// strided 1x1 filter reads.
cudnnTensorStruct staged_x_view(const fd::ConvProblem& p, const sm90::Staging& s) {
  cudnnTensorStruct v = *p.x;
  if (s.sub) {
    v.dims[2] = p.oh, v.dims[3] = p.ow;
    v.strides[2] *= p.sh, v.strides[3] *= p.sw;
  }
  return v;
}

cudnnStatus_t stage_float_operands(const fd::ConvProblem& p, const fd::conv::ConvArgs& a, const sm90::Staging& s,
                                   char* ws) {
  sm90::ChwnCopy<float> copies[2];
  int n = 0;
  if (s.x) copies[n++] = sm90::to_channels_last(staged_x_view(p, s), a.in, p.mb, s.c, ws + s.off_x);
  if (s.w) copies[n++] = sm90::to_channels_last(p.w->as_tensor, a.in2, s.k, s.c, ws + s.off_w);
  return sm90::to_chwn(a.handle->stream, copies, n);
}

class CutlassSm90Fprop final : public sm90::Sm90ConvImpl {
 public:
  CutlassSm90Fprop()
      : Sm90ConvImpl("cuda:cutlass_sm90_fprop", fd::ConvDir::fwd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                     sm90::fprop_kernel_set()) {}

  cudnnStatus_t run(const fd::ConvProblem& p, const fd::conv::ConvArgs& a) const override {
    if (p.xdt == CUDNN_DATA_FLOAT || sm90::staging(p).any()) return run_staged(p, a);
    if (a.fused == nullptr) return launch(p, a, a.out, a.alpha, a.beta);
    const fd::conv::FusedEpilogue& e = *a.fused;
    FusedDev f = fused_dev(&e);
    const void* c = a.out;
    double beta = 0.0;
    if (e.alpha2 != 0.0) {
      if (fd::packed_nhwc(*e.z) && sm90::aligned16(e.z_data)) {  // same shape and type as y: y's layout
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

 private:
  // Float data (on TF32 tensor cores), and 16-bit data with staged operands. x and w that are not packed NHWC / KRSC
  // with C, K multiples of the 16-byte vector are copied into the workspace first (channels zero-padded); a y that
  // is not is computed into the workspace and written back
  // (alpha/beta blend or the fused epilogue). A packed y gets alpha * conv + beta * y straight from the kernel's
  // epilogue; fused, also alpha2 * z when z is stored like y, then one in-place pass adds the bias (and z otherwise)
  // and applies the activation, as cuda:cutlass_sm80_fprop does.
  cudnnStatus_t run_staged(const fd::ConvProblem& p, const fd::conv::ConvArgs& a) const {
    const cudnnDataType_t dt = p.xdt;  // the storage type of x, w and y (one type: check_problem)
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:cutlass_sm90_fprop called without a handle");
    const sm90::Staging s = sm90::staging(p);
    const fd::conv::FusedEpilogue* fused = a.fused;
    // The write-back reads z and writes y element by element through their own strides: z may be y only when both
    // describe the same layout.
    FD_CHECK_SUPPORTED(fused == nullptr || fused->alpha2 == 0.0 || fused->z_data != a.out ||
                           same_layout(*fused->z, *p.y),
                       "cuda:cutlass_sm90_fprop: z aliases y with another layout");
    const size_t need = workspace_size(p);
    FD_CHECK_PARAM(!s.any() || (a.workspace != nullptr && a.workspace_size >= need),
                   "cuda:cutlass_sm90_fprop needs %zu bytes of workspace, got %zu", need, a.workspace_size);
    const cudaStream_t st = a.handle->stream;
    const int dev = a.handle->device;
    char* ws = ws_base(a);
    const void* x = a.in;
    const void* w = a.in2;
    const bool one_copy = chwn_staging(p, s);  // x and w in one transposing copy
    if (one_copy) FD_TRY(stage_float_operands(p, a, s, ws));
    if (s.x) {
      if (s.s2d) FD_TRY(s2d_input(st, dev, dt, *p.x, a.in, s.zs, p.ph, p.pw, ws + s.off_x));
      else if (!one_copy) FD_TRY(to_nhwc(st, dev, dt, staged_x_view(p, s), a.in, ws + s.off_x, p.mb, s.c));
      x = ws + s.off_x;
    }
    if (s.w) {  // (cross-correlation only here: check_problem, so the space-to-depth filter is not flipped)
      if (s.s2d) FD_TRY(s2d_filter(st, dev, dt, p.w->as_tensor, a.in2, s.zs, s.k, false, ws + s.off_w));
      else if (!one_copy) FD_TRY(to_nhwc(st, dev, dt, p.w->as_tensor, a.in2, ws + s.off_w, s.k, s.c));
      w = ws + s.off_w;
    }
    const auto alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
    if (s.y) {
      void* buf = ws + s.off_y;
      FD_TRY(run_kernel(p, a, s, x, w, buf, buf, 1.0, 0.0));
      return from_nhwc(st, dev, dt, buf, s.k, *p.y, a.out, alpha, beta, fused);
    }
    if (fused == nullptr) return run_kernel(p, a, s, x, w, a.out, a.out, a.alpha, a.beta);
    const fd::conv::FusedEpilogue& e = *fused;
    const bool z_in_kernel = e.alpha2 != 0.0 && packed_nhwc(*e.z) && aligned16(e.z_data);
    FD_TRY(run_kernel(p, a, s, x, w, z_in_kernel ? e.z_data : a.out, a.out, a.alpha, z_in_kernel ? e.alpha2 : 0.0));
    if (z_in_kernel || e.alpha2 == 0.0) return bias_act_nhwc(st, dev, dt, a.out, p.mb * p.oh * p.ow * s.k, s.k, e);
    return from_nhwc(st, dev, dt, a.out, s.k, *p.y, a.out, 1.f, 0.f, fused);  // adds alpha2 * z through its view
  }
};

}  // namespace

const fd::conv::ConvImpl* cutlass_sm90_fprop_impl() {
  static const CutlassSm90Fprop impl;
  return &impl;
}

}  // namespace fd::cuda::conv

namespace fd::cuda::conv::sm90 {
KernelSet fprop_kernel_set() {
  return {&fprop_f16_128x128_c2, &fprop_f16_128x64,  &fprop_bf16_128x128_c2, &fprop_bf16_128x64,
          &fprop_tf32_128x128_c2, &fprop_tf32_128x64, [](const fd::ConvProblem& p) { return p.oc; },
          &fprop_f16_128x64_s4,  &fprop_bf16_128x64_s4, &fprop_tf32_128x64_s4};
}
}  // namespace fd::cuda::conv::sm90
