// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batch normalization backward: dx, dScale, dBias, and dz through the fused add and ReLU.
#include <cmath>

#include "cpu/batchnorm/batchnorm.h"
#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"

namespace fd::cpu {
namespace {

template <class T>
void backward(const NormCall& c, T) {
  const cudnnTensorStruct& xd = *c.x_desc;
  const int64_t n = xd.dims[0], s = c.stat_count(), inner = c.inner_count(), m = c.reduce_count();
  const int64_t per_n = s * inner, count = xd.element_count();

  const std::vector<T> x = read_tensor<T>(xd, c.x);
  std::vector<T> dy = read_tensor<T>(*c.dy_desc, c.dy);
  const std::vector<T> scale = read_tensor<T>(*c.scale_bias_desc, c.scale);

  if (c.has_activation()) {
    // Through the ReLU: the gradient passes where the forward's pre-activation was positive.
    parallel_for(count, [&](int64_t i) {
      if (!mask_bit(c.reserve, i)) dy[i] = T(0);
    }, 4096);
    if (c.has_add()) write_tensor(*c.z_desc, c.dz, dy.data(), c.alpha, c.beta);
  }

  std::vector<T> mean, inv;
  if (c.saved_mean != nullptr) {
    mean = read_tensor<T>(*c.mean_var_desc, c.saved_mean);
    inv = read_tensor<T>(*c.mean_var_desc, c.saved_inv_var);
  } else {
    std::vector<T> var;
    batch_stats(x, n, s, inner, mean, var);
    inv.resize(static_cast<size_t>(s));
    for (int64_t k = 0; k < s; ++k) inv[k] = T(1) / std::sqrt(var[k] + static_cast<T>(c.epsilon));
  }

  // Per statistic: dBias = sum(dy), dScale = sum(dy * xhat).
  std::vector<T> dbias(static_cast<size_t>(s)), dscale(static_cast<size_t>(s));
  parallel_for(s, [&](int64_t k) {
    double sd = 0, sdx = 0;  // in double, as batch_stats
    for (int64_t b = 0; b < n; ++b) {
      const int64_t base = b * per_n + k * inner;
      for (int64_t j = 0; j < inner; ++j) {
        sd += dy[base + j];
        sdx += dy[base + j] * (x[base + j] - mean[k]);
      }
    }
    dbias[k] = static_cast<T>(sd);
    dscale[k] = static_cast<T>(sdx * inv[k]);
  }, norm_grain(m));

  // dx = scale * inv * (dy - mean(dy) - xhat * mean(dy * xhat))
  std::vector<T> dx(static_cast<size_t>(count));
  const T rm = T(1) / static_cast<T>(m);
  parallel_for(n * s, [&](int64_t row) {
    const int64_t k = row % s;
    const int64_t base = (row / s) * per_n + k * inner;
    const T g = scale[k] * inv[k], mdy = dbias[k] * rm, mdyx = dscale[k] * rm;
    for (int64_t j = 0; j < inner; ++j) {
      const T xhat = (x[base + j] - mean[k]) * inv[k];
      dx[base + j] = g * (dy[base + j] - mdy - xhat * mdyx);
    }
  }, norm_grain(inner));

  write_tensor(*c.dx_desc, c.dx, dx.data(), c.alpha, c.beta);
  write_tensor(*c.scale_bias_desc, c.dscale, dscale.data(), c.alpha_param, c.beta_param);
  write_tensor(*c.scale_bias_desc, c.dbias, dbias.data(), c.alpha_param, c.beta_param);
}

}  // namespace

void norm_backward(const NormCall& c) {
  with_compute_type(c.x_desc->dtype, [&](auto t) { backward(c, t); });
}

}  // namespace fd::cpu
