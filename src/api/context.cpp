// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Library-wide entry points: versions, status strings, handles, streams, logging callbacks.
#include <omp.h>

#include <cstring>
#include <new>

#include "core/api_context.h"
#include "core/env.h"
#include "core/handle.h"
#include "core/status.h"

#ifdef FREEDNN_WITH_CUDA
#include <cuda_runtime_api.h>

#include "cuda/common/cuda_util.h"
#endif

extern "C" {

size_t CUDNNWINAPI cudnnGetVersion(void) { return CUDNN_VERSION; }

size_t CUDNNWINAPI cudnnGetCudartVersion(void) {
#ifdef FREEDNN_WITH_CUDA
  return CUDART_VERSION;
#else
  return 0;  // built without CUDA
#endif
}

const char* CUDNNWINAPI cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
    case CUDNN_STATUS_SUCCESS: return "CUDNN_STATUS_SUCCESS";
    case CUDNN_STATUS_NOT_INITIALIZED: return "CUDNN_STATUS_NOT_INITIALIZED";
    case CUDNN_STATUS_ALLOC_FAILED: return "CUDNN_STATUS_ALLOC_FAILED";
    case CUDNN_STATUS_BAD_PARAM: return "CUDNN_STATUS_BAD_PARAM";
    case CUDNN_STATUS_INTERNAL_ERROR: return "CUDNN_STATUS_INTERNAL_ERROR";
    case CUDNN_STATUS_INVALID_VALUE: return "CUDNN_STATUS_INVALID_VALUE";
    case CUDNN_STATUS_ARCH_MISMATCH: return "CUDNN_STATUS_ARCH_MISMATCH";
    case CUDNN_STATUS_MAPPING_ERROR: return "CUDNN_STATUS_MAPPING_ERROR";
    case CUDNN_STATUS_EXECUTION_FAILED: return "CUDNN_STATUS_EXECUTION_FAILED";
    case CUDNN_STATUS_NOT_SUPPORTED: return "CUDNN_STATUS_NOT_SUPPORTED";
    case CUDNN_STATUS_LICENSE_ERROR: return "CUDNN_STATUS_LICENSE_ERROR";
    case CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING: return "CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING";
    case CUDNN_STATUS_RUNTIME_IN_PROGRESS: return "CUDNN_STATUS_RUNTIME_IN_PROGRESS";
    case CUDNN_STATUS_RUNTIME_FP_OVERFLOW: return "CUDNN_STATUS_RUNTIME_FP_OVERFLOW";
    case CUDNN_STATUS_VERSION_MISMATCH: return "CUDNN_STATUS_VERSION_MISMATCH";
  }
  return "CUDNN_UNKNOWN_STATUS";
}

cudnnStatus_t CUDNNWINAPI cudnnGetProperty(libraryPropertyType type, int* value) {
  return FD_API(cudnnGetProperty, (type, value), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(value != nullptr, "value is NULL");
    switch (type) {
      case MAJOR_VERSION: *value = CUDNN_MAJOR; return CUDNN_STATUS_SUCCESS;
      case MINOR_VERSION: *value = CUDNN_MINOR; return CUDNN_STATUS_SUCCESS;
      case PATCH_LEVEL: *value = CUDNN_PATCHLEVEL; return CUDNN_STATUS_SUCCESS;
    }
    FD_FAIL(CUDNN_STATUS_BAD_PARAM, "unknown libraryPropertyType %d", static_cast<int>(type));
  });
}

// One library, one build: the sub-library version checks always agree.
cudnnStatus_t CUDNNWINAPI cudnnOpsInferVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t CUDNNWINAPI cudnnOpsTrainVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t CUDNNWINAPI cudnnCnnInferVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t CUDNNWINAPI cudnnCnnTrainVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t CUDNNWINAPI cudnnAdvInferVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t CUDNNWINAPI cudnnAdvTrainVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }

cudnnStatus_t CUDNNWINAPI cudnnCreate(cudnnHandle_t* handle) {
  return FD_API(cudnnCreate, (handle), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(handle != nullptr, "handle is NULL");
    const std::string want = fd::env_string("FREEDNN_BACKEND");
    FD_CHECK_PARAM(want.empty() || want == "cpu" || want == "cuda",
                   "FREEDNN_BACKEND='%s' must be 'cpu' or 'cuda'", want.c_str());
    auto h = new (std::nothrow) cudnnContext;
    FD_CHECK(h != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate the handle");
    h->cpu_threads = omp_get_max_threads();
    const bool gpu = fd::cuda_device_available();
    if (want == "cuda" && !gpu) {
      delete h;
      FD_FAIL(CUDNN_STATUS_NOT_INITIALIZED,
              "FREEDNN_BACKEND=cuda but no CUDA device is visible (or this build has no CUDA backend)");
    }
    if (gpu && want != "cpu") {
#ifdef FREEDNN_WITH_CUDA
      h->backend = fd::Backend::cuda;
      if (cudaGetDevice(&h->device) != cudaSuccess) {
        delete h;
        FD_FAIL(CUDNN_STATUS_NOT_INITIALIZED, "cudaGetDevice failed");
      }
#endif
    }
    *handle = h;
    fd::note_api_handle(h);
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroy(cudnnHandle_t handle) {
  return FD_API(cudnnDestroy, (handle), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    delete handle;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId) {
  return FD_API(cudnnSetStream, (handle, streamId), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_CHECK_PARAM(!handle->on_cpu() || streamId == nullptr,
                   "a CPU-backend handle runs synchronously on the calling thread; only the NULL stream is valid");
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu()) FD_TRY(fd::cuda::scratch_stream_change(handle, streamId));
#endif
    handle->stream = streamId;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetStream(cudnnHandle_t handle, cudaStream_t* streamId) {
  return FD_API(cudnnGetStream, (handle, streamId), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_CHECK_PARAM(streamId != nullptr, "streamId is NULL");
    *streamId = handle->stream;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnQueryRuntimeError(cudnnHandle_t handle, cudnnStatus_t* rstatus,
                                                 cudnnErrQueryMode_t mode, cudnnRuntimeTag_t* tag) {
  return FD_API(cudnnQueryRuntimeError, (handle, rstatus, mode, tag), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_CHECK_PARAM(rstatus != nullptr, "rstatus is NULL");
    FD_CHECK_PARAM(mode == CUDNN_ERRQUERY_RAWCODE || mode == CUDNN_ERRQUERY_NONBLOCKING ||
                       mode == CUDNN_ERRQUERY_BLOCKING,
                   "invalid mode %d", static_cast<int>(mode));
    (void)tag;  // no kernel in freednn records asynchronous errors with tags yet
#ifdef FREEDNN_WITH_CUDA
    if (mode == CUDNN_ERRQUERY_BLOCKING && !handle->on_cpu()) cudaStreamSynchronize(handle->stream);
#endif
    *rstatus = static_cast<cudnnStatus_t>(handle->runtime_status.exchange(CUDNN_STATUS_SUCCESS));
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetCallback(unsigned mask, void* udata, cudnnCallback_t fptr) {
  fd::log::set_callback(mask, udata, fptr);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetCallback(unsigned* mask, void** udata, cudnnCallback_t* fptr) {
  return FD_API(cudnnGetCallback, (mask, udata), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(mask != nullptr && udata != nullptr && fptr != nullptr, "mask, udata and fptr must be non-NULL");
    fd::log::get_callback(mask, udata, fptr);
    return CUDNN_STATUS_SUCCESS;
  });
}

}  // extern "C"
