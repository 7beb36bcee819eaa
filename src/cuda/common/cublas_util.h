// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The handle's cuBLAS handle (created lazily, bound to the handle's stream at each use) and error mapping.
#pragma once
#include <cublas_v2.h>

#include "core/status.h"

struct cudnnContext;

// Turns a cuBLAS error into EXECUTION_FAILED with the status's name in the logged reason.
#define FD_CUBLAS_CHECK(expr)                                                                              \
  do {                                                                                                     \
    const cublasStatus_t fd_cublas_st_ = (expr);                                                           \
    if (fd_cublas_st_ != CUBLAS_STATUS_SUCCESS)                                                            \
      return ::fd::report(CUDNN_STATUS_EXECUTION_FAILED, __FILE__, __LINE__, #expr, "cuBLAS error %s",     \
                          cublasGetStatusName(fd_cublas_st_));                                             \
  } while (0)

namespace fd::cuda {

// The cuBLAS handle of `h` (created on first use, owned and destroyed by the handle), set to h->stream.
cudnnStatus_t cublas_handle(cudnnContext* h, cublasHandle_t* out);

}  // namespace fd::cuda
