// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise backward filter: dw[c][tap] = alpha * sum over n, oh, ow of dy[n][c][oh][ow] *
// x[n][c][oh * sh - ph + r * dh][ow * sw - pw + s * dw] + beta * dw, every float type (float sums, double for
// DOUBLE), any strides. Two levels, no atomics (deterministic):
//  1. The N x OH x OW output pixels are cut into `slices` contiguous ranges; one CTA per (channel group, slice, tap
//     group of up to 9 taps) sums its range in registers and writes its partial sums, partial[slice][tap][c], to
//     the workspace.
//       - packed NHWC 3x3 / 5x5, stride 1, no dilation, f32 / f16 / bf16: the strip kernel
//         (depthwise_wgrad_strip.cu: a thread walks a strip of output pixels down a run of rows, x rows streamed once,
//         dy rows held in registers), unless FREEDNN_DW_WGRAD_STRIP=0; instead for 3x3 the shared-memory tile kernel
//         at stride 1 (depthwise_wgrad_tile.cu) and the row walk at stride 2 with outputs 14 or more wide
//         (depthwise_wgrad_rows.cu); FREEDNN_DW_WGRAD=tile|rows|strip forces one.
//       - other packed NHWC (the per-pixel kernel): a thread owns V = 16 bytes of accumulators' worth of channels
//         (4 for float sums; loads of V elements: 8 bytes of f16, 16 of f32) and one of `by` pixel lanes; per pixel
//         it loads the dy vector once
//         and the x vector of each tap (9 for 3x3; the overlapping taps of neighbouring pixels hit L1), 9 x V FMAs.
//         The lanes walk their pixels with incremental (n, oh, ow) counters (no division per pixel); the lanes are
//         then summed through shared memory in lane order.
//       - other strides (NCHW): a CTA owns one channel and a range of (n, oh) rows; 256 threads walk the range
//         along ow (a warp reads 32 consecutive dy and x elements of a row: coalesced), then a fixed-order
//         warp-shuffle tree and an ordered sum of the 8 warps.
//  2. A small kernel sums the slices of each (tap, c) in a fixed order (8 lanes of interleaved slices, then the
//     8 lane sums in order) and writes dw with alpha / beta and the flip of CUDNN_CONVOLUTION.
// The slice count depends on the problem only (about kTargetCtas CTAs, at least 8 pixels per thread, and
// partial sums of at most max(1 MB, (|x| + |dy|) / 16)), so workspace_size() knows it and the result is the same
// run after run.
//
// Traffic: x and dy once from DRAM (the tap overlap is cache hits), partials written and read once (<= 1/16 of the
// data), dw once: ~(|x| + |dy|) * 1.06. For MobileNet-v2's 112x112x32 N=64 f16 layer that is ~110 MB, ~35 us at
// 3.2 TB/s (was 3.0 ms, from 32 MB of partials summed by 288 threads); the small 7x7 / 14x14 layers are a few MB
// and take ~10 us, bounded by the launch pair and the per-CTA reduction, not by bandwidth. Measured (H200, run 8):
// 155 us on the 112x112x32 layer (NVIDIA 56 us), 21-176 us over MobileNet-v2; ncu: latency-bound at 25 %
// occupancy (90-128 registers, 36 KB of lane sums per CTA), 9 % of DRAM bandwidth; hence the strip kernel, now the
// default for those shapes (its slices and workspace come from its own plan).
#include <algorithm>
#include <cstdint>
#include <string>

#include "core/dtype.h"
#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/depthwise_fast.h"
#include "cuda/conv/depthwise_wgrad_rows.h"
#include "cuda/conv/depthwise_wgrad_tile.h"
#include "cuda/conv/depthwise_wgrad_strip.h"

namespace fd::cuda::conv {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr int kTaps = 9;              // taps per tap group (per CTA)
constexpr int kThreads = 256;         // threads per CTA of the first kernel
constexpr int64_t kTargetCtas = 2048;  // CTAs of the first kernel to aim for (~5 waves on an H200 at 3 per SM)
constexpr int64_t kMinPerLane = 8;    // pixels per thread at least (slices no shorter than that)
constexpr size_t kMinBudget = size_t{1} << 20;  // bytes of partial sums always allowed
constexpr size_t kAlign = 256;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
size_t compute_size(const ConvProblem& p) { return p.xdt == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float); }

