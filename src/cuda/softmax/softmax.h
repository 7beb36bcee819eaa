// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// CUDA softmax: the semantics of fd::cpu::softmax_forward / softmax_backward (src/cpu/softmax/softmax.h).
// Arguments are validated by the API layer; device pointers; asynchronous on `stream`.
#pragma once
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "core/tensor_desc.h"

namespace fd::cuda {

cudnnStatus_t softmax_forward(cudaStream_t stream, int device, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                              double alpha, const cudnnTensorStruct& x_desc, const void* x, double beta,
                              const cudnnTensorStruct& y_desc, void* y);

cudnnStatus_t softmax_backward(cudaStream_t stream, int device, cudnnSoftmaxAlgorithm_t algo,
                               cudnnSoftmaxMode_t mode, double alpha, const cudnnTensorStruct& y_desc, const void* y,
                               const cudnnTensorStruct& dy_desc, const void* dy, double beta,
                               const cudnnTensorStruct& dx_desc, void* dx);

}  // namespace fd::cuda
