// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The float backward filter of cuda:cutlass_sm90_wgrad on TF32 tensor cores. CUTLASS 3.x's wgrad collective cannot
// take float: its operands dy and x reach shared memory MN-major (channels innermost, the reduction N*P*Q outside),
// and TF32 wgmma reads K-major operands only (cute's ss_op_selector static_asserts it). So the float wgrad runs as a
// forward convolution with the roles of the batch and the channels swapped, on the existing fprop_tf32 kernels:
//   dw[k][c][r][s] = sum over n, p, q of dy[n][k][p][q] * x[n][c][p*sh + r*dh - ph][q*sw + s*dw - pw]
// is the forward of an "activation" A[c][h][w][n] (C images of H x W pixels with N channels: x transposed) with a
// "filter" B[k][p][q][n] (K filters of P x Q taps: dy transposed), stride (dh, dw), dilation (sh, sw), giving an
// "output" Y[c][r][s][k]: C images of R x S pixels with K channels. Both transposed copies are packed, with N and K
// padded to multiples of 4 (zeros), in the workspace; the reduction (p, q, n) is channels-innermost: K-major.
//
// Slices: dw has as many tiles as that forward's C*R*S x K output (few for ResNet's 3x3 layers: 5-36 at N=64), so
// the reduction is cut along the rows p of dy: slice j takes rows [p0, p1), the window of A's rows those read
// (pointer offset, A's image stride kept: Geometry::act_stride_n) with its own top / bottom padding
// (Geometry::pad_h / pad_h_hi), and B's taps p0..p1-1 (Geometry::flt_stride_k). Each slice is one kernel run on its
// own stream (aux_streams.h: event fork/join, capture-safe) writing float partials Y_j; one pass adds them in slice
// order and writes dw = alpha * sum + beta * dw in the filter's layout (KCRS or KRSC): deterministic. Slices also
// keep each run inside TMA im2col's reach ((taps - 1) * dilation within 128 of the padding).
//
// The slice count: FREEDNN_SM90_WGRAD_SPLITS when set, one (or the fewest TMA allows) with
// FREEDNN_SM90_WGRAD_NO_SPLIT, else a model's best (waves of one CTA per SM, a wave as long as its largest slice, the
// host's per-slice cost, the bytes of the copies and partials). Its rates are guesses until measured.
#pragma once
#include <cudnn.h>

#include <cstddef>
#include <cstdint>

#include "cuda/conv/cutlass/sm90/sm90_kernels.h"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv::sm90 {

struct Tf32WgradPlan {
  int slices = 0;
  int64_t np = 0, kp = 0;  // N and K padded to multiples of 4
  int64_t hc = 0, wc = 0;  // rows and columns of x copied (those past the last one any output reads are dropped)
  int pad_w_hi = 0;        // right padding of the transposed forward (left: pw)
  // Byte offsets from the 256-byte aligned workspace start: A (x transposed), B (dy transposed), the partials (one
  // part_bytes block per slice); workspace: the total plus 256 bytes of alignment slack.
  size_t off_a = 0, off_b = 0, off_part = 0, part_bytes = 0, workspace = 0;
  double seconds = 0;  // the model's time
  int64_t rows = 0;    // P
  // First dy row of slice j; p0(slices) == P.
  int64_t p0(int j) const { return static_cast<int64_t>(j) * rows / slices; }
};

// The forward kernel of the plan (fprop_tf32_128x64 when K <= 64, else fprop_tf32_128x128_c2).
const Kernel& tf32_wgrad_kernel(const fd::ConvProblem& p);

// The plan for float p (check_problem passed: float, TF32 allowed, 2-D, groups 1, cross-correlation) on a device of
// `sm_count` SMs, or the reason it is declined. Depends on the problem, the SM count and the environment only, so
// the workspace query and the call agree.
fd::conv::Verdict tf32_wgrad_plan(const fd::ConvProblem& p, int sm_count, Tf32WgradPlan* plan);

// Slice j's forward geometry, and the element offsets of its window into A and B.
Geometry tf32_wgrad_slice(const fd::ConvProblem& p, const Tf32WgradPlan& plan, int j, int64_t* a_off,
                          int64_t* b_off);

// Runs the plan on a.handle's streams: dw (a.out) = alpha * conv + beta * dw. a.workspace holds plan.workspace bytes.
cudnnStatus_t run_tf32_wgrad(const fd::ConvProblem& p, const fd::conv::ConvArgs& a, const Tf32WgradPlan& plan);

}  // namespace fd::cuda::conv::sm90
