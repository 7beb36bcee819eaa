// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Pooling of 4-D tensors (two spatial dims) whose offsets fit in 32 bits. Semantics as src/cpu/pooling/pooling.h
// (ties to the first element in scan order, NaN options, divisors, alpha/beta with y not read when beta == 0).
// Main path: shared-memory tiles (fwd_tile / bwd_tile below), one pass over memory:
//   forward:  x read once (+ a one-window halo per tile edge, mostly from L2), y written once;
//             bytes per output: (stride_h * stride_w) x elements + 1 y element (+ 1 y read when beta != 0);
//   backward: dy read once, x read once (max modes only; average needs no x), dx written once; no scratch.
// V = 16 bytes / element size when every tensor has unit channel stride (NHWC and alike), C % V == 0 and the
// pointers and the other strides allow 16-byte accesses: tiles hold 16-byte vectors of V channels. Otherwise V = 1:
// channels-last tiles when C has the smallest stride, else planar tiles of whole rows (NCHW: a tile of rows, or of
// whole planes when they are small, is one contiguous range copied with 16-byte loads).
// Fallback when a tile does not fit in 48 KB of shared memory (huge windows): the direct kernels fwd2d / bwd2d, one
// thread per output (forward) or per dx element (backward), reading windows straight from global memory.
#include <algorithm>
#include <type_traits>

#include "core/dtype.h"
#include "core/env.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/index.cuh"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/pooling/pool_folds.cuh"
#include "cuda/pooling/pooling.h"

namespace fd::cuda {
namespace {

constexpr int kBlock = 256;

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
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
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
          load_vec<S, V>(xb + a * xt.sh + b * xt.sw, v);
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
          load_vec<S, V>(xb + a * xt.sh + b * xt.sw, v);
#pragma unroll
          for (int k = 0; k < V; ++k) sum[k] += v[k];
        }
      }
#pragma unroll
      for (int k = 0; k < V; ++k) out[k] = w.divisor > 0 ? sum[k] / static_cast<C>(w.divisor) : C(0);
    }
    blend_store_vec<S, V>(y + yt.off(n, c, oh, ow), out, alpha, beta);
  }
  pdl_allow_dependents();
}

template <class S, int V>
__global__ void __launch_bounds__(kBlock) bwd2d(Geo2 g, Walk wk, T4 xt, const S* x, T4 dyt,
                                                const S* dy, T4 dxt, S* dx, int count, double alpha,
                                                double beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
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
              load_vec<S, V>(xb + a * xt.sh + b * xt.sw, v);
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
          load_vec<S, V>(dyb + oh * dyt.sh + ow * dyt.sw, d);
#pragma unroll
          for (int k = 0; k < V; ++k)
            if (m[k].arg == self) acc[k] += d[k];
        } else {
          if (w.divisor <= 0) continue;
          C d[V];
          load_vec<S, V>(dyb + oh * dyt.sh + ow * dyt.sw, d);
#pragma unroll
          for (int k = 0; k < V; ++k) acc[k] += d[k] / static_cast<C>(w.divisor);
        }
      }
    }
    blend_store_vec<S, V>(dx + dxt.off(n, c, ih, iw), acc, alpha, beta);
  }
  pdl_allow_dependents();
}

// ---- Shared-memory tiled kernels (the main path) ----
// A block takes one tile: a box of output (forward) or input (backward) rows x columns x channel vectors of one
// image, stages the x (and dy) elements the box needs in shared memory with coalesced loads (16-byte vectors along
// C for NHWC-like tensors; for NCHW-like tensors whole rows / planes are one contiguous range copied with 16-byte
// loads), then computes from shared memory. Each element is read from global memory once per tile that needs it
// (overlapping windows only add a one-window halo per tile edge); y / dx are written once.
//   forward:  reads x once (+ halo), writes y once: (x + y) bytes per element pass, one pass.
//   backward: reads dy once (+ halo), x once (+ halo; max modes only), writes dx once: one pass. The argmax of
//             every covering window is recomputed from the staged x (ties: first in scan order; NaN rules as the
//             CPU backend), then each dx element gathers, in output order, the dy of the windows whose argmax
//             (average: every window) contains it. No atomics, deterministic.

