// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "ref/fused.h"

#include <cmath>

namespace ref {

Tensor scale_bias_activation(const Tensor& x, const std::vector<double>* scale, const std::vector<double>* bias,
                             const Activation* act) {
  Tensor out = x;
  for (int64_t i = 0; i < x.count(); ++i) {
    const int c = x.unravel(i)[1];
    double v = x[i];
    if (scale) v *= (*scale)[static_cast<size_t>(c)];
    if (bias) v += (*bias)[static_cast<size_t>(c)];
    out[i] = v;
  }
  return act ? activation_forward(*act, out) : out;
}

void channel_sums(const Tensor& y, std::vector<double>& sum, std::vector<double>& sqsum) {
  sum.assign(static_cast<size_t>(y.dims[1]), 0.0);
  sqsum.assign(static_cast<size_t>(y.dims[1]), 0.0);
  for (int64_t i = 0; i < y.count(); ++i) {
    const size_t c = static_cast<size_t>(y.unravel(i)[1]);
    sum[c] += y[i];
    sqsum[c] += y[i] * y[i];
  }
}

BnFinalized bn_finalize_training(const std::vector<double>& sum, const std::vector<double>& sqsum, int64_t count,
                                 const std::vector<double>& scale, const std::vector<double>& bias,
                                 const std::vector<double>& running_mean, const std::vector<double>& running_var,
                                 double factor, double epsilon) {
  BnFinalized r;
  const double m = static_cast<double>(count);
  for (size_t c = 0; c < sum.size(); ++c) {
    const double mean = sum[c] / m;
    const double var = std::max(0.0, sqsum[c] / m - mean * mean);
    const double inv = 1.0 / std::sqrt(var + epsilon);
    r.mean.push_back(mean);
    r.inv_std.push_back(inv);
    r.eq_scale.push_back(scale[c] * inv);
    r.eq_bias.push_back(bias[c] - scale[c] * inv * mean);
    const double unbiased = count > 1 ? var * m / (m - 1) : var;
    r.running_mean.push_back((1 - factor) * running_mean[c] + factor * mean);
    r.running_var.push_back((1 - factor) * running_var[c] + factor * unbiased);
  }
  return r;
}

BnFinalized bn_finalize_inference(const std::vector<double>& scale, const std::vector<double>& bias,
                                  const std::vector<double>& mean, const std::vector<double>& var, double epsilon) {
  BnFinalized r;
  for (size_t c = 0; c < scale.size(); ++c) {
    const double a = scale[c] / std::sqrt(var[c] + epsilon);
    r.eq_scale.push_back(a);
    r.eq_bias.push_back(bias[c] - a * mean[c]);
  }
  return r;
}

}  // namespace ref
