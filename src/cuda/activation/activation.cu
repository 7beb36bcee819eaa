// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cudnnActivationForward / Backward on the GPU: one pass, the definitions of src/cpu/activation/activation.cpp.
// Bytes per element: forward reads x, writes y (2 elements; +1 read of y when beta != 0); backward reads dy and
// x or y (RELU-like modes: x; SIGMOID/TANH: y), writes dx (3 elements; +1 when beta != 0).
// A dense kernel (every tensor in the output's packed layout, 16-byte accesses when aligned) and a generic strided
// one (runtime storage types through the dyn helpers).
#include "cuda/activation/activation.h"

#include "core/dtype.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/dyn_tensor.cuh"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"

namespace fd::cuda {
namespace {

constexpr int kBlock = 256;

struct Act {
  int mode;
  bool prop;
  double coef, swish;
  bool reads_y, reads_x;
};

template <class C>
__device__ __forceinline__ C sigmoid(C v) {
  return C(1) / (C(1) + exp(-v));
}

template <class C>
__device__ __forceinline__ C act_fwd(const Act& a, C v) {
  const C c = static_cast<C>(a.coef);
  switch (a.mode) {
    case CUDNN_ACTIVATION_SIGMOID: return sigmoid(v);
    case CUDNN_ACTIVATION_RELU:
      if (v != v) return a.prop ? v : C(0);
      return v > C(0) ? v : C(0);
    case CUDNN_ACTIVATION_TANH: return tanh(v);
    case CUDNN_ACTIVATION_CLIPPED_RELU:
      if (v != v) return a.prop ? v : C(0);
      return v > C(0) ? (v < c ? v : c) : C(0);
    case CUDNN_ACTIVATION_ELU: return v > C(0) ? v : c * expm1(v);
    case CUDNN_ACTIVATION_SWISH: return v * sigmoid(static_cast<C>(a.swish) * v);
    default: return v;  // IDENTITY
  }
}

// g = dy; yv = y (SIGMOID, TANH); xv = x (the others).
template <class C>
__device__ __forceinline__ C act_bwd(const Act& a, C yv, C g, C xv) {
  const C c = static_cast<C>(a.coef);
  switch (a.mode) {
    case CUDNN_ACTIVATION_SIGMOID: return g * yv * (C(1) - yv);
    case CUDNN_ACTIVATION_RELU:
      if (xv != xv) return a.prop ? xv : C(0);
      return xv > C(0) ? g : C(0);
    case CUDNN_ACTIVATION_TANH: return g * (C(1) - yv * yv);
    case CUDNN_ACTIVATION_CLIPPED_RELU:
      if (xv != xv) return a.prop ? xv : C(0);
      return (xv > C(0) && xv < c) ? g : C(0);
    case CUDNN_ACTIVATION_ELU: return xv > C(0) ? g : g * c * exp(xv);
    case CUDNN_ACTIVATION_SWISH: {
      const C b = static_cast<C>(a.swish);
      const C s = sigmoid(b * xv);
      return g * (s + b * xv * s * (C(1) - s));
    }
    default: return g;  // IDENTITY
  }
}

template <class S>
__device__ __forceinline__ uint4 load16(const S* p, int64_t i) {
  return p ? reinterpret_cast<const uint4*>(p)[i] : uint4{};
}

// kFwd: forward (x in `x`; y and dy unused), else backward. Every tensor at the same offsets as the output.
// kMode >= 0: the activation mode as a constant (RELU, the common case: no per-element mode switch); -1: a.mode.
// The direction is a template parameter so that the forward holds no registers for the backward's operands: the
// 16-bit RELU forward took 40 registers (6 blocks of 256 per SM) when both shared one kernel, 32 now (8 blocks:
// a third more bytes in flight per SM; run 11 had it at 84 % of the copy bandwidth against f32's 87-90 %).
// One pass: each element of the inputs read once, the output written once (read too when beta != 0). With `vec`,
// 16-byte accesses, kU vectors in flight per thread; the grid is one wave of resident blocks (grid-stride loop),
// so that no partial second wave is left at the end.
template <class S, class C, int kMode, bool kFwd>
__global__ void __launch_bounds__(kBlock) act_dense(Act a, const S* y, const S* dy, const S* x, S* out, int64_t n,
                                                    bool vec, C alpha, C beta) {
  constexpr int kU = 2;
  pdl_wait();  // launched as a dependent (ops_pdl.h): the previous kernel's writes first
  if (kMode >= 0) a.mode = kMode;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t t0 = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  constexpr bool fwd = kFwd;
  if constexpr (kFwd) y = dy = nullptr;
  auto one = [&](C yv, C g, C xv, C prior) {
    C r = fwd ? act_fwd<C>(a, xv) : act_bwd<C>(a, yv, g, xv);
    r = alpha == C(1) ? r : alpha * r;
    if (beta != C(0)) r += beta * prior;
    return r;
  };
  int64_t done = 0;
  if (vec) {
    constexpr int kPer = 16 / sizeof(S);
    const int64_t chunks = n / kPer;
    for (int64_t i0 = t0; i0 < chunks; i0 += kU * stride) {
      uint4 yr[kU] = {}, gr[kU] = {}, xr[kU], orr[kU];
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        const int64_t i = i0 + u * stride;
        if (i < chunks) {
          if constexpr (!kFwd) {
            yr[u] = load16(y, i);
            gr[u] = load16(dy, i);
          }
          xr[u] = load16(x, i);
          orr[u] = beta != C(0) ? load16<S>(out, i) : uint4{};
        }
      }
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        const int64_t i = i0 + u * stride;
        if (i >= chunks) continue;
        const S* ys = reinterpret_cast<const S*>(&yr[u]);
        const S* gs = reinterpret_cast<const S*>(&gr[u]);
        const S* xs = reinterpret_cast<const S*>(&xr[u]);
        S* os = reinterpret_cast<S*>(&orr[u]);
#pragma unroll
        for (int k = 0; k < kPer; ++k)
          Storage<S>::store(os, k,
                            one(Storage<S>::load(ys, k), Storage<S>::load(gs, k), Storage<S>::load(xs, k),
                                beta != C(0) ? Storage<S>::load(os, k) : C(0)));
        reinterpret_cast<uint4*>(out)[i] = orr[u];
      }
    }
    done = chunks * kPer;
  }
  for (int64_t i = done + t0; i < n; i += stride) {
    const C yv = (!fwd && y) ? Storage<S>::load(y, i) : C(0);
    const C g = dy ? Storage<S>::load(dy, i) : C(0);
    const C xv = x ? Storage<S>::load(x, i) : C(0);
    Storage<S>::store(out, i, one(yv, g, xv, beta != C(0) ? Storage<S>::load(out, i) : C(0)));
  }
  pdl_allow_dependents();
}

