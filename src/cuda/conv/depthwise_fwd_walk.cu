// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise forward on column walks (by default at stride 2 and widths up to 28, dw_fwd_walk_wanted):
// packed NHWC x and y, f32 / f16 / bf16 with float sums, C a multiple of V = 8 bytes of elements (4 halves, 2
// floats), 3x3 filter, stride 1 or 2 (the same in H and W), padding 0..2, no dilation, no fused epilogue.
//
// Why: ncu on the H200 (run 15) found the strip forward (depthwise_nhwc.cu) at 56 % of the SMs' issue rate and 30 %
// of DRAM bandwidth on MobileNet-v2's 56x56x144 layer (70 us; PyTorch's path 48 us): ~44 instructions per output
// element, the filter read from shared memory for every tap of every strip. Here a thread owns one 8-byte channel
// vector and its 9 x V filter taps in registers (as float, flipped for CUDNN_CONVOLUTION), and walks along a
// segment of one output row: the three x rows it reads are fixed for the walk, a 3 x 3 window of raw 8-byte x
// vectors slides along them (stride new columns per row and step, the next step's loads in flight during this
// step's FMAs), so a step is 3 * stride loads, 9 vector conversions, 9 x V FMAs and one store: ~21 instructions per
// output element at V = 4. Rows outside the image are loaded as zeros (no branches around loads).
//
// Work split: CTAs of bx channel vectors (the largest divisor of C / V up to 32) x by lanes (bx * by = 256, or 192
// with FREEDNN_DW_FWD_PREFETCH=2, or less); a lane is one (image, output row, column segment) item; segments split rows when rows alone give fewer
// than ~2 waves of threads. No reduction, no workspace.
// Bytes: x and y once from DRAM (the window columns and the 3 - stride rows shared by neighbouring rows' lanes are
// L1 / L2 hits): 56x56x144 N=64 f16 115.6 MB -> 27 us at 4.2 TB/s.
// Registers (ptxas, sm_90a): with the loads one step ahead (the default) 80-81 for f16 / bf16 and 58-62 for f32 at
// 256 x 3 CTAs per SM, two steps ahead (FREEDNN_DW_FWD_PREFETCH=2) 78-112 at 192 x 2; no spills.
#include "cuda/conv/depthwise_fwd_walk.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/dtype.h"
#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/depthwise_fast.h"
#include "cuda/conv/raw_words.cuh"

