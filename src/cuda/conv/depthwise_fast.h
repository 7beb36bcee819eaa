// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise's kernel files (host side): the register-strip NHWC forward / backward data kernels
// (depthwise_nhwc.cu) and the backward filter with per-slice partial sums and a deterministic reduction
// (depthwise_wgrad.cu). depthwise.cu holds the implementation object, the generic fallback kernels and the dispatch.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/tensor_desc.h"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv {

// Packed channel-innermost 4-D tensor (NHWC with strides C*H*W, 1, W*C, C; size-1 dims are free).
inline bool dw_packed_nhwc(const cudnnTensorStruct& t) {
  if (t.vect() != 1 || t.nb_dims != 4) return false;
  const int order[4] = {1, 3, 2, 0};
  int64_t s = 1;
  for (int i : order) {
    if (t.dims[i] != 1 && t.strides[i] != s) return false;
    s *= t.dims[i];
  }
  return true;
}

// depthwise_nhwc.cu: forward and backward data, packed NHWC x and y, f32/f16/bf16, C a multiple of 16 bytes of
// elements, square 3x3 or 5x5 filter, stride 1 or 2 (same in H and W), no dilation. The problem only (pointers:
// dw_nhwc_fast_aligned).
bool dw_nhwc_fast_covers(const fd::ConvProblem& p);
// The data pointers the fast kernels read and write with 16-byte vectors (a.in and a.out) are 16-byte aligned.
bool dw_nhwc_fast_aligned(const fd::conv::ConvArgs& a);
// Runs a problem dw_nhwc_fast_covers accepted, with aligned pointers.
cudnnStatus_t dw_nhwc_fast_run(const fd::ConvProblem& p, const fd::conv::ConvArgs& a);

// depthwise_wgrad.cu: backward filter, every problem cuda:depthwise accepts (any strides, f32/f64/f16/bf16).
size_t dw_wgrad_workspace(const fd::ConvProblem& p);      // bytes the caller's workspace must hold
size_t dw_wgrad_partial_bytes(const fd::ConvProblem& p);  // of which per-slice partial sums
cudnnStatus_t dw_wgrad_run(const fd::ConvProblem& p, const fd::conv::ConvArgs& a);

}  // namespace fd::cuda::conv
