// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:patch_fma_dgrad: the backward data of stem-like layers (dx of at most 4 channels, at most 4 column taps per
// stride phase: the ResNet stem's 7x7 stride 2) on float FMA (CUDA cores). Strides are split into phases as in
// cuda:patch_dgrad (h + pad_h = stride_h * i + a: phase a sums taps r = a + stride_h * j against dy row i - j). A
// block takes 16 x 64 phase-grid positions and stages, 16 dy channels at a time, the dy patch they read as
// [channel][row][column] floats plus the filter taps of those channels as float4 (the 4 dx channels). Thread
// (row, group g) owns positions 4g .. 4g + 3 of its row in every phase: per (phase, row tap, channel) two 16-byte
// reads of the dy row segment serve all column taps (position t with tap l reads column 4g + t - l), and each
// tap's float4 of weights is the same for the whole warp (broadcast): 16 FMAs per tap for 2 / 4 + 1 reads.
#include <algorithm>
#include <cstdint>

#include "core/dtype.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/index.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/impls.h"
#include "cuda/conv/patch_input.cuh"

namespace fd::cuda::conv {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr int kThreads = 256;          // 16 rows x 16 groups of 4 positions
constexpr int kTileI = 16, kTileU = 64;
constexpr int kCh = 16;                // dy channels staged at once
constexpr int kMaxTaps = 4;            // column taps per phase (ceil(S / stride_w)), and dx channels
constexpr int kMaxPhases = 4;
constexpr int kPitch = kTileU + kMaxTaps;  // patch columns: left-padded so each group's segment is 16-byte aligned
constexpr size_t kMaxSmem = 110 * 1024;

struct FmaDgradGeom {
  int64_t N = 0, C = 0, H = 0, W = 0, K = 0, P = 0, Q = 0;
  int R = 1, S = 1, sh = 1, sw = 1, ph = 0, pw = 0;
  int Rm = 1, Sm = 1;  // taps per phase at most: ceil(R / sh), ceil(S / sw)
  int i_min = 0, u_min = 0, tiles_i = 1, tiles_u = 1, chunks = 1;
  int PR = 0;          // patch rows: 16 + Rm - 1
  View5 dyv, dxv, wv;
  bool flip = false;
  SmallDivider div_pitch, div_pr;
};

__host__ __device__ inline size_t patch_floats(const FmaDgradGeom& g) { return size_t(kCh) * g.PR * kPitch; }
__host__ __device__ inline size_t smem_bytes(const FmaDgradGeom& g) {
  return patch_floats(g) * 4 + size_t(g.R) * g.S * kCh * 16;
}

// dy rows p_lo .., columns u0 - kMaxTaps + 1 .. (patch column c reads dy column u0 - kMaxTaps + 1 + c), channels
// k0 .. k0 + 15 of image n; zero outside dy and past K. Then the chunk's filter taps: [tap][channel] float4 of the
// effective (flipped for CUDNN_CONVOLUTION) filter over the dx channels, zero past C and K.
__device__ __forceinline__ void stage(const FmaDgradGeom& g, const float* __restrict__ dy, const float* __restrict__ w,
                                      float* patch, float4* taps, int64_t n, int64_t p_lo, int64_t q_lo, int64_t k0) {
  const int tid = threadIdx.x;
  constexpr int kBatch = 8;
  const int total = kCh * g.PR * kPitch;  // column fastest: NCHW dy rows read together
  for (int i0 = 0; i0 < total; i0 += kThreads * kBatch) {
    float v[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int i = i0 + j * kThreads + tid, rest = g.div_pitch.div(i), c = i - rest * kPitch, kk = g.div_pr.div(rest),
                pr = rest - kk * g.PR;
      const int64_t p = p_lo + pr, q = q_lo + c, k = k0 + kk;
      v[j] = i < total && p >= 0 && p < g.P && q >= 0 && q < g.Q && k < g.K
                 ? dy[n * g.dyv.st[0] + k * g.dyv.st[1] + p * g.dyv.st[3] + q * g.dyv.st[4]]
                 : 0.f;
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j)
      if (i0 + j * kThreads + tid < total) patch[i0 + j * kThreads + tid] = v[j];
  }
  for (int i = tid; i < g.R * g.S * kCh; i += kThreads) {
    const int tap = i / kCh, kk = i - tap * kCh, r = tap / g.S, s = tap - r * g.S;
    const int64_t k = k0 + kk;
    float c4[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int c = 0; c < 4; ++c)
      if (c < g.C && k < g.K) c4[c] = w[g.wv.at(k, c, 0, g.flip ? g.R - 1 - r : r, g.flip ? g.S - 1 - s : s)];
    taps[i] = make_float4(c4[0], c4[1], c4[2], c4[3]);
  }
}

__global__ void __launch_bounds__(kThreads, 2)
    patch_fma_dgrad_kernel(FmaDgradGeom g, const float* __restrict__ dy, const float* __restrict__ w,
                           float* __restrict__ dx, float alpha, float beta, int64_t tiles) {
  extern __shared__ __align__(16) unsigned char smem[];
  float* patch = reinterpret_cast<float*>(smem);
  float4* taps = reinterpret_cast<float4*>(smem + patch_floats(g) * 4);
  const int ri = threadIdx.x >> 4, grp = threadIdx.x & 15;
  const int phases = g.sh * g.sw;
  const FusedDev none{};

  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t tu = tile % g.tiles_u, rest = tile / g.tiles_u;
    const int64_t ti = rest % g.tiles_i, n = rest / g.tiles_i;
    const int64_t i0 = g.i_min + ti * kTileI, u0 = g.u_min + tu * kTileU;
    float acc[kMaxPhases][4][4];  // phase, position, dx channel
#pragma unroll
    for (int f = 0; f < kMaxPhases; ++f)
#pragma unroll
      for (int t = 0; t < 4; ++t)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[f][t][c] = 0.f;

    for (int chunk = 0; chunk < g.chunks; ++chunk) {
      __syncthreads();  // the last reads of the previous patch are done
      stage(g, dy, w, patch, taps, n, i0 - (g.Rm - 1), u0 - (kMaxTaps - 1), int64_t(chunk) * kCh);
      __syncthreads();
#pragma unroll
      for (int f = 0; f < kMaxPhases; ++f) {
        if (f >= phases) break;
        const int a = f / g.sw, b = f - a * g.sw;
        for (int r = a, j = 0; r < g.R; r += g.sh, ++j) {
          const float* row = patch + (ri - j + g.Rm - 1) * kPitch + grp * 4;
          for (int kk = 0; kk < kCh; ++kk) {
            const float4 lo = *reinterpret_cast<const float4*>(row + kk * g.PR * kPitch);
            const float4 hi = *reinterpret_cast<const float4*>(row + kk * g.PR * kPitch + 4);
            const float seg[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
            const float4* wt = taps + (r * g.S + b) * kCh + kk;
#pragma unroll
            for (int l = 0; l < kMaxTaps; ++l) {
              if (b + l * g.sw >= g.S) break;
              const float4 w4 = wt[l * g.sw * kCh];
#pragma unroll
              for (int t = 0; t < 4; ++t) {
                const float d = seg[t - l + kMaxTaps - 1];  // dy column u - l of position t
                acc[f][t][0] = fmaf(d, w4.x, acc[f][t][0]);
                acc[f][t][1] = fmaf(d, w4.y, acc[f][t][1]);
                acc[f][t][2] = fmaf(d, w4.z, acc[f][t][2]);
                acc[f][t][3] = fmaf(d, w4.w, acc[f][t][3]);
              }
            }
          }
        }
      }
    }

    // Offsets from dx's strides directly (vect is 1 for float): View5::at's vector branch put a 64-bit division
    // at each of the 64 stores (run 41, as in cuda:patch_dgrad).
    const int64_t base_n = n * g.dxv.st[0];
#pragma unroll
    for (int f = 0; f < kMaxPhases; ++f) {
      if (f >= phases) break;
      const int a = f / g.sw, b = f - a * g.sw;
      const int64_t h = (i0 + ri) * g.sh + a - g.ph;
      if (h < 0 || h >= g.H) continue;
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        const int64_t wi = (u0 + grp * 4 + t) * g.sw + b - g.pw;
        if (wi < 0 || wi >= g.W) continue;
        const int64_t off = base_n + h * g.dxv.st[3] + wi * g.dxv.st[4];
#pragma unroll
        for (int c = 0; c < 4; ++c)
          if (c < g.C) write_out(dx, off + c * g.dxv.st[1], acc[f][t][c], alpha, beta, none, n, c, 0, h, wi);
      }
    }
  }
}

