// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Fast pooling path for 4-D tensors (two spatial dims) whose offsets fit in 32 bits: one pass over x and one over
// y (forward), one pass over x/dy and one over dx (backward), no scratch memory.
//  * forward: one thread per output (V channels of it);
//  * backward: one thread per dx element (V channels of it) gathering, in output order, the dy of the windows
//    that contain it; for the max modes the argmax of each such window is recomputed from x (deterministic, no
//    argmax pass; a 3x3 stride-2 window set covers an input at most 4 times, mostly from L1).
// V = 16 bytes / element size when every tensor has unit channel stride (NHWC and alike), C % V == 0 and the
// pointers and the other strides allow 16-byte accesses: threads run along C with one 16-byte load per window
// element. Otherwise V = 1 and threads run along the innermost dim of the walked tensor (W for NCHW, C for
// NHWC), so a warp reads neighbouring addresses. Semantics as in src/cpu/pooling/pooling.h (ties to the first
// element in scan order, NaN options, divisors, alpha/beta with y not read when beta == 0).
#include "core/dtype.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/index.cuh"
#include "cuda/pooling/pooling.h"

namespace fd::cuda {
namespace {

constexpr int kBlock = 256;

template <class S>
using Comp = decltype(Storage<S>::load(nullptr, 0));

struct Geo2 {
  int in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  int win_h = 1, win_w = 1, pad_h = 0, pad_w = 0, str_h = 1, str_w = 1;
  bool is_max = true, include_pad = false, propagate_nan = false;
};

struct T4 {
  int sn = 0, sc = 0, sh = 0, sw = 0;
  __device__ __forceinline__ int off(int n, int c, int h, int w) const { return n * sn + c * sc + h * sh + w * sw; }
};

// Walk over (n, c/V, h, w) of the walked tensor: C innermost, or W innermost.
struct Walk {
  bool c_inner = false;
  int c = 1, h = 1, w = 1;  // c counts groups of V channels
  Divider dc, dh, dw;
  __device__ __forceinline__ void unravel(int i, int* n, int* ch, int* hh, int* ww) const {
    int q;
    if (c_inner) {
      q = static_cast<int>(dc.div(i));
      *ch = i - q * c;
      i = q;
    }
    q = static_cast<int>(dw.div(i));
    *ww = i - q * w;
    i = q;
    q = static_cast<int>(dh.div(i));
    *hh = i - q * h;
    i = q;
    if (!c_inner) {
      q = static_cast<int>(dc.div(i));
      *ch = i - q * c;
      i = q;
    }
    *n = i;
  }
};

Walk make_walk(bool c_inner, int64_t n, int64_t cgroups, int64_t h, int64_t w) {
  Walk k;
  k.c_inner = c_inner;
  k.c = static_cast<int>(cgroups);
  k.h = static_cast<int>(h);
  k.w = static_cast<int>(w);
  const int64_t total = n * cgroups * h * w;
  k.dc = Divider(cgroups, total);
  k.dh = Divider(h, total);
  k.dw = Divider(w, total);
  return k;
}

template <class S, int V>
__device__ __forceinline__ void load_v(const S* p, Comp<S>* v) {
  if constexpr (V == 1) {
    v[0] = Storage<S>::load(p, 0);
  } else {
    static_assert(V * sizeof(S) == 16, "16-byte vectors");
    alignas(16) S a[V];
    *reinterpret_cast<uint4*>(a) = *reinterpret_cast<const uint4*>(p);
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = Storage<S>::load(a, k);
  }
}

template <class S, int V>
__device__ __forceinline__ void blend_store_v(S* p, const Comp<S>* v, double alpha, double beta) {
  using C = Comp<S>;
  C r[V];
#pragma unroll
  for (int k = 0; k < V; ++k) r[k] = alpha == 1.0 ? v[k] : static_cast<C>(alpha) * v[k];
  if (beta != 0.0) {
    C old[V];
    load_v<S, V>(p, old);
#pragma unroll
    for (int k = 0; k < V; ++k) r[k] += static_cast<C>(beta) * old[k];
  }
  if constexpr (V == 1) {
    Storage<S>::store(p, 0, r[0]);
  } else {
    alignas(16) S a[V];
#pragma unroll
    for (int k = 0; k < V; ++k) Storage<S>::store(a, k, r[k]);
    *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(a);
  }
}

struct Win2 {
  int h0, h1, w0, w1;  // read rows [h0, h1), columns [w0, w1)
  int divisor;
};

__device__ __forceinline__ Win2 window2(const Geo2& g, int oh, int ow) {
  Win2 r;
  const int hs = oh * g.str_h - g.pad_h, he = hs + g.win_h;
  const int ws = ow * g.str_w - g.pad_w, we = ws + g.win_w;
  r.h0 = max(hs, 0);
  r.h1 = max(min(he, g.in_h), r.h0);
  r.w0 = max(ws, 0);
  r.w1 = max(min(we, g.in_w), r.w0);
  if (g.include_pad) {
    const int ph = min(he, g.in_h + g.pad_h) - max(hs, -g.pad_h);
    const int pw = min(we, g.in_w + g.pad_w) - max(ws, -g.pad_w);
    r.divisor = max(ph, 0) * max(pw, 0);
  } else {
    r.divisor = (r.h1 - r.h0) * (r.w1 - r.w0);
  }
  return r;
}

// Per-lane running maximum with the CPU's rules: state 0 = nothing read yet, 1 = a number, 2 = a NaN that wins
// (PROPAGATE_NAN: the first NaN). NOT_PROPAGATE_NAN skips NaNs and remembers that one was seen.
template <class C>
struct MaxLane {
  C best;
  int arg;
  int state;
  bool saw_nan;
  __device__ __forceinline__ void init() {
    best = C(0);
    arg = -1;
    state = 0;
    saw_nan = false;
  }
  __device__ __forceinline__ void add(C v, int i, bool propagate) {
    if (isnan(v)) {
      if (propagate) {
        if (state != 2) {
          state = 2;
          best = v;
          arg = i;
        }
      } else {
        saw_nan = true;
      }
      return;
    }
    if (state == 0 || (state == 1 && v > best)) {
      best = v;
      arg = i;
      state = 1;
    }
  }
  __device__ __forceinline__ C value() const { return state != 0 ? best : saw_nan ? C(NAN) : C(0); }
};

template <class S, int V>
__global__ void __launch_bounds__(kBlock) fwd2d(Geo2 g, Walk wk, T4 xt, const S* x, T4 yt, S* y,
                                                int count, double alpha, double beta) {
  using C = Comp<S>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
    int n, cg, oh, ow;
    wk.unravel(static_cast<int>(i), &n, &cg, &oh, &ow);
    const int c = cg * V;
    const Win2 w = window2(g, oh, ow);
    const S* xb = x + xt.off(n, c, 0, 0);
    C out[V];
    if (g.is_max) {
      MaxLane<C> m[V];
#pragma unroll
      for (int k = 0; k < V; ++k) m[k].init();
      for (int a = w.h0; a < w.h1; ++a) {
#pragma unroll 3
        for (int b = w.w0; b < w.w1; ++b) {
          C v[V];
          load_v<S, V>(xb + a * xt.sh + b * xt.sw, v);
#pragma unroll
          for (int k = 0; k < V; ++k) m[k].add(v[k], 0, g.propagate_nan);
        }
      }
#pragma unroll
      for (int k = 0; k < V; ++k) out[k] = m[k].value();
    } else {
      C sum[V];
#pragma unroll
      for (int k = 0; k < V; ++k) sum[k] = C(0);
      for (int a = w.h0; a < w.h1; ++a) {
#pragma unroll 4
        for (int b = w.w0; b < w.w1; ++b) {
          C v[V];
          load_v<S, V>(xb + a * xt.sh + b * xt.sw, v);
#pragma unroll
          for (int k = 0; k < V; ++k) sum[k] += v[k];
        }
      }
#pragma unroll
      for (int k = 0; k < V; ++k) out[k] = w.divisor > 0 ? sum[k] / static_cast<C>(w.divisor) : C(0);
    }
    blend_store_v<S, V>(y + yt.off(n, c, oh, ow), out, alpha, beta);
  }
}

template <class S, int V>
__global__ void __launch_bounds__(kBlock) bwd2d(Geo2 g, Walk wk, T4 xt, const S* x, T4 dyt,
                                                const S* dy, T4 dxt, S* dx, int count, double alpha,
                                                double beta) {
  using C = Comp<S>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
    int n, cg, ih, iw;
    wk.unravel(static_cast<int>(i), &n, &cg, &ih, &iw);
    const int c = cg * V;
    // Output rows/columns whose window contains (ih, iw).
    const int nh = ih + g.pad_h - g.win_h + 1, nw = iw + g.pad_w - g.win_w + 1;
    const int oh0 = nh <= 0 ? 0 : (nh + g.str_h - 1) / g.str_h;
    const int oh1 = min((ih + g.pad_h) / g.str_h, g.out_h - 1);
    const int ow0 = nw <= 0 ? 0 : (nw + g.str_w - 1) / g.str_w;
    const int ow1 = min((iw + g.pad_w) / g.str_w, g.out_w - 1);
    const int self = ih * g.in_w + iw;
    const S* xb = x + xt.off(n, c, 0, 0);
    const S* dyb = dy + dyt.off(n, c, 0, 0);
    C acc[V];
#pragma unroll
    for (int k = 0; k < V; ++k) acc[k] = C(0);
    for (int oh = oh0; oh <= oh1; ++oh) {
      for (int ow = ow0; ow <= ow1; ++ow) {
        const Win2 w = window2(g, oh, ow);
        if (g.is_max) {
          MaxLane<C> m[V];
#pragma unroll
          for (int k = 0; k < V; ++k) m[k].init();
          for (int a = w.h0; a < w.h1; ++a) {
#pragma unroll 3
            for (int b = w.w0; b < w.w1; ++b) {
              C v[V];
              load_v<S, V>(xb + a * xt.sh + b * xt.sw, v);
              const int idx = a * g.in_w + b;
#pragma unroll
              for (int k = 0; k < V; ++k) m[k].add(v[k], idx, g.propagate_nan);
            }
          }
          bool any = false;
#pragma unroll
          for (int k = 0; k < V; ++k) any |= m[k].arg == self;
          if (!any) continue;
          C d[V];
          load_v<S, V>(dyb + oh * dyt.sh + ow * dyt.sw, d);
#pragma unroll
          for (int k = 0; k < V; ++k)
            if (m[k].arg == self) acc[k] += d[k];
        } else {
          if (w.divisor <= 0) continue;
          C d[V];
          load_v<S, V>(dyb + oh * dyt.sh + ow * dyt.sw, d);
#pragma unroll
          for (int k = 0; k < V; ++k) acc[k] += d[k] / static_cast<C>(w.divisor);
        }
      }
    }
    blend_store_v<S, V>(dx + dxt.off(n, c, ih, iw), acc, alpha, beta);
  }
}

