// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise backward filter, first level at stride 1 from shared-memory tiles (depthwise_wgrad_tile.cu): writes
// partial[slice][tap][c] (float) for depthwise_wgrad.cu's finish kernel, the layout of the other first levels.
#pragma once
#include <cstddef>
#include <cstdint>

#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv {

// Packed NHWC x and dy, f32 / f16 / bf16, C a multiple of 8 bytes of elements, 3x3 filter at stride 1, padding 0..2,
// no dilation, sizes within 32-bit offsets. Problem only (pointers: the launch checks).
bool dw_wgrad_tile_covers(const fd::ConvProblem& p);
// Bytes of partial sums it writes (problem only).
size_t dw_wgrad_tile_partial_bytes(const fd::ConvProblem& p);
// Launches it on the handle's stream into `partial`; `slices` receives the partial rows written. NOT_SUPPORTED
// (nothing queued) when x or dy is not 8-byte aligned.
cudnnStatus_t dw_wgrad_tile_launch(const fd::ConvProblem& p, const fd::conv::ConvArgs& a, float* partial,
                                   int64_t& slices);

}  // namespace fd::cuda::conv
