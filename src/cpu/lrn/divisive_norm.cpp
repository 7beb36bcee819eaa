// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Divisive normalization (PRECOMPUTED_MEANS) on the CPU (see lrn.h for the formulas).
#include <cmath>
#include <vector>

#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"
#include "cpu/lrn/lrn.h"
#include "cpu/lrn/window_sum.h"

namespace fd::cpu {
namespace {

template <class T>
std::vector<T> centred(const cudnnTensorStruct& d, const void* x, const void* means) {
  std::vector<T> v = read_tensor<T>(d, x);
  if (means != nullptr) {
    const std::vector<T> m = read_tensor<T>(d, means);
    parallel_for(static_cast<int64_t>(v.size()), [&](int64_t i) { v[i] -= m[i]; }, 8192);
  }
  return v;
}

double window_volume(const cudnnLRNStruct& p, const cudnnTensorStruct& d) {
  return std::pow(static_cast<double>(p.n), d.nb_dims - 2);
}

// s = k + alpha / n^D * box_sum(d^2) over the spatial dims.
template <class T>
std::vector<T> divnorm_scale(const cudnnLRNStruct& p, const cudnnTensorStruct& desc, const std::vector<T>& d) {
  std::vector<T> sq(d.size()), s;
  parallel_for(static_cast<int64_t>(d.size()), [&](int64_t i) { sq[i] = d[i] * d[i]; }, 8192);
  box_sum(desc.dims, desc.nb_dims, 2, Window::centred(p.n), sq, s);
  const T k = static_cast<T>(p.k), a = static_cast<T>(p.alpha / window_volume(p, desc));
  parallel_for(static_cast<int64_t>(s.size()), [&](int64_t i) { s[i] = k + a * s[i]; }, 8192);
  return s;
}

}  // namespace

void divisive_normalization_forward(const cudnnLRNStruct& p, double alpha, const cudnnTensorStruct& x_desc,
                                    const void* x, const void* means, double beta, const cudnnTensorStruct& y_desc,
                                    void* y) {
  with_compute_type(y_desc.dtype, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> d = centred<T>(x_desc, x, means);
    const std::vector<T> s = divnorm_scale(p, x_desc, d);
    const T b = static_cast<T>(p.beta);
    parallel_for(static_cast<int64_t>(d.size()), [&](int64_t i) { d[i] *= std::pow(s[i], -b); }, 4096);
    write_tensor<T>(y_desc, y, d.data(), alpha, beta);
  });
}

void divisive_normalization_backward(const cudnnLRNStruct& p, double alpha, const cudnnTensorStruct& x_desc,
                                     const void* x, const void* means, const void* dy, double beta,
                                     const cudnnTensorStruct& dx_desc, void* dx, void* dmeans) {
  with_compute_type(dx_desc.dtype, [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> d = centred<T>(x_desc, x, means);
    std::vector<T> g = read_tensor<T>(x_desc, dy);
    const std::vector<T> s = divnorm_scale(p, x_desc, d);
    const T b = static_cast<T>(p.beta);
    const int64_t n = static_cast<int64_t>(d.size());
    std::vector<T> pw(d.size()), t(d.size()), acc;
    parallel_for(n, [&](int64_t i) {
      pw[i] = std::pow(s[i], -b);
      t[i] = g[i] * d[i] * pw[i] / s[i];
    }, 4096);
    box_sum(x_desc.dims, x_desc.nb_dims, 2, Window::centred(p.n).reflected(), t, acc);
    const T c = static_cast<T>(2.0 * p.alpha * p.beta / window_volume(p, x_desc));
    parallel_for(n, [&](int64_t i) { g[i] = g[i] * pw[i] - c * d[i] * acc[i]; }, 4096);
    // dMeans first: when dx aliases dy, dy has been read already, and dMeans never aliases an input we reread.
    if (dmeans != nullptr) {
      std::vector<T> neg(g.size());
      parallel_for(n, [&](int64_t i) { neg[i] = -g[i]; }, 8192);
      write_tensor<T>(dx_desc, dmeans, neg.data(), alpha, beta);
    }
    write_tensor<T>(dx_desc, dx, g.data(), alpha, beta);
  });
}

}  // namespace fd::cpu