bool make_geom(const ConvProblem& p, FmaDgradGeom* out, const char** why) {
  FmaDgradGeom g;
  g.N = p.mb, g.C = p.ic, g.H = p.ih, g.W = p.iw, g.K = p.oc, g.P = p.oh, g.Q = p.ow;
  g.R = int(p.kh), g.S = int(p.kw), g.sh = p.sh, g.sw = p.sw, g.ph = p.ph, g.pw = p.pw;
  if (g.sh * g.sw > kMaxPhases) {
    *why = "stride_h * stride_w is above 4 (the phases' sums live in registers)";
    return false;
  }
  g.Rm = (g.R + g.sh - 1) / g.sh;
  g.Sm = (g.S + g.sw - 1) / g.sw;
  if (g.Sm > kMaxTaps) {
    *why = "more than 4 column taps per stride phase (ceil(S / stride_w) > 4)";
    return false;
  }
  g.i_min = g.ph / g.sh;
  g.u_min = g.pw / g.sw;
  const int64_t ni = (g.H - 1 + g.ph) / g.sh - g.i_min + 1, nu = (g.W - 1 + g.pw) / g.sw - g.u_min + 1;
  g.tiles_i = int((ni + kTileI - 1) / kTileI);
  g.tiles_u = int((nu + kTileU - 1) / kTileU);
  g.chunks = int((g.K + kCh - 1) / kCh);
  g.PR = kTileI + g.Rm - 1;
  if (smem_bytes(g) > patch_smem_budget(kMaxSmem)) {
    *why = "the dy patch and filter taps exceed the shared memory budget (filter too tall)";
    return false;
  }
  g.div_pitch = SmallDivider(kPitch), g.div_pr = SmallDivider(g.PR);
  g.dyv = view5(*p.y);
  g.dxv = view5(*p.x);
  g.wv = view5(p.w->as_tensor);
  g.flip = p.mode == CUDNN_CONVOLUTION;
  *out = g;
  return true;
}

