// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise forward and backward data at stride 1 from shared-memory tiles (depthwise_tile_s1.cu).
#pragma once
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv {

// On unless FREEDNN_DW_TILE=0 (read at every call, so that a test or an A/B run can switch it): it measured faster
// than the strip and walk kernels on every stride-1 layer of MobileNet-v2 (run 16). Stride 2 unless
// FREEDNN_DW_TILE_S2=0; dw_tile_s1_run then declines the sizes where its only form would be the slow one.
bool dw_tile_s1_wanted(const fd::ConvProblem& p);
// A forward or backward data it covers: packed NHWC x and y, f32 / f16 / bf16, C a multiple of 8 bytes of elements,
// 3x3 filter at stride 1 (or a forward at stride 2), padding 0..2, no dilation, no fused epilogue, 32-bit offsets,
// 8-byte aligned source and destination.
bool dw_tile_s1_covers(const fd::ConvProblem& p, const fd::conv::ConvArgs& a);
// Runs a problem it covers on the handle's stream; NOT_SUPPORTED with nothing queued where it declines (stride 2 on
// outputs larger than 14 x 14 without the TMA form, unless FREEDNN_DW_TILE_S2=1): the caller takes the next kernel.
cudnnStatus_t dw_tile_s1_run(const fd::ConvProblem& p, const fd::conv::ConvArgs& a);

}  // namespace fd::cuda::conv
