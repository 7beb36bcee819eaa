// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise fast path, forward and backward data in packed NHWC (f32, f16, bf16; C a multiple of V = 16 bytes
// of elements; square K x K filter with K = 3 or 5; stride 1 or 2; no dilation; 16-byte aligned x and y).
//
// A thread owns V consecutive channels (one 16-byte vector: 8 half/bf16 or 4 float) of a strip of T consecutive
// destination pixels along W (T: strip_length() below). For each filter row it loads the strip's source columns
// once into registers (forward:
// (T-1)*stride + K columns; stride-2 backward data: (T+K-1)/2 + 1 dy columns) and applies the K taps of that row
// to all T pixels, so a 3x3 stride-1 strip does 18 16-byte loads for 4 outputs (4.5 per output instead of 9; the
// rest of the reuse, across rows and neighbouring strips, is L1/L2 hits). The block's channel slice of the
// effective filter sits in shared memory as float, tap-major, read as float4 (2 LDS.128 per tap per strip for
// halves). Index arithmetic is 32-bit (pixel counts < 2^31, checked), addresses 64-bit. Accumulation in float, in
// the order r then s for each output, as the reference.
//  - forward: y = conv(x); stride-1 backward data is the same kernel on dy with the filter flipped and padding
//    K-1-p (dx[i] = sum_t dy[i + p - t] w[t]).
//  - stride-2 backward data: dx[i] gathers dy[(i + p - t) / 2] for the taps where i + p - t is even; strips start at
//    even i so the parity pattern of a strip depends only on p (two compile-time variants, picked per launch).
// No atomics, no workspace.
//
// Traffic per output element: the destination once (2 bytes for f16; plus its read when beta != 0) and the
// source once from DRAM when L2 holds a few rows of the image (always for these sizes: one image row of MobileNet's
// largest layer is 112 x 32 x 2 = 7 KB), i.e. ~(|x| + |y|) bytes per call: 102 MB for the 112x112x32 N=64 f16
// layer, ~30 us at 3.4 TB/s. Measured (H200, run 8): 58 us there (was 176 us; NVIDIA 62 us): the kernels are
// bound by load latency at 25-38 % occupancy (ncu: 6 of 10 cycles between issues wait on L1TEX), not by DRAM.
#include <algorithm>
#include <cstdint>

#include "core/dtype.h"
#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/depthwise_fast.h"

