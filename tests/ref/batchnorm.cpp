// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "ref/batchnorm.h"

#include <cmath>

namespace ref {

int bn_stat_count(const Tensor& x, bool per_activation) {
  if (!per_activation) return x.dims[1];
  return static_cast<int>(x.count() / x.dims[0]);
}

int bn_stat_index(const Tensor& x, int64_t linear, bool per_activation) {
  const std::vector<int> idx = x.unravel(linear);
  if (!per_activation) return idx[1];
  // (c, spatial...) flattened row-major
  int64_t s = 0;
  for (int d = 1; d < x.rank(); ++d) s = s * x.dims[d] + idx[d];
  return static_cast<int>(s);
}

BnBatchStats bn_batch_stats(const Tensor& x, bool per_activation, double epsilon) {
  const int s = bn_stat_count(x, per_activation);
  BnBatchStats st;
  st.mean.assign(s, 0.0);
  st.var.assign(s, 0.0);
  std::vector<double> cnt(s, 0.0);
  for (int64_t i = 0; i < x.count(); ++i) {
    const int k = bn_stat_index(x, i, per_activation);
    st.mean[k] += x[i];
    cnt[k] += 1;
  }
  for (int k = 0; k < s; ++k) st.mean[k] /= cnt[k];
  for (int64_t i = 0; i < x.count(); ++i) {
    const int k = bn_stat_index(x, i, per_activation);
    st.var[k] += (x[i] - st.mean[k]) * (x[i] - st.mean[k]);
  }
  st.unbiased_var.resize(s);
  st.inv_std.resize(s);
  for (int k = 0; k < s; ++k) {
    const double sq = st.var[k];
    st.var[k] = sq / cnt[k];
    st.unbiased_var[k] = cnt[k] > 1 ? sq / (cnt[k] - 1) : st.var[k];
    st.inv_std[k] = 1.0 / std::sqrt(st.var[k] + epsilon);
  }
  return st;
}

Tensor bn_forward(const Tensor& x, const std::vector<double>& scale, const std::vector<double>& bias,
                  const std::vector<double>& mean, const std::vector<double>& var, double epsilon,
                  bool per_activation, BnFusion fusion) {
  Tensor y(x.dims);
  for (int64_t i = 0; i < x.count(); ++i) {
    const int k = bn_stat_index(x, i, per_activation);
    double v = scale[k] * (x[i] - mean[k]) / std::sqrt(var[k] + epsilon) + bias[k];
    if (fusion.z) v += (*fusion.z)[i];
    if (fusion.relu) v = v > 0 ? v : 0.0;
    y[i] = v;
  }
  return y;
}

BnGrads bn_backward(const Tensor& x, const Tensor& dy, const std::vector<double>& scale,
                    const std::vector<double>& bias, double epsilon, bool per_activation, BnFusion fusion) {
  const BnBatchStats st = bn_batch_stats(x, per_activation, epsilon);
  const int s = bn_stat_count(x, per_activation);
  const double m = static_cast<double>(x.count()) / s;
  // Gradient at the output of the normalization (before the add and the ReLU).
  Tensor g(x.dims);
  for (int64_t i = 0; i < x.count(); ++i) {
    const int k = bn_stat_index(x, i, per_activation);
    double pre = scale[k] * (x[i] - st.mean[k]) * st.inv_std[k] + bias[k];
    if (fusion.z) pre += (*fusion.z)[i];
    g[i] = (!fusion.relu || pre > 0) ? dy[i] : 0.0;
  }
  BnGrads r;
  if (fusion.z) r.dz = g;
  r.dscale.assign(s, 0.0);
  r.dbias.assign(s, 0.0);
  for (int64_t i = 0; i < x.count(); ++i) {
    const int k = bn_stat_index(x, i, per_activation);
    const double xhat = (x[i] - st.mean[k]) * st.inv_std[k];
    r.dbias[k] += g[i];
    r.dscale[k] += g[i] * xhat;
  }
  // d/dx of scale * xhat: the direct term minus the paths through the mean and the variance.
  r.dx = Tensor(x.dims);
  for (int64_t i = 0; i < x.count(); ++i) {
    const int k = bn_stat_index(x, i, per_activation);
    const double xhat = (x[i] - st.mean[k]) * st.inv_std[k];
    r.dx[i] = scale[k] * st.inv_std[k] / m * (m * g[i] - r.dbias[k] - xhat * r.dscale[k]);
  }
  return r;
}

}  // namespace ref
