// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Reference softmax, from the definitions, in double. dims[0] = N, dims[1] = C, the rest spatial.
#pragma once
#include <cudnn.h>

#include "ref/ref_tensor.h"

namespace ref {

// FAST and ACCURATE both give exp(x_i) / sum_j exp(x_j); LOG gives its logarithm.
Tensor softmax_forward(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, const Tensor& x);
// The gradient through softmax (or log-softmax for LOG), written with y, the forward output.
Tensor softmax_backward(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, const Tensor& y, const Tensor& dy);

}  // namespace ref
