// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Reference activations, from the definitions, in double.
#pragma once
#include <cudnn.h>

#include "ref/ref_tensor.h"

namespace ref {

struct Activation {
  cudnnActivationMode_t mode = CUDNN_ACTIVATION_RELU;
  bool propagate_nan = false;
  double coef = 0.0;        // CLIPPED_RELU threshold, ELU alpha
  double swish_beta = 1.0;  // SWISH
};

double activation(const Activation& a, double x);
// d act / dx at x (y = act(x) is derived from x here; the reference does not care what cuDNN reads).
double activation_derivative(const Activation& a, double x);

Tensor activation_forward(const Activation& a, const Tensor& x);
// dx = act'(x) * dy; ReLU-family NaN handling as in forward.
Tensor activation_backward(const Activation& a, const Tensor& x, const Tensor& dy);

}  // namespace ref
