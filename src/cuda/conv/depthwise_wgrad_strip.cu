// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise backward filter, packed NHWC, square K x K filter (3 or 5), stride 1, no dilation, f32 / f16 /
// bf16 with float sums: the first level, partial[slice][tap][c] (the second level, depthwise_wgrad.cu, adds the
// slices in order and applies alpha / beta / the CUDNN_CONVOLUTION flip).
//
// dw[c][r][s] = sum over (n, oh, ow) of dy[n][oh][ow][c] * x[n][oh * st - ph + r][ow * st - pw + s][c].
// A thread ("lane") owns V channels (2 for 3x3: one 4-byte f16 / 8-byte f32 load; 1 for 5x5, odd C, pointers not
// aligned to 2 elements, and f32 / bf16 with T = 4) of a strip of T output pixels along W (T = 2; 4 with
// FREEDNN_DW_WGRAD_STRIP=4, 3x3 only) and walks down a run of output rows. It streams the x rows under the strip
// (NC = (T-1)*st + K columns each, every x row loaded once per lane) and keeps the last M + 1 = (K-1)/st + 1 dy rows
// of the strip in registers: x row i meets dy row oh through filter row r = i + ph - oh * st, so each x column
// loaded serves up to K taps of M + 1 dy rows and T pixels from registers (3x3 stride 1, T = 2, V = 2: 6 loads,
// 12 conversions and 36 FMAs per x row; the per-pixel kernel did 10 loads and 36 FMAs per pixel). The loads of
// the next x row (and dy row) are issued before the FMAs of the current one. The dy rows sit in a ring indexed at
// compile time (the row loop is unrolled M + 1 times), so they are never moved; dy rows outside the run, strip
// pixels past the row end and x outside the image are zeros, so every step runs the same FMAs without branches (a
// branch per dy row cost 16 registers): exact for finite data, but an Inf in x next to a run's edge can turn an
// Inf sum into NaN. The 9 x V (25 x V) tap sums stay in registers for the whole walk; then the lanes of a CTA
// that share channels are summed in a fixed order: xor-shuffles inside a warp when the CTA's channel width divides
// 32, then one row per warp (else per lane) in shared memory (9 KB for C = 32 f16; at most 256 x 9 x 2 x 4 B =
// 18 KB, half the per-pixel kernel's 36 KB), summed in row order. The result is the same run after run.
//
// Work split (problem-only, so the workspace query knows it): CTAs of 256 threads = bx channel vectors (<= 32) x by
// lanes; lane l of slice q is lane q * by + l = (run, strip), adjacent lanes on adjacent strips of the same rows
// (coalesced; the x halo columns are L1 hits). A run is a part of one image's rows or whole images; choose_runs()
// costs every split as waves x steps per lane (sized for 132 SMs) under a partial-sum cap of max(2 MB, data / 8).
// MobileNet-v2 N = 64: 16 rows per run on 112x112x32 (1568 CTAs, ~3 waves), 5-14 on the smaller layers (250-2150
// CTAs). Registers (ptxas, sm_90a): 3x3 T = 2: 56-64 (f16 56/60, f32 and bf16 64; V = 1: 40-48), no spills, 4 CTAs
// of 256 per SM (50 % occupancy); 3x3 T = 4: f16 77-80, V = 1 56, 3 CTAs; 5x5: 64-72, 3 CTAs.
//
// Floor: x and dy once from DRAM (the halo columns of neighbouring strips and the K - st rows shared by neighbouring
// runs are L1/L2 hits), partials written and read once, dw once. 112x112x32 N = 64 f16: 51.4 + 51.4 MB + 2 x 1.8 MB
// of partials -> ~30 us at 3.5 TB/s. Issue: ~76 instructions per lane step there (6 loads, 12 conversions, 36 FMAs,
// addresses and cursor), 7.2 M lane steps -> ~22 us at 3 IPC per SM. Bytes in flight: 16 new bytes per lane and
// step, 32 warps per SM -> ~16 KB per SM, below the ~26 KB that 3.5 TB/s at ~1 us of latency needs, so it may stay
// latency-bound near 50 us; T = 4 doubles the bytes per step (FREEDNN_DW_WGRAD_STRIP=4 for the A/B).
// Measured on the H200 (run 11, MobileNet-v2 N = 64 f16): stride 1 1.04-1.52x faster than the per-pixel kernel
// (112x112x32 0.154 -> 0.123 ms); stride 2 1.0-1.7x slower (there each x row meets only M + 1 = 2 dy rows, so the
// register reuse is small and the per-pixel kernel's pixel-parallel grid wins), so stride 2 stays on the per-pixel
// kernel (the template keeps the stride parameter). FREEDNN_DW_WGRAD_STRIP=0 runs the per-pixel kernel
// everywhere, FREEDNN_DW_WGRAD_ROWS=n forces n output rows per run (the model's choice measured best).
#include "cuda/conv/depthwise_wgrad_strip.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/dtype.h"
#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/depthwise_fast.h"

