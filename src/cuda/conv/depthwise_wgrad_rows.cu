// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise backward filter, first level, on row walks (by default for output widths of 14 and more,
// dw_wgrad_rows_wanted): packed NHWC x and dy, f32 / f16 / bf16 with float sums, C a multiple of V = 16 bytes of
// elements, 3x3 filter, stride 1 or 2 (the same in H and W), padding 0..2, no dilation.
//
// dw[c][r][s] = sum over (n, p, q) of dy[n][p][q][c] * x[n][p * st - ph + r][q * st - pw + s][c].
// Why: ncu on the H200 (run 15) found the strip kernel (depthwise_wgrad_strip.cu: 2 channels per thread, 4-byte
// loads) latency-bound at 0.74 TB/s on MobileNet-v2's 56x56x144 layer (163 us; PyTorch's path 51 us), issuing once
// every 25 cycles per warp at 50 % occupancy and ~60 instructions per pixel and channel. Here a thread owns one
// 16-byte channel vector (8 halves or 4 floats) and ONE filter row r, and walks along an output row p: the x row it
// reads, i = p * st - ph + r, is fixed for the walk, so each step is one dy vector and st new x vectors (a window
// of 3 x columns slides along), 3 x V FMAs into 3 x V sums, and no per-step bounds work but the new column's range
// check. The three threads of a (channel vector, row) pair share the dy loads (same warp or L1) and neighbouring
// rows share x rows through L1 / L2. Per pixel and channel: 3 threads x (2 loads + 2 conversions + 3 FMAs) / V ...
// about 17 instructions at V = 8, a third of the strip kernel's, and 16-byte loads in flight instead of 4-byte ones.
//
// Work split (problem-only, so the workspace query knows it): CTAs of bx channel vectors (bx: the largest divisor of
// C / V up to 32, so channel groups divide C exactly) x 3 filter rows x bz lanes (<= 256 threads). A lane takes
// `per_lane` consecutive items, an item being (image, output row, column segment); the segments split rows when
// rows alone give fewer than ~2 waves of threads, `per_lane` gives each lane at least ~32 steps. Each CTA sums its
// lanes in lane order through shared memory and writes partial[slice][tap][c] for its channels: the finish kernel
// of depthwise_wgrad.cu adds the slices in order. Deterministic.
//
// Bytes: x and dy once from DRAM (st - 1 of every 3 window columns and the 3 - st shared rows are cache hits), the
// partials (<= ~5 MB on MobileNet-v2) written and read once. 56x56x144 N=64 f16: 57.8 + 57.8 MB -> 27 us at 4.2 TB/s.
// Registers (ptxas, sm_90a): loads one step ahead (default) at 256 x 3 CTAs per SM: 79-80 for 16-bit (bf16 stride 1:
// 50 bytes of spill stores, outside the step as far as the counts tell), 62-67 for f32; two steps ahead
// (FREEDNN_DW_WGRAD_PREFETCH=2) at 192 x 3: 86-96 and 64-72, no spills.
#include "cuda/conv/depthwise_wgrad_rows.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/conv/depthwise_fast.h"
#include "cuda/conv/raw_words.cuh"

