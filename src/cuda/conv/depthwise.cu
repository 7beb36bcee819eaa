// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise: depthwise 2-D convolution (groups == C == K, one filter plane per channel), any filter size,
// stride, padding and dilation, every float type (float sums, double for DOUBLE). Files:
//  - depthwise_nhwc.cu: the fast forward / backward data path for packed NHWC f32/f16/bf16 with 16-byte vectors
//    along C, 3x3 or 5x5 filters, stride 1 or 2, no dilation (register strips of output pixels).
//  - depthwise_fwd_walk.cu: the 3x3 forward on column walks with the filter in registers, at stride 2 and output
//    widths up to 28 (FREEDNN_DW_FWD=walk|strip forces either).
//  - depthwise_tile_s1.cu: the 3x3 stride-1 forward and backward data from shared-memory tiles (ahead of the
//    others; FREEDNN_DW_TILE=0 turns it off).
//  - depthwise_wgrad.cu: backward filter for every problem (per-slice partial sums, deterministic reduction).
//  - this file: the implementation object, the dispatch, and the generic forward / backward data kernels that
//    serve everything the fast path does not cover:
//    - NHWC (x and y packed channel-innermost): a thread owns V consecutive channels (16-byte loads and stores when
//      C and the pointers allow: 8 half/bf16, 4 float, 2 double) of one output pixel; the block's slice of the
//      filter sits in shared memory, tap-major. Forward reads x at o*s - p + t*dil; backward data gathers dy at
//      (i + p - t*dil) / s where that is a whole output pixel (no atomics).
//    - planes (any other strides, NCHW packed the common case): a block computes a tile of one (n, c) plane from a
//      tile of the source plane staged in shared memory (loaded row by row: a warp reads consecutive elements of a
//      row), with the channel's filter beside it.
// No atomics anywhere: deterministic.
// Declines (NOT_SUPPORTED with a reason): 3-D, channel multiplier != 1, int8, and tiles that would not fit in
// 48 KB of shared memory (huge dilations); cuda:direct serves those.
#include <algorithm>
#include <cstdint>

#include "core/dtype.h"
#include "core/handle.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/depthwise_fast.h"
#include "cuda/conv/depthwise_fwd_walk.h"
#include "cuda/conv/depthwise_tile_s1.h"
#include "cuda/conv/impls.h"

namespace fd::cuda::conv {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr size_t kSmemLimit = 48 * 1024;
constexpr size_t kAlign = 256;
constexpr int kRowsPerThread = 2;  // plane kernel: output rows per thread

size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }
size_t compute_size(const ConvProblem& p) { return p.xdt == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float); }
int vmax(const ConvProblem& p) { return static_cast<int>(16 / dtype_size(p.xdt)); }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

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

// The vector width the generic NHWC kernel uses for this problem when the pointers are aligned to a vector: 16
// bytes of storage.
int nominal_v(const ConvProblem& p) { return p.ic % vmax(p) == 0 ? vmax(p) : 1; }

bool use_nhwc(const ConvProblem& p) {
  if (!packed_nhwc(*p.x) || !packed_nhwc(*p.y)) return false;
  return nhwc_tiling(p, vmax(p)).smem <= kSmemLimit;
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

// --- host side ----------------------------------------------------------------------------------------------

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
  if (dw_tile_s1_covers(p, a) && dw_tile_s1_wanted(p)) {
    const cudnnStatus_t st = dw_tile_s1_run(p, a);
    if (st != CUDNN_STATUS_NOT_SUPPORTED) return st;
  }
  if (dw_fwd_walk_wanted(p) && dw_fwd_walk_covers(p, a)) return dw_fwd_walk_run(p, a);
  if (dw_nhwc_fast_covers(p) && dw_nhwc_fast_aligned(a)) return dw_nhwc_fast_run(p, a);
  if (use_nhwc(p)) {
    if (nominal_v(p) == VM && aligned16(a.in) && aligned16(a.out)) return launch_nhwc<S, VM>(p, a, g);
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
    return p.dir == ConvDir::bwd_filter ? dw_wgrad_workspace(p) : 0;
  }
  bool deterministic() const override { return true; }
  cudnnMathType_t math_type(const ConvProblem& p) const override {
    return p.math == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
  }
  double cost_estimate(const ConvProblem& p) const override {
    const double es = static_cast<double>(dtype_size(p.xdt));
    double bytes = es * static_cast<double>(p.mb * p.ic * p.isp() + p.oc * p.ksp() + p.mb * p.oc * p.osp());
    if (p.dir == ConvDir::bwd_filter) bytes += 2.0 * static_cast<double>(dw_wgrad_partial_bytes(p));
    return bytes / 3.0e12 + p.flops() / 40e12;
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:depthwise called without a handle");
    if (p.dir == ConvDir::bwd_filter) return dw_wgrad_run(p, a);
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    const bool known = with_float_storage(p.xdt, [&](auto tag) { st = run_fwd_bwd_data<decltype(tag)>(p, a); });
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
