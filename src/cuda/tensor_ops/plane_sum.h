// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Sums over the middle dim of a packed [Q][R][I] array (element (q, r, i) at x + (q * R + r) * I + i), blended into
// an output: out(q, i) = alpha * (sum_r x(q, r, i) / divisor) + beta * out(q, i), out(q, i) at element offset
// (q / D) * s0 + (q % D) * s1 + i * si of `out` (out not read when beta == 0). Global average pooling (NCHW: Q = N*C,
// R = H*W, I = 1; NHWC: Q = N, R = H*W, I = C) and cudnnReduceTensor ADD / AVG over trailing or middle dims.
// One pass over x, no workspace, one kernel:
//   I == 1   a block stages T consecutive rows of R elements (one contiguous range) in shared memory with 16-byte
//            loads, then P threads per row sum it (T * P = 256);
//   I > 1    16-byte vectors of V elements along I: a block takes 16 vector columns of one q, its 16 row groups
//            split R, a fixed-order fold in shared memory (needs I % V == 0 and x 16-byte aligned).
// Compute in float (double for DOUBLE input). Deterministic (fixed summation order).
#pragma once
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>

namespace fd::cuda {

struct PlaneSumArgs {
  cudnnDataType_t xt = CUDNN_DATA_FLOAT;  // input (scalar) type: FLOAT, DOUBLE, HALF or BFLOAT16
  const void* x = nullptr;
  int64_t Q = 0, R = 0, I = 0;
  int64_t divisor = 1;
  cudnnDataType_t ot = CUDNN_DATA_FLOAT;  // output (scalar) type
  void* out = nullptr;
  int64_t D = 1, s0 = 0, s1 = 0, si = 0;
  double alpha = 1, beta = 0;
};

// Whether plane_sum runs this problem (types, sizes, alignment, enough parallelism); no side effects.
bool plane_sum_ok(const PlaneSumArgs& a, int device);
// Queues the kernel (plane_sum_ok must hold).
cudnnStatus_t plane_sum(cudaStream_t stream, int device, const PlaneSumArgs& a);

}  // namespace fd::cuda
