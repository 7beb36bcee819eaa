// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cudnnAddTensor, cudnnSetTensor, cudnnScaleTensor.
#include <string>

#include "core/api_context.h"
#include "core/dtype.h"
#include "core/handle.h"
#include "core/status.h"
#include "core/tensor_desc.h"
#include "cpu/common/tensor_io.h"
#include "cpu/tensor_ops/tensor_ops.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/tensor_ops/tensor_ops.h"
#endif

namespace {
bool computable(cudnnDataType_t t) {
  switch (fd::dtype_scalar(t)) {
    case CUDNN_DATA_FLOAT: case CUDNN_DATA_DOUBLE: case CUDNN_DATA_HALF: case CUDNN_DATA_BFLOAT16:
    case CUDNN_DATA_INT8: case CUDNN_DATA_UINT8: case CUDNN_DATA_INT32: case CUDNN_DATA_INT64: return true;
    default: return false;
  }
}
}  // namespace

extern "C" {

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnAddTensor(cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t aDesc,
                                         const void* A, const void* beta, const cudnnTensorDescriptor_t cDesc,
                                         void* C) {
  return FD_API(cudnnAddTensor, (handle, alpha, aDesc, A, beta, cDesc, C), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_tensor(aDesc, "aDesc"));
    FD_TRY(fd::check_tensor(cDesc, "cDesc"));
    FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
    FD_CHECK_PARAM(A != nullptr && C != nullptr, "A or C is NULL");
    bool ok = aDesc->nb_dims == cDesc->nb_dims;
    for (int i = 0; ok && i < aDesc->nb_dims; ++i) ok = aDesc->dims[i] == cDesc->dims[i] || aDesc->dims[i] == 1;
    FD_CHECK_PARAM(ok, "every dim of A %s must equal C's %s or be 1", aDesc->spec().c_str(), cDesc->spec().c_str());
    FD_CHECK_PARAM(aDesc->dtype == cDesc->dtype, "A is %s and C is %s: the data types must be the same",
                   fd::enum_name(aDesc->dtype), fd::enum_name(cDesc->dtype));
    FD_CHECK_SUPPORTED(cDesc->nb_dims <= 5, "cudnnAddTensor supports up to 5 dims, got %d", cDesc->nb_dims);
    FD_CHECK_SUPPORTED(computable(cDesc->dtype), "no cudnnAddTensor for %s", fd::enum_name(cDesc->dtype));
    const double a = fd::read_scale(alpha, cDesc->dtype), b = fd::read_scale(beta, cDesc->dtype);
    if (fd::log::command_logging_enabled())
      fd::log::emit_command("addtensor fwd alpha=" + fd::log::format_double(a) + " beta=" +
                            fd::log::format_double(b) + " a=" + aDesc->spec() + " c=" + cDesc->spec());
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu()) return fd::cuda::add_tensor(handle->stream, handle->device, *aDesc, A, *cDesc, C, a, b);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnAddTensor"));
    fd::cpu::add_tensor(*aDesc, A, *cDesc, C, a, b);
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSetTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void* y,
                                         const void* valuePtr) {
  return FD_API(cudnnSetTensor, (handle, yDesc, y, valuePtr), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_tensor(yDesc, "yDesc"));
    FD_CHECK_PARAM(y != nullptr && valuePtr != nullptr, "y or valuePtr is NULL");
    FD_CHECK_SUPPORTED(computable(yDesc->dtype), "no cudnnSetTensor for %s", fd::enum_name(yDesc->dtype));
    if (fd::log::command_logging_enabled())
      fd::log::emit_command(
          "settensor fwd value=" +
          fd::log::format_double(fd::cpu::load_scalar(fd::dtype_scalar(yDesc->dtype), valuePtr, 0)) +
          " y=" + yDesc->spec());
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu()) return fd::cuda::set_tensor(handle->stream, handle->device, *yDesc, y, valuePtr);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnSetTensor"));
    fd::cpu::set_tensor(*yDesc, y, valuePtr);
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnScaleTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void* y,
                                           const void* alpha) {
  return FD_API(cudnnScaleTensor, (handle, yDesc, y, alpha), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_tensor(yDesc, "yDesc"));
    FD_CHECK_PARAM(y != nullptr && alpha != nullptr, "y or alpha is NULL");
    FD_CHECK_SUPPORTED(computable(yDesc->dtype), "no cudnnScaleTensor for %s", fd::enum_name(yDesc->dtype));
    const double a = fd::read_scale(alpha, yDesc->dtype);
    if (fd::log::command_logging_enabled())
      fd::log::emit_command("scaletensor fwd alpha=" + fd::log::format_double(a) + " y=" + yDesc->spec());
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu()) return fd::cuda::scale_tensor(handle->stream, handle->device, *yDesc, y, a);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnScaleTensor"));
    fd::cpu::scale_tensor(*yDesc, y, a);
    return CUDNN_STATUS_SUCCESS;
  });
}

}  // extern "C"