namespace fd::cuda::conv {
namespace {

using fd::ConvProblem;
using fd::conv::ConvArgs;

// CTA size per prefetch depth D (FREEDNN_DW_WGRAD_PREFETCH), 3 CTAs per SM: D = 1, 256 threads (85 registers);
// D = 2, 192 (113).
constexpr int kThreads = 256;
constexpr int threads_for(int d) { return d == 1 ? kThreads : 192; }
constexpr int kMinBlocks = 3;
constexpr int kMaxBlockZ = 64;
constexpr int kK = 3, kTaps = kK * kK;
constexpr int kMaxLanes = kThreads / kK;        // bx * bz
constexpr int kMaxRed = kMaxLanes * kTaps * 8;  // lane sums: bz x 9 taps x bx * V floats, V <= 8
constexpr int64_t kTargetThreads = 132 * 768 * 2;  // two waves of 3 CTAs of 256 per SM (an H200: the plan is problem-only)
constexpr int kMinSteps = 32;                      // steps per lane at least (partial sums stay small)
constexpr int kMinSegment = 8;                     // columns per row segment at least
constexpr int64_t kLimit = int64_t{1} << 31;      // element offsets in int

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct RowsGeom {
  int C = 1, H = 1, W = 1, P = 1, Q = 1, ph = 0, pw = 0;
  int segs = 1, seg_len = 1;  // column segments per output row, columns per segment
  int items = 1;              // N * P * segs
  int per_lane = 1;           // consecutive items per lane
};

struct RowsPlan {
  int depth = 1;  // prefetch depth D
  int v = 1, bx = 1, bz = 1, groups = 1;
  RowsGeom g;
  int64_t slices = 1;
  size_t partial_bytes = 0;
};

// x column j of the row at xr (zeros outside 0..W-1): its 16 bytes at the thread's channels.
__device__ __forceinline__ uint4 column(const uint4* xr, int j, int W, int cstride) {
  return j >= 0 && j < W ? __ldg(xr + j * cstride) : make_uint4(0u, 0u, 0u, 0u);
}

// One walk along output row p's columns q0 .. q1-1 against x row xr (filter row r of this thread): window columns
// j = q * STR - pw + s, s = 0..2; STR new columns per step, 3 - STR carried. The loads run D steps ahead: buffer
// b holds the dy and new x vectors of the steps q with (q - q0) % D == b (compile-time indices).
template <class S, int STR, int D>
__device__ __forceinline__ void walk(const uint4* xr, const uint4* dr, int q0, int q1, int W, int pw, int cstride,
                                     float (&acc)[kK][16 / sizeof(S)]) {
  constexpr int V = 16 / sizeof(S), kCarry = kK - STR;
  float win[kK][V];
  const int j0 = q0 * STR - pw;
#pragma unroll
  for (int s = 0; s < kCarry; ++s) widen16<S>(column(xr, j0 + s, W, cstride), win[s]);
  uint4 px[D][STR], pd[D];
  auto fetch = [&](uint4 (&bx)[STR], uint4& bd, int q) {
    const int j = q * STR - pw + kCarry;
#pragma unroll
    for (int u = 0; u < STR; ++u) bx[u] = column(xr, j + u, W, cstride);
    bd = __ldg(dr + q * cstride);
  };
#pragma unroll
  for (int b = 0; b < D; ++b)
    if (q0 + b < q1) fetch(px[b], pd[b], q0 + b);
  auto step = [&](auto bi, int q) {
    constexpr int B = decltype(bi)::value;
#pragma unroll
    for (int u = 0; u < STR; ++u) widen16<S>(px[B][u], win[kCarry + u]);
    float d[V];
    widen16<S>(pd[B], d);
    if (q + D < q1) fetch(px[B], pd[B], q + D);  // in flight during the next D steps' FMAs
#pragma unroll
    for (int s = 0; s < kK; ++s)
#pragma unroll
      for (int v = 0; v < V; ++v) acc[s][v] = fmaf(d[v], win[s][v], acc[s][v]);
#pragma unroll
    for (int s = 0; s < kCarry; ++s)
#pragma unroll
      for (int v = 0; v < V; ++v) win[s][v] = win[s + STR][v];
  };
  int q = q0;
  for (; q + D <= q1; q += D) {
    step(std::integral_constant<int, 0>{}, q);
    if constexpr (D == 2) step(std::integral_constant<int, 1>{}, q + 1);
  }
  if (q < q1) step(std::integral_constant<int, 0>{}, q);  // D == 2: an odd step left
}

// grid (channel groups, slices), block (bx channel vectors, 3 filter rows, bz lanes); D: steps the loads run ahead.
template <class S, int STR, int D>
__global__ void __launch_bounds__(threads_for(D), kMinBlocks)
    dw_wgrad_rows_kernel(RowsGeom g, const S* __restrict__ x, const S* __restrict__ dy, float* __restrict__ partial) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int V = 16 / sizeof(S);
  __shared__ float red[kMaxRed];  // [lane][tap][channel of the CTA]
  const int tx = threadIdx.x, r = threadIdx.y, tz = threadIdx.z, bx = blockDim.x, bz = blockDim.z;
  const int cb = bx * V, cbase = blockIdx.x * cb, c0 = cbase + tx * V;  // the groups divide C exactly
  const int cstride = g.C / V;  // 16-byte vectors per pixel
  float acc[kK][V];
#pragma unroll
  for (int s = 0; s < kK; ++s)
#pragma unroll
    for (int v = 0; v < V; ++v) acc[s][v] = 0.0f;
  const int lane = blockIdx.y * bz + tz;
  for (int k = 0; k < g.per_lane; ++k) {
    const int item = lane * g.per_lane + k;
    if (item >= g.items) break;
    const int np = item / g.segs, seg = item - np * g.segs;
    const int n = np / g.P, p = np - n * g.P;
    const int i = p * STR - g.ph + r;
    if (i < 0 || i >= g.H) continue;  // a padding row: no contribution
    const int q0 = seg * g.seg_len, q1 = min(g.Q, q0 + g.seg_len);
    const auto* xr = reinterpret_cast<const uint4*>(x + (n * g.H + i) * g.W * g.C + c0);
    const auto* dr = reinterpret_cast<const uint4*>(dy + (n * g.P + p) * g.Q * g.C + c0);
    walk<S, STR, D>(xr, dr, q0, q1, g.W, g.pw, cstride, acc);
  }
#pragma unroll
  for (int s = 0; s < kK; ++s)
#pragma unroll
    for (int v = 0; v < V; ++v) red[(tz * kTaps + r * kK + s) * cb + tx * V + v] = acc[s][v];
  __syncthreads();
  const int tid = (tz * kK + r) * bx + tx, nthreads = bx * kK * bz;
  for (int o = tid; o < kTaps * cb; o += nthreads) {
    const int tap = o / cb, cc = o - tap * cb;
    float sum = 0.0f;
    for (int l = 0; l < bz; ++l) sum += red[(l * kTaps + tap) * cb + cc];  // lane order: deterministic
    partial[(int64_t{blockIdx.y} * kTaps + tap) * g.C + cbase + cc] = sum;
  }
  pdl_allow_dependents();
}

// Steps the loads run ahead: FREEDNN_DW_WGRAD_PREFETCH=1|2 (read at every call), else 1 for the wide stride-2
// layers and 2 elsewhere (run 16, MobileNet-v2: one step ahead 0.39 / 0.62x the strip kernel's time on the 112-
// and 56-wide stride-2 layers against 0.44 / 0.75x at two; two steps 0.55-0.78x against 0.62-0.99x elsewhere).
int prefetch_depth(const ConvProblem& p) {
  const long long forced = fd::env_int("FREEDNN_DW_WGRAD_PREFETCH", 0);
  if (forced == 1 || forced == 2) return static_cast<int>(forced);
  return p.sh == 2 && p.iw >= 56 ? 1 : 2;
}

RowsPlan rows_plan(const ConvProblem& p) {
  RowsPlan b;
  b.depth = prefetch_depth(p);
  b.v = static_cast<int>(16 / dtype_size(p.xdt));
  const DwRowSplit d = dw_row_split(p, b.v, kK, kTargetThreads, kMinSegment);  // 3 threads (filter rows) per vector
  b.bx = d.bx, b.groups = d.groups;
  // blockDim.z is at most 64 on every CUDA device (one channel vector, bx = 1, would ask for 85 at D = 1).
  b.bz = std::clamp((b.depth == 1 ? threads_for(1) : threads_for(2)) / (kK * b.bx), 1, kMaxBlockZ);
  RowsGeom& g = b.g;
  g.C = static_cast<int>(p.ic), g.H = static_cast<int>(p.ih), g.W = static_cast<int>(p.iw);
  g.P = static_cast<int>(p.oh), g.Q = static_cast<int>(p.ow), g.ph = static_cast<int>(p.ph),
  g.pw = static_cast<int>(p.pw);
  g.segs = d.segs, g.seg_len = d.seg_len;
  const int64_t items = d.items;
  g.items = static_cast<int>(std::min<int64_t>(items, INT32_MAX));
  g.per_lane = static_cast<int>(std::max<int64_t>(1, ceil_div(kMinSteps, g.seg_len)));
  const int64_t lanes = ceil_div(items, g.per_lane);
  b.slices = ceil_div(lanes, b.bz);
  b.partial_bytes = static_cast<size_t>(b.slices) * kTaps * static_cast<size_t>(p.ic) * sizeof(float);
  return b;
}

template <class S>
void launch(const ConvProblem& p, const RowsPlan& b, const ConvArgs& a, float* partial) {
  const dim3 grid(static_cast<unsigned>(b.groups), static_cast<unsigned>(b.slices));
  const dim3 block(static_cast<unsigned>(b.bx), kK, static_cast<unsigned>(b.bz));
  const auto* x = static_cast<const S*>(a.in);
  const auto* dy = static_cast<const S*>(a.in2);
  cudaStream_t st = a.handle->stream;
  const bool pdl = ops_pdl(a.handle->device);
  if (p.sh == 1 && b.depth == 2)
    (void)launch_pdl(pdl, dw_wgrad_rows_kernel<S, 1, 2>, grid, block, 0, st, b.g, x, dy, partial);
  else if (p.sh == 1)
    (void)launch_pdl(pdl, dw_wgrad_rows_kernel<S, 1, 1>, grid, block, 0, st, b.g, x, dy, partial);
  else if (b.depth == 2)
    (void)launch_pdl(pdl, dw_wgrad_rows_kernel<S, 2, 2>, grid, block, 0, st, b.g, x, dy, partial);
  else
    (void)launch_pdl(pdl, dw_wgrad_rows_kernel<S, 2, 1>, grid, block, 0, st, b.g, x, dy, partial);
}

}  // namespace

