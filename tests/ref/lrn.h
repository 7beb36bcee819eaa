// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Reference LRN and divisive normalization, from the definitions, in double.
#pragma once
#include "ref/ref_tensor.h"

namespace ref {

struct Lrn {
  int n = 5;
  double alpha = 1e-4, beta = 0.75, k = 2.0;
};

// Window of n taps around i: [i - (n-1)/2, i - (n-1)/2 + n - 1], clipped to [0, len).
bool in_window(int n, int centre, int j);

// Cross-channel LRN over dims[1]: y = x / (k + alpha/n * sum_{window} x^2)^beta.
Tensor lrn_forward(const Lrn& p, const Tensor& x);
// dx_m = sum_i dy_i * d y_i / d x_m (summed over the channels whose window holds m).
Tensor lrn_backward(const Lrn& p, const Tensor& x, const Tensor& dy);

// Divisive normalization: d = x - means (means empty: zero),
// y = d / (k + alpha/n^D * sum over the n^D spatial window of d^2)^beta, D = rank - 2.
Tensor divnorm_forward(const Lrn& p, const Tensor& x, const Tensor& means);
// The gradient with respect to x; the gradient with respect to the means is its negation.
Tensor divnorm_backward(const Lrn& p, const Tensor& x, const Tensor& means, const Tensor& dy);

}  // namespace ref