namespace fd::cuda::conv {
namespace {

using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr int kThreads = 256;
constexpr int64_t kPlanSms = 132;  // the plan is problem-only (the workspace query knows it): sized for an H200
constexpr int kReduceSteps = 2;    // the CTA's lane sum and partial write, in walk steps (plan cost model)
constexpr size_t kMinBudget = size_t{2} << 20;
constexpr int64_t kLimit = int64_t{1} << 30;  // 32-bit counters and element offsets

// CTAs of 256 per SM the kernel is built for: 3x3 with T = 2 fits 64 registers; 3x3 T = 4 and 5x5 (T = 2 only)
// about 80.
constexpr int min_blocks(int k, int t) { return k == 3 && t == 2 ? 4 : 3; }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct StripGeom {
  int C = 1, IH = 1, IW = 1, OH = 1, OW = 1, ph = 0, pw = 0;
  int N = 1;
  int rpi = 1;     // runs per image (each `rows` output rows of one image; the last may be shorter), or 1
  int ipr = 1;     // images per run (rpi == 1: a run is ipr whole images)
  int rows = 1;    // rows of a run inside one image (OH when rpi == 1)
  int strips = 1;  // strips of T pixels per output row
  int lanes = 1;   // runs * strips
  int xrow = 1, drow = 1;  // elements per x / dy row (IW * C, OW * C)
};

template <class S, int V>
struct alignas(sizeof(S) * V) Pack {
  S v[V];
};

// One V-element vector through the read-only path.
template <class P>
__device__ __forceinline__ P ld_pack(const void* p) {
  P r;
  if constexpr (sizeof(P) == 8) {
    const uint2 u = __ldg(static_cast<const uint2*>(p));
    memcpy(&r, &u, 8);
  } else if constexpr (sizeof(P) == 4) {
    const unsigned u = __ldg(static_cast<const unsigned*>(p));
    memcpy(&r, &u, 4);
  } else {
    static_assert(sizeof(P) == 2, "2, 4 or 8 bytes");
    const unsigned short u = __ldg(static_cast<const unsigned short*>(p));
    memcpy(&r, &u, 2);
  }
  return r;
}

template <class P, class S, int V>
__device__ __forceinline__ P zero_pack() {
  P z;
#pragma unroll
  for (int v = 0; v < V; ++v) z.v[v] = S(0.0f);
  return z;
}

// One lane's walk. The cursor is (n, oh, phase): x row i = oh * STR - ph + phase is the newest x row, paired with
// dy rows oh - m (m = 0..M) through filter row r = phase + m * STR; the run's rows of image n are [ohs, ohe), and
// oh goes on to ohe + M - 1 so the last dy rows meet their remaining x rows ("drain").
template <class S, int V, int K, int STR, int T>
struct Walk {
  static constexpr int NC = (T - 1) * STR + K;  // x columns under a strip
  static constexpr int M = (K - 1) / STR;       // older dy rows an x row still meets
  static constexpr int W = M + 1;               // dy rows held (ring)
  using P = Pack<S, V>;

  const StripGeom& g;
  const S* x;
  const S* dy;
  float acc[K][K][V];
  float dyw[W][T][V];  // dy rows of the strip, slot (oh mod W) as the unrolled loop assigns them
  P rx[NC], rd[T];     // loads in flight for the next x row (and its dy row)
  int xcol = 0, dcol = 0;  // element offsets of the strip's first x / dy column and channel in a row
  unsigned mask = 0;       // bit j: x column j inside the image; bit kPix + t: pixel t of the strip inside the row
  int n = 0, oh = 0, ohs = 0, ohe = 0;
  int left = -1;  // rows of the run after this image's part; -1 once the walk is over
  static constexpr int kPix = 16;