// Host-side plan of a tiled launch.
struct TPlan {
  bool c_inner = false;  // NHWC-like: channel vectors innermost in shared memory and in thread order
  bool contig = false;   // planar tensors whose (x / dy) rows are packed: whole rows (planes) copied as one range
  int th = 1, tw = 1, cv = 1;  // tile: rows, columns (output space forward, input space backward), vectors/planes
  int nth = 1, ntw = 1, ncg = 1;
  int cvecs = 1;               // channel vectors (c_inner) or channels (planar) in the tensor
  int x_off = 0, d_off = 0;    // shared-memory byte offsets of the x and dy stages (argmax ints at 0)
  int smem = 0;
  int64_t tiles = 0;
  Divider dsh, dsw;            // n / str_h, n / str_w without a hardware divide (backward gather bounds)
};

__device__ __forceinline__ int cdiv_pos(int a, int b) { return a <= 0 ? 0 : (a + b - 1) / b; }
// cdiv_pos(a, b) with d the Divider of b
__device__ __forceinline__ int cdiv_fast(int a, int b, const Divider& d) {
  return a <= 0 ? 0 : static_cast<int>(d.div(a + b - 1));
}

// Copies the box rows [r0, r0+nr) x columns [c0, c0+nc) x vectors [j0, j0+nj) of image n into s, in shared-memory
// order: c_inner ((r * nc + c) * nj + j) * V, planar ((j * nr + r) * nc + c). When the box is one contiguous range of
// memory (planar, unit column stride, whole rows, whole planes when nj > 1) it is copied with 16-byte loads; the
// returned shift (elements) must then be added to every shared-memory index (it aligns shared and global memory).
template <class S, int V>
__device__ __forceinline__ int stage(S* s, bool c_inner, bool contig, const S* p, const T4& pt, int n, int j0,
                                     int nj, int r0, int nr, int c0, int nc, int full_w, int full_h) {
  const S* base = p + pt.off(n, j0 * V, r0, c0);
  if constexpr (V == 1) {
    if (!c_inner && contig && c0 == 0 && nc == full_w && (nj == 1 || nr == full_h)) {
      constexpr int kE = 16 / sizeof(S);
      const int len = nj * nr * nc;
      const int shift = static_cast<int>((reinterpret_cast<uintptr_t>(base) % 16) / sizeof(S));
      S* d = s + shift;
      const int head = min((kE - shift) % kE, len);
      const int body = (len - head) / kE;
      for (int i = threadIdx.x; i < head; i += blockDim.x) d[i] = base[i];
      const uint4* src = reinterpret_cast<const uint4*>(base + head);
      uint4* dst = reinterpret_cast<uint4*>(d + head);
      int i = threadIdx.x;
      for (; i + 3 * int(blockDim.x) < body; i += 4 * blockDim.x) {
        const uint4 a = src[i], b = src[i + blockDim.x], c = src[i + 2 * blockDim.x], e = src[i + 3 * blockDim.x];
        dst[i] = a;
        dst[i + blockDim.x] = b;
        dst[i + 2 * blockDim.x] = c;
        dst[i + 3 * blockDim.x] = e;
      }
      for (; i < body; i += blockDim.x) dst[i] = src[i];
      for (int k = head + body * kE + threadIdx.x; k < len; k += blockDim.x) d[k] = base[k];
      return shift;
    }
  }
  const int total = nr * nc * nj;
  auto src = [&](int i) {
    int r, c, j;
    if (c_inner) {
      j = i % nj;
      const int q = i / nj;
      c = q % nc;
      r = q / nc;
    } else {
      c = i % nc;
      const int q = i / nc;
      r = q % nr;
      j = q / nr;
    }
    return base + j * V * pt.sc + r * pt.sh + c * pt.sw;
  };
  using U = std::conditional_t<V == 1, S, uint4>;
  U* dst = reinterpret_cast<U*>(s);
  // batches of 4 unguarded loads issued before their stores, then a serial tail (measured on the H200: guarding
  // every load of the batch instead made the NHWC tiles 20-45 % slower)
  int i = threadIdx.x;
  for (; i + 3 * int(blockDim.x) < total; i += 4 * blockDim.x) {
    U v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = *reinterpret_cast<const U*>(src(i + u * blockDim.x));
#pragma unroll
    for (int u = 0; u < 4; ++u) dst[i + u * blockDim.x] = v[u];
  }
  for (; i < total; i += blockDim.x) dst[i] = *reinterpret_cast<const U*>(src(i));
  return 0;
}

// Calls f(r, c, j) for every (row, column, vector) of an nr x nc x nj tile, spread over the block. Planar tiles
// (NCHW) with rows of at least 16 columns: one warp per (row, j), its lanes across the columns, so the index
// arithmetic is paid once per row (per element it made the V == 1 path instruction-bound). Otherwise a flat loop:
// narrow planar rows (e.g. a 7x7 plane) would leave most lanes of a warp idle (measured 5x slower on the H200).
template <class F>
__device__ __forceinline__ void for_each_in_tile(bool c_inner, int nr, int nc, int nj, F&& f) {
  if (!c_inner && nc >= 16) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    for (int rj = warp; rj < nr * nj; rj += nwarps) {
      const int j = rj / nr, r = rj - j * nr;
      for (int c = lane; c < nc; c += 32) f(r, c, j);
    }
    return;
  }
  const int total = nr * nc * nj;
  for (int i = threadIdx.x; i < total; i += blockDim.x) {
    if (c_inner) {
      const int k = i / nj;
      f(k / nc, k % nc, i % nj);
    } else {
      const int k = i / nc;
      f(k % nr, i % nc, k / nr);
    }
  }
}

template <class S, int V>
__global__ void __launch_bounds__(kBlock) fwd_tile(Geo2 g, TPlan t, T4 xt, const S* x, T4 yt, S* y, double alpha,
                                                   double beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using C = Comp<S>;
  extern __shared__ uint4 smem4[];
  S* sx = reinterpret_cast<S*>(reinterpret_cast<char*>(smem4) + t.x_off);
  for (int64_t tile = blockIdx.x; tile < t.tiles; tile += gridDim.x) {
    int r = static_cast<int>(tile % t.ntw);
    int64_t q = tile / t.ntw;
    const int ow0 = r * t.tw;
    r = static_cast<int>(q % t.nth);
    q /= t.nth;
    const int oh0 = r * t.th;
    const int j0 = static_cast<int>(q % t.ncg) * t.cv;
    const int n = static_cast<int>(q / t.ncg);
    const int nh = min(t.th, g.out_h - oh0), nw = min(t.tw, g.out_w - ow0), nj = min(t.cv, t.cvecs - j0);
    // staged input rows / columns
    const int hs = oh0 * g.str_h - g.pad_h, ws = ow0 * g.str_w - g.pad_w;
    const int r0 = max(hs, 0), r1 = min(hs + (nh - 1) * g.str_h + g.win_h, g.in_h);
    const int c0 = t.contig ? 0 : max(ws, 0);
    const int c1 = t.contig ? g.in_w : min(ws + (nw - 1) * g.str_w + g.win_w, g.in_w);
    const int nr = max(r1 - r0, 0), nc = max(c1 - c0, 0);
    __syncthreads();  // the previous tile's reads of shared memory are done
    const int shift = stage<S, V>(sx, t.c_inner, t.contig, x, xt, n, j0, nj, r0, nr, c0, nc, g.in_w, g.in_h);
    __syncthreads();
    const S* sb = sx + shift;
    // one output (oh, ow, j) of the tile, from the staged x
    auto one = [&](int oh, int ow, int j) {
      const Win2 w = window2(g, oh0 + oh, ow0 + ow);
      // shared-memory index of (row a, column b): ((a - r0) * nc + b - c0) * ej + jo
      const int ej = t.c_inner ? nj * V : 1;
      const int jo = t.c_inner ? j * V : j * nr * nc;
      C out[V];
      if (g.is_max) {
        C best[V];
#pragma unroll
        for (int k = 0; k < V; ++k) best[k] = g.propagate_nan ? C(-INFINITY) : C(NAN);
        for (int a = w.h0; a < w.h1; ++a) {
          const S* row = sb + jo + (a - r0) * nc * ej;
#pragma unroll 3
          for (int b = w.w0; b < w.w1; ++b) {
            C v[V];
            load_vec<S, V>(row + (b - c0) * ej, v);
#pragma unroll
            for (int k = 0; k < V; ++k) max_fold(best[k], v[k], g.propagate_nan);
          }
        }
        const bool any = w.h1 > w.h0 && w.w1 > w.w0;
#pragma unroll
        for (int k = 0; k < V; ++k) out[k] = any ? best[k] : C(0);
      } else {
        C sum[V];
#pragma unroll
        for (int k = 0; k < V; ++k) sum[k] = C(0);
        for (int a = w.h0; a < w.h1; ++a) {
          const S* row = sb + jo + (a - r0) * nc * ej;
#pragma unroll 4
          for (int b = w.w0; b < w.w1; ++b) {
            C v[V];
            load_vec<S, V>(row + (b - c0) * ej, v);
#pragma unroll
            for (int k = 0; k < V; ++k) sum[k] += v[k];
          }
        }
#pragma unroll
        for (int k = 0; k < V; ++k) out[k] = w.divisor > 0 ? sum[k] / static_cast<C>(w.divisor) : C(0);
      }
      blend_store_vec<S, V>(y + yt.off(n, (j0 + j) * V, oh0 + oh, ow0 + ow), out, alpha, beta);
    };
    for_each_in_tile(t.c_inner, nh, nw, nj, one);
  }
  pdl_allow_dependents();
}