namespace fd::cuda::conv {
namespace {

using fd::ConvProblem;
using fd::conv::ConvArgs;

// CTA shape per prefetch depth D (FREEDNN_DW_FWD_PREFETCH): D = 1, 256 threads x 3 CTAs per SM (85 registers; the
// 16-bit kernels use 80-81); D = 2, 192 x 2 (170; at 192 x 3 they spilled 60-90 bytes at 96 registers).
constexpr int threads_for(int d) { return d == 1 ? 256 : 192; }
constexpr int blocks_for(int d) { return d == 1 ? 3 : 2; }
constexpr int kK = 3;
constexpr int64_t kTargetThreads = 132 * 768 * 2;  // two waves of 768 threads per SM (an H200; problem-only plan)
constexpr int kMinSegment = 8;                     // output columns per segment at least

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct WalkGeom {
  int C = 1, H = 1, W = 1, P = 1, Q = 1, ph = 0, pw = 0;
  int segs = 1, seg_len = 1, items = 1;
  int64_t ws_k = 0, ws_r = 0, ws_s = 0;  // the filter's element strides of (k = c, r, s)
  bool flip = false;
};

struct WalkPlan {
  int depth = 1;  // prefetch depth D
  int bx = 1, by = 1, groups = 1;
  int64_t blocks_y = 1;
  WalkGeom g;
};

// x column j of a row (zeros outside 0..W-1 and for a row outside the image: ok false).
__device__ __forceinline__ uint2 column(const uint2* row, bool ok, int j, int W, int cstride) {
  return ok && j >= 0 && j < W ? __ldg(row + j * cstride) : make_uint2(0u, 0u);
}

// grid (channel groups, item blocks), block (bx channel vectors, by lanes); D: steps the loads run ahead (1 or 2).
template <class S, int STR, int D>
__global__ void __launch_bounds__(threads_for(D), blocks_for(D))
    dw_fwd_walk_kernel(WalkGeom g, const S* __restrict__ x, const S* __restrict__ w, S* __restrict__ y, float alpha,
                       float beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int V = 8 / sizeof(S), kCarry = kK - STR;
  const int item = blockIdx.y * blockDim.y + threadIdx.y;
  if (item >= g.items) return;  // no barrier below
  const int c0 = (blockIdx.x * blockDim.x + threadIdx.x) * V;  // the groups divide C exactly
  float wt[kK][kK][V];
  load_depthwise_taps(w, c0, g.ws_k, g.ws_r, g.ws_s, g.flip, wt);
  const int np = item / g.segs, seg = item - np * g.segs;
  const int n = np / g.P, p = np - n * g.P;
  const int q0 = seg * g.seg_len, q1 = min(g.Q, q0 + g.seg_len);
  const int cstride = g.C / V;  // 8-byte vectors per pixel
  const uint2* rows[kK];
  bool ok[kK];
#pragma unroll
  for (int r = 0; r < kK; ++r) {
    const int i = p * STR - g.ph + r;
    ok[r] = i >= 0 && i < g.H;
    rows[r] = reinterpret_cast<const uint2*>(x + ((n * g.H + (ok[r] ? i : 0)) * g.W) * g.C + c0);
  }
  auto* yr = reinterpret_cast<uint2*>(y + ((n * g.P + p) * g.Q) * g.C + c0);
  // win: the 3 x 3 window (raw); pf[b]: the new columns of a coming step, D steps ahead (buffer b serves the steps
  // q with (q - q0) % D == b, so the indices stay compile-time).
  uint2 win[kK][kK], pf[D][kK][STR];
  const int j0 = q0 * STR - g.pw;
  auto fetch = [&](uint2 (&buf)[kK][STR], int q) {
    const int j = q * STR - g.pw + kCarry;
#pragma unroll
    for (int r = 0; r < kK; ++r)
#pragma unroll
      for (int u = 0; u < STR; ++u) buf[r][u] = column(rows[r], ok[r], j + u, g.W, cstride);
  };
#pragma unroll
  for (int r = 0; r < kK; ++r)
#pragma unroll
    for (int s = 0; s < kCarry; ++s) win[r][s] = column(rows[r], ok[r], j0 + s, g.W, cstride);
#pragma unroll
  for (int b = 0; b < D; ++b)
    if (q0 + b < q1) fetch(pf[b], q0 + b);
  auto step = [&](auto bi, int q) {
    constexpr int B = decltype(bi)::value;
#pragma unroll
    for (int r = 0; r < kK; ++r)
#pragma unroll
      for (int u = 0; u < STR; ++u) win[r][kCarry + u] = pf[B][r][u];
    if (q + D < q1) fetch(pf[B], q + D);  // in flight during this step's (and the next D - 1 steps') FMAs
    float acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = 0.0f;
#pragma unroll
    for (int r = 0; r < kK; ++r)  // the reference's order: r, then s
#pragma unroll
      for (int s = 0; s < kK; ++s) {
        float xf[V];
        widen8<S>(win[r][s], xf);
#pragma unroll
        for (int v = 0; v < V; ++v) acc[v] = fmaf(wt[r][s][v], xf[v], acc[v]);
      }
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] *= alpha;
    if (beta != 0.0f) {
      float old[V];
      widen8<S>(yr[q * cstride], old);
#pragma unroll
      for (int v = 0; v < V; ++v) acc[v] = fmaf(beta, old[v], acc[v]);
    }
    yr[q * cstride] = narrow8<S>(acc);
#pragma unroll
    for (int r = 0; r < kK; ++r)
#pragma unroll
      for (int s = 0; s < kCarry; ++s) win[r][s] = win[r][s + STR];
  };
  int q = q0;
  for (; q + D <= q1; q += D) {
    step(std::integral_constant<int, 0>{}, q);
    if constexpr (D == 2) step(std::integral_constant<int, 1>{}, q + 1);
  }
  if (q < q1) step(std::integral_constant<int, 0>{}, q);  // D == 2: an odd step left
  pdl_allow_dependents();
}

// FREEDNN_DW_FWD_PREFETCH=1|2 (read at every call): steps the loads run ahead; 1 by default.
int prefetch_depth() { return fd::env_int("FREEDNN_DW_FWD_PREFETCH", 1) == 2 ? 2 : 1; }

WalkPlan walk_plan(const ConvProblem& p) {
  WalkPlan b;
  b.depth = prefetch_depth();
  const DwRowSplit d = dw_row_split(p, 8 / static_cast<int64_t>(dtype_size(p.xdt)), 1, kTargetThreads, kMinSegment);
  b.bx = d.bx, b.groups = d.groups;
  b.by = (b.depth == 1 ? threads_for(1) : threads_for(2)) / b.bx;
  WalkGeom& g = b.g;
  g.C = static_cast<int>(p.ic), g.H = static_cast<int>(p.ih), g.W = static_cast<int>(p.iw);
  g.P = static_cast<int>(p.oh), g.Q = static_cast<int>(p.ow);
  g.ph = static_cast<int>(p.ph), g.pw = static_cast<int>(p.pw);
  g.segs = d.segs, g.seg_len = d.seg_len;
  g.items = static_cast<int>(std::min<int64_t>(d.items, INT32_MAX));
  b.blocks_y = ceil_div(d.items, b.by);
  const cudnnTensorStruct& wt = p.w->as_tensor;  // (k, c, r, s)
  g.ws_k = wt.strides[0], g.ws_r = wt.strides[2], g.ws_s = wt.strides[3];
  g.flip = p.mode == CUDNN_CONVOLUTION;
  return b;
}

template <class S>
void launch(const ConvProblem& p, const WalkPlan& b, const ConvArgs& a) {
  const dim3 grid(static_cast<unsigned>(b.groups), static_cast<unsigned>(b.blocks_y));
  const dim3 block(static_cast<unsigned>(b.bx), static_cast<unsigned>(b.by));
  const auto* x = static_cast<const S*>(a.in);
  const auto* w = static_cast<const S*>(a.in2);
  auto* y = static_cast<S*>(a.out);
  const auto alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
  const bool ahead2 = b.depth == 2;
  cudaStream_t st = a.handle->stream;
  const bool pdl = ops_pdl(a.handle->device);
  if (p.sh == 1 && ahead2)
    (void)launch_pdl(pdl, dw_fwd_walk_kernel<S, 1, 2>, grid, block, 0, st, b.g, x, w, y, alpha, beta);
  else if (p.sh == 1)
    (void)launch_pdl(pdl, dw_fwd_walk_kernel<S, 1, 1>, grid, block, 0, st, b.g, x, w, y, alpha, beta);
  else if (ahead2)
    (void)launch_pdl(pdl, dw_fwd_walk_kernel<S, 2, 2>, grid, block, 0, st, b.g, x, w, y, alpha, beta);
  else
    (void)launch_pdl(pdl, dw_fwd_walk_kernel<S, 2, 1>, grid, block, 0, st, b.g, x, w, y, alpha, beta);
}

}  // namespace

