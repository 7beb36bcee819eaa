// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The transposing copy the float sm90 paths run their forward kernels over (wgrad_tf32.h, dgrad_tf32.h):
// dst[a][u][v][n] (packed, a padded to Ap and n to Np with zeros) = src(n, a, u, v) for any element strides of the
// source's four dims, negative ones included (a flipped filter). It gives the TF32 forward kernels K-major operands:
// x or dy transposed for the wgrad, dy to NHWC and the phase sub-filters of the dgrad (and of the 16-bit one).
#pragma once
#include <cuda_runtime_api.h>

#include <cudnn.h>

#include <cstdint>

namespace fd::cuda::conv::sm90 {

// strides: the source's element strides of (n, a, u, v). Queued on st; no workspace. The 16-bit form moves half or
// bfloat16 elements as bits (the 16-bit dgrad's phase sub-filters, dgrad_phases16.h).
cudnnStatus_t to_chwn(cudaStream_t st, const float* src, const int64_t* strides, int64_t N, int64_t A, int64_t Ap,
                      int64_t U, int64_t V, int64_t Np, float* dst);
cudnnStatus_t to_chwn(cudaStream_t st, const uint16_t* src, const int64_t* strides, int64_t N, int64_t A, int64_t Ap,
                      int64_t U, int64_t V, int64_t Np, uint16_t* dst);

}  // namespace fd::cuda::conv::sm90
