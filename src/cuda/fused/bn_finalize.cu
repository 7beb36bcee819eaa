// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The two BN finalize patterns on the GPU: one kernel, one thread per channel, with the CPU's formulas
// (src/cpu/fused/bn_finalize.cpp and the batch norm helpers equivalent_scale_bias / update_running_stats):
// mean = ysum / m, var = max(ysqsum / m - mean^2, 0), inv = 1 / sqrt(var + eps), eqScale = scale * inv,
// eqBias = bias - eqScale * mean; running statistics with the unbiased variance var * m / (m - 1). Computed in
// double for DOUBLE batch norm parameters, else in float.
#include "core/dtype.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/dyn_tensor.cuh"
#include "cuda/fused/fused_ops.h"

namespace fd::cuda::fused {
namespace {

constexpr int kBlock = 128;

// One operand of a per-channel (1xCx1x1...) tensor: channel k at p[k * stride], of scalar type t. A null p: the
// operand is left out (not read, or not written).
struct Chan {
  void* p = nullptr;
  cudnnDataType_t t = CUDNN_DATA_FLOAT;
  int64_t stride = 0;
};

struct FinalizeArgs {
  int64_t channels = 0;
  bool training = false;
  Chan ysum, ysqsum;               // training: the statistics' inputs
  Chan scale, bias;                // always read
  Chan running_mean, running_var;  // inference: read; training: updated where set
  Chan saved_mean, saved_invstd;   // training, where set
  Chan eq_scale, eq_bias;          // always written
  int64_t count = 0;               // training: the accumulation count m
  double factor = 0.0;             // training: the running averages' factor
  double epsilon = 0.0;
};

template <class T>
__device__ __forceinline__ T ld(const Chan& c, int64_t k) {
  return load_dyn<T>(c.t, c.p, k * c.stride);
}
template <class T>
__device__ __forceinline__ void st(const Chan& c, int64_t k, T v) {
  store_dyn<T>(c.t, c.p, k * c.stride, v);
}

// Every input of channel k is read before any output of channel k is written, so an output may alias an input
// that keeps channel k at the same byte offset (same type and stride); the CPU reads every channel first.
template <class T>
__global__ void finalize_channels(FinalizeArgs f) {
  const int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (k >= f.channels) return;
  const T scale = ld<T>(f.scale, k), bias = ld<T>(f.bias, k);
  const bool update = f.training && f.running_mean.p != nullptr;
  const bool blend = update && f.factor != 1.0;  // factor 1 overwrites without reading the old values
  const T old_mean = blend ? ld<T>(f.running_mean, k) : T(0), old_var = blend ? ld<T>(f.running_var, k) : T(0);
  T mean, var;
  if (f.training) {
    const T m = static_cast<T>(f.count);
    mean = ld<T>(f.ysum, k) / m;
    const T e2 = ld<T>(f.ysqsum, k) / m - mean * mean;  // E[y^2] - E[y]^2, biased
    var = e2 > T(0) ? e2 : T(0);
  } else {
    mean = ld<T>(f.running_mean, k);
    var = ld<T>(f.running_var, k);
  }
  const T inv = T(1) / sqrt(var + static_cast<T>(f.epsilon));
  const T a = scale * inv;
  st<T>(f.eq_scale, k, a);
  st<T>(f.eq_bias, k, bias - a * mean);
  if (f.training && f.saved_mean.p != nullptr) {
    st<T>(f.saved_mean, k, mean);
    st<T>(f.saved_invstd, k, inv);
  }
  if (update) {
    const T unbias = f.count > 1 ? static_cast<T>(f.count) / static_cast<T>(f.count - 1) : T(1);
    const T uv = var * unbias;
    const T r = static_cast<T>(f.factor);
    st<T>(f.running_mean, k, blend ? (T(1) - r) * old_mean + r * mean : mean);
    st<T>(f.running_var, k, blend ? (T(1) - r) * old_var + r * uv : uv);
  }
}

// The operand behind variant pointer `label` through descriptor d (left out when `on` is false).
Chan chan(const cudnnTensorStruct& d, const cudnnFusedOpsVariantParamStruct& v, cudnnFusedOpsVariantParamLabel_t label,
          bool on = true) {
  Chan c;
  if (!on) return c;
  c.p = v.ptr[label];
  c.t = dtype_scalar(d.dtype);
  c.stride = d.strides[1];
  return c;
}

cudnnStatus_t launch(const cudnnContext* h, const cudnnFusedOpsPlanStruct& p, const FinalizeArgs& f) {
  if (f.channels == 0) return CUDNN_STATUS_SUCCESS;
  const int grid = static_cast<int>((f.channels + kBlock - 1) / kBlock);
  if (p.bn->dtype == CUDNN_DATA_DOUBLE)
    finalize_channels<double><<<grid, kBlock, 0, h->stream>>>(f);
  else
    finalize_channels<float><<<grid, kBlock, 0, h->stream>>>(f);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

// What both patterns read and write: scale and bias in, eqScale and eqBias out.
FinalizeArgs common(const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v) {
  FinalizeArgs f;
  f.channels = p.bn->dims[1];
  f.scale = chan(*p.bn, v, CUDNN_PTR_BN_SCALE);
  f.bias = chan(*p.bn, v, CUDNN_PTR_BN_BIAS);
  f.eq_scale = chan(*p.eq, v, CUDNN_PTR_BN_EQSCALE);
  f.eq_bias = chan(*p.eq, v, CUDNN_PTR_BN_EQBIAS);
  f.epsilon = v.epsilon;
  return f;
}

}  // namespace

cudnnStatus_t bn_finalize_training(const cudnnContext* h, const cudnnFusedOpsPlanStruct& p,
                                   const cudnnFusedOpsVariantParamStruct& v) {
  FinalizeArgs f = common(p, v);
  f.training = true;
  f.ysum = chan(*p.stats, v, CUDNN_PTR_YSUM);
  f.ysqsum = chan(*p.stats, v, CUDNN_PTR_YSQSUM);
  const bool saved = p.has(CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER);
  f.saved_mean = chan(*p.bn, v, CUDNN_PTR_BN_SAVED_MEAN, saved);
  f.saved_invstd = chan(*p.bn, v, CUDNN_PTR_BN_SAVED_INVSTD, saved);
  const bool running = p.has(CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER);
  f.running_mean = chan(*p.bn, v, CUDNN_PTR_BN_RUNNING_MEAN, running);
  f.running_var = chan(*p.bn, v, CUDNN_PTR_BN_RUNNING_VAR, running);
  f.count = v.accumulation_count;
  f.factor = v.exp_avg_factor;
  return launch(h, p, f);
}

cudnnStatus_t bn_finalize_inference(const cudnnContext* h, const cudnnFusedOpsPlanStruct& p,
                                    const cudnnFusedOpsVariantParamStruct& v) {
  FinalizeArgs f = common(p, v);
  f.running_mean = chan(*p.bn, v, CUDNN_PTR_BN_RUNNING_MEAN);
  f.running_var = chan(*p.bn, v, CUDNN_PTR_BN_RUNNING_VAR);
  return launch(h, p, f);
}

}  // namespace fd::cuda::fused
