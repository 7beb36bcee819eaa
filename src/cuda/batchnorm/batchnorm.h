// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batch normalization on the GPU, for every API form (cudnnBatchNormalization*, plain and Ex, and
// cudnnNormalization*). The call is validated by NormCall::validate; data pointers are device pointers.
// Same semantics as src/cpu/batchnorm. The reserve-space ReLU mask (opaque to the caller) has one bit per element,
// bit i of the 64-bit word i/64, set where the pre-activation was positive; i is the element's offset in x when x
// is packed (spatial modes: memory order, so that the elementwise passes write it with plain stores), else its
// logical index (as the CPU backend; for packed NCHW the two are the same). Deterministic: the statistics are
// reduced per block in a fixed order into the handle's scratch memory, then combined per statistic by one warp in
// a fixed order.
#pragma once
#include "problem/batchnorm.h"

struct cudnnContext;

namespace fd::cuda {

cudnnStatus_t norm_forward(cudnnContext* h, const NormCall& c);
cudnnStatus_t norm_backward(cudnnContext* h, const NormCall& c);

}  // namespace fd::cuda