  __device__ __forceinline__ Walk(const StripGeom& geom, const S* xp, const S* dyp) : g(geom), x(xp), dy(dyp) {
#pragma unroll
    for (int r = 0; r < K; ++r)
#pragma unroll
      for (int s = 0; s < K; ++s)
#pragma unroll
        for (int v = 0; v < V; ++v) acc[r][s][v] = 0.0f;
#pragma unroll
    for (int u = 0; u < W; ++u)
#pragma unroll
      for (int t = 0; t < T; ++t)
#pragma unroll
        for (int v = 0; v < V; ++v) dyw[u][t][v] = 0.0f;
  }

  // Issues the loads of x row oh * STR - ph + PH (only when it meets a dy row of the run) and, for PH == 0, of dy
  // row oh (only when inside the run).
  template <int PH>
  __device__ __forceinline__ void load() {
    const int i = oh * STR - g.ph + PH;
    const int mlo = max(0, oh - ohe + 1), mhi = min(oh - ohs, (K - 1 - PH) / STR);
    const bool need = i >= 0 && i < g.IH && mlo <= mhi;
    const int xo = (n * g.IH + i) * g.xrow + xcol;  // element offsets fit in int (checked on the host)
#pragma unroll
    for (int j = 0; j < NC; ++j)
      rx[j] = need && ((mask >> j) & 1u) ? ld_pack<P>(x + (xo + j * g.C)) : zero_pack<P, S, V>();
    if constexpr (PH == 0) {
      const bool dok = oh < ohe;
      const int d = (n * g.OH + oh) * g.drow + dcol;
#pragma unroll
      for (int t = 0; t < T; ++t)
        rd[t] = dok && ((mask >> (kPix + t)) & 1u) ? ld_pack<P>(dy + (d + t * g.C)) : zero_pack<P, S, V>();
    }
  }

  __device__ __forceinline__ void advance() {
    if (++oh < ohe + M) return;
    if (left == 0) {
      left = -1;
      return;
    }
    ++n;  // the run goes on at the top of the next image
    ohs = 0;
    oh = 0;
    ohe = min(g.OH, left);
    left -= ohe;
  }

  // Consumes the x row of phase PH whose newest dy row sits in ring slot U.
  template <int U, int PH>
  __device__ __forceinline__ void step() {
    float xf[NC][V];
#pragma unroll
    for (int j = 0; j < NC; ++j)
#pragma unroll
      for (int v = 0; v < V; ++v) xf[j][v] = static_cast<float>(widen(rx[j].v[v]));
    if constexpr (PH == 0) {
#pragma unroll
      for (int t = 0; t < T; ++t)
#pragma unroll
        for (int v = 0; v < V; ++v) dyw[U][t][v] = static_cast<float>(widen(rd[t].v[v]));
    }
    if constexpr (PH + 1 < STR) {
      load<PH + 1>();
    } else {
      advance();
      if (left >= 0) load<0>();
    }
#pragma unroll
    for (int m = 0; m <= M; ++m) {
      const int r = PH + m * STR;
      if (r >= K) break;
      const int slot = (U - m + W) % W;
#pragma unroll
      for (int s = 0; s < K; ++s)
#pragma unroll
        for (int t = 0; t < T; ++t)
#pragma unroll
          for (int v = 0; v < V; ++v) acc[r][s][v] = fmaf(dyw[slot][t][v], xf[t * STR + s][v], acc[r][s][v]);
    }
  }

  template <int U>
  __device__ __forceinline__ bool row() {
    step<U, 0>();
    if constexpr (STR == 2) step<U, 1>();
    return left >= 0;
  }

  template <int... U>
  __device__ __forceinline__ bool ring(std::integer_sequence<int, U...>) {
    return (row<U>() && ...);
  }

