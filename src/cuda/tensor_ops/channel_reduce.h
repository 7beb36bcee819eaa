// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cudnnReduceTensor without indices over a packed A whose kept dims form one block of memory ("per-channel"
// reductions such as NCHW or NHWC 64x256x56x56 -> 1x256x1x1), at memory bandwidth:
//   planes   A is [N][C][L] in memory (L contiguous), outputs c: each output's slice is N planes of L elements
//            (NCHW -> 1xCx1x1; N = 1 covers C contiguous rows, C = 1 a reduction of everything);
//   columns  A is [Q][R][I] in memory, outputs (q, i): reduced over R (NHWC -> 1xCx1x1: Q = 1, I = C).
// 16-byte loads typed at compile time (storage and op), the reduced range split over blocks (about two waves),
// partial results in the caller's workspace and a second deterministic kernel that combines them in a fixed
// order (no atomics: bitwise reproducible). Compute in float (double for DOUBLE data). MIN / MAX / AMAX follow
// the NaN rules of the other paths (PROPAGATE: a NaN wins; NOT_PROPAGATE: numbers win, NaN only if all are).
// FREEDNN_REDUCE_NO_CHANNEL=1 turns the path off (A/B timing against the generic plans); FREEDNN_REDUCE_COLUMNS=
// wave|fused runs the columns form on one wave of blocks (channel_reduce.cu, columns_wave).
#pragma once
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstddef>
#include <cstdint>

#include "core/tensor_desc.h"
#include "core/tensor_ops_desc.h"

namespace fd::cuda {

struct ChannelPlan {
  bool planes = false;          // else columns
  int64_t n = 1, c = 1, l = 1;  // planes: [N][C][L]
  int64_t q = 1, r = 1, i = 1;  // columns: [Q][R][I]
  int64_t outputs = 0;          // C (planes) or Q * I (columns)
  int64_t slice = 0;            // elements reduced into each output
  int64_t parts = 1;            // splits of each output's slice (upper bound: the launch may use fewer)
  size_t comp_size = 4;         // bytes of a partial result (float, double for DOUBLE data)
};

// Whether the channel path takes this problem (shape, types, op; not the pointers) and how it splits it; false
// when FREEDNN_REDUCE_NO_CHANNEL is set. Indices are not produced: callers that need them use other paths.
bool channel_plan(int device, const cudnnReduceTensorStruct& r, const cudnnTensorStruct& a,
                  const cudnnTensorStruct& c, ChannelPlan* plan);
// Workspace bytes the plan needs (its partial results; 0 when every slice is one block's).
size_t channel_workspace(const ChannelPlan& plan);
// Whether the plan can run with these buffers (A aligned to its element size, enough 16-byte aligned workspace).
bool channel_can_run(const ChannelPlan& plan, const cudnnTensorStruct& a, const void* ap, const void* workspace,
                     size_t workspace_bytes);
// C = alpha * reduce(A) + beta * C (C not read when beta == 0); channel_plan and channel_can_run must hold.
cudnnStatus_t channel_reduce(cudaStream_t stream, int device, const ChannelPlan& plan,
                             const cudnnReduceTensorStruct& r, const cudnnTensorStruct& a, const void* ap,
                             const cudnnTensorStruct& c, void* cp, double alpha, double beta, void* workspace);

}  // namespace fd::cuda
