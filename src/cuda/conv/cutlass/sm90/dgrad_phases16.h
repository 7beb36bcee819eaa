// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The strided 16-bit backward data of cuda:cutlass_sm90_dgrad (FREEDNN_SM90_DGRAD16_PHASES=0 turns it off, read at
// every call). CUTLASS 3.x's dgrad collective takes unit stride only, so a strided layer ran on the sm80 kernels
// (run 19: 0.62-0.79 of NVIDIA's persistent sm90 strided dgrad on ResNet-50's stride-2 layers). Here it runs as the
// float path does (dgrad_tf32.h has the derivation): one stride-1 forward per stride phase over dy, with that
// phase's sub-filter, on the fprop_f16 / fprop_bf16 kernels. Unlike the float path nothing is staged but the
// sub-filters: dy is already packed NHWC with K % 8 == 0, and each phase's forward writes its pixels of dx in
// place, through output strides of sw * C, sh * W * C and H * W * C elements from the phase's first pixel
// (Operands::d_strides), with alpha and beta in its epilogue. The pixels of phases no tap reaches (three of four
// for a 1x1 filter at stride 2) get alpha * 0 + beta * dx from one pass over dx. Phases and that pass run at once
// on the handle's aux streams. H200 run 20: 0.84-0.94x the time of the best before it on ResNet's 1x1 stride-2
// layers, 0.99-1.45x on the 3x3 ones, so Find and the calibrated model choose per layer. Two or more live phases
// of a 128x128-tile plan run instead in one launch of the grouped persistent kernel (sm90_grouped.h; run 21:
// 0.70-0.83x the separate launches' time on the 3x3 layers), unless FREEDNN_SM90_PHASES_GROUPED=0, the pass over
// the empty phases beside it; so does one live phase (a 1x1 filter at stride 2; run 22: 0.91-0.93x the separate
// launch's time) unless FREEDNN_SM90_PHASES_GROUPED_SINGLE=0.
// Every dx element is summed by one CTA in a fixed order: deterministic.
#pragma once
#include <cudnn.h>

#include <cstddef>

#include "cuda/conv/cutlass/sm90/dgrad_phases.h"
#include "cuda/conv/cutlass/sm90/sm90_kernels.h"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv::sm90 {

struct Dgrad16Plan {
  int phases = 0;  // sh * sw
  DgradPhase ph[kMaxDgradPhases];
  int live = 0;             // phases with a forward to run
  unsigned empty_mask = 0;  // phases with dx pixels and no tap: bit a * sw + b
  bool narrow = false;  // 128 x 64 tiles (C <= 64, or FREEDNN_SM90_DGRAD16_NARROW=1), else 128 x 128 in 2 x 1 clusters
  size_t workspace = 0;  // the sub-filters plus 256 bytes of alignment slack
  double seconds = 0;    // the model's time
};

// Whether p is a problem for this path: 16-bit data, a stride above 1, the knob not off. The caller then checks the
// problem as for the unit-stride kernels (sm90_impl.h) and asks for the plan.
bool dgrad16_phases_wanted(const fd::ConvProblem& p);

// The plan, or why it is declined (strides above 4, a phase reading a window of dy's columns, TMA limits).
fd::conv::Verdict dgrad16_plan(const fd::ConvProblem& p, Dgrad16Plan* plan);

// Whether the call's pointers suit it (accepts_pointers and run_dgrad16's check): dy and dx are TMA operands in place,
// 16-byte aligned; w is read by the sub-filters' copy.
fd::conv::Verdict dgrad16_pointers(const fd::conv::ConvArgs& a);

// dx (a.out) = alpha * dgrad(dy = a.in, w = a.in2) + beta * dx on a.handle's streams.
cudnnStatus_t run_dgrad16(const fd::ConvProblem& p, const fd::conv::ConvArgs& a, const Dgrad16Plan& plan);

}  // namespace fd::cuda::conv::sm90
