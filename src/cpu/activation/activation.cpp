// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Element-wise activations on the CPU, computed in float (double for DOUBLE data).
//
// Definitions (c = coef, b = swish beta):
//   SIGMOID       y = 1 / (1 + exp(-x))                 dy/dx = y (1 - y)
//   RELU          y = max(x, 0)                          dy/dx = [x > 0]       (coef is ignored)
//   TANH          y = tanh(x)                            dy/dx = 1 - y^2
//   CLIPPED_RELU  y = min(max(x, 0), c)                  dy/dx = [0 < x < c]
//   ELU           y = x (x > 0), c (exp(x) - 1) else     dy/dx = 1 (x > 0), c exp(x) else
//   IDENTITY      y = x                                  dy/dx = 1
//   SWISH         y = x sigmoid(b x)                     dy/dx = s + b x s (1 - s), s = sigmoid(b x)
// NaN: for RELU and CLIPPED_RELU, reluNanOpt decides: PROPAGATE_NAN gives NaN for a NaN x (forward and
// backward); NOT_PROPAGATE_NAN treats NaN like a value that fails every comparison: forward gives 0 (the
// fmax convention), backward gives 0. The other modes propagate NaN through their arithmetic.
#include "cpu/activation/activation.h"

#include <cmath>
#include <limits>
#include <vector>

#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"

namespace fd::cpu {
namespace {

template <class T>
T sigmoid(T v) {
  return T(1) / (T(1) + std::exp(-v));
}

template <class T>
T act_fwd(cudnnActivationMode_t mode, bool propagate_nan, T c, T b, T v) {
  switch (mode) {
    case CUDNN_ACTIVATION_SIGMOID: return sigmoid(v);
    case CUDNN_ACTIVATION_RELU:
      if (std::isnan(v)) return propagate_nan ? v : T(0);
      return v > T(0) ? v : T(0);
    case CUDNN_ACTIVATION_TANH: return std::tanh(v);
    case CUDNN_ACTIVATION_CLIPPED_RELU:
      if (std::isnan(v)) return propagate_nan ? v : T(0);
      return v > T(0) ? (v < c ? v : c) : T(0);
    case CUDNN_ACTIVATION_ELU: return v > T(0) ? v : c * std::expm1(v);
    case CUDNN_ACTIVATION_IDENTITY: return v;
    case CUDNN_ACTIVATION_SWISH: return v * sigmoid(b * v);
  }
  return std::numeric_limits<T>::quiet_NaN();
}

// g = dy, yv = y (SIGMOID/TANH), xv = x (the rest).
template <class T>
T act_bwd(cudnnActivationMode_t mode, bool propagate_nan, T c, T b, T yv, T g, T xv) {
  switch (mode) {
    case CUDNN_ACTIVATION_SIGMOID: return g * yv * (T(1) - yv);
    case CUDNN_ACTIVATION_RELU:
      if (std::isnan(xv)) return propagate_nan ? xv : T(0);
      return xv > T(0) ? g : T(0);
    case CUDNN_ACTIVATION_TANH: return g * (T(1) - yv * yv);
    case CUDNN_ACTIVATION_CLIPPED_RELU:
      if (std::isnan(xv)) return propagate_nan ? xv : T(0);
      return (xv > T(0) && xv < c) ? g : T(0);
    case CUDNN_ACTIVATION_ELU: return xv > T(0) ? g : g * c * std::exp(xv);
    case CUDNN_ACTIVATION_IDENTITY: return g;
    case CUDNN_ACTIVATION_SWISH: {
      const T s = sigmoid(b * xv);
      return g * (s + b * xv * s * (T(1) - s));
    }
  }
  return std::numeric_limits<T>::quiet_NaN();
}

}  // namespace

bool activation_backward_reads_x(cudnnActivationMode_t m) {
  return m == CUDNN_ACTIVATION_RELU || m == CUDNN_ACTIVATION_CLIPPED_RELU || m == CUDNN_ACTIVATION_ELU ||
         m == CUDNN_ACTIVATION_SWISH;
}
bool activation_backward_reads_y(cudnnActivationMode_t m) {
  return m == CUDNN_ACTIVATION_SIGMOID || m == CUDNN_ACTIVATION_TANH;
}

void activation_forward(const cudnnActivationStruct& act, double alpha, const cudnnTensorStruct& x_desc,
                        const void* x, double beta, const cudnnTensorStruct& y_desc, void* y) {
  with_compute_type(y_desc.dtype, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> v = read_tensor<T>(x_desc, x);
    const bool prop = act.nan_opt == CUDNN_PROPAGATE_NAN;
    const T c = static_cast<T>(act.coef), b = static_cast<T>(act.swish_beta);
    const cudnnActivationMode_t mode = act.mode;
    parallel_for(static_cast<int64_t>(v.size()), [&](int64_t i) { v[i] = act_fwd<T>(mode, prop, c, b, v[i]); },
                 8192);
    write_tensor<T>(y_desc, y, v.data(), alpha, beta);
  });
}

void activation_backward(const cudnnActivationStruct& act, double alpha, const cudnnTensorStruct& y_desc,
                         const void* y, const cudnnTensorStruct& dy_desc, const void* dy,
                         const cudnnTensorStruct& x_desc, const void* x, double beta,
                         const cudnnTensorStruct& dx_desc, void* dx) {
  with_compute_type(dx_desc.dtype, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> g = read_tensor<T>(dy_desc, dy);
    std::vector<T> yv, xv;
    if (activation_backward_reads_y(act.mode)) yv = read_tensor<T>(y_desc, y);
    if (activation_backward_reads_x(act.mode)) xv = read_tensor<T>(x_desc, x);
    const bool prop = act.nan_opt == CUDNN_PROPAGATE_NAN;
    const T c = static_cast<T>(act.coef), b = static_cast<T>(act.swish_beta);
    const cudnnActivationMode_t mode = act.mode;
    parallel_for(static_cast<int64_t>(g.size()), [&](int64_t i) {
      const T yi = yv.empty() ? T(0) : yv[i];
      const T xi = xv.empty() ? T(0) : xv[i];
      g[i] = act_bwd<T>(mode, prop, c, b, yi, g[i], xi);
    }, 8192);
    write_tensor<T>(dx_desc, dx, g.data(), alpha, beta);
  });
}

}  // namespace fd::cpu
