// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batched transpose of packed planes through a cp.async shared-memory pipeline (transpose_pipe.cu), the packed
// NCHW <-> NHWC path of cudnnTransformTensor for 4- and 2-byte floats.
#pragma once
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>

namespace fd::cuda {

// out[b][k][r] = alpha * in[b][r][k] + beta * out[b][k][r] for `batch` packed rows x cols planes of type t (FLOAT,
// HALF or BFLOAT16; out not read when beta == 0). Takes the problem only when rows and cols are multiples of the
// 16-byte vector (4 or 8 elements) and both pointers 16-byte aligned, and returns false (nothing queued) otherwise;
// true with *status the launch's status.
bool transpose_pipe(cudaStream_t stream, int device, cudnnDataType_t t, const void* in, void* out, int64_t batch,
                    int64_t rows, int64_t cols, double alpha, double beta, cudnnStatus_t* status);

}  // namespace fd::cuda