template <class S, int V>
__global__ void __launch_bounds__(kBlock) bwd_tile(Geo2 g, TPlan t, T4 xt, const S* x, T4 dyt, const S* dy, T4 dxt,
                                                   S* dx, double alpha, double beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using C = Comp<S>;
  extern __shared__ uint4 smem4[];
  int* sarg = reinterpret_cast<int*>(smem4);
  S* sx = reinterpret_cast<S*>(reinterpret_cast<char*>(smem4) + t.x_off);
  S* sd = reinterpret_cast<S*>(reinterpret_cast<char*>(smem4) + t.d_off);
  for (int64_t tile = blockIdx.x; tile < t.tiles; tile += gridDim.x) {
    int r = static_cast<int>(tile % t.ntw);
    int64_t q = tile / t.ntw;
    const int iw0 = r * t.tw;
    r = static_cast<int>(q % t.nth);
    q /= t.nth;
    const int ih0 = r * t.th;
    const int j0 = static_cast<int>(q % t.ncg) * t.cv;
    const int n = static_cast<int>(q / t.ncg);
    const int nh = min(t.th, g.in_h - ih0), nw = min(t.tw, g.in_w - iw0), nj = min(t.cv, t.cvecs - j0);
    // covering outputs [o_h0, o_h1) x [o_w0, o_w1)
    const int o_h0 = cdiv_pos(ih0 + g.pad_h - g.win_h + 1, g.str_h);
    const int o_h1 = min((ih0 + nh - 1 + g.pad_h) / g.str_h + 1, g.out_h);
    const int o_w0 = cdiv_pos(iw0 + g.pad_w - g.win_w + 1, g.str_w);
    const int o_w1 = min((iw0 + nw - 1 + g.pad_w) / g.str_w + 1, g.out_w);
    const int ndr = max(o_h1 - o_h0, 0), ndc = max(o_w1 - o_w0, 0);
    __syncthreads();
    int dshift = 0, xshift = 0, xr0 = 0, xc0 = 0, nxr = 0, nxc = 0;
    if (ndr > 0 && ndc > 0) {
      dshift = stage<S, V>(sd, t.c_inner, t.contig, dy, dyt, n, j0, nj, o_h0, ndr, o_w0, ndc, g.out_w, g.out_h);
      if (g.is_max) {
        xr0 = max(o_h0 * g.str_h - g.pad_h, 0);
        const int xr1 = min((o_h1 - 1) * g.str_h - g.pad_h + g.win_h, g.in_h);
        xc0 = max(o_w0 * g.str_w - g.pad_w, 0);
        const int xc1 = min((o_w1 - 1) * g.str_w - g.pad_w + g.win_w, g.in_w);
        nxr = max(xr1 - xr0, 0);
        nxc = max(xc1 - xc0, 0);
        if (t.contig) {  // whole rows, as the dy stage
          xc0 = 0;
          nxc = g.in_w;
        }
        xshift = stage<S, V>(sx, t.c_inner, t.contig, x, xt, n, j0, nj, xr0, nxr, xc0, nxc, g.in_w, g.in_h);
      }
    }
    __syncthreads();
    const S* sdb = sd + dshift;
    const int dej = t.c_inner ? nj * V : 1;  // shared-memory element step of one dy column
    auto d_index = [&](int oh, int ow, int j) {  // element index of covering output (oh, ow), vector j
      return t.c_inner ? ((oh - o_h0) * ndc + (ow - o_w0)) * dej + j * V : (j * ndr + oh - o_h0) * ndc + ow - o_w0;
    };
    if (g.is_max && ndr > 0 && ndc > 0) {
      // Phase 1: the argmax (input plane index, -1: none) of every covering window, per vector lane.
      const S* sxb = sx + xshift;
      const int xej = t.c_inner ? nj * V : 1;
      auto arg_one = [&](int oh, int ow, int j) {
        oh += o_h0;
        ow += o_w0;
        const Win2 w = window2(g, oh, ow);
        const int jo = t.c_inner ? j * V : j * nxr * nxc;
        MaxLane<C> m[V];
#pragma unroll
        for (int k = 0; k < V; ++k) m[k].init();
        for (int a = w.h0; a < w.h1; ++a) {
          const S* row = sxb + jo + (a - xr0) * nxc * xej;
#pragma unroll 3
          for (int b = w.w0; b < w.w1; ++b) {
            C v[V];
            load_vec<S, V>(row + (b - xc0) * xej, v);
            const int idx = a * g.in_w + b;
#pragma unroll
            for (int k = 0; k < V; ++k) m[k].add(v[k], idx, g.propagate_nan);
          }
        }
        const int di = d_index(oh, ow, j);
#pragma unroll
        for (int k = 0; k < V; ++k) sarg[di + k] = m[k].arg;
      };
      for_each_in_tile(t.c_inner, ndr, ndc, nj, arg_one);
      __syncthreads();
    }
    // Phase 2: every dx element of the tile gathers from its covering windows.
    // One dx element (ih, iw, j) of the tile: covering windows from the dividers (no hardware divide).
    auto gather_one = [&](int ih, int iw, int j) {
      ih += ih0;
      iw += iw0;
      const int oh_a = max(cdiv_fast(ih + g.pad_h - g.win_h + 1, g.str_h, t.dsh), o_h0);
      const int oh_b = min(static_cast<int>(t.dsh.div(ih + g.pad_h)) + 1, o_h1);
      const int ow_a = max(cdiv_fast(iw + g.pad_w - g.win_w + 1, g.str_w, t.dsw), o_w0);
      const int ow_b = min(static_cast<int>(t.dsw.div(iw + g.pad_w)) + 1, o_w1);
      const int self = ih * g.in_w + iw;
      C acc[V];
#pragma unroll
      for (int k = 0; k < V; ++k) acc[k] = C(0);
      for (int oh = oh_a; oh < oh_b; ++oh) {
        for (int ow = ow_a; ow < ow_b; ++ow) {
          const int di = d_index(oh, ow, j);
          if (g.is_max) {
            bool any = false;
#pragma unroll
            for (int k = 0; k < V; ++k) any |= sarg[di + k] == self;
            if (!any) continue;
            C d[V];
            load_vec<S, V>(sdb + di, d);
#pragma unroll
            for (int k = 0; k < V; ++k)
              if (sarg[di + k] == self) acc[k] += d[k];
          } else {
            const Win2 w = window2(g, oh, ow);
            if (w.divisor <= 0) continue;
            C d[V];
            load_vec<S, V>(sdb + di, d);
#pragma unroll
            for (int k = 0; k < V; ++k) acc[k] += d[k] / static_cast<C>(w.divisor);
          }
        }
      }
      blend_store_vec<S, V>(dx + dxt.off(n, (j0 + j) * V, ih, iw), acc, alpha, beta);
    };
    for_each_in_tile(t.c_inner, nh, nw, nj, gather_one);
  }
  pdl_allow_dependents();
}