bool dw_fwd_walk_wanted(const ConvProblem& p) {
  const std::string forced = fd::env_string("FREEDNN_DW_FWD");
  if (forced == "walk" || forced == "strip") return forced == "walk";
  return p.sh == 2 || p.ow <= 28;
}

bool dw_fwd_walk_covers(const ConvProblem& p, const ConvArgs& a) {
  if (p.dir != fd::ConvDir::fwd || a.fused != nullptr || !dw_3x3_vec8_nhwc(p)) return false;
  if (p.w->as_tensor.nb_dims != 4 || p.wdt != p.xdt) return false;
  if (p.sh != p.sw || (p.sh != 1 && p.sh != 2)) return false;
  if (!aligned8(a.in) || !aligned8(a.out)) return false;
  const WalkPlan b = walk_plan(p);
  return b.blocks_y <= 65535 && p.mb * p.oh * b.g.segs < INT32_MAX;
}

cudnnStatus_t dw_fwd_walk_run(const ConvProblem& p, const ConvArgs& a) {
  const WalkPlan b = walk_plan(p);
  switch (p.xdt) {
    case CUDNN_DATA_FLOAT: launch<float>(p, b, a); break;
    case CUDNN_DATA_HALF: launch<__half>(p, b, a); break;
    case CUDNN_DATA_BFLOAT16: launch<__nv_bfloat16>(p, b, a); break;
    default: FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "cuda:depthwise walk forward: no kernel for %s",
                     dtype_short_name(p.xdt));
  }
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv
