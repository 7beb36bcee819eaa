// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise backward filter, first level on row walks with 16-byte channel vectors (depthwise_wgrad_rows.cu):
// writes partial[slice][tap][c] (float) for depthwise_wgrad.cu's finish kernel, the layout of the strip and
// per-pixel kernels.
#pragma once
#include <cstddef>
#include <cstdint>

#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv {

// Whether the row walk should serve p by default when it covers it (depthwise_wgrad.cu's first_level, which also
// reads FREEDNN_DW_WGRAD): output widths of 14 and more, where it measured faster than the strip kernel (run 16 on
// the H200: 0.39-0.79x its time on MobileNet-v2's layers; 1.03-1.30x on the 7-wide ones).
bool dw_wgrad_rows_wanted(const fd::ConvProblem& p);
// Packed NHWC x and dy, f32 / f16 / bf16, C a multiple of 16 bytes of elements, 3x3 filter, the same stride (1 or 2)
// in H and W, padding 0..2, no dilation, sizes within 32-bit offsets. Problem only (pointers: the launch checks).
bool dw_wgrad_rows_covers(const fd::ConvProblem& p);
// Bytes of partial sums it writes (problem only).
size_t dw_wgrad_rows_partial_bytes(const fd::ConvProblem& p);
// Launches it on the handle's stream into `partial`; `slices` receives the partial rows written. NOT_SUPPORTED
// (nothing queued) when x or dy is not 16-byte aligned.
cudnnStatus_t dw_wgrad_rows_launch(const fd::ConvProblem& p, const fd::conv::ConvArgs& a, float* partial,
                                   int64_t& slices);

}  // namespace fd::cuda::conv
