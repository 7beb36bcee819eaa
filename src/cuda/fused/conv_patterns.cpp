// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The two convolution patterns on the GPU: the x prologue (op tensor or transform, add tensor, activation) into
// the workspace's xact buffer, the convolution the plan chose, and the per-channel statistics (reduce tensor;
// ysqsum as NORM2 without its root, so no y-sized temporary).
#include <algorithm>
#include <cstdint>
#include <string>

#include "core/log.h"
#include "core/status.h"
#include "core/tensor_ops_desc.h"
#include "cuda/activation/activation.h"
#include "cuda/fused/fused_ops.h"
#include "cuda/tensor_ops/tensor_ops.h"
#include "dispatch/conv_registry.h"

namespace fd::cuda::fused {
namespace {

constexpr size_t kAlign = 256;  // each part of the workspace starts on this (a cudaMalloc'd base is aligned so)

size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// The workspace part at `offset` from the caller's pointer rounded up to kAlign (lay_out_workspace reported room
// for that); only asked for parts of non-zero size (the API checked the pointer then).
void* workspace_at(const cudnnFusedOpsVariantParamStruct& v, size_t offset) {
  const auto base = reinterpret_cast<uintptr_t>(v.ptr[CUDNN_PTR_WORKSPACE]);
  return reinterpret_cast<void*>((base + kAlign - 1) / kAlign * kAlign + offset);
}

// The convolution's input: x itself, or act(x * eqScale + eqBias) in the workspace's xact buffer (plan.xact's
// layout). Three passes over xact: a candidate for one fused kernel later.
cudnnStatus_t prologue(const cudnnContext* h, const cudnnFusedOpsPlanStruct& p,
                       const cudnnFusedOpsVariantParamStruct& v, const void** in) {
  const void* x = v.ptr[CUDNN_PTR_XDATA];
  *in = x;
  if (!p.prologue) return CUDNN_STATUS_SUCCESS;
  void* buf = workspace_at(v, p.xact_offset);
  if (p.has(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER)) {
    FD_TRY(op_tensor(h->stream, h->device, CUDNN_OP_TENSOR_MUL, CUDNN_NOT_PROPAGATE_NAN,
                     fused_double_compute(*p.x), *p.x, x, 1.0, &*p.eq, v.ptr[CUDNN_PTR_BN_EQSCALE], 1.0, p.xact, buf,
                     0.0));
  } else {
    FD_TRY(transform_tensor(h->stream, h->device, nullptr, *p.x, x, p.xact, buf, 1.0, 0.0));
  }
  if (p.has(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER))
    FD_TRY(add_tensor(h->stream, h->device, *p.eq, v.ptr[CUDNN_PTR_BN_EQBIAS], p.xact, buf, 1.0, 1.0));
  if (p.act) FD_TRY(activation_forward(h->stream, h->device, *p.act, 1.0, p.xact, buf, 0.0, p.xact, buf));
  *in = buf;
  return CUDNN_STATUS_SUCCESS;
}

// The implementation chosen and prepared at make time, on the workspace's first part (the parts after it must
// stay untouched). Another implementation of the plan's algorithm runs where that one now needs more (a tuning
// answer recorded since Make) or refuses the call's pointers, as in a plain convolution call (conv::settle).
cudnnStatus_t run_conv(cudnnContext* h, const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v,
                       const void* in, const void* in2, void* out) {
  fd::conv::ConvArgs a;
  a.handle = h;
  a.in = in;
  a.in2 = in2;
  a.out = out;
  a.workspace = p.conv_workspace > 0 ? workspace_at(v, 0) : nullptr;
  a.workspace_size = p.conv_workspace;
  const fd::conv::ConvImpl* impl = p.impl;
  size_t need = 0;
  FD_TRY(fd::conv::settle(p.problem, p.backend, p.algo, &impl, &need, &a));
  FD_CHECK_SUPPORTED(need <= a.workspace_size, "%s now needs %zu workspace bytes, more than the %zu the plan has for "
                     "it, and no other implementation of %s fits (make the plan again)", impl->id(), need,
                     a.workspace_size, fd::conv::algo_name(p.problem.dir, p.algo));
  return impl->run(p.problem, a);
}

}  // namespace

void lay_out_workspace(const cudnnContext* h, cudnnFusedOpsPlanStruct* p) {
  size_t end = p->conv_workspace;
  if (p->prologue) {
    p->xact_offset = align_up(end);
    end = p->xact_offset + p->xact.size_in_bytes();
  }
  if (p->y && p->stats) {  // the statistics of conv_bnstats (a finalize plan's `stats` are its inputs)
    const cudnnReduceTensorStruct sum = fd::fused_stats_reduction(*p, false), sq = fd::fused_stats_reduction(*p, true);
    p->reduce_workspace = std::max(reduce_workspace_size(h->device, sum, *p->y, *p->stats),
                                   reduce_workspace_size(h->device, sq, *p->y, *p->stats));
    if (p->reduce_workspace > 0) {
      p->reduce_offset = align_up(end);
      end = p->reduce_offset + p->reduce_workspace;
    }
  }
  p->workspace = end > 0 ? end + kAlign - 1 : 0;  // room to round the caller's pointer up to kAlign
}

cudnnStatus_t conv_bnstats(cudnnContext* h, const cudnnFusedOpsPlanStruct& p,
                           const cudnnFusedOpsVariantParamStruct& v) {
  const void* in = nullptr;
  FD_TRY(prologue(h, p, v, &in));
  void* y = v.ptr[CUDNN_PTR_YDATA];
  FD_TRY(run_conv(h, p, v, in, v.ptr[CUDNN_PTR_WDATA], y));
  if (!p.stats) return CUDNN_STATUS_SUCCESS;
  void* ws = p.reduce_workspace > 0 ? workspace_at(v, p.reduce_offset) : nullptr;
  if (p.has(CUDNN_PARAM_YSUM_PLACEHOLDER))
    FD_TRY(reduce_tensor(h->stream, h->device, fd::fused_stats_reduction(p, false), *p.y, y, *p.stats,
                         v.ptr[CUDNN_PTR_YSUM], 1.0, 0.0, nullptr, ws, p.reduce_workspace));
  if (p.has(CUDNN_PARAM_YSQSUM_PLACEHOLDER))
    FD_TRY(reduce_tensor(h->stream, h->device, fd::fused_stats_reduction(p, true), *p.y, y, *p.stats,
                         v.ptr[CUDNN_PTR_YSQSUM], 1.0, 0.0, nullptr, ws, p.reduce_workspace));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t wgrad(cudnnContext* h, const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v) {
  const void* in = nullptr;
  FD_TRY(prologue(h, p, v, &in));
  return run_conv(h, p, v, in, v.ptr[CUDNN_PTR_DYDATA], v.ptr[CUDNN_PTR_DWDATA]);
}

}  // namespace fd::cuda::fused
