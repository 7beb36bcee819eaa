// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batch normalization on the GPU, for every API form (cudnnBatchNormalization*, plain and Ex, and
// cudnnNormalization*). The call is validated by NormCall::validate; data pointers are device pointers.
// Same semantics as src/cpu/batchnorm (including the reserve-space ReLU mask: bit i of the 64-bit word i/64 is
// set where the pre-activation of logical element i was positive). Deterministic: the statistics are reduced
// per block in a fixed order into the handle's scratch memory, then combined per statistic by one thread.
#pragma once
#include "problem/batchnorm.h"

struct cudnnContext;

namespace fd::cuda {

cudnnStatus_t norm_forward(cudnnContext* h, const NormCall& c);
cudnnStatus_t norm_backward(cudnnContext* h, const NormCall& c);

}  // namespace fd::cuda
