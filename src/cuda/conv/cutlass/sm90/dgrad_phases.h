// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// A backward-data convolution as stride-1 forwards, one per stride phase (dgrad_tf32.h has the derivation): what
// the float path (dgrad_tf32.cu) and the 16-bit strided one (dgrad_phases16.cu) share. Per dim, which filter taps
// reach the dx positions of phase a and the dy window that forward reads (axis); over both dims, the phases and
// their forwards' geometry (plan_phases); the sub-filter copies; the launches on the handle's streams.
#pragma once
#include <cudnn.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>

#include "cuda/conv/cutlass/sm90/chwn_copy.h"
#include "cuda/conv/cutlass/sm90/sm90_grouped.h"
#include "cuda/conv/cutlass/sm90/sm90_kernels.h"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

struct cudnnContext;

namespace fd::cuda::conv::sm90 {

constexpr int kMaxStride = 4;                              // per dim
constexpr int kMaxDgradPhases = kMaxStride * kMaxStride;  // one per stride position

// One dim of one phase: which taps reach dx positions a, a + s, ... and the dy window they read.
struct Axis {
  int64_t out = 0;  // dx positions in the phase
  int taps = 0, r0 = 0;
  int64_t lo = 0, hi = 0;    // the forward's padding before / after the window
  int64_t top = 0, len = 0;  // the window: dy positions top .. top + len - 1
};

// a: the phase; s, d, pad: stride, dilation, padding; R: filter extent; X / Y: dx / dy extent.
inline Axis axis(int64_t a, int64_t s, int64_t d, int64_t pad, int64_t R, int64_t X, int64_t Y) {
  Axis x;
  x.out = a < X ? (X - a + s - 1) / s : 0;
  const int64_t g = std::gcd(s, d), step = s / g, dil = d / g;
  int64_t r0 = -1;
  for (int64_t r = 0; r < R && r < s; ++r)  // the residues repeat every s / g taps
    if (((a + pad - r * d) % s + s) % s == 0) {
      r0 = r;
      break;
    }
  if (r0 < 0 || x.out == 0) return x;
  const int64_t taps = (R - 1 - r0) / step + 1;
  const int64_t first = (a + pad - r0 * d) / s;  // dy position of tap r0 for i' = 0 (exact: divisible)
  const int64_t last = first - (taps - 1) * dil;  // of the last tap: the lowest
  const int64_t need_end = x.out - 1 + first;     // the highest dy position any output reads
  x.top = std::max<int64_t>(last, 0);
  const int64_t bottom = std::min<int64_t>(Y - 1, need_end);
  if (bottom < x.top) return x;  // every tap reads outside dy: zeros
  x.taps = static_cast<int>(taps), x.r0 = static_cast<int>(r0);
  x.lo = std::max<int64_t>(-last, 0);
  x.hi = need_end - bottom;
  x.len = bottom - x.top + 1;
  return x;
}

// One phase's forward: its taps along each dim (first tap r0, step, count), its output size and the dy window.
struct DgradPhase {
  int a = 0, b = 0;                    // the phase: dx rows a + sh * i', columns b + sw * j'
  int64_t ha = 0, wb = 0;              // its output rows / columns (0: no dx pixel in this phase)
  int ta = 0, tb = 0;                  // taps per dim (0: no tap reaches the phase: zeros)
  int r0 = 0, s0 = 0;                  // the first tap of each dim (the taps r0, r0 + step, ...)
  int64_t top = 0;                     // first dy row of the window
  Geometry g;                          // the forward (valid when ta, tb, ha, wb > 0)
  size_t off_w = 0, off_y = 0;         // byte offsets of its sub-filter and output in the workspace
  bool live() const { return ha > 0 && wb > 0 && ta > 0 && tb > 0; }
};

// ph[a * sw + b] for every phase of p (declined above kMaxStride per dim): taps, extents, dy window
// and, for the live ones, the forward over dy (kp input channels, cp output channels as the kernel sees them; dy
// packed NHWC with kp channels). Declines a live phase that would read a window of dy's columns (the kernels take
// row windows only). `what` starts the reasons.
fd::conv::Verdict plan_phases(const fd::ConvProblem& p, int64_t kp, int64_t cp, const char* what, DgradPhase* ph);

// The model's tensor-core seconds for the live phases of ph[0 .. n), run at once on sm_count SMs: tile_m x tile_n
// output tiles over (N * ha * wb) x cp, ta * tb * ceil(kp / tile_k) k-steps each, each SM at `flops` per second.
double phase_mma_seconds(const fd::ConvProblem& p, const DgradPhase* ph, int n, int64_t kp, int64_t cp,
                         int64_t tile_m, int64_t tile_n, int64_t tile_k, double flops, int sm_count);

// k takes every live phase of ph[0 .. n), without a workspace of its own.
fd::conv::Verdict check_phase_kernel(const Kernel& k, const DgradPhase* ph, int n, const char* what);

// Each live phase's sub-filter G[c][u][v][k] = w_eff[k][c][r(u)][s(v)] (C padded to cp, K to kp with zeros) at
// ws + off_w, u = 0 the last tap (the lowest dy row); w_eff is w flipped in CUDNN_CONVOLUTION mode. 16-bit w (as
// uint16_t): queued on st, in one launch (chwn_copy.h).
cudnnStatus_t copy_sub_filters(cudaStream_t st, const fd::ConvProblem& p, const DgradPhase* ph, int n,
                               const uint16_t* w, int64_t kp, int64_t cp, char* ws);
// Float w: the same copies written to out[] (room for kMaxDgradPhases) for the caller to launch with its own (the
// float dgrad's dy); returns how many (one per live phase).
int sub_filter_copies(const fd::ConvProblem& p, const DgradPhase* ph, int n, const float* w, int64_t kp, int64_t cp,
                      char* ws, ChwnCopy<float>* out);

// The indices of the live phases of ph[0 .. n) (n <= kMaxDgradPhases) in order[], the ones with the most taps
// first (their CTAs last longest: launched or scheduled first, the light ones fill in behind them instead of the
// heavy ones making a tail); returns how many.
int live_heaviest_first(const DgradPhase* ph, int n, int* order);

// Runs k over the live phases of ph[0 .. n) (`live` of them) with operands(phase) (its stream set here), the
// ones with the most taps first: the first on h's stream, the others at once on h's aux streams, and side (if any:
// work disjoint from every phase's) on one more aux stream (on h's stream when no phase is live); all joined back
// before returning. `id` names the caller in the reasons.
cudnnStatus_t run_phases(cudnnContext* h, const char* id, const fd::ConvProblem& p, const Kernel& k,
                         const DgradPhase* ph, int n, int live,
                         const std::function<Operands(const DgradPhase&)>& operands,
                         const std::function<cudnnStatus_t(cudaStream_t)>& side = {});

// The live phases of ph[0 .. n) in one launch of the grouped persistent kernel k (sm90_grouped.h) on h's stream,
// the ones with the most taps first (their tiles come first), and side (if any: work disjoint from every phase's)
// at once on an aux stream, joined back before returning. *launched = false (nothing queued, side included) when
// there are more live phases than a group holds or CUTLASS's checks of any phase fail: the caller runs them
// otherwise. Why: H200 run 21, the 16-bit 3x3 stride-2 layers' four phases took 0.70-0.83x the time of the
// separate launches (one CTA per SM walks every phase's tiles, the next tile's loads overlapping the last one's
// epilogue). The persistent grid leaves each SM threads and registers for side's blocks beside it all along.
cudnnStatus_t run_phases_grouped(cudnnContext* h, const char* id, const GroupKernel& k, const DgradPhase* ph, int n,
                                 const std::function<Operands(const DgradPhase&)>& operands,
                                 const std::function<cudnnStatus_t(cudaStream_t)>& side, bool* launched);

}  // namespace fd::cuda::conv::sm90
