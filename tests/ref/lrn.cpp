// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "ref/lrn.h"

#include <cmath>
#include <vector>

namespace ref {

bool in_window(int n, int centre, int j) {
  const int first = centre - (n - 1) / 2;
  return j >= first && j <= first + n - 1;
}

namespace {

// Whether element b lies in element a's window: cross-channel (same n and spatial position, channel in the
// window) or spatial (same n and c, every spatial coordinate in the window).
bool neighbour(const Lrn& p, bool spatial, const std::vector<int>& a, const std::vector<int>& b) {
  if (a[0] != b[0]) return false;
  if (!spatial) {
    for (size_t d = 2; d < a.size(); ++d)
      if (a[d] != b[d]) return false;
    return in_window(p.n, a[1], b[1]);
  }
  if (a[1] != b[1]) return false;
  for (size_t d = 2; d < a.size(); ++d)
    if (!in_window(p.n, a[d], b[d])) return false;
  return true;
}

std::vector<std::vector<int>> all_indices(const Tensor& v) {
  std::vector<std::vector<int>> idx;
  for (int64_t i = 0; i < v.count(); ++i) idx.push_back(v.unravel(i));
  return idx;
}

// s_i = k + alpha / volume * sum_{j in window(i)} v_j^2
std::vector<double> scales(const Lrn& p, bool spatial, const Tensor& v) {
  const double volume = spatial ? std::pow(p.n, v.rank() - 2) : p.n;
  const std::vector<std::vector<int>> idx = all_indices(v);
  std::vector<double> s(static_cast<size_t>(v.count()));
  for (int64_t i = 0; i < v.count(); ++i) {
    double sum = 0;
    for (int64_t j = 0; j < v.count(); ++j)
      if (neighbour(p, spatial, idx[i], idx[j])) sum += v[j] * v[j];
    s[i] = p.k + p.alpha / volume * sum;
  }
  return s;
}

Tensor normalize(const Lrn& p, bool spatial, const Tensor& v) {
  const std::vector<double> s = scales(p, spatial, v);
  Tensor y(v.dims);
  for (int64_t i = 0; i < v.count(); ++i) y[i] = v[i] * std::pow(s[i], -p.beta);
  return y;
}

// dv_m = sum_i dy_i d y_i / d v_m, with y_i = v_i s_i^-beta, d s_i / d v_m = 2 alpha / volume * v_m [m in win(i)].
Tensor normalize_backward(const Lrn& p, bool spatial, const Tensor& v, const Tensor& dy) {
  const double volume = spatial ? std::pow(p.n, v.rank() - 2) : p.n;
  const std::vector<double> s = scales(p, spatial, v);
  const std::vector<std::vector<int>> idx = all_indices(v);
  Tensor dv(v.dims);
  for (int64_t m = 0; m < v.count(); ++m) {
    double acc = dy[m] * std::pow(s[m], -p.beta);
    for (int64_t i = 0; i < v.count(); ++i) {
      if (!neighbour(p, spatial, idx[i], idx[m])) continue;
      const double ds = 2.0 * p.alpha / volume * v[m];
      acc += dy[i] * v[i] * (-p.beta) * std::pow(s[i], -p.beta - 1.0) * ds;
    }
    dv[m] = acc;
  }
  return dv;
}

Tensor minus(const Tensor& x, const Tensor& means) {
  Tensor d = x;
  if (!means.v.empty())
    for (int64_t i = 0; i < x.count(); ++i) d[i] -= means[i];
  return d;
}

}  // namespace

Tensor lrn_forward(const Lrn& p, const Tensor& x) { return normalize(p, false, x); }
Tensor lrn_backward(const Lrn& p, const Tensor& x, const Tensor& dy) { return normalize_backward(p, false, x, dy); }

Tensor divnorm_forward(const Lrn& p, const Tensor& x, const Tensor& means) {
  return normalize(p, true, minus(x, means));
}
Tensor divnorm_backward(const Lrn& p, const Tensor& x, const Tensor& means, const Tensor& dy) {
  return normalize_backward(p, true, minus(x, means), dy);
}

}  // namespace ref
