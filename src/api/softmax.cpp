// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cudnnSoftmaxForward, cudnnSoftmaxBackward.
#include <string>

#include "core/api_context.h"
#include "core/dtype.h"
#include "core/handle.h"
#include "core/log.h"
#include "core/status.h"
#include "core/tensor_desc.h"
#include "cpu/softmax/softmax.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/softmax/softmax.h"
#endif

namespace {

const char* algo_name(cudnnSoftmaxAlgorithm_t a) {
  switch (a) {
    case CUDNN_SOFTMAX_FAST: return "fast";
    case CUDNN_SOFTMAX_ACCURATE: return "accurate";
    case CUDNN_SOFTMAX_LOG: return "log";
  }
  return nullptr;
}

const char* mode_name(cudnnSoftmaxMode_t m) {
  switch (m) {
    case CUDNN_SOFTMAX_MODE_INSTANCE: return "instance";
    case CUDNN_SOFTMAX_MODE_CHANNEL: return "channel";
  }
  return nullptr;
}

bool float_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

bool same_strides(const cudnnTensorStruct& a, const cudnnTensorStruct& b) {
  for (int i = 0; i < a.nb_dims; ++i)
    if (a.dims[i] > 1 && a.strides[i] != b.strides[i]) return false;
  return true;
}

cudnnStatus_t check_enums(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode) {
  FD_CHECK_PARAM(algo_name(algo) != nullptr, "algo %d is not a cudnnSoftmaxAlgorithm_t value",
                 static_cast<int>(algo));
  FD_CHECK_PARAM(mode_name(mode) != nullptr, "mode %d is not a cudnnSoftmaxMode_t value", static_cast<int>(mode));
  return CUDNN_STATUS_SUCCESS;
}

std::string head(const char* dir, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, double a, double b) {
  return std::string("softmax ") + dir + " algo=" + algo_name(algo) + " mode=" + mode_name(mode) +
         " alpha=" + fd::log::format_double(a) + " beta=" + fd::log::format_double(b);
}

}  // namespace

extern "C" {

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSoftmaxForward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo,
                                              cudnnSoftmaxMode_t mode, const void* alpha,
                                              const cudnnTensorDescriptor_t xDesc, const void* x, const void* beta,
                                              const cudnnTensorDescriptor_t yDesc, void* y) {
  return FD_API(cudnnSoftmaxForward, (handle, algo, mode, alpha, xDesc, x, beta, yDesc, y), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_tensor(yDesc, "yDesc"));
    FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
    FD_CHECK_PARAM(x != nullptr && y != nullptr, "x or y is NULL");
    FD_TRY(check_enums(algo, mode));
    FD_CHECK_PARAM(xDesc->same_shape(*yDesc), "x %s and y %s differ in shape", xDesc->spec().c_str(),
                   yDesc->spec().c_str());
    FD_CHECK_PARAM(xDesc->dtype == yDesc->dtype, "x %s and y %s differ in data type", xDesc->spec().c_str(),
                   yDesc->spec().c_str());
    FD_CHECK_PARAM(x != y || same_strides(*xDesc, *yDesc), "in-place softmax (x == y) needs equal strides, x %s y %s",
                   xDesc->spec().c_str(), yDesc->spec().c_str());
    FD_CHECK_SUPPORTED(float_type(xDesc->dtype), "data type %s is not supported by cudnnSoftmaxForward",
                       fd::dtype_short_name(xDesc->dtype));
    const double a = fd::read_scale(alpha, yDesc->dtype), b = fd::read_scale(beta, yDesc->dtype);
    if (fd::log::command_logging_enabled())
      fd::log::emit_command(head("fwd", algo, mode, a, b) + " x=" + xDesc->spec() + " y=" + yDesc->spec());
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu())
      return fd::cuda::softmax_forward(handle->stream, handle->device, algo, mode, a, *xDesc, x, b, *yDesc, y);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnSoftmaxForward"));
    fd::cpu::softmax_forward(algo, mode, a, *xDesc, x, b, *yDesc, y);
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSoftmaxBackward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo,
                                               cudnnSoftmaxMode_t mode, const void* alpha,
                                               const cudnnTensorDescriptor_t yDesc, const void* y,
                                               const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                               const void* beta, const cudnnTensorDescriptor_t dxDesc, void* dx) {
  return FD_API(cudnnSoftmaxBackward, (handle, algo, mode, alpha, yDesc, y, dyDesc, dy, beta, dxDesc, dx),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_tensor(yDesc, "yDesc"));
    FD_TRY(fd::check_tensor(dyDesc, "dyDesc"));
    FD_TRY(fd::check_tensor(dxDesc, "dxDesc"));
    FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
    FD_CHECK_PARAM(y != nullptr && dy != nullptr && dx != nullptr, "y, dy or dx is NULL");
    FD_TRY(check_enums(algo, mode));
    FD_CHECK_PARAM(yDesc->same_shape(*dyDesc) && yDesc->same_shape(*dxDesc), "y %s, dy %s, dx %s differ in shape",
                   yDesc->spec().c_str(), dyDesc->spec().c_str(), dxDesc->spec().c_str());
    FD_CHECK_PARAM(yDesc->dtype == dyDesc->dtype && yDesc->dtype == dxDesc->dtype,
                   "y %s, dy %s, dx %s differ in data type", yDesc->spec().c_str(), dyDesc->spec().c_str(),
                   dxDesc->spec().c_str());
    FD_CHECK_PARAM(dx != dy || same_strides(*dyDesc, *dxDesc),
                   "in-place softmax backward (dx == dy) needs equal strides, dy %s dx %s", dyDesc->spec().c_str(),
                   dxDesc->spec().c_str());
    FD_CHECK_SUPPORTED(float_type(dxDesc->dtype), "data type %s is not supported by cudnnSoftmaxBackward",
                       fd::dtype_short_name(dxDesc->dtype));
    const double a = fd::read_scale(alpha, dxDesc->dtype), b = fd::read_scale(beta, dxDesc->dtype);
    if (fd::log::command_logging_enabled())
      fd::log::emit_command(head("bwd", algo, mode, a, b) + " y=" + yDesc->spec() + " dy=" + dyDesc->spec() +
                            " dx=" + dxDesc->spec());
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu())
      return fd::cuda::softmax_backward(handle->stream, handle->device, algo, mode, a, *yDesc, y, *dyDesc, dy, b,
                                        *dxDesc, dx);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnSoftmaxBackward"));
    fd::cpu::softmax_backward(algo, mode, a, *yDesc, y, *dyDesc, dy, b, *dxDesc, dx);
    return CUDNN_STATUS_SUCCESS;
  });
}

}  // extern "C"
