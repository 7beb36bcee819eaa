// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise's kernel files (host side): the register-strip NHWC forward / backward data kernels
// (depthwise_nhwc.cu) and the backward filter with per-slice partial sums and a deterministic reduction
// (depthwise_wgrad.cu). depthwise.cu holds the implementation object, the generic fallback kernels and the dispatch.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/dtype.h"
#include "core/tensor_desc.h"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv {

// What the 3x3 kernels on 8-byte channel vectors share (depthwise_fwd_walk.cu, depthwise_tile_s1.cu,
// depthwise_wgrad_tile.cu): 2-D f32 / f16 / bf16 with x and y of one type, packed NHWC x and y, a 3x3 filter without
// dilation, padding 0..2, C a multiple of 8 bytes of elements, x and y below 2^31 elements (int offsets). Each
// caller adds its direction, stride, filter-type, pointer and grid checks.
inline bool dw_3x3_vec8_nhwc(const fd::ConvProblem& p) {
  if (p.nsp != 2 || p.x->nb_dims != 4) return false;
  if (p.xdt != CUDNN_DATA_FLOAT && p.xdt != CUDNN_DATA_HALF && p.xdt != CUDNN_DATA_BFLOAT16) return false;
  if (p.ydt != p.xdt) return false;
  if (!packed_nhwc(*p.x) || !packed_nhwc(*p.y)) return false;
  if (p.kh != 3 || p.kw != 3 || p.dh != 1 || p.dw != 1) return false;
  if (p.ph < 0 || p.ph > 2 || p.pw < 0 || p.pw > 2) return false;
  if (p.ic % (8 / static_cast<int64_t>(dtype_size(p.xdt))) != 0) return false;
  const int64_t lim = int64_t{1} << 31;
  return p.mb * p.ih * p.iw * p.ic < lim && p.mb * p.oh * p.ow * p.ic < lim;
}

// The largest divisor of n up to cap: channel vectors per CTA, so that the CTAs' channel groups divide C exactly.
inline int largest_divisor_upto(int64_t n, int cap) {
  int d = 1;
  for (int b = 1; b <= cap && b <= n; ++b)
    if (n % b == 0) d = b;
  return d;
}

// The work split of the row-walk kernels (depthwise_fwd_walk.cu, depthwise_wgrad_rows.cu): C / v channel vectors in
// CTA groups of bx (the largest divisor up to 32, so the groups divide C exactly), and the N * OH output rows cut
// into `segs` column segments of seg_len (at least min_segment columns) until the items times
// threads_per_vector * C / v threads reach target_threads. Problem-only.
struct DwRowSplit {
  int bx = 1, groups = 1, segs = 1, seg_len = 1;
  int64_t items = 1;  // N * OH * segs
};
inline DwRowSplit dw_row_split(const fd::ConvProblem& p, int64_t v, int64_t threads_per_vector,
                               int64_t target_threads, int64_t min_segment) {
  DwRowSplit d;
  const int64_t cv = p.ic / v;
  d.bx = largest_divisor_upto(cv, 32);
  d.groups = static_cast<int>(cv / d.bx);
  const int64_t rows = p.mb * p.oh, max_segs = std::max<int64_t>(1, p.ow / min_segment);
  const int64_t want = (target_threads + rows * threads_per_vector * cv - 1) / (rows * threads_per_vector * cv);
  const int64_t segs = std::clamp<int64_t>(want, 1, max_segs);
  d.seg_len = static_cast<int>((p.ow + segs - 1) / segs);
  d.segs = static_cast<int>((p.ow + d.seg_len - 1) / d.seg_len);
  d.items = rows * d.segs;
  return d;
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
