// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Cross-channel LRN on the CPU (see lrn.h for the formulas).
#include <cmath>
#include <vector>

#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"
#include "cpu/lrn/lrn.h"
#include "cpu/lrn/window_sum.h"

namespace fd::cpu {
namespace {

// s = k + alpha/n * window_sum(x^2) along the channel dim.
template <class T>
std::vector<T> lrn_scale(const cudnnLRNStruct& p, const cudnnTensorStruct& d, const std::vector<T>& x) {
  std::vector<T> sq(x.size()), s(x.size());
  parallel_for(static_cast<int64_t>(x.size()), [&](int64_t i) { sq[i] = x[i] * x[i]; }, 8192);
  window_sum(d.dims, d.nb_dims, 1, Window::centred(p.n), sq.data(), s.data());
  const T k = static_cast<T>(p.k), a = static_cast<T>(p.alpha / p.n);
  parallel_for(static_cast<int64_t>(s.size()), [&](int64_t i) { s[i] = k + a * s[i]; }, 8192);
  return s;
}

}  // namespace

void lrn_cross_channel_forward(const cudnnLRNStruct& p, double alpha, const cudnnTensorStruct& x_desc, const void* x,
                               double beta, const cudnnTensorStruct& y_desc, void* y) {
  with_compute_type(y_desc.dtype, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> v = read_tensor<T>(x_desc, x);
    const std::vector<T> s = lrn_scale(p, x_desc, v);
    const T b = static_cast<T>(p.beta);
    parallel_for(static_cast<int64_t>(v.size()), [&](int64_t i) { v[i] *= std::pow(s[i], -b); }, 4096);
    write_tensor<T>(y_desc, y, v.data(), alpha, beta);
  });
}

void lrn_cross_channel_backward(const cudnnLRNStruct& p, double alpha, const cudnnTensorStruct& dy_desc,
                                const void* dy, const cudnnTensorStruct& x_desc, const void* x, double beta,
                                const cudnnTensorStruct& dx_desc, void* dx) {
  with_compute_type(dx_desc.dtype, [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> xv = read_tensor<T>(x_desc, x);
    std::vector<T> g = read_tensor<T>(dy_desc, dy);
    const std::vector<T> s = lrn_scale(p, x_desc, xv);
    const T b = static_cast<T>(p.beta);
    const int64_t n = static_cast<int64_t>(xv.size());
    std::vector<T> pw(xv.size()), t(xv.size()), acc(xv.size());
    parallel_for(n, [&](int64_t i) {
      pw[i] = std::pow(s[i], -b);
      t[i] = g[i] * xv[i] * pw[i] / s[i];
    }, 4096);
    window_sum(x_desc.dims, x_desc.nb_dims, 1, Window::centred(p.n).reflected(), t.data(), acc.data());
    const T c = static_cast<T>(2.0 * p.alpha * p.beta / p.n);
    parallel_for(n, [&](int64_t i) { g[i] = g[i] * pw[i] - c * xv[i] * acc[i]; }, 4096);
    write_tensor<T>(dx_desc, dx, g.data(), alpha, beta);
  });
}

}  // namespace fd::cpu