Geo2 make_geo2(const cudnnPoolingStruct& p, const cudnnTensorStruct& x, const cudnnTensorStruct& y) {
  Geo2 g;
  g.in_h = static_cast<int>(x.dims[2]);
  g.in_w = static_cast<int>(x.dims[3]);
  g.out_h = static_cast<int>(y.dims[2]);
  g.out_w = static_cast<int>(y.dims[3]);
  g.win_h = p.window[0];
  g.win_w = p.window[1];
  g.pad_h = p.padding[0];
  g.pad_w = p.padding[1];
  g.str_h = p.stride[0];
  g.str_w = p.stride[1];
  g.is_max = p.mode == CUDNN_POOLING_MAX || p.mode == CUDNN_POOLING_MAX_DETERMINISTIC;
  g.include_pad = p.mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
  g.propagate_nan = p.nan_opt == CUDNN_PROPAGATE_NAN;
  return g;
}

// 4-D, scalar type, every offset (and the window arithmetic) below 2^31.
bool fits(const cudnnTensorStruct& d) {
  if (d.nb_dims != 4 || d.vect() != 1) return false;
  int64_t last = 0;
  for (int i = 0; i < 4; ++i) {
    if (d.strides[i] < 0) return false;
    last += (d.dims[i] - 1) * d.strides[i];
  }
  return last < (int64_t{1} << 30) && d.element_count() < (int64_t{1} << 30);
}