struct Plan {
  bool nhwc = false;
  int v = 1;                   // NHWC: channels per thread when the pointers are aligned (else 1)
  int ntg = 1;                 // tap groups
  int64_t slices = 1, len = 1;  // slices, and pixels (NHWC) or (n, oh) rows (planes) per slice
  size_t partial_bytes = 0, total = 0;
};

struct Blocking {
  int bx = 1, by = kThreads, groups = 1;
};

Blocking blocking(int64_t vecs) {
  Blocking b;
  b.groups = static_cast<int>(ceil_div(vecs, 32));
  b.bx = static_cast<int>(ceil_div(vecs, b.groups));
  b.by = kThreads / b.bx;
  return b;
}

Plan plan(const ConvProblem& p) {
  Plan b;
  const int64_t ks = p.ksp(), C = p.ic;
  b.nhwc = packed_nhwc(*p.x) && packed_nhwc(*p.y);
  b.ntg = static_cast<int>(ceil_div(ks, kTaps));
  const size_t per_slice = static_cast<size_t>(ks * C) * compute_size(p);
  const size_t data = static_cast<size_t>(p.mb * C * (p.ih * p.iw + p.oh * p.ow)) * dtype_size(p.xdt);
  const auto cap = std::max<int64_t>(1, static_cast<int64_t>(std::max(kMinBudget, data / 16) / per_slice));
  int64_t units, want;
  if (b.nhwc) {
    const int vm = static_cast<int>(16 / compute_size(p));
    b.v = C % vm == 0 ? vm : 1;
    units = p.mb * p.oh * p.ow;
    const Blocking k = blocking(ceil_div(C, b.v));
    want = std::min(ceil_div(kTargetCtas, int64_t{k.groups} * b.ntg), ceil_div(units, int64_t{k.by} * kMinPerLane));
  } else {
    units = p.mb * p.oh;
    want = std::min(ceil_div(kTargetCtas, C * b.ntg), ceil_div(units * p.ow, int64_t{kThreads} * kMinPerLane));
  }
  want = std::max<int64_t>(1, std::min(want, cap));
  b.len = ceil_div(units, want);
  b.slices = ceil_div(units, b.len);
  b.partial_bytes = static_cast<size_t>(b.slices) * per_slice;
  b.total = b.partial_bytes + kAlign;
  return b;
}

