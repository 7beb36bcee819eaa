// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise forward on column walks with the filter in registers (depthwise_fwd_walk.cu).
#pragma once
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv {

// Whether the walk should serve p when it covers it (at stride 1 the tile kernel, depthwise_tile_s1.h, comes first):
// at stride 2 or output widths up to 28, where it measured faster than the strip kernel (run 16 on the H200: 0.71-0.94x its time on MobileNet-v2's layers; 1.04-1.27x on
// the 56- and 112-wide stride-1 layers). FREEDNN_DW_FWD=walk|strip forces it either way (read at every call).
bool dw_fwd_walk_wanted(const fd::ConvProblem& p);
// A forward it covers: packed NHWC x and y, f32 / f16 / bf16, C a multiple of 8 bytes of elements, 3x3 filter,
// the same stride (1 or 2) in H and W, padding 0..2, no dilation, no fused epilogue, 32-bit offsets, 8-byte
// aligned x and y.
bool dw_fwd_walk_covers(const fd::ConvProblem& p, const fd::conv::ConvArgs& a);
// Runs a forward it covers on the handle's stream.
cudnnStatus_t dw_fwd_walk_run(const fd::ConvProblem& p, const fd::conv::ConvArgs& a);

}  // namespace fd::cuda::conv