  __device__ __forceinline__ void run(int lane, int c0) {
    const int range = lane / g.strips, strip = lane - range * g.strips;
    const int w0 = strip * T, iw0 = w0 * STR - g.pw;
#pragma unroll
    for (int j = 0; j < NC; ++j)
      if (iw0 + j >= 0 && iw0 + j < g.IW) mask |= 1u << j;
#pragma unroll
    for (int t = 0; t < T; ++t)
      if (w0 + t < g.OW) mask |= 1u << (kPix + t);
    xcol = iw0 * g.C + c0;
    dcol = w0 * g.C + c0;
    const int nb = range / g.rpi, k = range - nb * g.rpi;
    n = nb * g.ipr;
    ohs = k * g.rows;
    oh = ohs;
    ohe = min(g.OH, ohs + g.rows);
    left = (min(g.ipr, g.N - n) - 1) * g.OH;  // rows of the run in the following images
    load<0>();
    while (ring(std::make_integer_sequence<int, W>{})) {
    }
  }
};

// grid (channel groups, slices), block (bx channel vectors, by lanes).
template <class S, int V, int K, int STR, int T>
__global__ void __launch_bounds__(kThreads, min_blocks(K, T))
    dw_wgrad_strip_kernel(StripGeom g, const S* __restrict__ x, const S* __restrict__ dy, float* __restrict__ partial) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int KK = K * K;
  __shared__ float red[kThreads * KK * V];  // [row][tap][channel of the CTA]
  const int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x, by = blockDim.y;
  const int cb = bx * V, cbase = blockIdx.x * cb, c0 = cbase + tx * V;
  const int lane = blockIdx.y * by + ty;
  Walk<S, V, K, STR, T> w(g, x, dy);
  if (c0 < g.C && lane < g.lanes) w.run(lane, c0);

