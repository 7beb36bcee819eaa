// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:direct: the convolution sums computed where they are defined, one thread per output element (y, dx or dw),
// reading the operands in place through their strides (any layout, NCHW_VECT_C included), groups, dilation,
// 2-D and 3-D. Accumulation in float (double for DOUBLE data, exact int32 for the int8 configurations). Each
// output element is summed by one thread in a fixed order, so results are deterministic. The universal fallback:
// it serves IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM and DIRECT forward, ALGO_0 backward data (gather formulation)
// and ALGO_0 backward filter (one thread per dw element looping over N x output space).
#include <cstdint>

#include "core/dtype.h"
#include "core/handle.h"
#include "cuda/common/cuda_util.h"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/impls.h"

namespace fd::cuda::conv {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

// Coordinates of linear index i in a packed [outer][c][d][h][w] space (w fastest): the output element of a kernel.
struct Coord5 {
  int64_t outer, c, d, h, w;
};
__device__ __forceinline__ Coord5 decode5(int64_t i, int64_t c, int64_t d, int64_t h, int64_t w) {
  Coord5 r;
  r.w = i % w;
  i /= w;
  r.h = i % h;
  i /= h;
  r.d = i % d;
  i /= d;
  r.c = i % c;
  r.outer = i / c;
  return r;
}

// y[n][k][o] = sum over c in k's group and taps of x[n][c][o*s - p + t*dil] * w_eff[k][c][t].
template <class Sx, class Sw, class Sy, class A, class E>
__global__ void forward_kernel(Geom g, View5 xv, const Sx* x, View5 wv, const Sw* w, View5 yv, Sy* y, E alpha,
                               E beta, FusedDev f) {
  const int64_t total = g.mb * g.oc * g.osp();
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const auto [n, k, od, oh, ow] = decode5(i, g.oc, g.od, g.oh, g.ow);
    const int64_t c0 = (k / g.ocg) * g.icg;
    A acc = A(0);
    for (int64_t c = 0; c < g.icg; ++c) {
      for (int64_t kd = 0; kd < g.kd; ++kd) {
        const int64_t id = od * g.sd - g.pd + kd * g.dd;
        if (id < 0 || id >= g.id) continue;
        const int64_t fkd = g.flip ? g.kd - 1 - kd : kd;
        for (int64_t kh = 0; kh < g.kh; ++kh) {
          const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
          if (ih < 0 || ih >= g.ih) continue;
          const int64_t fkh = g.flip ? g.kh - 1 - kh : kh;
          for (int64_t kw = 0; kw < g.kw; ++kw) {
            const int64_t iw = ow * g.sw - g.pw + kw * g.dw;
            if (iw < 0 || iw >= g.iw) continue;
            const int64_t fkw = g.flip ? g.kw - 1 - kw : kw;
            acc += load_as<A>(x, xv.at(n, c0 + c, id, ih, iw)) * load_as<A>(w, wv.at(k, c, fkd, fkh, fkw));
          }
        }
      }
    }
    write_out<Sy, E>(y, yv.at(n, k, od, oh, ow), static_cast<E>(acc), alpha, beta, f, n, k, od, oh, ow);
  }
}

