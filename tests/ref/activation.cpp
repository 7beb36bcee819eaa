// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "ref/activation.h"

#include <cmath>
#include <limits>

namespace ref {

namespace {
double sigm(double v) { return 1.0 / (1.0 + std::exp(-v)); }
}  // namespace

double activation(const Activation& a, double x) {
  const bool relu_family = a.mode == CUDNN_ACTIVATION_RELU || a.mode == CUDNN_ACTIVATION_CLIPPED_RELU;
  if (relu_family && std::isnan(x)) return a.propagate_nan ? x : 0.0;
  switch (a.mode) {
    case CUDNN_ACTIVATION_SIGMOID: return sigm(x);
    case CUDNN_ACTIVATION_RELU: return x > 0 ? x : 0.0;
    case CUDNN_ACTIVATION_TANH: return std::tanh(x);
    case CUDNN_ACTIVATION_CLIPPED_RELU: return x <= 0 ? 0.0 : (x >= a.coef ? a.coef : x);
    case CUDNN_ACTIVATION_ELU: return x > 0 ? x : a.coef * (std::exp(x) - 1.0);
    case CUDNN_ACTIVATION_IDENTITY: return x;
    case CUDNN_ACTIVATION_SWISH: return x * sigm(a.swish_beta * x);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

double activation_derivative(const Activation& a, double x) {
  const bool relu_family = a.mode == CUDNN_ACTIVATION_RELU || a.mode == CUDNN_ACTIVATION_CLIPPED_RELU;
  if (relu_family && std::isnan(x)) return a.propagate_nan ? x : 0.0;
  switch (a.mode) {
    case CUDNN_ACTIVATION_SIGMOID: return sigm(x) * (1.0 - sigm(x));
    case CUDNN_ACTIVATION_RELU: return x > 0 ? 1.0 : 0.0;
    case CUDNN_ACTIVATION_TANH: return 1.0 - std::tanh(x) * std::tanh(x);
    case CUDNN_ACTIVATION_CLIPPED_RELU: return (x > 0 && x < a.coef) ? 1.0 : 0.0;
    case CUDNN_ACTIVATION_ELU: return x > 0 ? 1.0 : a.coef * std::exp(x);
    case CUDNN_ACTIVATION_IDENTITY: return 1.0;
    case CUDNN_ACTIVATION_SWISH: {
      const double b = a.swish_beta, s = sigm(b * x);
      return s + b * x * s * (1.0 - s);
    }
  }
  return std::numeric_limits<double>::quiet_NaN();
}

Tensor activation_forward(const Activation& a, const Tensor& x) {
  Tensor y(x.dims);
  for (int64_t i = 0; i < x.count(); ++i) y[i] = activation(a, x[i]);
  return y;
}

Tensor activation_backward(const Activation& a, const Tensor& x, const Tensor& dy) {
  Tensor dx(x.dims);
  for (int64_t i = 0; i < x.count(); ++i) {
    const double d = activation_derivative(a, x[i]);
    // A zero derivative gives a zero gradient even for a non-finite dy (a mask, not a product).
    dx[i] = (d == 0.0) ? 0.0 : d * dy[i];
  }
  return dx;
}

}  // namespace ref