  // Lanes with the same channels: thread tid = ty * bx + tx; when bx divides 32 they share a warp at lane
  // distances bx, 2 bx, ... (butterfly, the same tree in every lane), leaving one row per warp.
  const int tid = ty * bx + tx;
  int row = ty, rows = by;
  bool writer = true;
  if (32 % bx == 0) {
    for (int o = bx; o < 32; o *= 2)
#pragma unroll
      for (int r = 0; r < K; ++r)
#pragma unroll
        for (int s = 0; s < K; ++s)
#pragma unroll
          for (int v = 0; v < V; ++v) w.acc[r][s][v] += __shfl_xor_sync(0xffffffffu, w.acc[r][s][v], o);
    row = tid / 32;
    rows = bx * by / 32;
    writer = tid % 32 < bx;
  }
  if (writer) {
#pragma unroll
    for (int r = 0; r < K; ++r)
#pragma unroll
      for (int s = 0; s < K; ++s)
#pragma unroll
        for (int v = 0; v < V; ++v) red[(row * KK + r * K + s) * cb + tx * V + v] = w.acc[r][s][v];
  }
  __syncthreads();
  for (int o = tid; o < KK * cb; o += bx * by) {
    const int tap = o / cb, cc = o - tap * cb;
    if (cbase + cc >= g.C) continue;
    float sum = 0.0f;
    for (int q = 0; q < rows; ++q) sum += red[(q * KK + tap) * cb + cc];
    partial[(int64_t{blockIdx.y} * KK + tap) * g.C + cbase + cc] = sum;
  }
  pdl_allow_dependents();
}

// --- host side ------------------------------------------------------------------------------------------------

// FREEDNN_DW_WGRAD_STRIP: 0 = the per-pixel kernel (depthwise_wgrad.cu), 2 or 4 = strip length T; default 2.
int strip_knob() {
  static const int k = [] {
    const long long v = fd::env_int("FREEDNN_DW_WGRAD_STRIP", 2);
    return v == 0 || v == 4 ? static_cast<int>(v) : 2;
  }();
  return k;
}

struct StripPlan {
  int v = 1, t = 2, bx = 1, by = kThreads, groups = 1;
  StripGeom g;
  int64_t slices = 1;
  size_t partial_bytes = 0;
};

// Strip length: FREEDNN_DW_WGRAD_STRIP for 3x3, 2 for 5x5 (25 sums leave no room for longer strips).
int strip_of(const ConvProblem& p) { return p.kh == 3 && strip_knob() == 4 ? 4 : 2; }

// Channels per lane when C and the pointers allow it: 2 for 3x3 (18 sums; with T = 4 only f16, the f32 and bf16
// kernels would spill at 80 registers), 1 for 5x5 (25 sums).
bool two_channels(int k, int t, cudnnDataType_t dt) { return k == 3 && (t == 2 || dt == CUDNN_DATA_HALF); }
int max_vec(const ConvProblem& p) { return two_channels(static_cast<int>(p.kh), strip_of(p), p.xdt) ? 2 : 1; }

// Output rows per run forced by FREEDNN_DW_WGRAD_ROWS (A/B runs; 0 = the cost model below).
int forced_rows() {
  static const int r = static_cast<int>(std::clamp<long long>(fd::env_int("FREEDNN_DW_WGRAD_ROWS", 0), 0, 1 << 20));
  return r;
}

// Picks the runs: every split of an image's rows into runs of `rows` (rpi runs per image) and every run of ipr whole
// images, costed as waves x walk steps per lane (a lane's steps are dependent, so when the GPU is not full the time
// is the longest lane's steps; when it is full and bound by bandwidth, waves x steps is about the total work and
// flat), with at most `cap` slices of partial sums; the cheapest, on a tie the one with more CTAs (latency hiding).
void choose_runs(StripPlan& b, int K, int st, int64_t cap) {
  StripGeom& g = b.g;
  const int64_t wave = kPlanSms * min_blocks(K, b.t), M = (K - 1) / st;
  int64_t best_cost = -1, best_slices = 0;
  auto consider = [&](int rpi, int ipr, int rows, int64_t steps) {
    const int64_t runs = int64_t{g.N} * rpi / ipr + (rpi == 1 && g.N % ipr != 0 ? 1 : 0);
    const int64_t slices = ceil_div(runs * g.strips, b.by);
    if (slices > cap && best_cost >= 0) return;
    const int64_t cost = ceil_div(slices * b.groups, wave) * (steps + kReduceSteps);
    if (best_cost >= 0 && (cost > best_cost || (cost == best_cost && slices <= best_slices))) return;
    best_cost = cost, best_slices = slices;
    g.rpi = rpi, g.ipr = ipr, g.rows = rows;
    g.lanes = static_cast<int>(std::min(runs * g.strips, kLimit));
    b.slices = slices;
  };
  // fewest slices first (the fallback when every split exceeds the cap); candidates bounded for huge N or OH
  const int fr = forced_rows();
  for (int ipr = std::min(g.N, 1024); ipr >= 1; --ipr)
    if (fr == 0 || (fr >= g.OH && ipr == std::clamp(fr / g.OH, 1, g.N))) consider(1, ipr, g.OH, ipr * (g.OH + M));
  for (int rpi = 2; rpi <= std::min(g.OH, 1024); ++rpi) {
    const auto rows = static_cast<int>(ceil_div(g.OH, rpi));
    if (ceil_div(g.OH, rows) == rpi && (fr == 0 || rows == static_cast<int>(ceil_div(g.OH, ceil_div(g.OH, fr)))))
      consider(rpi, 1, rows, rows + M);
  }
  if (best_cost < 0) consider(1, 1, g.OH, g.OH + M);  // a forced length no split gives
}

StripPlan strip_plan(const ConvProblem& p, int v) {
  StripPlan b;
  b.v = v;
  b.t = strip_of(p);
  const int64_t vecs = ceil_div(p.ic, v);
  b.groups = static_cast<int>(ceil_div(vecs, 32));
  b.bx = static_cast<int>(ceil_div(vecs, b.groups));
  b.by = kThreads / b.bx;
  StripGeom& g = b.g;
  g.C = static_cast<int>(p.ic), g.N = static_cast<int>(p.mb);
  g.IH = static_cast<int>(p.ih), g.IW = static_cast<int>(p.iw);
  g.OH = static_cast<int>(p.oh), g.OW = static_cast<int>(p.ow);
  g.ph = p.ph, g.pw = p.pw;
  g.strips = static_cast<int>(ceil_div(p.ow, b.t));
  g.xrow = static_cast<int>(p.iw * p.ic), g.drow = static_cast<int>(p.ow * p.ic);
  const size_t per_slice = static_cast<size_t>(p.ksp() * p.ic) * sizeof(float);
  const size_t data = static_cast<size_t>(p.mb * p.ic * (p.ih * p.iw + p.oh * p.ow)) * dtype_size(p.xdt);
  const auto cap = std::max<int64_t>(1, static_cast<int64_t>(std::max(kMinBudget, data / 8) / per_slice));
  choose_runs(b, static_cast<int>(p.kh), p.sh, std::min<int64_t>(cap, 65535));
  b.partial_bytes = static_cast<size_t>(b.slices) * per_slice;
  return b;
}

bool plan_fits(const StripPlan& b) { return b.slices <= 65535 && b.g.lanes < kLimit; }

template <class S, int V, int K, int STR, int T>
void launch(const StripPlan& b, const ConvArgs& a, float* partial) {
  const dim3 grid(static_cast<unsigned>(b.groups), static_cast<unsigned>(b.slices));
  const dim3 block(static_cast<unsigned>(b.bx), static_cast<unsigned>(b.by));
  (void)launch_pdl(ops_pdl(a.handle->device), dw_wgrad_strip_kernel<S, V, K, STR, T>, grid, block, 0, a.handle->stream,
                   b.g, static_cast<const S*>(a.in), static_cast<const S*>(a.in2), partial);
}

template <class S, int K, int STR, int T>
void launch_v(const StripPlan& b, const ConvArgs& a, float* partial) {
  if constexpr (K == 3 && (T == 2 || std::is_same_v<S, __half>)) {  // two_channels()
    if (b.v == 2) return launch<S, 2, K, STR, T>(b, a, partial);
  }
  launch<S, 1, K, STR, T>(b, a, partial);
}

template <class S, int K, int STR>
void launch_t(const StripPlan& b, const ConvArgs& a, float* partial) {
  if constexpr (K == 3) {
    if (b.t == 4) return launch_v<S, K, STR, 4>(b, a, partial);
  }
  launch_v<S, K, STR, 2>(b, a, partial);
}

template <class S>
void launch_s(const ConvProblem& p, const StripPlan& b, const ConvArgs& a, float* partial) {
  if (p.kh == 3) return launch_t<S, 3, 1>(b, a, partial);
  launch_t<S, 5, 1>(b, a, partial);
}

}  // namespace

