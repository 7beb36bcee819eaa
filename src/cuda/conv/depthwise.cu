// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise: depthwise 2-D convolution (groups == C == K, one filter plane per channel), any filter size,
// stride, padding and dilation, every float type (float sums, double for DOUBLE). Two kernel families:
//  - NHWC (x and y packed channel-innermost): a thread owns V consecutive channels (16-byte loads and stores when
//    C and the pointers allow: 8 half/bf16, 4 float, 2 double) of one output pixel; the block's slice of the
//    filter sits in shared memory, tap-major. Forward reads x at o*s - p + t*dil; backward data gathers dy at
//    (i + p - t*dil) / s where that is a whole output pixel (no atomics).
//  - planes (any other strides, NCHW packed the common case): a block computes a tile of one (n, c) plane from a
//    tile of the source plane staged in shared memory, with the channel's filter beside it.
// Backward filter: per-channel sums over N x OH x OW for each tap in two levels: the pixels are cut into chunks
// (how many depends on the problem only); each chunk's partial sums (a thread's registers in NHWC, V channels x
// up to 9 taps with V = 16 bytes of accumulators; a block's fixed-order tree in the plane kernel) go to the
// workspace, then one kernel adds the chunks in order and writes dw with alpha/beta. Filters with more than 9
// taps take several tap groups (grid z / y). No atomics anywhere: deterministic.
// Declines (NOT_SUPPORTED with a reason): 3-D, channel multiplier != 1, int8, and tiles that would not fit in
// 48 KB of shared memory (huge dilations); cuda:direct serves those.
#include <algorithm>
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

constexpr size_t kSmemLimit = 48 * 1024;
constexpr size_t kAlign = 256;
constexpr int kTaps = 9;                              // taps per thread in backward filter (a tap group)
constexpr int kRowsPerThread = 2;                     // plane kernel: output rows per thread
constexpr int64_t kBwdFilterThreads = 262144;         // NHWC backward filter: threads to aim for
constexpr int64_t kBwdFilterBlocks = 2048;            // plane backward filter: blocks to aim for
constexpr size_t kPartialBudget = size_t{32} << 20;  // bytes of per-chunk partial sums

size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }
size_t compute_size(const ConvProblem& p) { return p.xdt == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float); }
int vmax(const ConvProblem& p) { return static_cast<int>(16 / dtype_size(p.xdt)); }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool packed_nhwc(const cudnnTensorStruct& t) {
  if (t.vect() != 1 || t.nb_dims != 4) return false;
  const int order[4] = {1, 3, 2, 0};
  int64_t s = 1;
  for (int i : order) {
    if (t.dims[i] != 1 && t.strides[i] != s) return false;
    s *= t.dims[i];
  }
  return true;
}

// The sizes a depthwise kernel needs. src is read, dst written: fwd x -> y, bwd_data dy -> dx.
struct DwGeom {
  int64_t N = 1, C = 1, SH = 1, SW = 1, DH = 1, DW = 1;
  int kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  bool bwd = false;
};

DwGeom dw_geom(const ConvProblem& p) {
  DwGeom g;
  g.N = p.mb;
  g.C = p.ic;
  g.bwd = p.dir == ConvDir::bwd_data;
  g.SH = g.bwd ? p.oh : p.ih;
  g.SW = g.bwd ? p.ow : p.iw;
  g.DH = g.bwd ? p.ih : p.oh;
  g.DW = g.bwd ? p.iw : p.ow;
  g.kh = static_cast<int>(p.kh), g.kw = static_cast<int>(p.kw);
  g.sh = p.sh, g.sw = p.sw, g.ph = p.ph, g.pw = p.pw, g.dh = p.dh, g.dw = p.dw;
  return g;
}

// Plane kernel tiling: a block of bx x by threads computes a (by * kRowsPerThread) x bx tile of dst from a
// th x tw tile of src.
struct PlaneTiling {
  int bx = 32, by = 8, th = 0, tw = 0;
  size_t smem = 0;
};

int pow2_at_least(int64_t v, int lo, int hi) {
  int r = lo;
  while (r < hi && r < v) r *= 2;
  return r;
}

PlaneTiling plane_tiling(const ConvProblem& p) {
  const DwGeom g = dw_geom(p);
  PlaneTiling t;
  t.bx = pow2_at_least(g.DW, 8, 32);
  t.by = pow2_at_least(ceil_div(g.DH, kRowsPerThread), 1, 256 / t.bx);
  const int64_t oth = int64_t{t.by} * kRowsPerThread, otw = t.bx;
  int64_t th, tw;
  if (!g.bwd) {
    th = (oth - 1) * g.sh + int64_t{g.kh - 1} * g.dh + 1;
    tw = (otw - 1) * g.sw + int64_t{g.kw - 1} * g.dw + 1;
  } else {
    th = (oth - 1 + int64_t{g.kh - 1} * g.dh) / g.sh + 2;
    tw = (otw - 1 + int64_t{g.kw - 1} * g.dw) / g.sw + 2;
  }
  const size_t e = compute_size(p);
  const size_t taps = align_up(static_cast<size_t>(g.kh * g.kw) * e);
  t.th = static_cast<int>(std::min<int64_t>(th, 1 << 20));
  t.tw = static_cast<int>(std::min<int64_t>(tw, 1 << 20));
  t.smem = taps + static_cast<size_t>(t.th) * static_cast<size_t>(t.tw) * e;
  return t;
}

// NHWC kernels: V channels per thread, bx channel vectors x by pixel lanes per block.
struct NhwcTiling {
  int v = 1, bx = 1, by = 256;
  size_t smem = 0;  // the block's filter slice (fwd / bwd_data)
};

NhwcTiling nhwc_tiling(const ConvProblem& p, int v) {
  NhwcTiling t;
  t.v = v;
  const int64_t vecs = ceil_div(p.ic, v);
  t.bx = static_cast<int>(std::min<int64_t>(32, vecs));
  t.by = 256 / t.bx;
  t.smem = static_cast<size_t>(p.ksp()) * static_cast<size_t>(t.bx) * v * compute_size(p);
  return t;
}

// The vector width the NHWC kernels use for this problem when the pointers are aligned to a vector: 16 bytes of
// storage (fwd / bwd_data); 16 bytes of accumulators in backward filter (its 9 taps x V sums live in registers).
int bwd_filter_vmax(const ConvProblem& p) { return static_cast<int>(16 / compute_size(p)); }
int nominal_v(const ConvProblem& p) {
  const int v = p.dir == ConvDir::bwd_filter ? bwd_filter_vmax(p) : vmax(p);
  return p.ic % v == 0 ? v : 1;
}

bool use_nhwc(const ConvProblem& p) {
  if (!packed_nhwc(*p.x) || !packed_nhwc(*p.y)) return false;
  return p.dir == ConvDir::bwd_filter || nhwc_tiling(p, vmax(p)).smem <= kSmemLimit;
}

// Backward filter: chunks of output pixels (NHWC) or of (n, oh) rows (planes), and the workspace of partials.
struct BwdFilterPlan {
  int64_t chunks = 1, len = 1;  // chunk count, pixels (NHWC) or rows (planes) per chunk
  int ntg = 1;                  // tap groups
  size_t partial_bytes = 0, total = 0;
};

BwdFilterPlan bwd_filter_plan(const ConvProblem& p) {
  BwdFilterPlan b;
  const int64_t ks = p.ksp(), C = p.ic;
  b.ntg = static_cast<int>(ceil_div(ks, kTaps));
  const size_t per_chunk = static_cast<size_t>(ks * C) * compute_size(p);
  const auto cap = std::max<int64_t>(1, static_cast<int64_t>(kPartialBudget / per_chunk));
  int64_t units, want;
  if (use_nhwc(p)) {
    units = p.mb * p.oh * p.ow;
    want = std::min(ceil_div(kBwdFilterThreads, ceil_div(C, nominal_v(p)) * b.ntg), ceil_div(units, 16));
  } else {
    units = p.mb * p.oh;
    want = std::min(ceil_div(kBwdFilterBlocks, C * b.ntg), units);
  }
  want = std::max<int64_t>(1, std::min(want, cap));
  b.len = ceil_div(units, want);
  b.chunks = ceil_div(units, b.len);
  b.partial_bytes = static_cast<size_t>(b.chunks) * per_chunk;
  b.total = b.partial_bytes + kAlign;
  return b;
}

// --- device helpers ---------------------------------------------------------------------------------------------

template <class S, int V>
struct alignas(sizeof(S) * V) Pack {
  S v[V];
};

__device__ __forceinline__ int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The effective filter tap t (r * kw + s) of channel c: flipped for CUDNN_CONVOLUTION.
template <class E, class S>
__device__ __forceinline__ E filter_tap(const S* w, const View5& wv, int64_t c, int t, int kh, int kw, bool flip) {
  const int e = flip ? kh * kw - 1 - t : t;
  return load_as<E>(w, wv.at(c, 0, 0, e / kw, e % kw));
}

// --- forward / backward data: planes ------------------------------------------------------------------------------

template <class S, class E>
__global__ void __launch_bounds__(256) plane_kernel(DwGeom g, View5 sv, const S* __restrict__ src, View5 wv,
                                                    const S* __restrict__ w, bool flip, View5 dv, S* dst, E alpha,
                                                    E beta, FusedDev f, int tiles_h, int tiles_w, int th, int tw) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int ks = g.kh * g.kw;
  E* wsm = reinterpret_cast<E*>(smem_raw);
  E* tile = reinterpret_cast<E*>(smem_raw + (ks * sizeof(E) + 255) / 256 * 256);
  const int tid = threadIdx.y * blockDim.x + threadIdx.x, nthr = blockDim.x * blockDim.y;
  const int64_t tiles = int64_t{tiles_h} * tiles_w, total = g.N * g.C * tiles;
  const int oth = blockDim.y * kRowsPerThread, otw = blockDim.x;
  for (int64_t b = blockIdx.x; b < total; b += gridDim.x) {
    const int64_t plane = b / tiles;
    const int t = static_cast<int>(b - plane * tiles);
    const int64_t n = plane / g.C, c = plane - n * g.C;
    const int64_t oh0 = int64_t{t / tiles_w} * oth, ow0 = int64_t{t % tiles_w} * otw;
    int64_t sh0, sw0;
    if (!g.bwd) {
      sh0 = oh0 * g.sh - g.ph;
      sw0 = ow0 * g.sw - g.pw;
    } else {
      sh0 = floor_div(oh0 + g.ph - int64_t{g.kh - 1} * g.dh, g.sh);
      sw0 = floor_div(ow0 + g.pw - int64_t{g.kw - 1} * g.dw, g.sw);
    }
    __syncthreads();  // the previous tile is done with shared memory
    for (int i = tid; i < ks; i += nthr) wsm[i] = filter_tap<E>(w, wv, c, i, g.kh, g.kw, flip);
    const int64_t sbase = n * sv.st[0] + c * sv.st[1];
    for (int i = tid; i < th * tw; i += nthr) {
      const int r = i / tw, q = i - r * tw;
      const int64_t hh = sh0 + r, ww = sw0 + q;
      tile[i] = hh >= 0 && hh < g.SH && ww >= 0 && ww < g.SW ? load_as<E>(src, sbase + hh * sv.st[3] + ww * sv.st[4])
                                                             : E(0);
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kRowsPerThread; ++j) {
      const int ly = threadIdx.y + j * blockDim.y, lx = threadIdx.x;
      const int64_t oh = oh0 + ly, ow = ow0 + lx;
      if (oh >= g.DH || ow >= g.DW) continue;
      E acc = E(0);
      if (!g.bwd) {
        for (int r = 0; r < g.kh; ++r) {
          const E* row = tile + (ly * g.sh + r * g.dh) * tw + lx * g.sw;
          for (int s = 0; s < g.kw; ++s) acc += row[s * g.dw] * wsm[r * g.kw + s];
        }
      } else {
        for (int r = 0; r < g.kh; ++r) {
          const int64_t a = oh + g.ph - int64_t{r} * g.dh;
          if (a < 0 || a % g.sh != 0 || a / g.sh >= g.SH) continue;
          const int64_t rbase = (a / g.sh - sh0) * tw - sw0;
          for (int s = 0; s < g.kw; ++s) {
            const int64_t bq = ow + g.pw - int64_t{s} * g.dw;
            if (bq < 0 || bq % g.sw != 0 || bq / g.sw >= g.SW) continue;
            acc += tile[rbase + bq / g.sw] * wsm[r * g.kw + s];
          }
        }
      }
      write_out<S, E>(dst, n * dv.st[0] + c * dv.st[1] + oh * dv.st[3] + ow * dv.st[4], acc, alpha, beta, f, n, c, 0,
                      oh, ow);
    }
  }
}

// --- forward / backward data: NHWC ----------------------------------------------------------------------------

template <class S, class E, int V>
__global__ void __launch_bounds__(256) nhwc_kernel(DwGeom g, const S* __restrict__ src, View5 wv,
                                                   const S* __restrict__ w, bool flip, S* dst, E alpha, E beta,
                                                   FusedDev f) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  E* wsm = reinterpret_cast<E*>(smem_raw);  // [tap][channel of the block]
  const int ks = g.kh * g.kw, cb = blockDim.x * V;
  const int64_t cbase = int64_t{blockIdx.x} * cb;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x, nthr = blockDim.x * blockDim.y;
  for (int i = tid; i < ks * cb; i += nthr) {
    const int t = i / cb;
    const int64_t c = cbase + (i - t * cb);
    wsm[i] = c < g.C ? filter_tap<E>(w, wv, c, t, g.kh, g.kw, flip) : E(0);
  }
  __syncthreads();
  const int cl = threadIdx.x * V;
  const int64_t c0 = cbase + cl;
  if (c0 >= g.C) return;
  const int64_t dsp = g.DH * g.DW, P = g.N * dsp;
  for (int64_t pix = int64_t{blockIdx.y} * blockDim.y + threadIdx.y; pix < P; pix += int64_t{gridDim.y} * blockDim.y) {
    const int64_t n = pix / dsp, rem = pix - n * dsp, h = rem / g.DW, wq = rem - h * g.DW;
    E acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = E(0);
    for (int r = 0; r < g.kh; ++r) {
      int64_t sh_;
      if (!g.bwd) {
        sh_ = h * g.sh - g.ph + int64_t{r} * g.dh;
        if (sh_ < 0 || sh_ >= g.SH) continue;
      } else {
        const int64_t a = h + g.ph - int64_t{r} * g.dh;
        if (a < 0 || a % g.sh != 0) continue;
        sh_ = a / g.sh;
        if (sh_ >= g.SH) continue;
      }
      const S* srow = src + ((n * g.SH + sh_) * g.SW) * g.C + c0;
      for (int s = 0; s < g.kw; ++s) {
        int64_t sw_;
        if (!g.bwd) {
          sw_ = wq * g.sw - g.pw + int64_t{s} * g.dw;
          if (sw_ < 0 || sw_ >= g.SW) continue;
        } else {
          const int64_t a = wq + g.pw - int64_t{s} * g.dw;
          if (a < 0 || a % g.sw != 0) continue;
          sw_ = a / g.sw;
          if (sw_ >= g.SW) continue;
        }
        const Pack<S, V> xv = *reinterpret_cast<const Pack<S, V>*>(srow + sw_ * g.C);
        const E* wt = wsm + (r * g.kw + s) * cb + cl;
#pragma unroll
        for (int v = 0; v < V; ++v) acc[v] += static_cast<E>(widen(xv.v[v])) * wt[v];
      }
    }
    const int64_t off = pix * g.C + c0;
    if (!f.on) {
      Pack<S, V> out;
      if (beta != E(0)) {
        const Pack<S, V> old = *reinterpret_cast<const Pack<S, V>*>(dst + off);
#pragma unroll
        for (int v = 0; v < V; ++v) store(out.v, v, alpha * acc[v] + beta * static_cast<E>(widen(old.v[v])));
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v) store(out.v, v, alpha * acc[v]);
      }
      *reinterpret_cast<Pack<S, V>*>(dst + off) = out;
    } else {
#pragma unroll
      for (int v = 0; v < V; ++v) write_out<S, E>(dst, off + v, acc[v], alpha, beta, f, n, c0 + v, 0, h, wq);
    }
  }
}