bool geo_fits(const Geo2& g) {
  const int64_t lim = int64_t{1} << 30;
  return int64_t(g.out_h) * g.str_h + g.win_h + g.pad_h < lim && int64_t(g.out_w) * g.str_w + g.win_w + g.pad_w < lim &&
         int64_t(g.in_h) * g.in_w < lim;
}

T4 make_t4(const cudnnTensorStruct& d) {
  T4 t;
  t.sn = static_cast<int>(d.strides[0]);
  t.sc = static_cast<int>(d.strides[1]);
  t.sh = static_cast<int>(d.strides[2]);
  t.sw = static_cast<int>(d.strides[3]);
  return t;
}

// 16-byte vectors of V elements along C.
bool vec_ok(const cudnnTensorStruct& d, const void* p, int V) {
  if (V <= 1 || reinterpret_cast<uintptr_t>(p) % 16 != 0) return false;
  if (d.dims[1] % V != 0 || d.strides[1] != 1) return false;
  for (int i : {0, 2, 3})
    if (d.dims[i] > 1 && d.strides[i] % V != 0) return false;
  return true;
}

// Channels-last walk when C has the smallest stride among the non-trivial dims.
bool c_inner(const cudnnTensorStruct& d) {
  if (d.dims[1] <= 1) return false;
  for (int i = 2; i < 4; ++i)
    if (d.dims[i] > 1 && d.strides[i] < d.strides[1]) return false;
  return true;
}

