// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batch normalization forward, inference and training, with the optional fused add and ReLU.
#include <cmath>
#include <algorithm>

#include "cpu/batchnorm/batchnorm.h"
#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"

namespace fd::cpu {
namespace {

template <class T>
void forward(const NormCall& c, T) {
  const cudnnTensorStruct& xd = *c.x_desc;
  const int64_t n = xd.dims[0], s = c.stat_count(), inner = c.inner_count(), m = c.reduce_count();
  const int64_t per_n = s * inner, count = xd.element_count();
  const bool training = c.dir == NormDir::training;

  const std::vector<T> x = read_tensor<T>(xd, c.x);
  const std::vector<T> scale = read_tensor<T>(*c.scale_bias_desc, c.scale);
  const std::vector<T> bias = read_tensor<T>(*c.scale_bias_desc, c.bias);
  std::vector<T> mean, var;
  if (training) {
    batch_stats(x, n, s, inner, mean, var);
  } else {
    mean = read_tensor<T>(*c.mean_var_desc, c.est_mean);
    var = read_tensor<T>(*c.mean_var_desc, c.est_var);
  }
  std::vector<T> inv, eq_scale, eq_bias;
  equivalent_scale_bias(scale, bias, mean, var, c.epsilon, inv, eq_scale, eq_bias);

  std::vector<T> out(static_cast<size_t>(count));
  std::vector<T> z;
  if (c.has_add()) z = read_tensor<T>(*c.z_desc, c.z);
  parallel_for(n * s, [&](int64_t row) {
    const int64_t k = row % s;
    const int64_t base = (row / s) * per_n + k * inner;
    const T a = eq_scale[k], b = eq_bias[k];
    for (int64_t j = 0; j < inner; ++j) out[base + j] = a * x[base + j] + b;
    if (!z.empty())
      for (int64_t j = 0; j < inner; ++j) out[base + j] += z[base + j];
  }, norm_grain(inner));

  if (c.has_activation()) {
    // ReLU; training also records where the pre-activation was positive, for the backward pass.
    uint64_t* mask = training ? static_cast<uint64_t*>(c.reserve) : nullptr;
    const bool keep_nan = c.act.nan == CUDNN_PROPAGATE_NAN;
    const int64_t words = (count + 63) / 64;
    parallel_for(words, [&](int64_t w) {
      uint64_t bits = 0;
      const int64_t end = std::min(count, (w + 1) * 64);
      for (int64_t i = w * 64; i < end; ++i) {
        const T v = out[i];
        if (v > T(0)) {
          bits |= uint64_t{1} << (i - w * 64);
        } else if (!(keep_nan && std::isnan(v))) {
          out[i] = T(0);
        }
      }
      if (mask) mask[w] = bits;
    }, 64);
  }
  write_tensor(*c.y_desc, c.y, out.data(), c.alpha, c.beta);
  if (!training) return;

  const cudnnTensorStruct& mv = *c.mean_var_desc;
  if (c.save_mean != nullptr) {
    write_tensor(mv, c.save_mean, mean.data(), 1.0, 0.0);
    write_tensor(mv, c.save_inv_var, inv.data(), 1.0, 0.0);
  }
  if (c.running_mean != nullptr) update_running_stats(mv, c.running_mean, c.running_var, mean, var, m, c.factor);
}

}  // namespace

void norm_forward(const NormCall& c) {
  with_compute_type(c.x_desc->dtype, [&](auto t) { forward(c, t); });
}

}  // namespace fd::cpu