// --- backward filter ----------------------------------------------------------------------------------------------

// NHWC: thread (channel vector, chunk) sums dy * x over the chunk's output pixels for the taps of tap group
// blockIdx.z; partial[chunk][tap][c].
template <class S, class E, int V>
__global__ void __launch_bounds__(256) nhwc_bwd_filter_kernel(DwGeom g, const S* __restrict__ x,
                                                              const S* __restrict__ dy, E* partial, int64_t chunks,
                                                              int64_t len) {
  const int64_t c0 = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) * V;
  const int64_t q = int64_t{blockIdx.y} * blockDim.y + threadIdx.y;
  if (c0 >= g.C || q >= chunks) return;
  // here src = x (SH x SW input), dst = dy (DH x DW output): dw_geom of a bwd_filter problem is forward-shaped
  const int ks = g.kh * g.kw, t0 = blockIdx.z * kTaps, nt = min(kTaps, ks - t0);
  int ro[kTaps], so[kTaps];  // tap offsets (small: the filter extent)
#pragma unroll
  for (int j = 0; j < kTaps; ++j) {
    const int t = t0 + (j < nt ? j : 0);
    ro[j] = t / g.kw * g.dh - g.ph;
    so[j] = t % g.kw * g.dw - g.pw;
  }
  E acc[kTaps][V];
#pragma unroll
  for (int j = 0; j < kTaps; ++j)
#pragma unroll
    for (int v = 0; v < V; ++v) acc[j][v] = E(0);
  const int64_t dsp = g.DH * g.DW, P = g.N * dsp;
  const int64_t p0 = q * len, p1 = min(P, p0 + len);
  for (int64_t pix = p0; pix < p1; ++pix) {
    const int64_t n = pix / dsp, rem = pix - n * dsp, oh = rem / g.DW, ow = rem - oh * g.DW;
    const Pack<S, V> d = *reinterpret_cast<const Pack<S, V>*>(dy + pix * g.C + c0);
    E dv[V];
#pragma unroll
    for (int v = 0; v < V; ++v) dv[v] = static_cast<E>(widen(d.v[v]));
    const S* xn = x + n * g.SH * g.SW * g.C + c0;
#pragma unroll
    for (int j = 0; j < kTaps; ++j) {
      if (j >= nt) break;
      const int64_t ih = oh * g.sh + ro[j], iw = ow * g.sw + so[j];
      if (ih < 0 || ih >= g.SH || iw < 0 || iw >= g.SW) continue;
      const Pack<S, V> xv = *reinterpret_cast<const Pack<S, V>*>(xn + (ih * g.SW + iw) * g.C);
#pragma unroll
      for (int v = 0; v < V; ++v) acc[j][v] += dv[v] * static_cast<E>(widen(xv.v[v]));
    }
  }
#pragma unroll
  for (int j = 0; j < kTaps; ++j) {
    if (j >= nt) break;
    E* out = partial + (q * ks + t0 + j) * g.C + c0;
#pragma unroll
    for (int v = 0; v < V; ++v) out[v] = acc[j][v];
  }
}

template <class E>
__device__ __forceinline__ E warp_sum(E v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Planes (any strides): block (c, chunk of (n, oh) rows, tap group) sums dy * x over its rows, each thread a fixed
// set of pixels, then a fixed-order tree across the block; partial[chunk][tap][c]. 256 threads.
template <class S, class E>
__global__ void __launch_bounds__(256) plane_bwd_filter_kernel(DwGeom g, View5 xv, const S* __restrict__ x,
                                                               View5 yv, const S* __restrict__ dy, E* partial,
                                                               int64_t chunks, int64_t len) {
  __shared__ E red[kTaps][8];
  const int64_t b = blockIdx.x, c = b / chunks, q = b - c * chunks;
  const int ks = g.kh * g.kw, t0 = blockIdx.y * kTaps, nt = min(kTaps, ks - t0);
  int ro[kTaps], so[kTaps];  // tap offsets (small: the filter extent)
#pragma unroll
  for (int j = 0; j < kTaps; ++j) {
    const int t = t0 + (j < nt ? j : 0);
    ro[j] = t / g.kw * g.dh - g.ph;
    so[j] = t % g.kw * g.dw - g.pw;
  }
  E acc[kTaps];
#pragma unroll
  for (int j = 0; j < kTaps; ++j) acc[j] = E(0);
  const int64_t r0 = q * len, r1 = min(g.N * g.DH, r0 + len), items = (r1 - r0) * g.DW;
  for (int64_t i = threadIdx.x; i < items; i += blockDim.x) {
    const int64_t row = r0 + i / g.DW, ow = i % g.DW, n = row / g.DH, oh = row - n * g.DH;
    const E d = load_as<E>(dy, n * yv.st[0] + c * yv.st[1] + oh * yv.st[3] + ow * yv.st[4]);
    const int64_t xb = n * xv.st[0] + c * xv.st[1];
#pragma unroll
    for (int j = 0; j < kTaps; ++j) {
      if (j >= nt) break;
      const int64_t ih = oh * g.sh + ro[j], iw = ow * g.sw + so[j];
      if (ih < 0 || ih >= g.SH || iw < 0 || iw >= g.SW) continue;
      acc[j] += d * load_as<E>(x, xb + ih * xv.st[3] + iw * xv.st[4]);
    }
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
  for (int j = 0; j < kTaps; ++j) {
    const E s = warp_sum(acc[j]);
    if (lane == 0) red[j][warp] = s;
  }
  __syncthreads();
  if (threadIdx.x < nt) {
    const int j = threadIdx.x;
    E s = E(0);
    for (int k = 0; k < 8; ++k) s += red[j][k];
    partial[(q * ks + t0 + j) * g.C + c] = s;
  }
}

// dw[c][tap] = alpha * (sum over chunks in order of partial[chunk][effective tap][c]) + beta * dw.
template <class S, class E>
__global__ void reduce_partials_kernel(const E* __restrict__ partial, int64_t chunks, int64_t C, int kh, int kw,
                                       bool flip, View5 wv, S* dw, E alpha, E beta) {
  const int64_t ks = int64_t{kh} * kw, total = ks * C;
  const FusedDev none;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t t = i / C, c = i - t * C;
    E acc = E(0);
    for (int64_t q = 0; q < chunks; ++q) acc += partial[q * total + i];
    const int64_t e = flip ? ks - 1 - t : t, r = e / kw, s = e % kw;
    write_out<S, E>(dw, wv.at(c, 0, 0, r, s), acc, alpha, beta, none, c, 0, 0, r, s);
  }
}

// --- host side ----------------------------------------------------------------------------------------------

bool aligned_to(const void* a, const void* b, size_t bytes) {
  return ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b)) & (bytes - 1)) == 0;
}

template <class S, int V>
cudnnStatus_t launch_nhwc(const ConvProblem& p, const ConvArgs& a, const DwGeom& g) {
  using E = ComputeOf<S>;
  cudnnContext* h = a.handle;
  const NhwcTiling t = nhwc_tiling(p, V);
  const dim3 block(static_cast<unsigned>(t.bx), static_cast<unsigned>(t.by));
  const int64_t cblocks = ceil_div(ceil_div(g.C, V), t.bx), P = g.N * g.DH * g.DW;
  const int per_sm = std::max(1, device_info(h->device).max_threads_per_sm / 256);
  const int64_t want = std::max<int64_t>(1, int64_t{device_info(h->device).sm_count} * per_sm * 4 / cblocks);
  const dim3 grid(static_cast<unsigned>(cblocks),
                  static_cast<unsigned>(std::min<int64_t>({ceil_div(P, t.by), int64_t{65535}, want})));
  nhwc_kernel<S, E, V><<<grid, block, t.smem, h->stream>>>(
      g, static_cast<const S*>(a.in), view5(p.w->as_tensor), static_cast<const S*>(a.in2),
      p.mode == CUDNN_CONVOLUTION, static_cast<S*>(a.out), static_cast<E>(a.alpha), static_cast<E>(a.beta),
      fused_dev(a.fused));
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

template <class S>
cudnnStatus_t run_fwd_bwd_data(const ConvProblem& p, const ConvArgs& a) {
  using E = ComputeOf<S>;
  cudnnContext* h = a.handle;
  const DwGeom g = dw_geom(p);
  constexpr int VM = static_cast<int>(16 / sizeof(S));
  if (use_nhwc(p)) {
    if (nominal_v(p) == VM && aligned_to(a.in, a.out, 16)) return launch_nhwc<S, VM>(p, a, g);
    return launch_nhwc<S, 1>(p, a, g);
  }
  const PlaneTiling t = plane_tiling(p);
  const int oth = t.by * kRowsPerThread, otw = t.bx;
  const auto tiles_h = static_cast<int>(ceil_div(g.DH, oth)), tiles_w = static_cast<int>(ceil_div(g.DW, otw));
  const int64_t blocks = g.N * g.C * tiles_h * tiles_w;
  const int grid = static_cast<int>(std::min<int64_t>(blocks, int64_t{1} << 30));
  // src / dst views: fwd x -> y, bwd_data dy -> dx
  const View5 sv = view5(g.bwd ? *p.y : *p.x), dv = view5(g.bwd ? *p.x : *p.y);
  plane_kernel<S, E><<<grid, dim3(static_cast<unsigned>(t.bx), static_cast<unsigned>(t.by)), t.smem, h->stream>>>(
      g, sv, static_cast<const S*>(a.in), view5(p.w->as_tensor), static_cast<const S*>(a.in2),
      p.mode == CUDNN_CONVOLUTION, dv, static_cast<S*>(a.out), static_cast<E>(a.alpha), static_cast<E>(a.beta),
      fused_dev(a.fused), tiles_h, tiles_w, t.th, t.tw);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

template <class S>
cudnnStatus_t run_bwd_filter(const ConvProblem& p, const ConvArgs& a) {
  using E = ComputeOf<S>;
  cudnnContext* h = a.handle;
  const BwdFilterPlan b = bwd_filter_plan(p);
  FD_CHECK_PARAM(a.workspace != nullptr && a.workspace_size >= b.total, "cuda:depthwise needs %zu bytes of workspace",
                 b.total);
  E* partial = reinterpret_cast<E*>((reinterpret_cast<uintptr_t>(a.workspace) + kAlign - 1) / kAlign * kAlign);
  DwGeom g = dw_geom(p);  // forward-shaped: S = input plane, D = output plane
  const S* x = static_cast<const S*>(a.in);
  const S* dy = static_cast<const S*>(a.in2);
  if (use_nhwc(p)) {
    constexpr int VM = static_cast<int>(16 / sizeof(E));
    auto launch = [&](auto vtag) -> cudnnStatus_t {
      constexpr int V = decltype(vtag)::value;
      const int64_t vecs = ceil_div(g.C, V);
      const int bx = static_cast<int>(std::min<int64_t>(32, vecs)), by = 256 / bx;
      const dim3 grid(static_cast<unsigned>(ceil_div(vecs, bx)), static_cast<unsigned>(ceil_div(b.chunks, by)),
                      static_cast<unsigned>(b.ntg));
      nhwc_bwd_filter_kernel<S, E, V><<<grid, dim3(bx, by), 0, h->stream>>>(g, x, dy, partial, b.chunks, b.len);
      FD_CUDA_LAUNCHED();
      return CUDNN_STATUS_SUCCESS;
    };
    if (nominal_v(p) == VM && aligned_to(x, dy, VM * sizeof(S))) {
      FD_TRY(launch(std::integral_constant<int, VM>{}));
    } else {
      FD_TRY(launch(std::integral_constant<int, 1>{}));
    }
  } else {
    const dim3 grid(static_cast<unsigned>(g.C * b.chunks), static_cast<unsigned>(b.ntg));
    plane_bwd_filter_kernel<S, E><<<grid, 256, 0, h->stream>>>(g, view5(*p.x), x, view5(*p.y), dy, partial, b.chunks,
                                                               b.len);
    FD_CUDA_LAUNCHED();
  }
  const int64_t total = p.ksp() * g.C;
  reduce_partials_kernel<S, E><<<grid_size(total, kBlock, h->device), kBlock, 0, h->stream>>>(
      partial, b.chunks, g.C, g.kh, g.kw, p.mode == CUDNN_CONVOLUTION, view5(p.w->as_tensor), static_cast<S*>(a.out),
      static_cast<E>(a.alpha), static_cast<E>(a.beta));
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

class Depthwise final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cuda:depthwise"; }
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
  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    auto no = [](const char* why) { return fd::conv::Verdict{CUDNN_STATUS_NOT_SUPPORTED, why}; };
    if (p.is_int8()) return no("int8 depthwise convolution is left to cuda:direct");
    if (p.xdt != CUDNN_DATA_FLOAT && p.xdt != CUDNN_DATA_DOUBLE && p.xdt != CUDNN_DATA_HALF &&
        p.xdt != CUDNN_DATA_BFLOAT16)
      return no("data type is not f32, f64, f16 or bf16");
    if (p.g != p.ic || p.oc != p.ic) return no("not a depthwise convolution (groups == C == K)");
    if (p.nsp != 2 || p.x->nb_dims != 4) return no("3-D convolution");
    if (p.w->as_tensor.vect() != 1) return no("vector filter layout");
    if (p.dir != ConvDir::bwd_filter && !use_nhwc(p) && plane_tiling(p).smem > kSmemLimit)
      return no("the staged input tile exceeds 48 KB of shared memory (filter or dilation too large)");
    return {};
  }
  size_t workspace_size(const ConvProblem& p) const override {
    return p.dir == ConvDir::bwd_filter ? bwd_filter_plan(p).total : 0;
  }
  bool deterministic() const override { return true; }
  cudnnMathType_t math_type(const ConvProblem& p) const override {
    return p.math == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
  }
  double cost_estimate(const ConvProblem& p) const override {
    const double es = static_cast<double>(dtype_size(p.xdt));
    double bytes = es * static_cast<double>(p.mb * p.ic * p.isp() + p.oc * p.ksp() + p.mb * p.oc * p.osp());
    if (p.dir == ConvDir::bwd_filter) bytes += 2.0 * static_cast<double>(bwd_filter_plan(p).partial_bytes);
    return bytes / 3.0e12 + p.flops() / 40e12;
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:depthwise called without a handle");
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    const bool known = with_float_storage(p.xdt, [&](auto tag) {
      using S = decltype(tag);
      st = p.dir == ConvDir::bwd_filter ? run_bwd_filter<S>(p, a) : run_fwd_bwd_data<S>(p, a);
    });
    FD_CHECK_SUPPORTED(known, "cuda:depthwise has no kernels for %s", dtype_short_name(p.xdt));
    return st;
  }
};

}  // namespace

const fd::conv::ConvImpl* depthwise_impl() {
  static const Depthwise impl;
  return &impl;
}

}  // namespace fd::cuda::conv
