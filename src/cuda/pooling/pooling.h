// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Pooling on the GPU, 4-D and 5-D, every mode, any strides; semantics of src/cpu/pooling/pooling.h. Arguments
// are validated by the API layer; data pointers are device pointers; nothing synchronizes the host.
#pragma once
#include <cuda_runtime_api.h>

#include "core/pooling_desc.h"
#include "core/tensor_desc.h"

struct cudnnContext;

namespace fd::cuda {

cudnnStatus_t pooling_forward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                              const cudnnTensorStruct& x_desc, const void* x, double beta,
                              const cudnnTensorStruct& y_desc, void* y);
// Deterministic: each dx element gathers, in output order, the dy of the windows that contain it (max modes:
// the windows whose argmax, recomputed from x into the handle's scratch memory first, is this element). No
// atomics.
cudnnStatus_t pooling_backward(cudnnContext* h, const cudnnPoolingStruct& p, double alpha,
                               const cudnnTensorStruct& dy_desc, const void* dy, const cudnnTensorStruct& x_desc,
                               const void* x, double beta, const cudnnTensorStruct& dx_desc, void* dx);

}  // namespace fd::cuda
