// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include "core/activation_desc.h"
#include "core/tensor_desc.h"

namespace fd::cpu {

// y = alpha * act(x) + beta * y. x and y may alias (then their descriptors are identical).
void activation_forward(const cudnnActivationStruct& act, double alpha, const cudnnTensorStruct& x_desc,
                        const void* x, double beta, const cudnnTensorStruct& y_desc, void* y);

// dx = alpha * act'(.) * dy + beta * dx. What each mode reads:
//   SIGMOID, TANH:                    y and dy (the derivative is written in terms of y; x is not read)
//   RELU, CLIPPED_RELU, ELU, SWISH:   x and dy (y is not read)
//   IDENTITY:                         dy only
// dx and dy may alias (then their descriptors are identical).
void activation_backward(const cudnnActivationStruct& act, double alpha, const cudnnTensorStruct& y_desc,
                         const void* y, const cudnnTensorStruct& dy_desc, const void* dy,
                         const cudnnTensorStruct& x_desc, const void* x, double beta,
                         const cudnnTensorStruct& dx_desc, void* dx);

// Which inputs activation_backward reads for a mode.
bool activation_backward_reads_x(cudnnActivationMode_t m);
bool activation_backward_reads_y(cudnnActivationMode_t m);

}  // namespace fd::cpu