template <bool kInt8, class F>
bool with_pool_type(cudnnDataType_t t, F&& f) {
  switch (t) {
    case CUDNN_DATA_FLOAT: f(float{}); return true;
    case CUDNN_DATA_DOUBLE: f(double{}); return true;
    case CUDNN_DATA_HALF: f(__half{}); return true;
    case CUDNN_DATA_BFLOAT16: f(__nv_bfloat16{}); return true;
    case CUDNN_DATA_INT8:
      if constexpr (kInt8) {
        f(int8_t{});
        return true;
      }
      return false;
    default: return false;
  }
}

}  // namespace

bool pooling2d_forward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                       const cudnnTensorStruct& xd, const void* x, double beta, const cudnnTensorStruct& yd, void* y,
                       cudnnStatus_t* status) {
  if (!fits(xd) || !fits(yd)) return false;
  const Geo2 g = make_geo2(p, xd, yd);
  if (!geo_fits(g)) return false;
  const T4 xt = make_t4(xd), yt = make_t4(yd);
  return with_pool_type<true>(xd.dtype, [&](auto tag) {
    using S = decltype(tag);
    constexpr int kV = 16 / sizeof(S);
    const bool vec = vec_ok(xd, x, kV) && vec_ok(yd, y, kV);
    const int v = vec ? kV : 1;
    const Walk wk = make_walk(vec || c_inner(yd), yd.dims[0], yd.dims[1] / v, yd.dims[2], yd.dims[3]);
    const int count = static_cast<int>(yd.element_count() / v);
    const int grid = grid_size(count, kBlock, device);
    if (vec)
      fwd2d<S, kV><<<grid, kBlock, 0, stream>>>(g, wk, xt, static_cast<const S*>(x), yt, static_cast<S*>(y), count,
                                               alpha, beta);
    else
      fwd2d<S, 1><<<grid, kBlock, 0, stream>>>(g, wk, xt, static_cast<const S*>(x), yt, static_cast<S*>(y), count,
                                              alpha, beta);
    *status = [&]() -> cudnnStatus_t {
      FD_CUDA_LAUNCHED();
      return CUDNN_STATUS_SUCCESS;
    }();
  });
}

bool pooling2d_backward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                        const cudnnTensorStruct& dyd, const void* dy, const cudnnTensorStruct& xd, const void* x,
                        double beta, const cudnnTensorStruct& dxd, void* dx, cudnnStatus_t* status) {
  if (!fits(xd) || !fits(dyd) || !fits(dxd)) return false;
  const Geo2 g = make_geo2(p, xd, dyd);
  if (!geo_fits(g)) return false;
  const T4 xt = make_t4(xd), dyt = make_t4(dyd), dxt = make_t4(dxd);
  return with_pool_type<false>(dxd.dtype, [&](auto tag) {
    using S = decltype(tag);
    constexpr int kV = 16 / sizeof(S);
    const bool vec = vec_ok(xd, x, kV) && vec_ok(dyd, dy, kV) && vec_ok(dxd, dx, kV);
    const int v = vec ? kV : 1;
    const Walk wk = make_walk(vec || c_inner(dxd), dxd.dims[0], dxd.dims[1] / v, dxd.dims[2], dxd.dims[3]);
    const int count = static_cast<int>(dxd.element_count() / v);
    const int grid = grid_size(count, kBlock, device);
    if (vec)
      bwd2d<S, kV><<<grid, kBlock, 0, stream>>>(g, wk, xt, static_cast<const S*>(x), dyt, static_cast<const S*>(dy),
                                               dxt, static_cast<S*>(dx), count, alpha, beta);
    else
      bwd2d<S, 1><<<grid, kBlock, 0, stream>>>(g, wk, xt, static_cast<const S*>(x), dyt, static_cast<const S*>(dy),
                                              dxt, static_cast<S*>(dx), count, alpha, beta);
    *status = [&]() -> cudnnStatus_t {
      FD_CUDA_LAUNCHED();
      return CUDNN_STATUS_SUCCESS;
    }();
  });
}

}  // namespace fd::cuda