namespace fd::cuda::conv {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr int kThreads = 256;
// Destination pixels per thread strip (T) and the blocks of 256 per SM the kernel is built for: the kernels are
// latency-bound (dependent L1/L2 loads), so resident warps matter as much as reuse within a strip. The source
// columns are held packed (16-bit types widen at use); T = 1 fits 64 registers (4 blocks, 50 % occupancy),
// T = 2 85 (3 blocks), T = 4 128 (2 blocks) without spills. Measured on the H200 (MobileNet-v2 f16 NHWC,
// 2026-11-29, docs/perf/data/2026-11-29-run8): T = 4 is fastest for stride 1 and for the stride-2 backward data
// kernel, T = 2 for the stride-2 forward (0.074 vs 0.096 ms on 112x112x96); T = 1 is never best. Those are the
// defaults; FREEDNN_DW_STRIP=1|2|4 forces one for A/B runs.
constexpr int min_blocks(int t) { return t == 4 ? 2 : t == 2 ? 3 : 4; }

// Sizes as the kernels see them: src is read (x, or dy), dst written (y, or dx). ph / pw: the forward kernel reads
// src row dst_row * stride - ph + r; the transposed kernel the original padding.
struct FastGeom {
  int N = 1, C = 1, SH = 1, SW = 1, DH = 1, DW = 1;
  int ph = 0, pw = 0;
  int strips = 1;  // strips of T pixels per destination row
};

template <class S, int V>
struct alignas(16) Vec {
  S v[V];
};

// One column of a strip's source: 16 bytes, zero outside the image.
template <class S, int V>
__device__ __forceinline__ Vec<S, V> load_col(const S* p, bool inside) {
  if (inside) return *reinterpret_cast<const Vec<S, V>*>(p);
  Vec<S, V> z;
#pragma unroll
  for (int v = 0; v < V; ++v) z.v[v] = S(0.0f);
  return z;
}

// The block's slice of the effective filter (flipped when `flip`), tap-major: wsm[tap * cb + channel - cbase].
template <class S, int K>
__device__ __forceinline__ void stage_filter(float* wsm, const S* __restrict__ w, const View5& wv, bool flip, int C,
                                             int cbase, int cb) {
  const int tid = threadIdx.y * blockDim.x + threadIdx.x, nthr = blockDim.x * blockDim.y;
  for (int i = tid; i < K * K * cb; i += nthr) {
    const int t = i / cb, c = cbase + (i - t * cb);
    const int e = flip ? K * K - 1 - t : t;
    wsm[i] = c < C ? static_cast<float>(widen(w[wv.at(c, 0, 0, e / K, e % K)])) : 0.0f;
  }
  __syncthreads();
}

template <int V>
__device__ __forceinline__ void load_taps(const float* p, float (&wt)[V]) {
#pragma unroll
  for (int v = 0; v < V; v += 4) {
    const float4 q = *reinterpret_cast<const float4*>(p + v);
    wt[v] = q.x, wt[v + 1] = q.y, wt[v + 2] = q.z, wt[v + 3] = q.w;
  }
}

// Writes the strip: alpha * acc + beta * dst (dst not read when beta == 0), or the fused bias + z + activation.
template <class S, int V, int T>
__device__ __forceinline__ void write_strip(S* dst, const FastGeom& g, int row, int w0, int c0,
                                            const float (&acc)[T][V], float alpha, float beta, const FusedDev& f) {
  const int n = row / g.DH, h = row - n * g.DH;
#pragma unroll
  for (int t = 0; t < T; ++t) {
    const int wq = w0 + t;
    if (wq >= g.DW) break;
    const int64_t off = (int64_t{row} * g.DW + wq) * g.C + c0;
    if (!f.on) {
      Vec<S, V> out;
      if (beta != 0.0f) {
        const Vec<S, V> old = *reinterpret_cast<const Vec<S, V>*>(dst + off);
#pragma unroll
        for (int v = 0; v < V; ++v) store(out.v, v, alpha * acc[t][v] + beta * static_cast<float>(widen(old.v[v])));
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v) store(out.v, v, alpha * acc[t][v]);
      }
      *reinterpret_cast<Vec<S, V>*>(dst + off) = out;
    } else {
#pragma unroll
      for (int v = 0; v < V; ++v) write_out<S, float>(dst, off + v, acc[t][v], alpha, beta, f, n, c0 + v, 0, h, wq);
    }
  }
}

