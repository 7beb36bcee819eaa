// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Cross-channel LRN and divisive normalization on the GPU (see src/cpu/lrn/lrn.h for the formulas). One thread per
// logical element; tensors are read through their strides (any layout: NCHW, NHWC, padded), storage types as
// runtime values; compute in float (double for DOUBLE). Window sums run in the CPU's order (ascending taps; for
// divisive normalization one separable pass per spatial dim over packed scratch buffers).
#include "cuda/lrn/lrn.h"

#include <cmath>
#include <type_traits>

#include "core/dtype.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/dyn_tensor.cuh"

namespace fd::cuda {
namespace {

constexpr int kBlock = 256;

__device__ __forceinline__ float cpow(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double cpow(double a, double b) { return pow(a, b); }

#define FD_GRID_LOOP(i, n) \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n); i += int64_t(gridDim.x) * blockDim.x)

// Channel window [c - lo, c + hi] clipped to [0, chans).
struct Win {
  int64_t lo, hi;
};
Win centred(unsigned n) {
  const int64_t lo = (static_cast<int64_t>(n) - 1) / 2;
  return {lo, static_cast<int64_t>(n) - 1 - lo};
}

// s = k + a * sum_{window(c)} x^2 at logical element i (offset xo in x, channel c).
template <class C>
__device__ __forceinline__ C lrn_s(cudnnDataType_t t, const void* x, int64_t xo, int64_t xs1, int64_t c,
                                   int64_t chans, Win w, C k, C a) {
  const int64_t j0 = c - w.lo < 0 ? 0 : c - w.lo;
  const int64_t j1 = c + w.hi >= chans ? chans - 1 : c + w.hi;
  C s = C(0);
  for (int64_t j = j0; j <= j1; ++j) {
    const C v = load_dyn<C>(t, x, xo + (j - c) * xs1);
    s += v * v;
  }
  return k + a * s;
}

// y = alpha * x s^-b + beta * y; or, with `packed_out`, the unblended value into packed_out[i] (in-place calls).
template <class C>
__global__ void lrn_fwd(cudnnDataType_t t, TensorView xv, const void* x, TensorView yv, void* y, C* packed_out,
                        int64_t total, int64_t inner, int64_t chans, Win w, C k, C a, C b, C alpha, C beta) {
  FD_GRID_LOOP(i, total) {
    const int64_t c = (i / inner) % chans;
    const int64_t xo = xv.offset(i);
    const C s = lrn_s<C>(t, x, xo, xv.strides[1], c, chans, w, k, a);
    const C r = load_dyn<C>(t, x, xo) * cpow(s, -b);
    if (packed_out) packed_out[i] = r;
    else blend_dyn<C>(t, y, yv.offset(i), r, alpha, beta);
  }
}

template <class C>
__global__ void blend_packed(cudnnDataType_t t, const C* v, TensorView yv, void* y, int64_t total, C alpha, C beta) {
  FD_GRID_LOOP(i, total) blend_dyn<C>(t, y, yv.offset(i), v[i], alpha, beta);
}

// Backward pass 1: pw = s^-b, tt = dy x s^(-b-1), packed.
template <class C>
__global__ void lrn_bwd1(cudnnDataType_t t, TensorView xv, const void* x, TensorView gv, const void* dy, C* pw,
                         C* tt, int64_t total, int64_t inner, int64_t chans, Win w, C k, C a, C b) {
  FD_GRID_LOOP(i, total) {
    const int64_t c = (i / inner) % chans;
    const int64_t xo = xv.offset(i);
    const C s = lrn_s<C>(t, x, xo, xv.strides[1], c, chans, w, k, a);
    const C p = cpow(s, -b);
    pw[i] = p;
    tt[i] = load_dyn<C>(t, dy, gv.offset(i)) * load_dyn<C>(t, x, xo) * p / s;
  }
}

// Backward pass 2: dx = dy pw - cc x sum_{reflected window} tt.
template <class C>
__global__ void lrn_bwd2(cudnnDataType_t t, TensorView xv, const void* x, TensorView gv, const void* dy,
                         const C* pw, const C* tt, TensorView dxv, void* dx, int64_t total, int64_t inner,
                         int64_t chans, Win rw, C cc, C alpha, C beta) {
  FD_GRID_LOOP(i, total) {
    const int64_t c = (i / inner) % chans;
    const int64_t j0 = c - rw.lo < 0 ? 0 : c - rw.lo;
    const int64_t j1 = c + rw.hi >= chans ? chans - 1 : c + rw.hi;
    C acc = C(0);
    for (int64_t j = j0; j <= j1; ++j) acc += tt[i + (j - c) * inner];
    const C g = load_dyn<C>(t, dy, gv.offset(i));
    const C r = g * pw[i] - cc * load_dyn<C>(t, x, xv.offset(i)) * acc;
    blend_dyn<C>(t, dx, dxv.offset(i), r, alpha, beta);
  }
}

// out[.., p, ..] = sum_{q in [p - lo, p + hi]} in[.., q, ..] along a dim of length len, inner elements per step.
template <class C>
__global__ void window_pass(const C* in, C* out, int64_t total, int64_t len, int64_t inner, Win w) {
  FD_GRID_LOOP(i, total) {
    const int64_t p = (i / inner) % len;
    const int64_t base = i - p * inner;
    const int64_t q0 = p - w.lo < 0 ? 0 : p - w.lo;
    const int64_t q1 = p + w.hi >= len ? len - 1 : p + w.hi;
    C s = C(0);
    for (int64_t q = q0; q <= q1; ++q) s += in[base + q * inner];
    out[i] = s;
  }
}

// d = x - means (means may be null).
template <class C>
__device__ __forceinline__ C centred_at(cudnnDataType_t t, const void* x, const void* means, int64_t off) {
  C d = load_dyn<C>(t, x, off);
  if (means) d -= load_dyn<C>(t, means, off);
  return d;
}

template <class C>
__global__ void dn_square(cudnnDataType_t t, TensorView xv, const void* x, const void* means, C* out, int64_t total) {
  FD_GRID_LOOP(i, total) {
    const C d = centred_at<C>(t, x, means, xv.offset(i));
    out[i] = d * d;
  }
}

template <class C>
__global__ void dn_fwd_final(cudnnDataType_t t, TensorView xv, const void* x, const void* means, const C* box,
                             TensorView yv, void* y, int64_t total, C k, C a, C b, C alpha, C beta) {
  FD_GRID_LOOP(i, total) {
    const C d = centred_at<C>(t, x, means, xv.offset(i));
    const C s = k + a * box[i];
    blend_dyn<C>(t, y, yv.offset(i), d * cpow(s, -b), alpha, beta);
  }
}

// box (the window sum of d^2) becomes pw = s^-b; tt = dy d pw / s.
template <class C>
__global__ void dn_bwd_mid(cudnnDataType_t t, TensorView xv, const void* x, const void* means, const void* dy,
                           C* box, C* tt, int64_t total, C k, C a, C b) {
  FD_GRID_LOOP(i, total) {
    const int64_t xo = xv.offset(i);
    const C d = centred_at<C>(t, x, means, xo);
    const C s = k + a * box[i];
    const C p = cpow(s, -b);
    box[i] = p;
    tt[i] = load_dyn<C>(t, dy, xo) * d * p / s;
  }
}

template <class C>
__global__ void dn_bwd_final(cudnnDataType_t t, TensorView xv, const void* x, const void* means, const void* dy,
                             const C* pw, const C* acc, TensorView dxv, void* dx, void* dmeans, int64_t total, C cc,
                             C alpha, C beta) {
  FD_GRID_LOOP(i, total) {
    const int64_t xo = xv.offset(i);
    const C d = centred_at<C>(t, x, means, xo);
    const C g = load_dyn<C>(t, dy, xo);  // read before dx (dx may alias dy)
    const C r = g * pw[i] - cc * d * acc[i];
    const int64_t o = dxv.offset(i);
    if (dmeans) blend_dyn<C>(t, dmeans, o, -r, alpha, beta);
    blend_dyn<C>(t, dx, o, r, alpha, beta);
  }
}

int64_t inner_of(const cudnnTensorStruct& d, int dim) {
  int64_t inner = 1;
  for (int i = dim + 1; i < d.nb_dims; ++i) inner *= d.dims[i];
  return inner;
}

// Calls f(C{}) with the compute type of storage type t.
template <class F>
void with_compute(cudnnDataType_t t, F&& f) {
  if (t == CUDNN_DATA_DOUBLE) f(double{});
  else f(float{});
}

// Box sum over the spatial dims [2, nb) of the packed buffer `cur` (ping-pong with `other`); returns the result.
template <class C>
C* box_sum(cudaStream_t s, int grid, const cudnnTensorStruct& d, Win w, C* cur, C* other, int64_t total) {
  for (int dim = 2; dim < d.nb_dims; ++dim) {
    window_pass<C><<<grid, kBlock, 0, s>>>(cur, other, total, d.dims[dim], inner_of(d, dim), w);
    C* tmp = cur;
    cur = other;
    other = tmp;
  }
  return cur;
}

// What both divisive-normalization directions share: the compute-type-independent sizes and the view of x (means
// and dy have x's layout).
struct DnSetup {
  cudnnDataType_t t;
  int64_t total;
  int grid;
  double volume;  // of the spatial window: n^(spatial dims)
  TensorView xv;
};

// The set-up of a divisive-normalization direction: `nbuf` (>= 2) packed scratch buffers of `total` compute-type
// elements from the handle, box = the spatial window sum of (x - means)^2 in buffers 0 and 1, then
// body(setup, box, buffers + 2 * total) queues the direction's remaining kernels.
template <class F>
cudnnStatus_t dn_run(cudnnContext* h, const cudnnLRNStruct& p, cudnnDataType_t t, const cudnnTensorStruct& x_desc,
                     const void* x, const void* means, size_t nbuf, F&& body) {
  const int64_t total = x_desc.element_count();
  if (total == 0) return CUDNN_STATUS_SUCCESS;
  const DnSetup g{t, total, grid_size(total, kBlock, h->device),
                  std::pow(static_cast<double>(p.n), x_desc.nb_dims - 2), make_view(x_desc)};
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  with_compute(t, [&](auto zero) {
    using C = decltype(zero);
    void* s = nullptr;
    st = handle_scratch(h, nbuf * static_cast<size_t>(total) * sizeof(C), &s);
    if (st != CUDNN_STATUS_SUCCESS) return;
    C* b0 = static_cast<C*>(s);
    dn_square<C><<<g.grid, kBlock, 0, h->stream>>>(t, g.xv, x, means, b0, total);
    C* box = box_sum<C>(h->stream, g.grid, x_desc, centred(p.n), b0, b0 + total, total);
    body(g, box, b0 + 2 * total);
  });
  if (st != CUDNN_STATUS_SUCCESS) return st;
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

cudnnStatus_t lrn_cross_channel_forward(cudnnContext* h, const cudnnLRNStruct& p, double alpha,
                                        const cudnnTensorStruct& x_desc, const void* x, double beta,
                                        const cudnnTensorStruct& y_desc, void* y) {
  const int64_t total = x_desc.element_count();
  if (total == 0) return CUDNN_STATUS_SUCCESS;
  const cudnnDataType_t t = y_desc.dtype;
  const int grid = grid_size(total, kBlock, h->device);
  const bool in_place = x == y;  // threads read other channels of x: compute into scratch first
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  with_compute(t, [&](auto zero) {
    using C = decltype(zero);
    C* packed = nullptr;
    if (in_place) {
      void* s = nullptr;
      st = handle_scratch(h, static_cast<size_t>(total) * sizeof(C), &s);
      if (st != CUDNN_STATUS_SUCCESS) return;
      packed = static_cast<C*>(s);
    }
    const TensorView xv = make_view(x_desc), yv = make_view(y_desc);
    lrn_fwd<C><<<grid, kBlock, 0, h->stream>>>(t, xv, x, yv, y, packed, total, inner_of(x_desc, 1), x_desc.dims[1],
                                               centred(p.n), static_cast<C>(p.k), static_cast<C>(p.alpha / p.n),
                                               static_cast<C>(p.beta), static_cast<C>(alpha), static_cast<C>(beta));
    if (in_place)
      blend_packed<C><<<grid, kBlock, 0, h->stream>>>(t, packed, yv, y, total, static_cast<C>(alpha),
                                                      static_cast<C>(beta));
  });
  if (st != CUDNN_STATUS_SUCCESS) return st;
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t lrn_cross_channel_backward(cudnnContext* h, const cudnnLRNStruct& p, double alpha,
                                         const cudnnTensorStruct& dy_desc, const void* dy,
                                         const cudnnTensorStruct& x_desc, const void* x, double beta,
                                         const cudnnTensorStruct& dx_desc, void* dx) {
  const int64_t total = x_desc.element_count();
  if (total == 0) return CUDNN_STATUS_SUCCESS;
  const cudnnDataType_t t = dx_desc.dtype;
  const int grid = grid_size(total, kBlock, h->device);
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  with_compute(t, [&](auto zero) {
    using C = decltype(zero);
    void* s = nullptr;
    st = handle_scratch(h, 2 * static_cast<size_t>(total) * sizeof(C), &s);
    if (st != CUDNN_STATUS_SUCCESS) return;
    C* pw = static_cast<C*>(s);
    C* tt = pw + total;
    const TensorView xv = make_view(x_desc), gv = make_view(dy_desc), dxv = make_view(dx_desc);
    const int64_t inner = inner_of(x_desc, 1), chans = x_desc.dims[1];
    const Win w = centred(p.n);
    lrn_bwd1<C><<<grid, kBlock, 0, h->stream>>>(t, xv, x, gv, dy, pw, tt, total, inner, chans, w,
                                                static_cast<C>(p.k), static_cast<C>(p.alpha / p.n),
                                                static_cast<C>(p.beta));
    lrn_bwd2<C><<<grid, kBlock, 0, h->stream>>>(t, xv, x, gv, dy, pw, tt, dxv, dx, total, inner, chans,
                                                Win{w.hi, w.lo}, static_cast<C>(2.0 * p.alpha * p.beta / p.n),
                                                static_cast<C>(alpha), static_cast<C>(beta));
  });
  if (st != CUDNN_STATUS_SUCCESS) return st;
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t divisive_normalization_forward(cudnnContext* h, const cudnnLRNStruct& p, double alpha,
                                             const cudnnTensorStruct& x_desc, const void* x, const void* means,
                                             double beta, const cudnnTensorStruct& y_desc, void* y) {
  return dn_run(h, p, y_desc.dtype, x_desc, x, means, 2, [&](const DnSetup& g, auto* box, auto*) {
    using C = std::remove_pointer_t<decltype(box)>;
    const TensorView yv = make_view(y_desc);
    dn_fwd_final<C><<<g.grid, kBlock, 0, h->stream>>>(g.t, g.xv, x, means, box, yv, y, g.total, static_cast<C>(p.k),
                                                      static_cast<C>(p.alpha / g.volume), static_cast<C>(p.beta),
                                                      static_cast<C>(alpha), static_cast<C>(beta));
  });
}

cudnnStatus_t divisive_normalization_backward(cudnnContext* h, const cudnnLRNStruct& p, double alpha,
                                              const cudnnTensorStruct& x_desc, const void* x, const void* means,
                                              const void* dy, double beta, const cudnnTensorStruct& dx_desc, void* dx,
                                              void* dmeans) {
  return dn_run(h, p, dx_desc.dtype, x_desc, x, means, 4, [&](const DnSetup& g, auto* pw, auto* b2) {
    using C = std::remove_pointer_t<decltype(pw)>;
    C* b3 = b2 + g.total;
    const TensorView dxv = make_view(dx_desc);
    const Win w = centred(p.n);
    dn_bwd_mid<C><<<g.grid, kBlock, 0, h->stream>>>(g.t, g.xv, x, means, dy, pw, b2, g.total, static_cast<C>(p.k),
                                                    static_cast<C>(p.alpha / g.volume), static_cast<C>(p.beta));
    const C* acc = box_sum<C>(h->stream, g.grid, x_desc, Win{w.hi, w.lo}, b2, b3, g.total);
    dn_bwd_final<C><<<g.grid, kBlock, 0, h->stream>>>(g.t, g.xv, x, means, dy, pw, acc, dxv, dx, dmeans, g.total,
                                                      static_cast<C>(2.0 * p.alpha * p.beta / g.volume),
                                                      static_cast<C>(alpha), static_cast<C>(beta));
  });
}

}  // namespace fd::cuda
