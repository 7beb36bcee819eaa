// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/handle.h"

#include <omp.h>

#include "core/api_context.h"
#include "core/status.h"

#ifdef FREEDNN_WITH_CUDA
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "cuda/common/aux_streams.h"
#include "cuda/conv/fft_plans.h"
#endif

namespace fd {

const char* backend_name(Backend b) { return b == Backend::cuda ? "cuda" : "cpu"; }

bool cuda_device_available() {
#ifdef FREEDNN_WITH_CUDA
  static const bool available = [] {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return count > 0;
  }();
  return available;
#else
  return false;
#endif
}

cudnnStatus_t check_handle(const cudnnContext* h) {
  FD_CHECK_PARAM(h != nullptr, "handle is NULL");
  FD_CHECK_PARAM(h->alive(), "handle is not a live cudnnHandle_t (never created or already destroyed)");
  note_api_handle(const_cast<cudnnContext*>(h));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t require_cpu(const cudnnContext* h, const char* operation) {
  FD_CHECK_SUPPORTED(h->on_cpu(), "%s has no %s implementation yet (run with FREEDNN_BACKEND=cpu and host pointers)",
                     operation, backend_name(h->backend));
  return CUDNN_STATUS_SUCCESS;
}

void note_api_handle_if_alive(cudnnHandle_t handle) {
  if (handle != nullptr && handle->alive()) note_api_handle(handle);
}

void note_api_handle(cudnnHandle_t handle) {
  ApiContext ctx = current_api_context();
  ctx.handle = handle;
  ctx.stream = handle->stream;
  ctx.device = handle->device;
  set_api_context(ctx);
}

}  // namespace fd

cudnnContext::~cudnnContext() {
#ifdef FREEDNN_WITH_CUDA
  if (scratch != nullptr) (void)cudaFree(scratch);
  for (void* p : scratch_retired) (void)cudaFree(p);
  if (scratch_event != nullptr) (void)cudaEventDestroy(static_cast<cudaEvent_t>(scratch_event));
  if (cublas != nullptr) (void)cublasDestroy(static_cast<cublasHandle_t>(cublas));
  fd::cuda::conv::destroy_fft_plans(fft_plans);
  fd::cuda::destroy_aux_streams(aux_streams);
#endif
}

void cudnnContext::describe(fd::log::Writer& w) const {
  w.field("backend", "string", fd::backend_name(backend));
  w.arg("device", device);
  w.field("stream", "cudaStream_t", fd::log::format_pointer(stream));
}