// Forward-shaped: dst[row][w] = sum_{r, s} src[row * STR - ph + r][w * STR - pw + s] * wsm[r * K + s].
template <class S, int K, int STR, int T>
__global__ void __launch_bounds__(kThreads, min_blocks(T))
    dw_nhwc_fwd_kernel(FastGeom g, const S* __restrict__ src, View5 wv, const S* __restrict__ w, bool flip, S* dst,
                       float alpha, float beta, FusedDev f) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int V = 16 / sizeof(S);
  constexpr int NC = (T - 1) * STR + K;  // source columns of a strip
  extern __shared__ float4 smem_f4[];
  float* wsm = reinterpret_cast<float*>(smem_f4);
  const int cb = blockDim.x * V, cbase = blockIdx.y * cb;
  stage_filter<S, K>(wsm, w, wv, flip, g.C, cbase, cb);
  const int c0 = cbase + threadIdx.x * V;
  if (c0 >= g.C) return;  // no barrier below
  const float* wme = wsm + threadIdx.x * V;
  const int total = g.N * g.DH * g.strips;
  for (int s = blockIdx.x * blockDim.y + threadIdx.y; s < total; s += gridDim.x * blockDim.y) {
    const int row = s / g.strips, w0 = (s - row * g.strips) * T;  // row = n * DH + h
    const int n = row / g.DH, h = row - n * g.DH;
    const int ih0 = h * STR - g.ph, iw0 = w0 * STR - g.pw;
    const S* sn = src + int64_t{n} * g.SH * g.SW * g.C + c0;
    float acc[T][V];
#pragma unroll
    for (int t = 0; t < T; ++t)
#pragma unroll
      for (int v = 0; v < V; ++v) acc[t][v] = 0.0f;
#pragma unroll(K == 3 ? K : 1)  // 5x5: one row's columns live at a time (else spills at 128 registers)
    for (int r = 0; r < K; ++r) {
      const int ih = ih0 + r;
      if (ih < 0 || ih >= g.SH) continue;
      const S* srow = sn + int64_t{ih} * g.SW * g.C;
      Vec<S, V> xr[NC];
#pragma unroll
      for (int j = 0; j < NC; ++j) {
        const int iw = iw0 + j;
        xr[j] = load_col<S, V>(srow + int64_t{iw} * g.C, iw >= 0 && iw < g.SW);
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
        float wt[V];
        load_taps<V>(wme + (r * K + k) * cb, wt);
#pragma unroll
        for (int t = 0; t < T; ++t)
#pragma unroll
          for (int v = 0; v < V; ++v) acc[t][v] = fmaf(widen(xr[t * STR + k].v[v]), wt[v], acc[t][v]);
      }
    }
    write_strip<S, V, T>(dst, g, row, w0, c0, acc, alpha, beta, f);
  }
  pdl_allow_dependents();
}

// The taps of one filter row for a stride-2 backward data strip whose first dx column i0 (even) has
// i0 + pw - (K - 1) = 2 * base + E: dx column i0 + t takes dy column base + j through tap k where
// t + K - 1 - k + E = 2 * j.
template <int K, int T, int NC, int E, class S, int V>
__device__ __forceinline__ void transposed_row(float (&acc)[T][V], const Vec<S, V> (&xr)[NC], const float* wrow,
                                               int cb) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    float wt[V];
    load_taps<V>(wrow + k * cb, wt);
#pragma unroll
    for (int t = 0; t < T; ++t) {
      const int a = t + K - 1 - k + E;
      if (a % 2 != 0) continue;  // compile-time after unrolling
#pragma unroll
      for (int v = 0; v < V; ++v) acc[t][v] = fmaf(widen(xr[a / 2].v[v]), wt[v], acc[t][v]);
    }
  }
}

// Stride-2 backward data: dx[ih][iw] = sum over taps (r, s) with ih + ph - r and iw + pw - s even of
// dy[(ih + ph - r) / 2][(iw + pw - s) / 2] * w_eff[r][s]. src = dy (SH x SW = OH x OW), dst = dx.
template <class S, int K, int T>
__global__ void __launch_bounds__(kThreads, min_blocks(T))
    dw_nhwc_bwd_s2_kernel(FastGeom g, const S* __restrict__ src, View5 wv, const S* __restrict__ w, bool flip, S* dst,
                          float alpha, float beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int V = 16 / sizeof(S);
  static_assert(T % 2 == 0, "strips start at even dx columns");
  constexpr int NC = (T + K - 1) / 2 + 1;  // dy columns of a strip
  extern __shared__ float4 smem_f4[];
  float* wsm = reinterpret_cast<float*>(smem_f4);
  const int cb = blockDim.x * V, cbase = blockIdx.y * cb;
  stage_filter<S, K>(wsm, w, wv, flip, g.C, cbase, cb);
  const int c0 = cbase + threadIdx.x * V;
  if (c0 >= g.C) return;  // no barrier below
  const float* wme = wsm + threadIdx.x * V;
  const int total = g.N * g.DH * g.strips;
  const int lead = g.pw - (K - 1);  // i0 + lead = 2 * base + e, i0 even: e is the parity of lead
  const int e = lead & 1;
  for (int s = blockIdx.x * blockDim.y + threadIdx.y; s < total; s += gridDim.x * blockDim.y) {
    const int row = s / g.strips, w0 = (s - row * g.strips) * T;
    const int n = row / g.DH, h = row - n * g.DH;
    const int b0 = (w0 + lead - e) / 2;  // exact: w0 + lead - e is even (negative too)
    const S* sn = src + int64_t{n} * g.SH * g.SW * g.C + c0;
    float acc[T][V];
#pragma unroll
    for (int t = 0; t < T; ++t)
#pragma unroll
      for (int v = 0; v < V; ++v) acc[t][v] = 0.0f;
#pragma unroll
    for (int r = 0; r < K; ++r) {
      const int a = h + g.ph - r;
      if (a < 0 || (a & 1) != 0 || a / 2 >= g.SH) continue;
      const S* srow = sn + int64_t{a / 2} * g.SW * g.C;
      Vec<S, V> xr[NC];
#pragma unroll
      for (int j = 0; j < NC; ++j) {
        const int q = b0 + j;
        xr[j] = load_col<S, V>(srow + int64_t{q} * g.C, q >= 0 && q < g.SW);
      }
      if (e == 0) {
        transposed_row<K, T, NC, 0>(acc, xr, wme + r * K * cb, cb);
      } else {
        transposed_row<K, T, NC, 1>(acc, xr, wme + r * K * cb, cb);
      }
    }
    write_strip<S, V, T>(dst, g, row, w0, c0, acc, alpha, beta, FusedDev{});
  }
  pdl_allow_dependents();
}

