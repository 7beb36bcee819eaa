// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise forward on column walks with the filter in registers (depthwise_fwd_walk.cu; FREEDNN_DW_FWD=walk,
// opt-in until timed on a GPU).
#pragma once
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv {

// FREEDNN_DW_FWD=walk (read at every call, so that a test or an A/B run can switch it).
bool dw_fwd_walk_wanted();
// A forward it covers: packed NHWC x and y, f32 / f16 / bf16, C a multiple of 8 bytes of elements, 3x3 filter,
// the same stride (1 or 2) in H and W, padding 0..2, no dilation, no fused epilogue, 32-bit offsets, 8-byte
// aligned x and y.
bool dw_fwd_walk_covers(const fd::ConvProblem& p, const fd::conv::ConvArgs& a);
// Runs a forward it covers on the handle's stream.
cudnnStatus_t dw_fwd_walk_run(const fd::ConvProblem& p, const fd::conv::ConvArgs& a);

}  // namespace fd::cuda::conv
