// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "problem/batchnorm.h"

#include <cmath>

#include "core/dtype.h"
#include "core/log.h"
#include "core/status.h"

namespace fd {
namespace {

const char* dir_name(NormDir d) {
  switch (d) {
    case NormDir::inference: return "infer";
    case NormDir::training: return "train";
    case NormDir::backward: return "bwd";
  }
  return "?";
}

const char* ops_name(NormOps o) {
  switch (o) {
    case NormOps::norm: return "norm";
    case NormOps::activation: return "act";
    case NormOps::add_activation: return "add_act";
  }
  return "?";
}

const char* act_name(cudnnActivationMode_t m) {
  switch (m) {
    case CUDNN_ACTIVATION_SIGMOID: return "sigmoid";
    case CUDNN_ACTIVATION_RELU: return "relu";
    case CUDNN_ACTIVATION_TANH: return "tanh";
    case CUDNN_ACTIVATION_CLIPPED_RELU: return "clipped_relu";
    case CUDNN_ACTIVATION_ELU: return "elu";
    case CUDNN_ACTIVATION_IDENTITY: return "identity";
    case CUDNN_ACTIVATION_SWISH: return "swish";
  }
  return "invalid";
}

// A tensor argument that must have x's dims and data type.
cudnnStatus_t check_like_x(const cudnnTensorStruct* d, const char* role, const cudnnTensorStruct& x) {
  FD_TRY(check_tensor(d, role));
  FD_CHECK_PARAM(d->same_shape(x), "%s %s and xDesc %s differ in shape", role, d->spec().c_str(), x.spec().c_str());
  FD_CHECK_PARAM(d->dtype == x.dtype, "%s is %s but xDesc is %s", role, dtype_short_name(d->dtype),
                 dtype_short_name(x.dtype));
  return CUDNN_STATUS_SUCCESS;
}

// A scale/bias/mean/var argument: the derived shape and data type.
cudnnStatus_t check_param_desc(const cudnnTensorStruct* d, const char* role, const cudnnTensorStruct& expect) {
  FD_TRY(check_tensor(d, role));
  FD_CHECK_PARAM(d->same_shape(expect), "%s is %s but this mode and x need dims %s", role, d->spec().c_str(),
                 expect.spec().c_str());
  FD_CHECK_PARAM(d->dtype == expect.dtype, "%s is %s but x of this type needs %s", role, dtype_short_name(d->dtype),
                 dtype_short_name(expect.dtype));
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

cudnnStatus_t check_norm_mode(bool generic_api, int mode, int algo) {
  if (generic_api) {
    FD_CHECK_PARAM(mode == CUDNN_NORM_PER_ACTIVATION || mode == CUDNN_NORM_PER_CHANNEL,
                   "mode=%d is not a cudnnNormMode_t", mode);
    FD_CHECK_PARAM(algo == CUDNN_NORM_ALGO_STANDARD || algo == CUDNN_NORM_ALGO_PERSIST,
                   "algo=%d is not a cudnnNormAlgo_t", algo);
  } else {
    FD_CHECK_PARAM(mode >= CUDNN_BATCHNORM_PER_ACTIVATION && mode <= CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                   "mode=%d is not a cudnnBatchNormMode_t", mode);
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_group_count(int group_count) {
  FD_CHECK_PARAM(group_count >= 1, "groupCnt=%d must be positive", group_count);
  FD_CHECK_SUPPORTED(group_count == 1, "groupCnt=%d: only groupCnt=1 is supported (as in cuDNN 8.2)", group_count);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_norm_ops(int ops, cudnnActivationDescriptor_t act_desc, NormOps* op, ActivationParams* act) {
  FD_CHECK_PARAM(ops >= 0 && ops <= 2, "ops=%d is not a valid batch norm / normalization ops value", ops);
  *op = static_cast<NormOps>(ops);
  *act = ActivationParams{CUDNN_ACTIVATION_IDENTITY, CUDNN_NOT_PROPAGATE_NAN, 0.0, 1.0};
  if (*op == NormOps::norm) return CUDNN_STATUS_SUCCESS;
  FD_CHECK_PARAM(act_desc != nullptr, "ops=%s needs an activation descriptor but activationDesc is NULL",
                 ops_name(*op));
  FD_TRY(get_activation_params(act_desc, act));
  FD_CHECK_SUPPORTED(act->mode == CUDNN_ACTIVATION_RELU,
                     "fused normalization supports only the RELU activation, not %s", act_name(act->mode));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t derive_norm_desc(cudnnTensorStruct& out, const cudnnTensorStruct& x, bool per_activation) {
  FD_CHECK_PARAM(x.nb_dims == 4 || x.nb_dims == 5, "xDesc has %d dims; normalization takes 4-D or 5-D tensors",
                 x.nb_dims);
  FD_CHECK_SUPPORTED(dtype_is_float(x.dtype), "xDesc is %s; normalization takes f32, f64, f16 or bf16 data",
                     dtype_short_name(x.dtype));
  int dims[CUDNN_DIM_MAX];
  dims[0] = 1;
  dims[1] = static_cast<int>(x.dims[1]);
  for (int i = 2; i < x.nb_dims; ++i) dims[i] = per_activation ? static_cast<int>(x.dims[i]) : 1;
  const cudnnDataType_t t = x.dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  return set_tensor_format(out, CUDNN_TENSOR_NCHW, t, x.nb_dims, dims);
}

size_t norm_reserve_size(const cudnnTensorStruct& x, NormOps op) {
  if (op == NormOps::norm) return 0;
  const int64_t bits = x.element_count();
  return static_cast<size_t>((bits + 63) / 64) * 8;  // one bit per element, in 64-bit words
}

bool NormCall::per_activation() const {
  // CUDNN_BATCHNORM_PER_ACTIVATION and CUDNN_NORM_PER_ACTIVATION are both 0.
  return mode == 0;
}

int64_t NormCall::inner_count() const {
  if (per_activation()) return 1;
  int64_t n = 1;
  for (int i = 2; i < x_desc->nb_dims; ++i) n *= x_desc->dims[i];
  return n;
}

int64_t NormCall::stat_count() const { return x_desc->element_count() / x_desc->dims[0] / inner_count(); }

int64_t NormCall::reduce_count() const { return x_desc->dims[0] * inner_count(); }

cudnnStatus_t NormCall::validate(bool shapes_only) {
  FD_TRY(check_norm_mode(generic_api, mode, algo));
  if (generic_api) FD_TRY(check_group_count(group_count));
  FD_TRY(check_tensor(x_desc, "xDesc"));
  cudnnTensorStruct derived;
  FD_TRY(derive_norm_desc(derived, *x_desc, per_activation()));
  const cudnnTensorStruct& xd = *x_desc;

  FD_TRY(check_norm_ops(ops, activation_desc, &op, &act));
  if (dir == NormDir::backward) {
    FD_TRY(check_like_x(dy_desc, "dyDesc", xd));
    FD_TRY(check_like_x(dx_desc, "dxDesc", xd));
    if (y_desc != nullptr) FD_TRY(check_like_x(y_desc, "yDesc", xd));
    if (has_add()) FD_TRY(check_like_x(z_desc, "dzDesc", xd));
    FD_TRY(check_param_desc(scale_bias_desc, generic_api ? "dNormScaleBiasDesc" : "dBnScaleBiasDesc", derived));
  } else {
    FD_TRY(check_like_x(y_desc, "yDesc", xd));
    if (has_add()) FD_TRY(check_like_x(z_desc, "zDesc", xd));
    FD_TRY(check_param_desc(scale_bias_desc, generic_api ? "normScaleBiasDesc" : "bnScaleBiasMeanVarDesc", derived));
  }
  FD_TRY(check_param_desc(mean_var_desc, generic_api ? "normMeanVarDesc" : "bnScaleBiasMeanVarDesc", derived));
  if (shapes_only) return CUDNN_STATUS_SUCCESS;

  FD_CHECK_PARAM(!std::isnan(epsilon) && epsilon >= CUDNN_BN_MIN_EPSILON, "epsilon=%g is below CUDNN_BN_MIN_EPSILON=%g",
                 epsilon, static_cast<double>(CUDNN_BN_MIN_EPSILON));

  FD_CHECK_PARAM(alpha_ptr != nullptr && beta_ptr != nullptr, "alpha or beta is NULL");
  alpha = read_scale(alpha_ptr, xd.dtype);
  beta = read_scale(beta_ptr, xd.dtype);
  if (dir == NormDir::backward) {
    FD_CHECK_PARAM(alpha_param_ptr != nullptr && beta_param_ptr != nullptr, "alphaParamDiff or betaParamDiff is NULL");
    alpha_param = read_scale(alpha_param_ptr, xd.dtype);
    beta_param = read_scale(beta_param_ptr, xd.dtype);
  }

  FD_CHECK_PARAM(x != nullptr, "x is NULL");
  FD_CHECK_PARAM(scale != nullptr, "scale is NULL");
  const size_t need_reserve = norm_reserve_size(xd, op);
  switch (dir) {
    case NormDir::inference:
      FD_CHECK_PARAM(y != nullptr, "y is NULL");
      FD_CHECK_PARAM(bias != nullptr, "bias is NULL");
      FD_CHECK_PARAM(est_mean != nullptr && est_var != nullptr, "estimatedMean or estimatedVariance is NULL");
      if (has_add()) FD_CHECK_PARAM(z != nullptr, "ops=add_act but z is NULL");
      break;
    case NormDir::training:
      FD_CHECK_PARAM(y != nullptr, "y is NULL");
      FD_CHECK_PARAM(bias != nullptr, "bias is NULL");
      FD_CHECK_PARAM((running_mean == nullptr) == (running_var == nullptr),
                     "resultRunningMean and resultRunningVariance must both be NULL or both be set");
      FD_CHECK_PARAM(running_mean == nullptr || (factor >= 0.0 && factor <= 1.0),
                     "exponentialAverageFactor=%g is not a weight in [0, 1]", factor);
      FD_CHECK_PARAM((save_mean == nullptr) == (save_inv_var == nullptr),
                     "resultSaveMean and resultSaveInvVariance must both be NULL or both be set");
      if (has_add()) FD_CHECK_PARAM(z != nullptr, "ops=add_act but z is NULL");
      if (need_reserve > 0) {
        FD_CHECK_PARAM(reserve != nullptr, "ops=%s needs a reserve space of %zu bytes but reserveSpace is NULL",
                       ops_name(op), need_reserve);
        FD_CHECK_PARAM(reserve_bytes >= need_reserve, "reserveSpaceSizeInBytes=%zu is below the %zu bytes needed",
                       reserve_bytes, need_reserve);
      }
      break;
    case NormDir::backward:
      FD_CHECK_PARAM(dy != nullptr && dx != nullptr, "dy or dx is NULL");
      FD_CHECK_PARAM(dscale != nullptr && dbias != nullptr, "the dScale or dBias result pointer is NULL");
      FD_CHECK_PARAM((saved_mean == nullptr) == (saved_inv_var == nullptr),
                     "savedMean and savedInvVariance must both be NULL or both be set");
      if (has_add()) FD_CHECK_PARAM(dz != nullptr, "ops=add_act but dz is NULL");
      if (need_reserve > 0) {
        FD_CHECK_PARAM(reserve != nullptr,
                       "ops=%s needs the forward's reserve space (%zu bytes) but reserveSpace is NULL",
                       ops_name(op), need_reserve);
        FD_CHECK_PARAM(reserve_bytes >= need_reserve, "reserveSpaceSizeInBytes=%zu is below the %zu bytes needed",
                       reserve_bytes, need_reserve);
      }
      break;
  }
  return CUDNN_STATUS_SUCCESS;
}

std::string NormCall::to_string() const {
  std::string s = "bn ";
  s += dir_name(dir);
  s += generic_api ? " api=norm" : " api=bn";
  if (generic_api) {
    s += per_activation() ? " mode=per_activation" : " mode=per_channel";
    s += algo == CUDNN_NORM_ALGO_PERSIST ? " algo=persist" : " algo=standard";
  } else {
    s += mode == CUDNN_BATCHNORM_PER_ACTIVATION ? " mode=per_activation"
         : mode == CUDNN_BATCHNORM_SPATIAL      ? " mode=spatial"
                                                : " mode=spatial_persistent";
  }
  s += " ops=";
  s += ops_name(op);
  if (has_activation()) {
    s += " act=";
    s += act_name(act.mode);
    s += act.nan == CUDNN_PROPAGATE_NAN ? " nan=propagate" : " nan=not_propagate";
  }
  s += " eps=" + log::format_double(epsilon);
  if (dir == NormDir::training) s += " factor=" + log::format_double(factor);
  s += " alpha=" + log::format_double(alpha) + " beta=" + log::format_double(beta);
  if (dir == NormDir::backward)
    s += " alpha_param=" + log::format_double(alpha_param) + " beta_param=" + log::format_double(beta_param);
  s += " x=" + x_desc->spec();
  if (dir == NormDir::backward) {
    s += " dy=" + dy_desc->spec() + " dx=" + dx_desc->spec();
    if (has_add()) s += " dz=" + z_desc->spec();
  } else {
    s += " y=" + y_desc->spec();
    if (has_add()) s += " z=" + z_desc->spec();
  }
  s += " sb=" + scale_bias_desc->spec();
  if (generic_api) s += " mv=" + mean_var_desc->spec();
  if (dir == NormDir::training)
    s += std::string(" running=") + (running_mean ? "1" : "0") + " save=" + (save_mean ? "1" : "0");
  if (dir == NormDir::backward) s += std::string(" saved=") + (saved_mean ? "1" : "0");
  return s;
}

}  // namespace fd