// --- host side ------------------------------------------------------------------------------------------------

struct Blocking {
  int bx = 1, by = 256, groups = 1;
};

// Channel vectors split into `groups` blocks of bx (<= 32) vectors each; by = pixel lanes.
Blocking blocking(int64_t vecs) {
  Blocking b;
  b.groups = static_cast<int>((vecs + 31) / 32);
  b.bx = static_cast<int>((vecs + b.groups - 1) / b.groups);
  b.by = kThreads / b.bx;
  return b;
}

int vec_of(cudnnDataType_t t) { return static_cast<int>(16 / dtype_size(t)); }

// Strip length: 2 for the stride-2 forward kernel, else 4, unless FREEDNN_DW_STRIP forces 1, 2 or 4 (the stride-2
// backward data kernel needs an even one).
int strip_length(bool transposed, int stride) {
  static const int asked = static_cast<int>(fd::env_int("FREEDNN_DW_STRIP", 0));
  if (asked == 1 || asked == 2 || asked == 4) return transposed && asked == 1 ? 2 : asked;
  return !transposed && stride == 2 ? 2 : 4;
}

template <class S, int K, int T>
cudnnStatus_t launch(const ConvProblem& p, const ConvArgs& a) {
  constexpr int V = 16 / sizeof(S);
  cudnnContext* h = a.handle;
  const bool bwd = p.dir == ConvDir::bwd_data;
  const int stride = p.sh;
  FastGeom g;
  g.N = static_cast<int>(p.mb);
  g.C = static_cast<int>(p.ic);
  g.SH = static_cast<int>(bwd ? p.oh : p.ih), g.SW = static_cast<int>(bwd ? p.ow : p.iw);
  g.DH = static_cast<int>(bwd ? p.ih : p.oh), g.DW = static_cast<int>(bwd ? p.iw : p.ow);
  const bool transposed = bwd && stride == 2;
  g.strips = (g.DW + T - 1) / T;
  bool flip = p.mode == CUDNN_CONVOLUTION;
  if (bwd && stride == 1) {  // dx = forward of dy with the filter flipped and padding K - 1 - p
    flip = !flip;
    g.ph = K - 1 - p.ph;
    g.pw = K - 1 - p.pw;
  } else {
    g.ph = p.ph;
    g.pw = p.pw;
  }
  const Blocking b = blocking(g.C / V);
  const int64_t total = int64_t{g.N} * g.DH * g.strips;
  const DeviceInfo& di = device_info(h->device);
  const int64_t want = std::max<int64_t>(1, int64_t{di.sm_count} * 4 * min_blocks(T) / b.groups);  // 4 waves
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>((total + b.by - 1) / b.by, want)),
                  static_cast<unsigned>(b.groups));
  const dim3 block(static_cast<unsigned>(b.bx), static_cast<unsigned>(b.by));
  const size_t smem = size_t{K} * K * b.bx * V * sizeof(float);
  const auto* src = static_cast<const S*>(a.in);
  const auto* w = static_cast<const S*>(a.in2);
  auto* dst = static_cast<S*>(a.out);
  const View5 wv = view5(p.w->as_tensor);
  const auto alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
  if (transposed) {
    if constexpr (T % 2 == 0)  // strip_length() never gives it an odd T
      (void)launch_pdl(ops_pdl(h->device), dw_nhwc_bwd_s2_kernel<S, K, T>, grid, block, smem, h->stream, g, src, wv, w,
                       flip, dst, alpha, beta);
  } else if (stride == 1) {
    (void)launch_pdl(ops_pdl(h->device), dw_nhwc_fwd_kernel<S, K, 1, T>, grid, block, smem, h->stream, g, src, wv, w,
                     flip, dst, alpha, beta, fused_dev(a.fused));
  } else {
    (void)launch_pdl(ops_pdl(h->device), dw_nhwc_fwd_kernel<S, K, 2, T>, grid, block, smem, h->stream, g, src, wv, w,
                     flip, dst, alpha, beta, fused_dev(a.fused));
  }
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