// Backward of average pooling whose only window is the whole plane (no padding, window = H x W, a 1 x 1 output):
// dx[n, c, h, w] = blend(dy[n, c] / (H * W)), the tile kernel's arithmetic (either divisor: no padding). A broadcast:
// dx packed channels-last (vector i at dx + i * V), dy read as 16-byte vectors of V channels (mostly from L1/L2).
template <class S, int V>
__global__ void __launch_bounds__(kBlock) bwd_global_avg(int nvec, Divider d_cv, int cvecs, Divider d_img, int dysn,
                                                         const S* dy, S* dx, int divisor, double alpha, double beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using C = Comp<S>;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += gridDim.x * blockDim.x) {
    const int cv = i - static_cast<int>(d_cv.div(i)) * cvecs;
    const int n = static_cast<int>(d_img.div(i));
    C d[V];
    load_vec<S, V>(dy + n * dysn + cv * V, d);
#pragma unroll
    for (int k = 0; k < V; ++k) d[k] = d[k] / static_cast<C>(divisor);
    blend_store_vec<S, V>(dx + int64_t(i) * V, d, alpha, beta);
  }
  pdl_allow_dependents();
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
  if (V <= 1 || !aligned16(p)) return false;
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

constexpr int kSmemMax = 48 * 1024;  // no opt-in needed
int align16(int64_t b) { return static_cast<int>((b + 15) / 16 * 16); }

