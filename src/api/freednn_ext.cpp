// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// freednn's additions to the cuDNN API (include/freednn.h).
#include <cstring>

#include "api/conv_common.h"
#include "core/api_context.h"
#include "freednn.h"

extern "C" {

// coverage: cpu cuda
cudnnStatus_t freednnGetConvolutionImplementation(cudnnHandle_t handle, int direction,
                                                  const cudnnTensorDescriptor_t xDesc,
                                                  const cudnnFilterDescriptor_t wDesc,
                                                  const cudnnConvolutionDescriptor_t convDesc,
                                                  const cudnnTensorDescriptor_t yDesc, int algo, char* id,
                                                  size_t size) {
  void* out = id;  // logged as a pointer: the buffer holds no string yet
  return FD_API(freednnGetConvolutionImplementation, (handle, direction, xDesc, wDesc, convDesc, yDesc, algo, out, size),
                [&]() -> cudnnStatus_t {
                  FD_TRY(fd::check_handle(handle));
                  FD_CHECK_PARAM(direction >= 0 && direction <= 2, "direction=%d is not 0, 1 or 2", direction);
                  FD_CHECK_PARAM(id != nullptr && size > 0, "id is NULL or size is 0");
                  const auto dir = static_cast<fd::ConvDir>(direction);
                  fd::ConvProblem p;
                  FD_TRY(fd::ConvProblem::make(dir, xDesc, wDesc, convDesc, yDesc, &p));
                  const fd::conv::ConvImpl* impl = nullptr;
                  FD_TRY(fd::conv::select(p, handle->backend, algo, &impl, false, handle));
                  const size_t n = std::strlen(impl->id());
                  FD_CHECK_PARAM(n < size, "size=%zu cannot hold \"%s\"", size, impl->id());
                  std::memcpy(id, impl->id(), n + 1);
                  return CUDNN_STATUS_SUCCESS;
                });
}

// coverage: cpu cuda
cudnnStatus_t freednnGetLastCallBytesMoved(cudnnHandle_t handle, double* bytes, int* passes) {
  return FD_API(freednnGetLastCallBytesMoved, (handle, bytes, passes), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_CHECK_PARAM(bytes != nullptr && passes != nullptr, "bytes or passes is NULL");
    fd::last_api_bytes_moved(handle, bytes, passes);
    return CUDNN_STATUS_SUCCESS;
  });
}

}  // extern "C"