struct Operand {
  BView v;
  const void* p = nullptr;
};

template <class C>
__global__ void act_generic(Act a, cudnnDataType_t t, Operand y, Operand dy, Operand x, BView ov, void* out,
                            int64_t n, C alpha, C beta) {
  const bool fwd = dy.p == nullptr;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const C xv = x.p ? load_dyn<C>(t, x.p, x.v.offset(i)) : C(0);
    C r;
    if (fwd) {
      r = act_fwd<C>(a, xv);
    } else {
      const C yv = y.p ? load_dyn<C>(t, y.p, y.v.offset(i)) : C(0);
      r = act_bwd<C>(a, yv, load_dyn<C>(t, dy.p, dy.v.offset(i)), xv);
    }
    blend_dyn<C>(t, out, ov.offset(i), r, alpha, beta);
  }
}

cudnnStatus_t run(cudaStream_t stream, int device, const Act& a, const cudnnTensorStruct* yd, const void* y,
                  const cudnnTensorStruct* dyd, const void* dy, const cudnnTensorStruct* xd, const void* x,
                  const cudnnTensorStruct& od, void* out, double alpha, double beta) {
  const int64_t n = od.element_count();
  if (n == 0) return CUDNN_STATUS_SUCCESS;
  const bool dense = od.vect() == 1 && od.is_packed() && (!y || same_packed_layout(*yd, od)) &&
                     (!dy || same_packed_layout(*dyd, od)) && (!x || same_packed_layout(*xd, od));
  if (dense) {
    const bool vec = aligned16(y) && aligned16(dy) && aligned16(x) && aligned16(out);
    const bool known = with_storage_type(od.dtype, [&](auto tag) {
      using S = decltype(tag);
      using C = decltype(Storage<S>::load(nullptr, 0));
      const int64_t items = vec ? n / (16 / sizeof(S)) / 2 + 1 : n;
      const bool relu = a.mode == CUDNN_ACTIVATION_RELU;
      auto kern = dy == nullptr ? (relu ? act_dense<S, C, CUDNN_ACTIVATION_RELU, true> : act_dense<S, C, -1, true>)
                                : (relu ? act_dense<S, C, CUDNN_ACTIVATION_RELU, false> : act_dense<S, C, -1, false>);
      const int grid = resident_grid(reinterpret_cast<const void*>(kern), items, kBlock, kBlock, 0, device);
      (void)launch_pdl(ops_pdl(device), kern, dim3(grid), dim3(kBlock), 0, stream, a, static_cast<const S*>(y),
                       static_cast<const S*>(dy), static_cast<const S*>(x), static_cast<S*>(out), n, vec,
                       static_cast<C>(alpha), static_cast<C>(beta));
    });
    FD_CHECK_SUPPORTED(known, "no CUDA activation for %s", enum_name(od.dtype));
    FD_CUDA_LAUNCHED();
    return CUDNN_STATUS_SUCCESS;
  }
  Operand oy, ody, ox;
  if (y) oy = {make_bview(*yd), y};
  if (dy) ody = {make_bview(*dyd), dy};
  if (x) ox = {make_bview(*xd), x};
  const BView ov = make_bview(od);
  const cudnnDataType_t t = dtype_scalar(od.dtype);
  const int grid = grid_size(n, kBlock, device);
  if (t == CUDNN_DATA_DOUBLE)
    act_generic<double><<<grid, kBlock, 0, stream>>>(a, t, oy, ody, ox, ov, out, n, alpha, beta);
  else
    act_generic<float><<<grid, kBlock, 0, stream>>>(a, t, oy, ody, ox, ov, out, n, static_cast<float>(alpha),
                                                    static_cast<float>(beta));
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

Act make_act(const cudnnActivationStruct& d) {
  const cudnnActivationMode_t m = d.mode;
  return Act{static_cast<int>(m), d.nan_opt == CUDNN_PROPAGATE_NAN, d.coef, d.swish_beta,
             m == CUDNN_ACTIVATION_SIGMOID || m == CUDNN_ACTIVATION_TANH,
             m == CUDNN_ACTIVATION_RELU || m == CUDNN_ACTIVATION_CLIPPED_RELU || m == CUDNN_ACTIVATION_ELU ||
                 m == CUDNN_ACTIVATION_SWISH};
}

}  // namespace

cudnnStatus_t activation_forward(cudaStream_t stream, int device, const cudnnActivationStruct& act, double alpha,
                                 const cudnnTensorStruct& x_desc, const void* x, double beta,
                                 const cudnnTensorStruct& y_desc, void* y) {
  return run(stream, device, make_act(act), nullptr, nullptr, nullptr, nullptr, &x_desc, x, y_desc, y, alpha, beta);
}

cudnnStatus_t activation_backward(cudaStream_t stream, int device, const cudnnActivationStruct& act, double alpha,
                                  const cudnnTensorStruct& y_desc, const void* y, const cudnnTensorStruct& dy_desc,
                                  const void* dy, const cudnnTensorStruct& x_desc, const void* x, double beta,
                                  const cudnnTensorStruct& dx_desc, void* dx) {
  const Act a = make_act(act);
  return run(stream, device, a, a.reads_y ? &y_desc : nullptr, a.reads_y ? y : nullptr, &dy_desc, dy,
             a.reads_x ? &x_desc : nullptr, a.reads_x ? x : nullptr, dx_desc, dx, alpha, beta);
}

}  // namespace fd::cuda