// Forward-shaped sizes: S = the input plane (x), D = the output plane (dy).
struct WGeom {
  int64_t N = 1, C = 1;
  int SH = 1, SW = 1, DH = 1, DW = 1;
  int kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

template <class S, int V>
struct alignas(sizeof(S) * V) Pack {
  S v[V];
};

// The taps of tap group `tg` as offsets from (oh * sh, ow * sw); unused slots repeat the group's first tap.
__device__ __forceinline__ int group_taps(const WGeom& g, int tg, int (&ro)[kTaps], int (&so)[kTaps]) {
  const int ks = g.kh * g.kw, t0 = tg * kTaps, nt = min(kTaps, ks - t0);
#pragma unroll
  for (int j = 0; j < kTaps; ++j) {
    const int t = t0 + (j < nt ? j : 0);
    ro[j] = t / g.kw * g.dh - g.ph;
    so[j] = t % g.kw * g.dw - g.pw;
  }
  return nt;
}

// Packed NHWC. grid (channel groups, slices, tap groups), block (bx channel vectors, by pixel lanes). A lane takes
// U of its pixels per step, all their loads before the first FMA. U = 2 measured slower than U = 1 on the H200
// (MobileNet-v2 f16 backward filter geomean 0.60 vs 1.00 of NVIDIA, 2026-11-29): U = 1 is the default.
template <class S, class E, int V, int U>
__global__ void __launch_bounds__(kThreads) dw_wgrad_nhwc_kernel(WGeom g, const S* __restrict__ x,
                                                                 const S* __restrict__ dy, E* __restrict__ partial,
                                                                 int64_t len) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  __shared__ E red[kThreads * kTaps * V];  // [lane][tap][channel of the block]
  const int tx = threadIdx.x, ty = threadIdx.y, cb = blockDim.x * V;
  const int64_t cbase = int64_t{blockIdx.x} * cb, c0 = cbase + tx * V;
  const int ks = g.kh * g.kw, t0 = blockIdx.z * kTaps;
  int ro[kTaps], so[kTaps];
  const int nt = group_taps(g, blockIdx.z, ro, so);
  E acc[kTaps][V];
#pragma unroll
  for (int j = 0; j < kTaps; ++j)
#pragma unroll
    for (int v = 0; v < V; ++v) acc[j][v] = E(0);
  const int64_t dsp = int64_t{g.DH} * g.DW, P = g.N * dsp;
  const int64_t p0 = int64_t{blockIdx.y} * len, p1 = min(P, p0 + len);
  int64_t pix = p0 + ty;
  if (c0 < g.C && pix < p1) {
    int64_t n = pix / dsp;
    const int64_t rem = pix - n * dsp;
    int oh = static_cast<int>(rem / g.DW), ow = static_cast<int>(rem - int64_t{oh} * g.DW);
    const int step = blockDim.y;
    Pack<S, V> zero;
#pragma unroll
    for (int v = 0; v < V; ++v) zero.v[v] = S(0.0f);
    for (; pix < p1; pix += int64_t{U} * step) {
      Pack<S, V> d[U], xv[U][kTaps];
#pragma unroll
      for (int u = 0; u < U; ++u) {  // loads of U pixels; a pixel past the range reads zeros
        const bool in = pix + int64_t{u} * step < p1;
        d[u] = in ? *reinterpret_cast<const Pack<S, V>*>(dy + (pix + int64_t{u} * step) * g.C + c0) : zero;
        const S* xn = x + n * g.SH * g.SW * g.C + c0;
        const int ihb = oh * g.sh, iwb = ow * g.sw;
#pragma unroll
        for (int j = 0; j < kTaps; ++j) {
          const int ih = ihb + ro[j], iw = iwb + so[j];
          const bool ok = in && j < nt && ih >= 0 && ih < g.SH && iw >= 0 && iw < g.SW;
          xv[u][j] = ok ? *reinterpret_cast<const Pack<S, V>*>(xn + (int64_t{ih} * g.SW + iw) * g.C) : zero;
        }
        ow += step;  // next pixel of this lane: (n, oh, ow) advanced by `step` without a division
        while (ow >= g.DW) {
          ow -= g.DW;
          if (++oh == g.DH) {
            oh = 0;
            ++n;
          }
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u)  // in pixel order, as U = 1 would sum
#pragma unroll
        for (int j = 0; j < kTaps; ++j)
#pragma unroll
          for (int v = 0; v < V; ++v)
            acc[j][v] += static_cast<E>(widen(d[u].v[v])) * static_cast<E>(widen(xv[u][j].v[v]));
    }
  }
#pragma unroll
  for (int j = 0; j < kTaps; ++j) {
    if (j >= nt) break;
#pragma unroll
    for (int v = 0; v < V; ++v) red[(ty * kTaps + j) * cb + tx * V + v] = acc[j][v];
  }
  __syncthreads();
  const int tid = ty * blockDim.x + tx, nthr = blockDim.x * blockDim.y;
  for (int i = tid; i < nt * cb; i += nthr) {
    const int j = i / cb, cc = i - j * cb;
    if (cbase + cc >= g.C) continue;
    E s = E(0);
    for (int y = 0; y < static_cast<int>(blockDim.y); ++y) s += red[(y * kTaps + j) * cb + cc];
    partial[(int64_t{blockIdx.y} * ks + t0 + j) * g.C + cbase + cc] = s;
  }
  pdl_allow_dependents();
}

template <class E>
__device__ __forceinline__ E warp_sum(E v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Any strides. grid (C x slices, tap groups), 256 threads; slice = `len` (n, oh) rows.
template <class S, class E>
__global__ void __launch_bounds__(kThreads) dw_wgrad_plane_kernel(WGeom g, View5 xv, const S* __restrict__ x,
                                                                  View5 yv, const S* __restrict__ dy,
                                                                  E* __restrict__ partial, int64_t slices,
                                                                  int64_t len) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  __shared__ E red[kTaps][kThreads / 32];
  const int64_t b = blockIdx.x, c = b / slices, q = b - c * slices;
  const int ks = g.kh * g.kw, t0 = blockIdx.y * kTaps;
  int ro[kTaps], so[kTaps];
  const int nt = group_taps(g, blockIdx.y, ro, so);
  E acc[kTaps];
#pragma unroll
  for (int j = 0; j < kTaps; ++j) acc[j] = E(0);
  const int64_t r0 = q * len, r1 = min(g.N * g.DH, r0 + len);
  // this thread's first item of the range: row r0 + threadIdx.x / DW, column threadIdx.x % DW
  int64_t row = r0 + threadIdx.x / g.DW;
  int ow = static_cast<int>(threadIdx.x % g.DW);
  int64_t n = row / g.DH;
  int oh = static_cast<int>(row - n * g.DH);
  for (; row < r1;) {
    const E d = load_as<E>(dy, n * yv.st[0] + c * yv.st[1] + oh * yv.st[3] + ow * yv.st[4]);
    const int64_t xb = n * xv.st[0] + c * xv.st[1];
    const int ihb = oh * g.sh, iwb = ow * g.sw;
#pragma unroll
    for (int j = 0; j < kTaps; ++j) {
      if (j >= nt) break;
      const int ih = ihb + ro[j], iw = iwb + so[j];
      if (ih < 0 || ih >= g.SH || iw < 0 || iw >= g.SW) continue;
      acc[j] += d * load_as<E>(x, xb + ih * xv.st[3] + iw * xv.st[4]);
    }
    ow += kThreads;
    while (ow >= g.DW) {
      ow -= g.DW;
      ++row;
      if (++oh == g.DH) {
        oh = 0;
        ++n;
      }
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
    for (int k = 0; k < kThreads / 32; ++k) s += red[j][k];
    partial[(q * ks + t0 + j) * g.C + c] = s;
  }
  pdl_allow_dependents();
}

// dw[c][tap] = alpha * (sum over slices of partial[slice][effective tap][c]) + beta * dw. Block (32, kRedLanes):
// 32 consecutive (tap, c) entries x kRedLanes lanes; lane l sums slices l, l + kRedLanes, ... in order (4 loads
// in flight), then lane 0 sums the lanes in order. The grid has only (taps x C) / 32 blocks: a few for small C,
// so the lanes are what keeps the loads in flight.
constexpr int kRedLanes = 32;
template <class S, class E>
__global__ void __launch_bounds__(32 * kRedLanes) dw_wgrad_reduce_kernel(const E* __restrict__ partial,
                                                                         int64_t slices, int64_t C, int kh, int kw,
                                                                         bool flip, View5 wv, S* dw, E alpha, E beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  __shared__ E red[kRedLanes][33];
  const int64_t ks = int64_t{kh} * kw, total = ks * C, i = int64_t{blockIdx.x} * 32 + threadIdx.x;
  E s = E(0);
  if (i < total) {
    int64_t q = threadIdx.y;
    for (; q + 3 * kRedLanes < slices; q += 4 * kRedLanes) {
      const E a0 = partial[q * total + i], a1 = partial[(q + kRedLanes) * total + i];
      const E a2 = partial[(q + 2 * kRedLanes) * total + i], a3 = partial[(q + 3 * kRedLanes) * total + i];
      s += a0;
      s += a1;
      s += a2;
      s += a3;
    }
    for (; q < slices; q += kRedLanes) s += partial[q * total + i];
  }
  red[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y != 0 || i >= total) return;
  E acc = E(0);
#pragma unroll
  for (int y = 0; y < kRedLanes; ++y) acc += red[y][threadIdx.x];
  const int64_t t = i / C, c = i - t * C;
  const int64_t e = flip ? ks - 1 - t : t, r = e / kw, sc = e % kw;
  write_out<S, E>(dw, wv.at(c, 0, 0, r, sc), acc, alpha, beta, FusedDev{}, c, 0, 0, r, sc);
  pdl_allow_dependents();
}

// Pixels a lane loads per step in the NHWC kernel: 1, or 2 with FREEDNN_DW_WGRAD_UNROLL=2 (A/B runs).
int pixels_per_step() {
  static const int u = fd::env_int("FREEDNN_DW_WGRAD_UNROLL", 1) == 2 ? 2 : 1;
  return u;
}

// The per-pixel NHWC kernel or the plane kernel (any strides): partial sums of plan(p)'s slices.
template <class S, class E>
void launch_first_level(const ConvProblem& p, const ConvArgs& a, const Plan& b, E* partial) {
  cudaStream_t stream = a.handle->stream;
  const bool pdl = ops_pdl(a.handle->device);
  WGeom g;
  g.N = p.mb, g.C = p.ic;
  g.SH = static_cast<int>(p.ih), g.SW = static_cast<int>(p.iw), g.DH = static_cast<int>(p.oh);
  g.DW = static_cast<int>(p.ow);
  g.kh = static_cast<int>(p.kh), g.kw = static_cast<int>(p.kw), g.sh = p.sh, g.sw = p.sw;
  g.ph = p.ph, g.pw = p.pw, g.dh = p.dh, g.dw = p.dw;
  const auto* x = static_cast<const S*>(a.in);
  const auto* dy = static_cast<const S*>(a.in2);
  if (b.nhwc) {
    auto launch = [&](auto vtag) {
      constexpr int V = decltype(vtag)::value;
      const Blocking k = blocking(ceil_div(g.C, V));
      const dim3 grid(static_cast<unsigned>(k.groups), static_cast<unsigned>(b.slices), static_cast<unsigned>(b.ntg));
      const dim3 block(static_cast<unsigned>(k.bx), static_cast<unsigned>(k.by));
      if (pixels_per_step() == 1) {
        (void)launch_pdl(pdl, dw_wgrad_nhwc_kernel<S, E, V, 1>, grid, block, 0, stream, g, x, dy, partial, b.len);
      } else {
        (void)launch_pdl(pdl, dw_wgrad_nhwc_kernel<S, E, V, 2>, grid, block, 0, stream, g, x, dy, partial, b.len);
      }
    };
    constexpr int VM = static_cast<int>(16 / sizeof(E));
    if (b.v == VM && aligned_to(x, VM * sizeof(S)) && aligned_to(dy, VM * sizeof(S))) {
      launch(std::integral_constant<int, VM>{});
    } else {
      launch(std::integral_constant<int, 1>{});
    }
  } else {
    const dim3 grid(static_cast<unsigned>(g.C * b.slices), static_cast<unsigned>(b.ntg));
    (void)launch_pdl(pdl, dw_wgrad_plane_kernel<S, E>, grid, dim3(kThreads), 0, stream, g, view5(*p.x), x,
                     view5(*p.y), dy, partial, b.slices, b.len);
  }
}

// The first level that serves p besides the strip / per-pixel / plane kernels: the tile kernel
// (depthwise_wgrad_tile.h) at stride 1, the row walk (depthwise_wgrad_rows.h) where it is wanted, else none.
// FREEDNN_DW_WGRAD=tile|rows|strip picks one where it covers (read at every call).
enum class FirstLevel { tile, rows, other };
FirstLevel first_level(const ConvProblem& p) {
  const std::string forced = fd::env_string("FREEDNN_DW_WGRAD");
  if (forced == "tile" && dw_wgrad_tile_covers(p)) return FirstLevel::tile;
  if (forced == "rows" && dw_wgrad_rows_covers(p)) return FirstLevel::rows;
  if (forced == "strip") return FirstLevel::other;
  if (dw_wgrad_tile_covers(p)) return FirstLevel::tile;
  if (dw_wgrad_rows_wanted(p) && dw_wgrad_rows_covers(p)) return FirstLevel::rows;
  return FirstLevel::other;
}

// Partial-sum bytes of the tile / row-walk first level serving p (0 for the others).
size_t walk_partial_bytes(const ConvProblem& p) {
  switch (first_level(p)) {
    case FirstLevel::tile: return dw_wgrad_tile_partial_bytes(p);
    case FirstLevel::rows: return dw_wgrad_rows_partial_bytes(p);
    case FirstLevel::other: break;
  }
  return 0;
}

template <class S>
cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) {
  using E = ComputeOf<S>;
  cudnnContext* h = a.handle;
  const bool strip = dw_wgrad_strip_covers(p);  // f32 / f16 / bf16 only, so E is float there
  const Plan b = strip ? Plan{} : plan(p);
  const size_t need = dw_wgrad_workspace(p);
  FD_CHECK_PARAM(a.workspace != nullptr && a.workspace_size >= need, "cuda:depthwise needs %zu bytes of workspace",
                 need);
  E* partial = reinterpret_cast<E*>((reinterpret_cast<uintptr_t>(a.workspace) + kAlign - 1) / kAlign * kAlign);
  int64_t slices = b.slices;
  bool done = false;
  if constexpr (std::is_same_v<E, float>) {
    const FirstLevel first = first_level(p);
    if (first != FirstLevel::other) {  // NOT_SUPPORTED (unaligned pointers): the kernels below serve the call
      const cudnnStatus_t st = first == FirstLevel::tile ? dw_wgrad_tile_launch(p, a, partial, slices)
                                                         : dw_wgrad_rows_launch(p, a, partial, slices);
      if (st != CUDNN_STATUS_SUCCESS && st != CUDNN_STATUS_NOT_SUPPORTED) return st;
      done = st == CUDNN_STATUS_SUCCESS;
    }
    if (!done && strip) {
      FD_TRY(dw_wgrad_strip_launch(p, a, partial, slices));
      done = true;
    }
  }
  if (!done && !strip) {
    launch_first_level<S, E>(p, a, b, partial);
    FD_CUDA_LAUNCHED();
  }
  const int64_t total = p.ksp() * p.ic;
  // a dependent of the first level's kernel: its launch overlaps that kernel's tail, and it waits for its partials
  (void)launch_pdl(ops_pdl(h->device), dw_wgrad_reduce_kernel<S, E>, dim3(static_cast<unsigned>(ceil_div(total, 32))),
                   dim3(32, kRedLanes), 0, h->stream, static_cast<const E*>(partial), slices, p.ic,
                   static_cast<int>(p.kh), static_cast<int>(p.kw), p.mode == CUDNN_CONVOLUTION,
                   view5(p.w->as_tensor), static_cast<S*>(a.out), static_cast<E>(a.alpha), static_cast<E>(a.beta));
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

size_t dw_wgrad_workspace(const ConvProblem& p) {
  const size_t base = dw_wgrad_strip_covers(p) ? dw_wgrad_strip_partial_bytes(p) + kAlign : plan(p).total;
  const size_t walk = walk_partial_bytes(p);
  return walk > 0 ? std::max(base, walk + kAlign) : base;
}
size_t dw_wgrad_partial_bytes(const ConvProblem& p) {
  const size_t base = dw_wgrad_strip_covers(p) ? dw_wgrad_strip_partial_bytes(p) : plan(p).partial_bytes;
  return std::max(base, walk_partial_bytes(p));
}

cudnnStatus_t dw_wgrad_run(const ConvProblem& p, const ConvArgs& a) {
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  const bool known = with_float_storage(p.xdt, [&](auto tag) { st = run<decltype(tag)>(p, a); });
  FD_CHECK_SUPPORTED(known, "cuda:depthwise has no kernels for %s", dtype_short_name(p.xdt));
  return st;
}

}  // namespace fd::cuda::conv
