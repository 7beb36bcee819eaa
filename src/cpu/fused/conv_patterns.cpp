// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The two convolution patterns: the x prologue (op tensor, add tensor, activation), the convolution through
// the registry, and the per-channel statistics (reduce tensor).
#include <vector>

#include "core/status.h"
#include "core/tensor_ops_desc.h"
#include "cpu/activation/activation.h"
#include "cpu/fused/fused_ops.h"
#include "cpu/tensor_ops/tensor_ops.h"
#include "dispatch/conv_registry.h"

namespace fd::cpu::fused {
namespace {

// The convolution's input: x itself, or act(x * eqScale + eqBias) in `buf` (plan.xact's layout).
const void* prologue(const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v,
                     std::vector<unsigned char>& buf) {
  const void* x = v.ptr[CUDNN_PTR_XDATA];
  if (!p.prologue) return x;
  buf.assign(p.xact.size_in_bytes(), 0);
  if (p.has(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER)) {
    op_tensor(CUDNN_OP_TENSOR_MUL, CUDNN_NOT_PROPAGATE_NAN, fused_double_compute(*p.x), *p.x, x, 1.0, &*p.eq,
              v.ptr[CUDNN_PTR_BN_EQSCALE], 1.0, p.xact, buf.data(), 0.0);
  } else {
    transform_tensor(nullptr, *p.x, x, p.xact, buf.data(), 1.0, 0.0);
  }
  if (p.has(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER))
    add_tensor(*p.eq, v.ptr[CUDNN_PTR_BN_EQBIAS], p.xact, buf.data(), 1.0, 1.0);
  if (p.act) activation_forward(*p.act, 1.0, p.xact, buf.data(), 0.0, p.xact, buf.data());
  return buf.data();
}

cudnnStatus_t run_conv(const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v, const void* in,
                       const void* in2, void* out) {
  conv::ConvArgs a;
  a.in = in;
  a.in2 = in2;
  a.out = out;
  a.workspace = v.ptr[CUDNN_PTR_WORKSPACE];
  a.workspace_size = v.workspace_size;
  return p.impl->run(p.problem, a);  // the implementation the plan chose and sized the workspace for
}

}  // namespace

cudnnStatus_t conv_bnstats(const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v) {
  std::vector<unsigned char> xact;
  const void* in = prologue(p, v, xact);
  void* y = v.ptr[CUDNN_PTR_YDATA];
  FD_TRY(run_conv(p, v, in, v.ptr[CUDNN_PTR_WDATA], y));
  if (!p.stats) return CUDNN_STATUS_SUCCESS;
  if (p.has(CUDNN_PARAM_YSUM_PLACEHOLDER))
    reduce_tensor(fused_stats_reduction(p, false), *p.y, y, *p.stats, v.ptr[CUDNN_PTR_YSUM], 1.0, 0.0, nullptr);
  if (p.has(CUDNN_PARAM_YSQSUM_PLACEHOLDER))
    reduce_tensor(fused_stats_reduction(p, true), *p.y, y, *p.stats, v.ptr[CUDNN_PTR_YSQSUM], 1.0, 0.0, nullptr);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t wgrad(const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v) {
  std::vector<unsigned char> xact;
  const void* in = prologue(p, v, xact);
  return run_conv(p, v, in, v.ptr[CUDNN_PTR_DYDATA], v.ptr[CUDNN_PTR_DWDATA]);
}

}  // namespace fd::cpu::fused