bool dw_wgrad_rows_wanted(const ConvProblem& p) { return p.ow >= 14; }

bool dw_wgrad_rows_covers(const ConvProblem& p) {
  if (p.nsp != 2 || p.x->nb_dims != 4) return false;
  if (p.xdt != CUDNN_DATA_FLOAT && p.xdt != CUDNN_DATA_HALF && p.xdt != CUDNN_DATA_BFLOAT16) return false;
  if (p.ydt != p.xdt) return false;  // x and dy read as one type
  if (!packed_nhwc(*p.x) || !packed_nhwc(*p.y)) return false;
  if (p.kh != kK || p.kw != kK || p.dh != 1 || p.dw != 1) return false;
  if (p.sh != p.sw || (p.sh != 1 && p.sh != 2)) return false;
  if (p.ph < 0 || p.ph > 2 || p.pw < 0 || p.pw > 2) return false;
  const int64_t v = 16 / static_cast<int64_t>(dtype_size(p.xdt));
  if (p.ic % v != 0) return false;
  if (p.mb * p.ih * p.iw * p.ic >= kLimit || p.mb * p.oh * p.ow * p.ic >= kLimit) return false;
  const RowsPlan b = rows_plan(p);
  return b.slices <= 65535 && p.mb * p.oh * b.g.segs < INT32_MAX;
}

size_t dw_wgrad_rows_partial_bytes(const ConvProblem& p) { return rows_plan(p).partial_bytes; }

cudnnStatus_t dw_wgrad_rows_launch(const ConvProblem& p, const ConvArgs& a, float* partial, int64_t& slices) {
  if (!aligned16(a.in) || !aligned16(a.in2)) return CUDNN_STATUS_NOT_SUPPORTED;  // the caller falls back
  const RowsPlan b = rows_plan(p);
  switch (p.xdt) {
    case CUDNN_DATA_FLOAT: launch<float>(p, b, a, partial); break;
    case CUDNN_DATA_HALF: launch<__half>(p, b, a, partial); break;
    case CUDNN_DATA_BFLOAT16: launch<__nv_bfloat16>(p, b, a, partial); break;
    default: return CUDNN_STATUS_NOT_SUPPORTED;
  }
  FD_CUDA_LAUNCHED();
  slices = b.slices;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv
