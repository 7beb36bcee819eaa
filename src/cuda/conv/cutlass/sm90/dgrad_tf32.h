// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The float backward data of cuda:cutlass_sm90_dgrad on TF32 tensor cores. CUTLASS 3.x's dgrad collective cannot
// take float: its filter operand reaches shared memory MN-major (the filter's C innermost, the reduction K*R*S
// outside) and TF32 wgmma reads K-major operands only. Nor does it take strides above 1. So the float dgrad runs as
// forward convolutions on the fprop_tf32 kernels, one per stride phase:
//   dx[n][c][h][w] = sum over k, r, s of dy[n][k][i][j] * w[k][c][r][s], where h = i * sh - ph + r * dh (w alike).
// The rows h = a + sh * i' of phase a (0 <= a < sh) meet the taps r with (a + ph - r * dh) divisible by sh, at dy
// row i = i' + (a + ph - r * dh) / sh: stepping r by sh / g (g = gcd(sh, dh)) steps that row by dh / g. So phase
// (a, b) is a stride-1 forward over dy in NHWC (K channels) with a sub-filter of Ta x Tb taps, dilation dh / g,
// and C output channels: G[c][u][v][k] = w[k][c][r(u)][s(v)], the taps reversed (u = 0 reads the lowest dy row);
// its output is the dense (n, Ha, Wb, C) grid of dx's pixels in that phase. Stride 1 is the one phase with the
// whole filter flipped: the usual dgrad-as-forward. A phase no tap reaches (a 1x1 filter at stride 2: three of
// four) is zero in dx.
//
// Operands, all packed in the workspace: dy in NHWC with K padded to a multiple of 4 (none when dy is already
// that), each phase's sub-filter (C and K padded to multiples of 4), each phase's output. One pass then writes
// dx = alpha * (its phase's value, or 0) + beta * dx in dx's layout, any 4-D strides: 32-pixel x 32-channel tiles,
// 16-byte loads along the channels, 16-byte stores along NCHW's rows (3.8 TB/s measured), or nhwc_staging.h's
// write-back for a single phase; skipped when that phase can write packed NHWC dx itself through the kernel's
// epilogue. The phases run at once on the handle's
// aux streams (aux_streams.h): a strided layer's phases are small GEMMs. Every dx element is summed by one CTA in
// a fixed order: deterministic.
//
// Windows: a phase reads dy rows from its first needed one (a pointer offset, the image stride kept:
// Geometry::act_stride_n) with its own top / bottom padding (Geometry::pad_h / pad_h_hi). Columns cannot be
// windowed that way (the kernels derive the row stride from the width), so a phase whose columns would need a
// negative padding on either side is declined (large padding relative to the filter, or dy columns no dx column
// reads).
#pragma once
#include <cudnn.h>

#include <cstddef>
#include <cstdint>

#include "cuda/conv/cutlass/sm90/dgrad_phases.h"
#include "cuda/conv/cutlass/sm90/sm90_kernels.h"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv::sm90 {

struct Tf32DgradPlan {
  int phases = 0;  // sh * sw
  DgradPhase ph[kMaxDgradPhases];
  int64_t kp = 0, cp = 0;       // K and C padded to multiples of 4
  bool copy_dy = false;         // dy is not packed NHWC with K % 4 == 0: transposed into the workspace
  bool direct = false;          // one phase writing packed NHWC dx itself (alpha, beta in its epilogue)
  bool narrow = false;          // 128 x 64 tiles (fprop_tf32_128x64), else 128 x 128
  size_t off_dy = 0, workspace = 0;  // workspace: the total plus 256 bytes of alignment slack
  int live = 0;                      // phases with a forward to run
  double seconds = 0;                // the model's time
};

// The forward kernel the phases run: fprop_tf32_128x64 when the plan says narrow (C <= 64, or wave quantization),
// else fprop_tf32_128x128_c2.
const Kernel& tf32_dgrad_kernel(const Tf32DgradPlan& plan);

// The plan for float p (the caller checked: float, TF32 allowed, 2-D, groups 1, 4-D x / y without vectors), or the
// reason it is declined. Problem-only, so the workspace query and the call agree.
fd::conv::Verdict tf32_dgrad_plan(const fd::ConvProblem& p, Tf32DgradPlan* plan);

// Whether the call's pointers suit the plan (accepts_pointers and run_tf32_dgrad's check): dy is a TMA operand in
// place unless copied, and so is dx where one phase writes it directly; both 16-byte aligned. Everything else goes
// through copies and passes that use vector accesses only where aligned.
fd::conv::Verdict tf32_dgrad_pointers(const Tf32DgradPlan& plan, const fd::conv::ConvArgs& a);

// Runs the plan on a.handle's streams: dx (a.out) = alpha * dgrad(dy = a.in, w = a.in2) + beta * dx.
cudnnStatus_t run_tf32_dgrad(const fd::ConvProblem& p, const fd::conv::ConvArgs& a, const Tf32DgradPlan& plan);

}  // namespace fd::cuda::conv::sm90
