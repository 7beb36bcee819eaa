// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// CUDA cross-channel LRN and divisive normalization: the semantics (formulas, windows, summation order) of
// src/cpu/lrn/lrn.h. Arguments are validated by the API layer; data pointers are device pointers; asynchronous on
// the handle's stream. Intermediate values live in the handle's scratch memory.
#pragma once
#include "core/handle.h"
#include "core/lrn_desc.h"
#include "core/tensor_desc.h"

namespace fd::cuda {

cudnnStatus_t lrn_cross_channel_forward(cudnnContext* h, const cudnnLRNStruct& p, double alpha,
                                        const cudnnTensorStruct& x_desc, const void* x, double beta,
                                        const cudnnTensorStruct& y_desc, void* y);
cudnnStatus_t lrn_cross_channel_backward(cudnnContext* h, const cudnnLRNStruct& p, double alpha,
                                         const cudnnTensorStruct& dy_desc, const void* dy,
                                         const cudnnTensorStruct& x_desc, const void* x, double beta,
                                         const cudnnTensorStruct& dx_desc, void* dx);
cudnnStatus_t divisive_normalization_forward(cudnnContext* h, const cudnnLRNStruct& p, double alpha,
                                             const cudnnTensorStruct& x_desc, const void* x, const void* means,
                                             double beta, const cudnnTensorStruct& y_desc, void* y);
cudnnStatus_t divisive_normalization_backward(cudnnContext* h, const cudnnLRNStruct& p, double alpha,
                                              const cudnnTensorStruct& x_desc, const void* x, const void* means,
                                              const void* dy, double beta, const cudnnTensorStruct& dx_desc, void* dx,
                                              void* dmeans);

}  // namespace fd::cuda