// dx[n][c][i] = sum over taps t and outputs o with i = o*s - p + t*dil, and k in c's group, of
// dy[n][k][o] * w_eff[k][c % icg][t]  (a gather: no atomics).
template <class S, class A>
__global__ void backward_data_kernel(Geom g, View5 dyv, const S* dy, View5 wv, const S* w, View5 dxv, S* dx, A alpha,
                                     A beta) {
  const int64_t total = g.mb * g.ic * g.isp();
  const FusedDev none;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const auto [n, c, id, ih, iw] = decode5(i, g.ic, g.id, g.ih, g.iw);
    const int64_t grp = c / g.icg, cg = c % g.icg;
    A acc = A(0);
    for (int64_t kd = 0; kd < g.kd; ++kd) {
      const int64_t nd = id + g.pd - kd * g.dd;
      if (nd < 0 || nd % g.sd != 0 || nd / g.sd >= g.od) continue;
      const int64_t od = nd / g.sd, fkd = g.flip ? g.kd - 1 - kd : kd;
      for (int64_t kh = 0; kh < g.kh; ++kh) {
        const int64_t nh = ih + g.ph - kh * g.dh;
        if (nh < 0 || nh % g.sh != 0 || nh / g.sh >= g.oh) continue;
        const int64_t oh = nh / g.sh, fkh = g.flip ? g.kh - 1 - kh : kh;
        for (int64_t kw = 0; kw < g.kw; ++kw) {
          const int64_t nw = iw + g.pw - kw * g.dw;
          if (nw < 0 || nw % g.sw != 0 || nw / g.sw >= g.ow) continue;
          const int64_t ow = nw / g.sw, fkw = g.flip ? g.kw - 1 - kw : kw;
          for (int64_t j = 0; j < g.ocg; ++j) {
            const int64_t k = grp * g.ocg + j;
            acc += load_as<A>(dy, dyv.at(n, k, od, oh, ow)) * load_as<A>(w, wv.at(k, cg, fkd, fkh, fkw));
          }
        }
      }
    }
    write_out<S, A>(dx, dxv.at(n, c, id, ih, iw), acc, alpha, beta, none, n, c, id, ih, iw);
  }
}

// dw[k][c][t] = sum over n and outputs o of dy[n][k][o] * x[n][grp*icg + c][o*s - p + t_eff*dil], where t_eff is
// the flipped tap for CUDNN_CONVOLUTION (dw is the flip of the effective filter's gradient).
template <class S, class A>
__global__ void backward_filter_kernel(Geom g, View5 xv, const S* x, View5 dyv, const S* dy, View5 dwv, S* dw,
                                       A alpha, A beta) {
  const int64_t total = g.oc * g.icg * g.ksp();
  const FusedDev none;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const auto [k, cg, kd, kh, kw] = decode5(i, g.icg, g.kd, g.kh, g.kw);
    const int64_t c = (k / g.ocg) * g.icg + cg;
    const int64_t ekd = g.flip ? g.kd - 1 - kd : kd, ekh = g.flip ? g.kh - 1 - kh : kh,
                  ekw = g.flip ? g.kw - 1 - kw : kw;
    A acc = A(0);
    for (int64_t n = 0; n < g.mb; ++n)
      for (int64_t od = 0; od < g.od; ++od) {
        const int64_t id = od * g.sd - g.pd + ekd * g.dd;
        if (id < 0 || id >= g.id) continue;
        for (int64_t oh = 0; oh < g.oh; ++oh) {
          const int64_t ih = oh * g.sh - g.ph + ekh * g.dh;
          if (ih < 0 || ih >= g.ih) continue;
          for (int64_t ow = 0; ow < g.ow; ++ow) {
            const int64_t iw = ow * g.sw - g.pw + ekw * g.dw;
            if (iw < 0 || iw >= g.iw) continue;
            acc += load_as<A>(dy, dyv.at(n, k, od, oh, ow)) * load_as<A>(x, xv.at(n, c, id, ih, iw));
          }
        }
      }
    write_out<S, A>(dw, dwv.at(k, cg, kd, kh, kw), acc, alpha, beta, none, k, cg, kd, kh, kw);
  }
}

template <class Sx, class Sw, class Sy, class A, class E>
cudnnStatus_t launch_forward(const ConvProblem& p, const ConvArgs& a) {
  const Geom g = geom(p);
  const int64_t total = g.mb * g.oc * g.osp();
  cudnnContext* h = a.handle;
  forward_kernel<Sx, Sw, Sy, A, E><<<grid_size(total, kBlock, h->device), kBlock, 0, h->stream>>>(
      g, view5(*p.x), static_cast<const Sx*>(a.in), view5(p.w->as_tensor), static_cast<const Sw*>(a.in2),
      view5(*p.y), static_cast<Sy*>(a.out), static_cast<E>(a.alpha), static_cast<E>(a.beta), fused_dev(a.fused));
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

// int8 configurations: x s8/u8 (plain or vector), w s8, int32 sums, y s8 or f32; the epilogue in double.
template <class Sx>
cudnnStatus_t launch_forward_int8(const ConvProblem& p, const ConvArgs& a) {
  if (dtype_scalar(p.ydt) == CUDNN_DATA_FLOAT) return launch_forward<Sx, int8_t, float, int32_t, double>(p, a);
  return launch_forward<Sx, int8_t, int8_t, int32_t, double>(p, a);
}

cudnnStatus_t run_forward(const ConvProblem& p, const ConvArgs& a) {
  if (p.is_int8()) {
    const cudnnDataType_t xs = dtype_scalar(p.xdt);
    if (xs == CUDNN_DATA_UINT8) return launch_forward_int8<uint8_t>(p, a);
    return launch_forward_int8<int8_t>(p, a);
  }
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  const bool known = with_float_storage(p.xdt, [&](auto tag) {
    using S = decltype(tag);
    using A = ComputeOf<S>;
    st = launch_forward<S, S, S, A, A>(p, a);
  });
  FD_CHECK_SUPPORTED(known, "cuda:direct has no forward kernel for %s", dtype_short_name(p.xdt));
  return st;
}

cudnnStatus_t run_backward(const ConvProblem& p, const ConvArgs& a) {
  const Geom g = geom(p);
  cudnnContext* h = a.handle;
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  const bool known = with_float_storage(p.xdt, [&](auto tag) {
    using S = decltype(tag);
    using A = ComputeOf<S>;
    if (p.dir == ConvDir::bwd_data) {
      const int64_t total = g.mb * g.ic * g.isp();
      backward_data_kernel<S, A><<<grid_size(total, kBlock, h->device), kBlock, 0, h->stream>>>(
          g, view5(*p.y), static_cast<const S*>(a.in), view5(p.w->as_tensor), static_cast<const S*>(a.in2),
          view5(*p.x), static_cast<S*>(a.out), static_cast<A>(a.alpha), static_cast<A>(a.beta));
    } else {
      const int64_t total = g.oc * g.icg * g.ksp();
      backward_filter_kernel<S, A><<<grid_size(total, kBlock, h->device), kBlock, 0, h->stream>>>(
          g, view5(*p.x), static_cast<const S*>(a.in), view5(*p.y), static_cast<const S*>(a.in2),
          view5(p.w->as_tensor), static_cast<S*>(a.out), static_cast<A>(a.alpha), static_cast<A>(a.beta));
    }
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
      st = ::fd::report(CUDNN_STATUS_EXECUTION_FAILED, __FILE__, __LINE__, "launch", "CUDA error %s: %s",
                        cudaGetErrorName(e), cudaGetErrorString(e));
  });
  FD_CHECK_SUPPORTED(known, "cuda:direct has no backward kernel for %s", dtype_short_name(p.xdt));
  return st;
}

class Direct final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cuda:direct"; }
  fd::Backend backend() const override { return fd::Backend::cuda; }
  bool serves(ConvDir dir, int algo) const override {
    switch (dir) {
      case ConvDir::fwd:
        return algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
               algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
      case ConvDir::bwd_data: return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
      case ConvDir::bwd_filter: return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0;
    }
    return false;
  }
  fd::conv::Verdict applicable(const ConvProblem&) const override { return {}; }
  size_t workspace_size(const ConvProblem&) const override { return 0; }
  bool deterministic() const override { return true; }
  cudnnMathType_t math_type(const ConvProblem& p) const override {
    return p.math == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
  }
  double cost_estimate(const ConvProblem& p) const override {
    // Scalar loops reading every operand through the caches: some 0.3 TFLOP/s, plus one launch.
    const double bytes = 4.0 * (p.mb * p.ic * p.isp() + p.oc * p.icg() * p.ksp() + p.mb * p.oc * p.osp());
    const double rate = p.dir == ConvDir::fwd ? 3e11 : 1.5e11;  // the backward loops test more taps
    return p.flops() / rate + bytes / 2e12 + 5e-6;
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:direct called without a handle");
    if (p.dir == ConvDir::fwd) return run_forward(p, a);
    return run_backward(p, a);
  }
};

}  // namespace

const fd::conv::ConvImpl* direct_impl() {
  static const Direct impl;
  return &impl;
}

}  // namespace fd::cuda::conv