bool dw_wgrad_strip_covers(const ConvProblem& p) {
  if (strip_knob() == 0 || p.nsp != 2 || p.x->nb_dims != 4) return false;
  if (p.xdt != CUDNN_DATA_FLOAT && p.xdt != CUDNN_DATA_HALF && p.xdt != CUDNN_DATA_BFLOAT16) return false;
  if (!packed_nhwc(*p.x) || !packed_nhwc(*p.y)) return false;
  if (p.kh != p.kw || (p.kh != 3 && p.kh != 5)) return false;
  if (p.sh != 1 || p.sw != 1 || p.dh != 1 || p.dw != 1) return false;  // stride 2: see the top comment
  // element offsets in int, with room for the padding columns and drain rows computed (not loaded) past the ends
  const int64_t xrow = p.ic * (std::max(p.iw, p.ow * p.sw) + p.pw + p.kw);
  if (p.mb * (std::max(p.ih, p.oh * p.sh) + p.ph + p.kh) * xrow >= kLimit) return false;
  return plan_fits(strip_plan(p, 1)) && plan_fits(strip_plan(p, max_vec(p)));
}

size_t dw_wgrad_strip_partial_bytes(const ConvProblem& p) {
  return std::max(strip_plan(p, 1).partial_bytes, strip_plan(p, max_vec(p)).partial_bytes);
}

cudnnStatus_t dw_wgrad_strip_launch(const ConvProblem& p, const ConvArgs& a, float* partial, int64_t& slices) {
  const int vm = max_vec(p);
  const size_t es = dtype_size(p.xdt);
  const int v = p.ic % vm == 0 && aligned_to(a.in, vm * es) && aligned_to(a.in2, vm * es) ? vm : 1;
  const StripPlan b = strip_plan(p, v);
  switch (p.xdt) {
    case CUDNN_DATA_FLOAT: launch_s<float>(p, b, a, partial); break;
    case CUDNN_DATA_HALF: launch_s<__half>(p, b, a, partial); break;
    case CUDNN_DATA_BFLOAT16: launch_s<__nv_bfloat16>(p, b, a, partial); break;
    default:
      FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "cuda:depthwise strip backward filter has no kernels for %s",
              dtype_short_name(p.xdt));
  }
  FD_CUDA_LAUNCHED();
  slices = b.slices;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv
