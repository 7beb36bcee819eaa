// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cpu/batchnorm/batchnorm.h"
#include <cmath>

#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"

namespace fd::cpu {

template <class T>
void batch_stats(const std::vector<T>& x, int64_t n, int64_t s, int64_t inner, std::vector<T>& mean,
                 std::vector<T>& var) {
  mean.assign(static_cast<size_t>(s), T(0));
  var.assign(static_cast<size_t>(s), T(0));
  const int64_t m = n * inner;
  const int64_t per_n = s * inner;
  // Sums in double: a channel can hold millions of elements (64x64x112x112: 802816), where float sums drift past
  // float tolerances.
  parallel_for(s, [&](int64_t k) {
    double sum = 0;
    for (int64_t b = 0; b < n; ++b) {
      const T* p = x.data() + b * per_n + k * inner;
      for (int64_t j = 0; j < inner; ++j) sum += p[j];
    }
    const T mu = static_cast<T>(sum / static_cast<double>(m));
    double sq = 0;
    for (int64_t b = 0; b < n; ++b) {
      const T* p = x.data() + b * per_n + k * inner;
      for (int64_t j = 0; j < inner; ++j) {
        const T d = p[j] - mu;
        sq += d * d;
      }
    }
    mean[k] = mu;
    var[k] = static_cast<T>(sq / static_cast<double>(m));
  }, norm_grain(m));
}

template <class T>
void equivalent_scale_bias(const std::vector<T>& scale, const std::vector<T>& bias, const std::vector<T>& mean,
                           const std::vector<T>& var, double epsilon, std::vector<T>& inv, std::vector<T>& a,
                           std::vector<T>& b) {
  const size_t s = var.size();
  inv.resize(s);
  a.resize(s);
  b.resize(s);
  for (size_t k = 0; k < s; ++k) {
    inv[k] = T(1) / std::sqrt(var[k] + static_cast<T>(epsilon));
    a[k] = scale[k] * inv[k];
    b[k] = bias[k] - a[k] * mean[k];
  }
}

template <class T>
void update_running_stats(const cudnnTensorStruct& mv, void* running_mean, void* running_var,
                          const std::vector<T>& mean, const std::vector<T>& var, int64_t m, double factor) {
  const size_t s = mean.size();
  const T f = static_cast<T>(factor);
  const T unbias = m > 1 ? static_cast<T>(m) / static_cast<T>(m - 1) : T(1);
  std::vector<T> rm(s), rv(s);
  if (factor != 1.0) {
    rm = read_tensor<T>(mv, running_mean);
    rv = read_tensor<T>(mv, running_var);
  }
  for (size_t k = 0; k < s; ++k) {
    const T uv = var[k] * unbias;
    if (factor == 1.0) {
      rm[k] = mean[k];
      rv[k] = uv;
    } else {
      rm[k] = (T(1) - f) * rm[k] + f * mean[k];
      rv[k] = (T(1) - f) * rv[k] + f * uv;
    }
  }
  write_tensor(mv, running_mean, rm.data(), 1.0, 0.0);
  write_tensor(mv, running_var, rv.data(), 1.0, 0.0);
}

#define FD_BN_INSTANTIATE(T)                                                                                     \
  template void equivalent_scale_bias<T>(const std::vector<T>&, const std::vector<T>&, const std::vector<T>&,   \
                                         const std::vector<T>&, double, std::vector<T>&, std::vector<T>&,       \
                                         std::vector<T>&);                                                      \
  template void update_running_stats<T>(const cudnnTensorStruct&, void*, void*, const std::vector<T>&,          \
                                        const std::vector<T>&, int64_t, double);
FD_BN_INSTANTIATE(float)
FD_BN_INSTANTIATE(double)
#undef FD_BN_INSTANTIATE

template void batch_stats<float>(const std::vector<float>&, int64_t, int64_t, int64_t, std::vector<float>&,
                                 std::vector<float>&);
template void batch_stats<double>(const std::vector<double>&, int64_t, int64_t, int64_t, std::vector<double>&,
                                  std::vector<double>&);

}  // namespace fd::cpu