// Layout facts of a planar (NCHW-like) tensor: rows packed (unit column stride, row stride = width), and whole
// planes packed too (channel stride = H * W).
bool rows_packed(const cudnnTensorStruct& d) {
  return (d.dims[3] == 1 || d.strides[3] == 1) && (d.dims[2] == 1 || d.strides[2] == d.dims[3]);
}
bool planes_packed(const cudnnTensorStruct& d) {
  return rows_packed(d) && (d.dims[1] == 1 || d.strides[1] == d.dims[2] * d.dims[3]);
}

struct Extents {
  int64_t in_h, in_w, out_h, out_w;
};

// Shared-memory bytes of a forward tile.
int64_t fwd_smem(const Geo2& g, const TPlan& t, int V, int es) {
  const int64_t nr = std::min<int64_t>(g.in_h, int64_t(t.th - 1) * g.str_h + g.win_h);
  const int64_t nc = t.contig ? g.in_w : std::min<int64_t>(g.in_w, int64_t(t.tw - 1) * g.str_w + g.win_w);
  return align16((nr * nc * t.cv * V + 16 / es) * es);
}

// Shared-memory layout of a backward tile: argmax ints (max modes), dy stage, x stage (max modes).
int64_t bwd_layout(const Geo2& g, TPlan& t, int V, int es) {
  const int64_t dr = std::min<int64_t>(g.out_h, (t.th + g.win_h - 2) / g.str_h + 1);
  const int64_t dc = t.contig ? g.out_w : std::min<int64_t>(g.out_w, (t.tw + g.win_w - 2) / g.str_w + 1);
  const int64_t xr = std::min<int64_t>(g.in_h, (dr - 1) * g.str_h + g.win_h);
  const int64_t xc = t.contig ? g.in_w : std::min<int64_t>(g.in_w, (dc - 1) * g.str_w + g.win_w);
  const int64_t douts = dr * dc * t.cv * V;
  const int64_t args = g.is_max ? align16(douts * 4) : 0;
  const int64_t dbytes = align16((douts + 16 / es) * es);
  const int64_t xbytes = g.is_max ? align16((xr * xc * t.cv * V + 16 / es) * es) : 0;
  if (args + dbytes + xbytes > kSmemMax) return args + dbytes + xbytes;
  t.d_off = static_cast<int>(args);
  t.x_off = static_cast<int>(args + dbytes);
  return args + dbytes + xbytes;
}

// Tile sizes: grow the tile (columns first, then rows, then channel groups) towards `target` items per tile,
// then shrink it until its shared memory fits. False when even a 1 x 1 x 1 tile does not fit.
template <class SmemFn>
bool size_tile(TPlan& t, int64_t rows, int64_t cols, int target, bool multi_plane, SmemFn smem) {
  auto items = [&]() { return int64_t(t.th) * t.tw * t.cv; };
  while (items() < target) {
    if (t.tw < cols && (t.tw <= t.th || t.th >= rows)) t.tw = static_cast<int>(std::min<int64_t>(cols, t.tw * 2));
    else if (t.th < rows) t.th = static_cast<int>(std::min<int64_t>(rows, t.th * 2));
    else break;
  }
  if (multi_plane && t.th >= rows && t.tw >= cols && items() < target)
    t.cv = static_cast<int>(std::min<int64_t>(t.cvecs, (int64_t(target) * t.cv + items() - 1) / items()));
  while (smem() > kSmemMax) {
    if (t.cv > 1) t.cv = (t.cv + 1) / 2;
    else if (t.th > 1 && t.th >= t.tw) t.th = (t.th + 1) / 2;
    else if (t.tw > 1 && !t.contig) t.tw = (t.tw + 1) / 2;
    else if (t.th > 1) t.th = (t.th + 1) / 2;
    else return false;
  }
  t.smem = static_cast<int>(smem());
  t.nth = static_cast<int>((rows + t.th - 1) / t.th);
  t.ntw = static_cast<int>((cols + t.tw - 1) / t.tw);
  t.ncg = (t.cvecs + t.cv - 1) / t.cv;
  return true;
}