cudnnStatus_t launch(const ConvProblem& p, const ConvArgs& a) {
  FmaDgradGeom g;
  const char* why = "";
  FD_CHECK_SUPPORTED(make_geom(p, &g, &why), "cuda:patch_fma_dgrad: %s", why);
  cudnnContext* h = a.handle;
  const size_t smem = smem_bytes(g);
  const void* kernel = reinterpret_cast<const void*>(&patch_fma_dgrad_kernel);
  FD_TRY(allow_dynamic_smem(kernel, smem, h->device));
  const int64_t tiles = g.N * g.tiles_i * g.tiles_u;
  const int grid = resident_grid(kernel, tiles, 1, kThreads, smem, h->device);
  patch_fma_dgrad_kernel<<<grid, kThreads, smem, h->stream>>>(g, static_cast<const float*>(a.in),
                                                              static_cast<const float*>(a.in2),
                                                              static_cast<float*>(a.out), static_cast<float>(a.alpha),
                                                              static_cast<float>(a.beta), tiles);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

class PatchFmaDgrad final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cuda:patch_fma_dgrad"; }
  fd::Backend backend() const override { return fd::Backend::cuda; }
  bool serves(ConvDir dir, int algo) const override {
    return dir == ConvDir::bwd_data && algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
  }
  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    auto no = [](const char* why) { return fd::conv::Verdict{CUDNN_STATUS_NOT_SUPPORTED, why}; };
    if (!patch_fma_bwd_enabled()) return no("turned off with FREEDNN_PATCH_FMA_BWD=0");
    if (const char* why = patch_refusal(p, ConvDir::bwd_data, kMaxTaps, true)) return no(why);
    if (p.dh != 1 || p.dw != 1) return no("dilation");
    FmaDgradGeom g;
    const char* why = "";
    if (!make_geom(p, &g, &why)) return no(why);
    return {};
  }
  size_t workspace_size(const ConvProblem&) const override { return 0; }
  bool deterministic() const override { return true; }  // one thread sums each dx element in a fixed order
  cudnnMathType_t math_type(const ConvProblem&) const override { return CUDNN_FMA_MATH; }
  double cost_estimate(const ConvProblem& p) const override {
    // FMA work: every dx pixel, its taps (R * S / strides), dy channels, 4 dx channels, at about half of the H200's
    // ~67 TFLOP/s; plus dy read ~1.3x (the patch halo) and dx.
    return patch_phase_cost(p, 4, 1.3, 4, 33e12, 8e-6);
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:patch_fma_dgrad called without a handle");
    return launch(p, a);
  }
};

}  // namespace

const fd::conv::ConvImpl* patch_fma_dgrad_impl() {
  static const PatchFmaDgrad impl;
  return &impl;
}

}  // namespace fd::cuda::conv
