// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include "core/tensor_desc.h"

namespace fd::cpu {

// Softmax over groups of elements. dims[0] is N, dims[1] is C (1 for a 1-D tensor), the rest are spatial.
//   INSTANCE: one group per image n, over all of C x spatial.
//   CHANNEL:  one group per (n, spatial position), over C.
// FAST:     y = exp(x) / sum exp(x)                       (no max subtraction: may overflow, like cuDNN's)
// ACCURATE: y = exp(x - max) / sum exp(x - max)
// LOG:      y = x - max - log(sum exp(x - max))
// x and y may alias.
void softmax_forward(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, double alpha,
                     const cudnnTensorStruct& x_desc, const void* x, double beta, const cudnnTensorStruct& y_desc,
                     void* y);

// FAST, ACCURATE: dx = y * (dy - sum(y * dy));  LOG (y is the log-softmax): dx = dy - exp(y) * sum(dy).
// Sums run over the same groups as the forward pass. dx may alias dy.
void softmax_backward(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, double alpha,
                      const cudnnTensorStruct& y_desc, const void* y, const cudnnTensorStruct& dy_desc,
                      const void* dy, double beta, const cudnnTensorStruct& dx_desc, void* dx);

}  // namespace fd::cpu
