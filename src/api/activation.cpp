// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Activation descriptor, cudnnActivationForward, cudnnActivationBackward.
//
// cuDNN 8.2 documents CUDNN_ACTIVATION_IDENTITY as meant for cudnnConvolutionBiasActivationForward only
// ("does not work with cudnnActivationForward() or cudnnActivationBackward()"): both return BAD_PARAM for it
// here (the CPU kernel itself implements it, for the fused operations).
#include <cstring>
#include <new>
#include <string>

#include "core/activation_desc.h"
#include "core/api_context.h"
#include "core/dtype.h"
#include "core/handle.h"
#include "core/log.h"
#include "core/status.h"
#include "core/tensor_desc.h"
#include "cpu/activation/activation.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/activation/activation.h"
#endif

namespace {

bool valid_mode(cudnnActivationMode_t m) { return fd::activation_mode_short_name(m) != nullptr; }

bool float_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

bool same_strides(const cudnnTensorStruct& a, const cudnnTensorStruct& b) {
  if (a.nb_dims != b.nb_dims) return false;
  for (int i = 0; i < a.nb_dims; ++i)
    if (a.dims[i] > 1 && a.strides[i] != b.strides[i]) return false;
  return true;
}

cudnnStatus_t check_mode_for_compute(const cudnnActivationStruct* d) {
  FD_CHECK_PARAM(valid_mode(d->mode), "activation mode %d is not a cudnnActivationMode_t value",
                 static_cast<int>(d->mode));
  FD_CHECK_PARAM(d->mode != CUDNN_ACTIVATION_IDENTITY,
                 "CUDNN_ACTIVATION_IDENTITY works only with cudnnConvolutionBiasActivationForward, not with "
                 "cudnnActivationForward/Backward (cuDNN 8.2)");
  return CUDNN_STATUS_SUCCESS;
}

std::string act_head(const char* dir, const cudnnActivationStruct& a, double alpha, double beta) {
  std::string s = std::string("act ") + dir + " mode=" + fd::activation_mode_short_name(a.mode) +
                  " nan=" + (a.nan_opt == CUDNN_PROPAGATE_NAN ? "propagate" : "not_propagate") +
                  " coef=" + fd::log::format_double(a.coef);
  if (a.mode == CUDNN_ACTIVATION_SWISH) s += " swish_beta=" + fd::log::format_double(a.swish_beta);
  s += " alpha=" + fd::log::format_double(alpha) + " beta=" + fd::log::format_double(beta);
  return s;
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t* activationDesc) {
  return FD_API(cudnnCreateActivationDescriptor, (activationDesc), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(activationDesc != nullptr, "activationDesc output pointer is NULL");
    *activationDesc = new (std::nothrow) cudnnActivationStruct;
    FD_CHECK(*activationDesc != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate an activation descriptor");
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t activationDesc) {
  return FD_API(cudnnDestroyActivationDescriptor, (activationDesc), [&]() -> cudnnStatus_t {
    if (activationDesc == nullptr) return CUDNN_STATUS_SUCCESS;
    FD_CHECK_PARAM(activationDesc->alive(), "activationDesc is not live (destroyed twice, or not a descriptor)");
    delete activationDesc;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetActivationDescriptor(cudnnActivationDescriptor_t activationDesc,
                                                       cudnnActivationMode_t mode, cudnnNanPropagation_t reluNanOpt,
                                                       double coef) {
  return FD_API(cudnnSetActivationDescriptor, (activationDesc, mode, reluNanOpt, coef), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_activation(activationDesc, "activationDesc"));
    FD_CHECK_PARAM(valid_mode(mode), "mode %d is not a cudnnActivationMode_t value", static_cast<int>(mode));
    FD_CHECK_PARAM(reluNanOpt == CUDNN_NOT_PROPAGATE_NAN || reluNanOpt == CUDNN_PROPAGATE_NAN,
                   "reluNanOpt %d is not a cudnnNanPropagation_t value", static_cast<int>(reluNanOpt));
    activationDesc->mode = mode;
    activationDesc->nan_opt = reluNanOpt;
    activationDesc->coef = coef;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetActivationDescriptor(const cudnnActivationDescriptor_t activationDesc,
                                                       cudnnActivationMode_t* mode, cudnnNanPropagation_t* reluNanOpt,
                                                       double* coef) {
  return FD_API(cudnnGetActivationDescriptor, (activationDesc), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_activation(activationDesc, "activationDesc"));
    FD_CHECK_PARAM(mode && reluNanOpt && coef, "an output pointer is NULL");
    *mode = activationDesc->mode;
    *reluNanOpt = activationDesc->nan_opt;
    *coef = activationDesc->coef;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t activationDesc,
                                                                double swish_beta) {
  return FD_API(cudnnSetActivationDescriptorSwishBeta, (activationDesc, swish_beta), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_activation(activationDesc, "activationDesc"));
    activationDesc->swish_beta = swish_beta;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t activationDesc,
                                                                double* swish_beta) {
  return FD_API(cudnnGetActivationDescriptorSwishBeta, (activationDesc, swish_beta), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_activation(activationDesc, "activationDesc"));
    FD_CHECK_PARAM(swish_beta != nullptr, "swish_beta output pointer is NULL");
    *swish_beta = activationDesc->swish_beta;
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnActivationForward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                                                 const void* alpha, const cudnnTensorDescriptor_t xDesc,
                                                 const void* x, const void* beta,
                                                 const cudnnTensorDescriptor_t yDesc, void* y) {
  return FD_API(cudnnActivationForward, (handle, activationDesc, alpha, xDesc, x, beta, yDesc, y),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_activation(activationDesc, "activationDesc"));
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_tensor(yDesc, "yDesc"));
    FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
    FD_CHECK_PARAM(x != nullptr && y != nullptr, "x or y is NULL");
    FD_TRY(check_mode_for_compute(activationDesc));
    FD_CHECK_PARAM(xDesc->same_shape(*yDesc), "x %s and y %s differ in shape", xDesc->spec().c_str(),
                   yDesc->spec().c_str());
    FD_CHECK_PARAM(xDesc->dtype == yDesc->dtype, "x %s and y %s differ in data type", xDesc->spec().c_str(),
                   yDesc->spec().c_str());
    FD_CHECK_PARAM(x != y || same_strides(*xDesc, *yDesc),
                   "in-place activation (x == y) needs equal strides, x %s y %s", xDesc->spec().c_str(),
                   yDesc->spec().c_str());
    // INT8 is a freednn extension here (computed in float, rounded and saturated on store).
    FD_CHECK_SUPPORTED(float_type(xDesc->dtype) || xDesc->dtype == CUDNN_DATA_INT8,
                       "data type %s is not supported by cudnnActivationForward",
                       fd::dtype_short_name(xDesc->dtype));
    const double a = fd::read_scale(alpha, yDesc->dtype), b = fd::read_scale(beta, yDesc->dtype);
    if (fd::log::command_logging_enabled())
      fd::log::emit_command(act_head("fwd", *activationDesc, a, b) + " x=" + xDesc->spec() + " y=" + yDesc->spec());
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu())
      return fd::cuda::activation_forward(handle->stream, handle->device, *activationDesc, a, *xDesc, x, b, *yDesc, y);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnActivationForward"));
    fd::cpu::activation_forward(*activationDesc, a, *xDesc, x, b, *yDesc, y);
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnActivationBackward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                                                  const void* alpha, const cudnnTensorDescriptor_t yDesc,
                                                  const void* y, const cudnnTensorDescriptor_t dyDesc,
                                                  const void* dy, const cudnnTensorDescriptor_t xDesc,
                                                  const void* x, const void* beta,
                                                  const cudnnTensorDescriptor_t dxDesc, void* dx) {
  return FD_API(cudnnActivationBackward,
                (handle, activationDesc, alpha, yDesc, y, dyDesc, dy, xDesc, x, beta, dxDesc, dx),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_activation(activationDesc, "activationDesc"));
    FD_TRY(fd::check_tensor(yDesc, "yDesc"));
    FD_TRY(fd::check_tensor(dyDesc, "dyDesc"));
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_tensor(dxDesc, "dxDesc"));
    FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
    FD_CHECK_PARAM(dy != nullptr && dx != nullptr, "dy or dx is NULL");
    FD_TRY(check_mode_for_compute(activationDesc));
    const cudnnActivationMode_t mode = activationDesc->mode;
    // Only the inputs this mode reads must be given (see cpu/activation/activation.h).
    FD_CHECK_PARAM(y != nullptr || !fd::cpu::activation_backward_reads_y(mode), "y is NULL (mode %s reads y)",
                   fd::activation_mode_short_name(mode));
    FD_CHECK_PARAM(x != nullptr || !fd::cpu::activation_backward_reads_x(mode), "x is NULL (mode %s reads x)",
                   fd::activation_mode_short_name(mode));
    FD_CHECK_PARAM(dx != dy || same_strides(*dyDesc, *dxDesc),
                   "in-place activation backward (dx == dy) needs equal strides, dy %s dx %s",
                   dyDesc->spec().c_str(), dxDesc->spec().c_str());
    // cuDNN documents shape and type mismatches of the backward pass as NOT_SUPPORTED. Differing strides
    // between y/dy and x/dx (also NOT_SUPPORTED in cuDNN) are accepted: the CPU path handles any layout.
    FD_CHECK_SUPPORTED(yDesc->same_shape(*dyDesc) && yDesc->same_shape(*xDesc) && yDesc->same_shape(*dxDesc),
                       "y %s, dy %s, x %s, dx %s differ in shape", yDesc->spec().c_str(), dyDesc->spec().c_str(),
                       xDesc->spec().c_str(), dxDesc->spec().c_str());
    FD_CHECK_SUPPORTED(yDesc->dtype == dyDesc->dtype && yDesc->dtype == xDesc->dtype && yDesc->dtype == dxDesc->dtype,
                       "y %s, dy %s, x %s, dx %s differ in data type", yDesc->spec().c_str(),
                       dyDesc->spec().c_str(), xDesc->spec().c_str(), dxDesc->spec().c_str());
    FD_CHECK_SUPPORTED(float_type(dxDesc->dtype), "data type %s is not supported by cudnnActivationBackward",
                       fd::dtype_short_name(dxDesc->dtype));
    const double a = fd::read_scale(alpha, dxDesc->dtype), b = fd::read_scale(beta, dxDesc->dtype);
    if (fd::log::command_logging_enabled())
      fd::log::emit_command(act_head("bwd", *activationDesc, a, b) + " y=" + yDesc->spec() + " dy=" +
                            dyDesc->spec() + " x=" + xDesc->spec() + " dx=" + dxDesc->spec());
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu())
      return fd::cuda::activation_backward(handle->stream, handle->device, *activationDesc, a, *yDesc, y, *dyDesc, dy,
                                           *xDesc, x, b, *dxDesc, dx);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnActivationBackward"));
    fd::cpu::activation_backward(*activationDesc, a, *yDesc, y, *dyDesc, dy, *xDesc, x, b, *dxDesc, dx);
    return CUDNN_STATUS_SUCCESS;
  });
}

}  // extern "C"
