// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// CUDA tensor operations. Arguments are validated by the API layer; data pointers are device pointers;
// every launch goes on `stream` and nothing synchronizes the host.
#pragma once
#include <cuda_runtime_api.h>

#include "core/tensor_desc.h"

namespace fd::cuda {

// y = alpha * y.
cudnnStatus_t scale_tensor(cudaStream_t stream, int device, const cudnnTensorStruct& y, void* yp, double alpha);
// Every element of y = *value (one scalar of y's scalar type, host pointer, copied bit for bit).
cudnnStatus_t set_tensor(cudaStream_t stream, int device, const cudnnTensorStruct& y, void* yp, const void* value);

}  // namespace fd::cuda
