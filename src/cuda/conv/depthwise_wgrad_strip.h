// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise backward filter, first level for packed NHWC 3x3 / 5x5 filters (depthwise_wgrad_strip.cu): writes
// the per-slice partial sums partial[slice][tap][c] (float) that depthwise_wgrad.cu's finish kernel adds in slice
// order, the layout of the per-pixel kernel it replaces.
#pragma once
#include <cstddef>
#include <cstdint>

#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv {

// Packed NHWC x and dy, f32 / f16 / bf16, square 3x3 or 5x5 filter, the same stride (1 or 2) in H and W, no
// dilation, sizes within its 32-bit counters; false when FREEDNN_DW_WGRAD_STRIP=0 (the per-pixel kernel).
bool dw_wgrad_strip_covers(const fd::ConvProblem& p);
// Bytes of partial sums it may write: the larger of its two plans (2 channels per thread, or 1 when C is odd or
// the pointers are not aligned to 2 elements), so the workspace query does not depend on the pointers.
size_t dw_wgrad_strip_partial_bytes(const fd::ConvProblem& p);
// Launches it on the handle's stream into `partial` (float, at least dw_wgrad_strip_partial_bytes); `slices`
// receives the number of partial rows written.
cudnnStatus_t dw_wgrad_strip_launch(const fd::ConvProblem& p, const fd::conv::ConvArgs& a, float* partial,
                                    int64_t& slices);

}  // namespace fd::cuda::conv
