// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// CUDA activations: the semantics of fd::cpu::activation_forward / activation_backward
// (src/cpu/activation/activation.h). Arguments are validated by the API layer; device pointers; asynchronous on
// `stream`.
#pragma once
#include <cuda_runtime_api.h>

#include "core/activation_desc.h"
#include "core/tensor_desc.h"

namespace fd::cuda {

cudnnStatus_t activation_forward(cudaStream_t stream, int device, const cudnnActivationStruct& act, double alpha,
                                 const cudnnTensorStruct& x_desc, const void* x, double beta,
                                 const cudnnTensorStruct& y_desc, void* y);

cudnnStatus_t activation_backward(cudaStream_t stream, int device, const cudnnActivationStruct& act, double alpha,
                                  const cudnnTensorStruct& y_desc, const void* y, const cudnnTensorStruct& dy_desc,
                                  const void* dy, const cudnnTensorStruct& x_desc, const void* x, double beta,
                                  const cudnnTensorStruct& dx_desc, void* dx);

}  // namespace fd::cuda
