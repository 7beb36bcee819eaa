// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The two BN finalize patterns, on the batch norm helpers (equivalent scale/bias, running averages).
#include <vector>

#include "cpu/batchnorm/batchnorm.h"
#include "cpu/common/tensor_io.h"
#include "cpu/fused/fused_ops.h"

namespace fd::cpu::fused {
namespace {

template <class T>
void training(const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v, T) {
  const std::vector<T> ysum = read_tensor<T>(*p.stats, v.ptr[CUDNN_PTR_YSUM]);
  const std::vector<T> ysqsum = read_tensor<T>(*p.stats, v.ptr[CUDNN_PTR_YSQSUM]);
  const std::vector<T> scale = read_tensor<T>(*p.bn, v.ptr[CUDNN_PTR_BN_SCALE]);
  const std::vector<T> bias = read_tensor<T>(*p.bn, v.ptr[CUDNN_PTR_BN_BIAS]);
  const T m = static_cast<T>(v.accumulation_count);
  std::vector<T> mean(ysum.size()), var(ysum.size());
  for (size_t k = 0; k < ysum.size(); ++k) {
    mean[k] = ysum[k] / m;
    const T e2 = ysqsum[k] / m - mean[k] * mean[k];  // E[y^2] - E[y]^2, biased
    var[k] = e2 > T(0) ? e2 : T(0);
  }
  std::vector<T> inv, a, b;
  equivalent_scale_bias(scale, bias, mean, var, v.epsilon, inv, a, b);
  write_tensor(*p.eq, v.ptr[CUDNN_PTR_BN_EQSCALE], a.data(), 1.0, 0.0);
  write_tensor(*p.eq, v.ptr[CUDNN_PTR_BN_EQBIAS], b.data(), 1.0, 0.0);
  if (p.has(CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER)) {
    write_tensor(*p.bn, v.ptr[CUDNN_PTR_BN_SAVED_MEAN], mean.data(), 1.0, 0.0);
    write_tensor(*p.bn, v.ptr[CUDNN_PTR_BN_SAVED_INVSTD], inv.data(), 1.0, 0.0);
  }
  if (p.has(CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER))
    update_running_stats(*p.bn, v.ptr[CUDNN_PTR_BN_RUNNING_MEAN], v.ptr[CUDNN_PTR_BN_RUNNING_VAR], mean, var,
                         v.accumulation_count, v.exp_avg_factor);
}

template <class T>
void inference(const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v, T) {
  const std::vector<T> scale = read_tensor<T>(*p.bn, v.ptr[CUDNN_PTR_BN_SCALE]);
  const std::vector<T> bias = read_tensor<T>(*p.bn, v.ptr[CUDNN_PTR_BN_BIAS]);
  const std::vector<T> mean = read_tensor<T>(*p.bn, v.ptr[CUDNN_PTR_BN_RUNNING_MEAN]);
  const std::vector<T> var = read_tensor<T>(*p.bn, v.ptr[CUDNN_PTR_BN_RUNNING_VAR]);
  std::vector<T> inv, a, b;
  equivalent_scale_bias(scale, bias, mean, var, v.epsilon, inv, a, b);
  write_tensor(*p.eq, v.ptr[CUDNN_PTR_BN_EQSCALE], a.data(), 1.0, 0.0);
  write_tensor(*p.eq, v.ptr[CUDNN_PTR_BN_EQBIAS], b.data(), 1.0, 0.0);
}

}  // namespace

cudnnStatus_t bn_finalize_training(const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v) {
  with_compute_type(p.bn->dtype, [&](auto t) { training(p, v, t); });
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t bn_finalize_inference(const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v) {
  with_compute_type(p.bn->dtype, [&](auto t) { inference(p, v, t); });
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cpu::fused
