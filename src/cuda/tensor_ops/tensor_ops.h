// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// CUDA tensor operations. Arguments are validated by the API layer; data pointers are device pointers;
// every launch goes on `stream` and nothing synchronizes the host. Semantics are those of the CPU backend's
// functions of the same names (src/cpu/tensor_ops/tensor_ops.h).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/tensor_desc.h"
#include "core/tensor_ops_desc.h"

namespace fd::cuda {

// y = alpha * y.
cudnnStatus_t scale_tensor(cudaStream_t stream, int device, const cudnnTensorStruct& y, void* yp, double alpha);
// Every element of y = *value (one scalar of y's scalar type, host pointer, copied bit for bit).
cudnnStatus_t set_tensor(cudaStream_t stream, int device, const cudnnTensorStruct& y, void* yp, const void* value);

// y = alpha * T(x) + beta * y (t == nullptr: identity); vector padding lanes of y are zeroed.
cudnnStatus_t transform_tensor(cudaStream_t stream, int device, const cudnnTensorTransformStruct* t,
                               const cudnnTensorStruct& x, const void* xp, const cudnnTensorStruct& y, void* yp,
                               double alpha, double beta);

// C = op(alpha1 * A, alpha2 * B) + beta * C, B broadcast (not read for SQRT and NOT).
cudnnStatus_t op_tensor(cudaStream_t stream, int device, cudnnOpTensorOp_t op, cudnnNanPropagation_t nan_opt,
                        bool double_compute, const cudnnTensorStruct& a, const void* ap, double alpha1,
                        const cudnnTensorStruct* b, const void* bp, double alpha2, const cudnnTensorStruct& c,
                        void* cp, double beta);
// C = alpha * A + beta * C, A broadcast.
cudnnStatus_t add_tensor(cudaStream_t stream, int device, const cudnnTensorStruct& a, const void* ap,
                         const cudnnTensorStruct& c, void* cp, double alpha, double beta);

// Workspace bytes reduce_tensor needs for this problem on `device` (0 when it reduces in one kernel).
size_t reduce_workspace_size(int device, const cudnnReduceTensorStruct& r, const cudnnTensorStruct& a,
                             const cudnnTensorStruct& c);
// C = alpha * reduce(A) + beta * C (and indices when `indices` != nullptr). With less workspace than
// reduce_workspace_size asks, it falls back to a slower single-kernel reduction.
cudnnStatus_t reduce_tensor(cudaStream_t stream, int device, const cudnnReduceTensorStruct& r,
                            const cudnnTensorStruct& a, const void* ap, const cudnnTensorStruct& c, void* cp,
                            double alpha, double beta, uint32_t* indices, void* workspace, size_t workspace_bytes);

}  // namespace fd::cuda
