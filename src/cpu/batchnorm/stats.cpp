// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cpu/batchnorm/batchnorm.h"
#include "cpu/common/parallel.h"

namespace fd::cpu {

template <class T>
void batch_stats(const std::vector<T>& x, int64_t n, int64_t s, int64_t inner, std::vector<T>& mean,
                 std::vector<T>& var) {
  mean.assign(static_cast<size_t>(s), T(0));
  var.assign(static_cast<size_t>(s), T(0));
  const int64_t m = n * inner;
  const int64_t per_n = s * inner;
  parallel_for(s, [&](int64_t k) {
    T sum = 0;
    for (int64_t b = 0; b < n; ++b) {
      const T* p = x.data() + b * per_n + k * inner;
      for (int64_t j = 0; j < inner; ++j) sum += p[j];
    }
    const T mu = sum / static_cast<T>(m);
    T sq = 0;
    for (int64_t b = 0; b < n; ++b) {
      const T* p = x.data() + b * per_n + k * inner;
      for (int64_t j = 0; j < inner; ++j) {
        const T d = p[j] - mu;
        sq += d * d;
      }
    }
    mean[k] = mu;
    var[k] = sq / static_cast<T>(m);
  }, norm_grain(m));
}

template void batch_stats<float>(const std::vector<float>&, int64_t, int64_t, int64_t, std::vector<float>&,
                                 std::vector<float>&);
template void batch_stats<double>(const std::vector<double>&, int64_t, int64_t, int64_t, std::vector<double>&,
                                  std::vector<double>&);

}  // namespace fd::cpu
