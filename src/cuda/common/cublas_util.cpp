// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cuda/common/cublas_util.h"

#include <mutex>

#include "core/handle.h"
#include "cuda/common/cuda_util.h"

namespace fd::cuda {

cudnnStatus_t cublas_handle(cudnnContext* h, cublasHandle_t* out) {
  // Made once per handle under a lock: a workspace query on another thread (cuBLASLt tuning) may ask for it while
  // a call runs (found by review); the lock is uncontended otherwise
  static std::mutex make;
  std::lock_guard<std::mutex> lock(make);
  if (h->cublas == nullptr) {
    // cublasCreate allocates: in relaxed capture mode (the first call of an implementation with no prepare() may
    // come inside a capture)
    cublasHandle_t c = nullptr;
    const cublasStatus_t st = [&] {
      const RelaxedCapture relaxed;
      return cublasCreate(&c);
    }();
    FD_CHECK(st == CUBLAS_STATUS_SUCCESS, st == CUBLAS_STATUS_ALLOC_FAILED ? CUDNN_STATUS_ALLOC_FAILED
                                                                            : CUDNN_STATUS_EXECUTION_FAILED,
             "cannot create the cuBLAS handle: %s", cublasGetStatusName(st));
    h->cublas = c;
  }
  cublasHandle_t c = static_cast<cublasHandle_t>(h->cublas);
  FD_CUBLAS_CHECK(cublasSetStream(c, h->stream));
  *out = c;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda
