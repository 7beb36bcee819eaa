// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The geometry of cuda:nchw_tf32 (nchw_tf32.cu), apart from the kernel so that the host-side plan can be tested
// without a GPU: one convolution as "input channels Ci of an N x H x W image in, Ko channels of OH x OW out" (the
// forward, or the stride-1 backward data as a forward over dy with the filter transposed and flipped).
#pragma once
#include <cstdint>

namespace fd::cuda::conv::nchw_tf32 {

constexpr int kBM = 128;        // output pixels per block (two warpgroups of 64 rows)
constexpr int kBN = 128;        // output channels per block
constexpr int kStages = 3;      // shared-memory stages
constexpr int kMaxTaps = 25;    // filter taps (R x S) a stage holds at most
constexpr int kMaxPitch = 1024;  // input elements per channel a tile may need (4 per thread of 256)
constexpr int kSmemBudget = 220 * 1024;

struct Geom {
  int n = 0, ci = 0, h = 0, w = 0;  // input
  int ko = 0, oh = 0, ow = 0;       // output
  int r = 1, s = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int taps = 1;
  int64_t m = 0;         // n x oh x ow output pixels
  int m_tiles = 0, k_tiles = 0;
  int groups = 1;        // 8-channel groups per stage
  int chunks = 0;        // stages' worth of input channels: ceil(ci / (8 groups))
  int ci_pad = 0;        // the transposed filter's channel pitch (a multiple of 8)
  int pitch = 0;         // floats per channel of a stage's input tile (>= every tile's span, = 8 mod 32)
  int w_bytes = 0;       // one stage's filter part: groups x taps x 128 x 8 floats
  int stage_bytes = 0;   // filter part + 8 groups x pitch floats, rounded up to 1 KB
  int smem_bytes = 0;    // the stages, their barriers and 1 KB to align them
  float alpha = 1.f, beta = 0.f;
};

#if defined(__CUDACC__)
#define FD_NCHW_TF32_HD __host__ __device__
#else
#define FD_NCHW_TF32_HD
#endif

// The input elements per channel that the tile of output pixels [m0, m0 + kBM) reads: from the first row its first
// pixel needs, column 0, to the end of the last row its last pixel needs, in flat (image, row, column) order.
// first_out: that range's start, in the same flat order. The host's plan and the kernel both use it.
FD_NCHW_TF32_HD inline int64_t tile_span(const Geom& g, int64_t m0, int64_t* first_out) {
  const int64_t ohw = int64_t(g.oh) * g.ow, hw = int64_t(g.h) * g.w;
  const int64_t first = m0, last = (g.m < m0 + kBM ? g.m : m0 + kBM) - 1;
  const int64_t nf = first / ohw, rf = first % ohw / g.ow, nl = last / ohw, rl = last % ohw / g.ow;
  int64_t lo = rf * g.sh - g.ph, hi = rl * g.sh - g.ph + int64_t(g.r - 1) * g.dh + 1;
  lo = lo < 0 ? 0 : lo > g.h ? g.h : lo;
  hi = hi < 0 ? 0 : hi > g.h ? g.h : hi;
  const int64_t q_lo = nf * hw + lo * g.w, q_hi = nl * hw + hi * g.w;
  if (first_out != nullptr) *first_out = q_lo;
  return q_hi > q_lo ? q_hi - q_lo : 0;
}

// Fills the derived fields (taps .. smem_bytes) from the sizes; false where the problem does not fit the kernel
// (why: the reason).
bool plan(Geom* g, const char** why);

}  // namespace fd::cuda::conv::nchw_tf32