template <class S, int K>
cudnnStatus_t launch_t(const ConvProblem& p, const ConvArgs& a) {
  switch (strip_length(p.dir == ConvDir::bwd_data && p.sh == 2, p.sh)) {
    case 1: return launch<S, K, 1>(p, a);
    case 4: return launch<S, K, 4>(p, a);
    default: return launch<S, K, 2>(p, a);
  }
}

template <class S>
cudnnStatus_t launch_k(const ConvProblem& p, const ConvArgs& a) {
  return p.kh == 3 ? launch_t<S, 3>(p, a) : launch_t<S, 5>(p, a);
}

}  // namespace

bool dw_nhwc_fast_covers(const ConvProblem& p) {
  if (p.dir == ConvDir::bwd_filter || p.nsp != 2) return false;
  if (p.xdt != CUDNN_DATA_FLOAT && p.xdt != CUDNN_DATA_HALF && p.xdt != CUDNN_DATA_BFLOAT16) return false;
  if (p.g != p.ic || p.oc != p.ic || p.w->as_tensor.vect() != 1) return false;
  if (!packed_nhwc(*p.x) || !packed_nhwc(*p.y)) return false;
  if (p.kh != p.kw || (p.kh != 3 && p.kh != 5)) return false;
  if (p.sh != p.sw || (p.sh != 1 && p.sh != 2) || p.dh != 1 || p.dw != 1) return false;
  if (p.ic % vec_of(p.xdt) != 0) return false;
  // 32-bit pixel indices; channel offsets of one pixel row in int too
  const int64_t lim = int64_t{1} << 30;
  return p.mb * std::max(p.ih * p.iw, p.oh * p.ow) < lim && p.ic * std::max(p.iw, p.ow) < lim && p.ic < lim;
}

bool dw_nhwc_fast_aligned(const ConvArgs& a) {
  return ((reinterpret_cast<uintptr_t>(a.in) | reinterpret_cast<uintptr_t>(a.out)) & 15) == 0;
}

cudnnStatus_t dw_nhwc_fast_run(const ConvProblem& p, const ConvArgs& a) {
  switch (p.xdt) {
    case CUDNN_DATA_FLOAT: return launch_k<float>(p, a);
    case CUDNN_DATA_HALF: return launch_k<__half>(p, a);
    case CUDNN_DATA_BFLOAT16: return launch_k<__nv_bfloat16>(p, a);
    default: break;
  }
  FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "cuda:depthwise NHWC fast path has no kernels for %s", dtype_short_name(p.xdt));
}

}  // namespace fd::cuda::conv