// Forward plan. `vec`: 16-byte vectors of V channels (NHWC-like); otherwise V == 1, channels-last when C has the
// smallest stride of x, else planar.
bool plan_fwd(const Geo2& g, const cudnnTensorStruct& xd, bool vec, int V, int es, TPlan* out) {
  TPlan t;
  t.c_inner = vec || c_inner(xd);
  t.cvecs = static_cast<int>(xd.dims[1] / V);
  if (t.c_inner) {
    t.cv = std::min(t.cvecs, vec ? 8 : 32);
    t.th = std::min(g.out_h, 4);
    t.tw = std::min(g.out_w, 4);
  } else {
    // whole rows as one range when a row of staged input is small enough
    t.contig = rows_packed(xd) && int64_t(g.in_w) * es * std::min(g.in_h, g.win_h) <= kSmemMax / 2;
    t.tw = t.contig ? g.out_w : std::min(g.out_w, 32);
  }
  auto smem = [&]() { return fwd_smem(g, t, V, es); };
  const bool planes = t.c_inner || (t.contig && planes_packed(xd));
  if (!size_tile(t, g.out_h, g.out_w, t.c_inner ? 512 : 1024, planes, smem))
    return false;
  t.tiles = xd.dims[0] * int64_t(t.ncg) * t.nth * t.ntw;
  *out = t;
  return true;
}

bool plan_bwd(const Geo2& g, const cudnnTensorStruct& xd, const cudnnTensorStruct& dyd, bool vec, int V, int es,
              TPlan* out) {
  TPlan t;
  t.c_inner = vec || c_inner(xd);
  t.cvecs = static_cast<int>(xd.dims[1] / V);
  if (t.c_inner) {
    t.cv = std::min(t.cvecs, vec ? 4 : 32);
    t.th = std::min(g.in_h, 8);
    t.tw = std::min(g.in_w, 8);
  } else {
    t.contig = rows_packed(dyd) && (!g.is_max || rows_packed(xd)) &&
               int64_t(g.in_w) * es * std::min(g.in_h, g.win_h) <= kSmemMax / 4;
    t.tw = t.contig ? g.in_w : std::min(g.in_w, 32);
  }
  auto smem = [&]() { return bwd_layout(g, t, V, es); };
  const bool planes = t.c_inner || (t.contig && planes_packed(dyd) && (!g.is_max || planes_packed(xd)));
  if (!size_tile(t, g.in_h, g.in_w, 1024, planes, smem)) return false;
  t.dsh = Divider(g.str_h, int64_t(g.in_h) + g.pad_h + g.str_h + g.win_h);
  t.dsw = Divider(g.str_w, int64_t(g.in_w) + g.pad_w + g.str_w + g.win_w);
  t.tiles = xd.dims[0] * int64_t(t.ncg) * t.nth * t.ntw;
  *out = t;
  return true;
}

// FREEDNN_POOL_DIRECT=1 sends every problem to the direct kernels (A/B measurements of the two paths).
bool force_direct() {
  static const bool on = fd::env_flag("FREEDNN_POOL_DIRECT");
  return on;
}

// One wave of resident blocks, each looping over tiles.
int tile_grid(const void* kernel, const TPlan& t, int device) {
  return resident_grid(kernel, t.tiles, 1, kBlock, t.smem, device);
}

}  // namespace

bool pool_pdl(int device) { return env_flag("FREEDNN_POOL_PDL") && device_info(device).sm90_code; }

bool pool_tensor_fits(const cudnnTensorStruct& d) {
  if (d.nb_dims != 4 || d.vect() != 1) return false;
  int64_t last = 0;
  for (int i = 0; i < 4; ++i) {
    if (d.strides[i] < 0) return false;
    last += (d.dims[i] - 1) * d.strides[i];
  }
  return last < (int64_t{1} << 30) && d.element_count() < (int64_t{1} << 30);
}

bool pooling2d_forward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                       const cudnnTensorStruct& xd, const void* x, double beta, const cudnnTensorStruct& yd, void* y,
                       cudnnStatus_t* status) {
  if (!pool_tensor_fits(xd) || !pool_tensor_fits(yd)) return false;
  const Geo2 g = make_geo2(p, xd, yd);
  if (!geo_fits(g)) return false;
  const T4 xt = make_t4(xd), yt = make_t4(yd);
  return with_pool_type<true>(xd.dtype, [&](auto tag) {
    using S = decltype(tag);
    constexpr int kV = 16 / sizeof(S);
    const bool vec = vec_ok(xd, x, kV) && vec_ok(yd, y, kV);
    const int v = vec ? kV : 1;
    TPlan t;
    if (!force_direct() && plan_fwd(g, xd, vec, v, sizeof(S), &t)) {
      auto kern = vec ? fwd_tile<S, kV> : fwd_tile<S, 1>;
      const int grid = tile_grid(reinterpret_cast<const void*>(kern), t, device);
      (void)launch_pdl(ops_pdl(device), kern, dim3(grid), dim3(kBlock), t.smem, stream, g, t, xt,
                       static_cast<const S*>(x), yt, static_cast<S*>(y), alpha, beta);
      *status = FD_LAUNCH_STATUS(CUDNN_STATUS_SUCCESS);
      return;
    }
    const Walk wk = make_walk(vec || c_inner(yd), yd.dims[0], yd.dims[1] / v, yd.dims[2], yd.dims[3]);
    const int count = static_cast<int>(yd.element_count() / v);
    const int grid = grid_size(count, kBlock, device);
    (void)launch_pdl(ops_pdl(device), vec ? fwd2d<S, kV> : fwd2d<S, 1>, dim3(grid), dim3(kBlock), 0, stream, g, wk, xt,
                     static_cast<const S*>(x), yt, static_cast<S*>(y), count, alpha, beta);
    *status = FD_LAUNCH_STATUS(CUDNN_STATUS_SUCCESS);
  });
}

bool pooling2d_backward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                        const cudnnTensorStruct& dyd, const void* dy, const cudnnTensorStruct& xd, const void* x,
                        double beta, const cudnnTensorStruct& dxd, void* dx, cudnnStatus_t* status) {
  if (!pool_tensor_fits(xd) || !pool_tensor_fits(dyd) || !pool_tensor_fits(dxd)) return false;
  const Geo2 g = make_geo2(p, xd, dyd);
  if (!geo_fits(g)) return false;
  const T4 xt = make_t4(xd), dyt = make_t4(dyd), dxt = make_t4(dxd);
  return with_pool_type<false>(dxd.dtype, [&](auto tag) {
    using S = decltype(tag);
    constexpr int kV = 16 / sizeof(S);
    // Global average pooling (one window = the whole plane): a broadcast of dy / (H * W) over dx.
    if (!g.is_max && g.pad_h == 0 && g.pad_w == 0 && g.out_h == 1 && g.out_w == 1 && g.win_h == g.in_h &&
        g.win_w == g.in_w && vec_ok(dyd, dy, kV) && vec_ok(dxd, dx, kV) && fd::packed_nhwc(dxd)) {
      const int cvecs = static_cast<int>(dxd.dims[1] / kV);
      const int nvec = static_cast<int>(dxd.element_count() / kV);
      const int img = cvecs * g.in_h * g.in_w;
      const int grid = grid_size(nvec, kBlock, device);
      (void)launch_pdl(ops_pdl(device), bwd_global_avg<S, kV>, dim3(grid), dim3(kBlock), 0, stream, nvec,
                       Divider(cvecs, nvec), cvecs, Divider(img, nvec), static_cast<int>(dyd.strides[0]),
                       static_cast<const S*>(dy), static_cast<S*>(dx), g.in_h * g.in_w, alpha, beta);
      *status = FD_LAUNCH_STATUS(CUDNN_STATUS_SUCCESS);
      return;
    }
    const bool vec = vec_ok(xd, x, kV) && vec_ok(dyd, dy, kV) && vec_ok(dxd, dx, kV);
    const int v = vec ? kV : 1;
    TPlan t;
    if (!force_direct() && plan_bwd(g, xd, dyd, vec, v, sizeof(S), &t)) {
      auto kern = vec ? bwd_tile<S, kV> : bwd_tile<S, 1>;
      const int grid = tile_grid(reinterpret_cast<const void*>(kern), t, device);
      (void)launch_pdl(ops_pdl(device), kern, dim3(grid), dim3(kBlock), t.smem, stream, g, t, xt,
                       static_cast<const S*>(x), dyt, static_cast<const S*>(dy), dxt, static_cast<S*>(dx), alpha, beta);
      *status = FD_LAUNCH_STATUS(CUDNN_STATUS_SUCCESS);
      return;
    }
    const Walk wk = make_walk(vec || c_inner(dxd), dxd.dims[0], dxd.dims[1] / v, dxd.dims[2], dxd.dims[3]);
    const int count = static_cast<int>(dxd.element_count() / v);
    const int grid = grid_size(count, kBlock, device);
    (void)launch_pdl(ops_pdl(device), vec ? bwd2d<S, kV> : bwd2d<S, 1>, dim3(grid), dim3(kBlock), 0, stream, g, wk, xt,
                     static_cast<const S*>(x), dyt, static_cast<const S*>(dy), dxt, static_cast<S*>(dx), count, alpha,
                     beta);
    *status = FD_LAUNCH_STATUS(CUDNN_STATUS_SUCCESS);
  });
}

}  // namespace fd::cuda
