// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "ref/tensor_ops.h"

#include <cmath>
#include <limits>

namespace ref {

Tensor fold_transform(const Tensor& x, const std::vector<int>& pb, const std::vector<int>& pa,
                      const std::vector<int>& fold, bool unfold) {
  const int n = x.rank();
  int F = 1;
  for (int f : fold) F *= f;
  if (!unfold) {
    std::vector<int> padded(n), out(n);
    for (int d = 0; d < n; ++d) padded[d] = x.dims[d] + pb[d] + pa[d];
    out[0] = padded[0];
    out[1] = padded[1] * F;
    for (int d = 2; d < n; ++d) out[d] = (padded[d] + fold[d - 2] - 1) / fold[d - 2];
    Tensor y(out, 0.0);
    // Walk the padded tensor; each element that comes from x goes to its folded place.
    Tensor p(padded, 0.0);
    for (int64_t i = 0; i < p.count(); ++i) {
      const std::vector<int> q = p.unravel(i);
      std::vector<int> s(n);
      bool inside = true;
      for (int d = 0; d < n; ++d) {
        s[d] = q[d] - pb[d];
        inside = inside && s[d] >= 0 && s[d] < x.dims[d];
      }
      if (!inside) continue;
      std::vector<int> o(n);
      int phase = 0;
      for (int d = 2; d < n; ++d) {
        phase = phase * fold[d - 2] + q[d] % fold[d - 2];
        o[d] = q[d] / fold[d - 2];
      }
      o[0] = q[0];
      o[1] = q[1] * F + phase;
      y[y.index(o)] = x[x.index(s)];
    }
    return y;
  }
  // Unfold: the unpadded-then-cropped result.
  std::vector<int> full(n), out(n);
  full[0] = x.dims[0];
  full[1] = x.dims[1] / F;
  for (int d = 2; d < n; ++d) full[d] = x.dims[d] * fold[d - 2];
  for (int d = 0; d < n; ++d) out[d] = full[d] - pb[d] - pa[d];
  Tensor y(out, 0.0);
  for (int64_t i = 0; i < x.count(); ++i) {
    const std::vector<int> s = x.unravel(i);
    // Element (n, c*F + phase, o...) of x is element (n, c, o*f + phase_d...) of the full unfolded tensor.
    std::vector<int> q(n);
    int phase = s[1] % F;
    q[0] = s[0];
    q[1] = s[1] / F;
    for (int d = n - 1; d >= 2; --d) {
      q[d] = s[d] * fold[d - 2] + phase % fold[d - 2];
      phase /= fold[d - 2];
    }
    std::vector<int> t(n);
    bool inside = true;
    for (int d = 0; d < n; ++d) {
      t[d] = q[d] - pb[d];
      inside = inside && t[d] >= 0 && t[d] < out[d];
    }
    if (inside) y[y.index(t)] = x[i];
  }
  return y;
}

Tensor broadcast(const Tensor& a, const std::vector<int>& dims) {
  Tensor y(dims, 0.0);
  for (int64_t i = 0; i < y.count(); ++i) {
    std::vector<int> q = y.unravel(i);
    for (size_t d = 0; d < dims.size(); ++d)
      if (a.dims[d] == 1) q[d] = 0;
    y[i] = a[a.index(q)];
  }
  return y;
}

Tensor elementwise(Op op, bool propagate_nan, const Tensor& a, double alpha1, const Tensor& b, double alpha2) {
  Tensor bb = (op == Op::sqrt || op == Op::logical_not) ? Tensor(a.dims, 0.0) : broadcast(b, a.dims);
  Tensor y(a.dims, 0.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int64_t i = 0; i < a.count(); ++i) {
    const double x = alpha1 * a[i], z = alpha2 * bb[i];
    const bool any_nan = std::isnan(x) || std::isnan(z);
    switch (op) {
      case Op::add: y[i] = x + z; break;
      case Op::mul: y[i] = x * z; break;
      case Op::min:
        y[i] = any_nan ? (propagate_nan ? nan : (std::isnan(x) ? z : x)) : (x < z ? x : z);
        break;
      case Op::max:
        y[i] = any_nan ? (propagate_nan ? nan : (std::isnan(x) ? z : x)) : (x > z ? x : z);
        break;
      case Op::sqrt: y[i] = std::sqrt(x); break;
      case Op::logical_not: y[i] = 1.0 - x; break;
    }
  }
  return y;
}

Tensor reduce(Reduce op, bool propagate_nan, const Tensor& a, const std::vector<int>& out_dims,
              std::vector<int64_t>* indices) {
  const int n = a.rank();
  Tensor y(out_dims, 0.0);
  std::vector<int> red_dims;  // extents of the reduced dims, in order
  for (int d = 0; d < n; ++d)
    if (out_dims[d] == 1) red_dims.push_back(a.dims[d]);
  Tensor slice_shape(red_dims.empty() ? std::vector<int>{1} : red_dims);
  if (indices) indices->assign(static_cast<size_t>(y.count()), 0);
  for (int64_t j = 0; j < y.count(); ++j) {
    const std::vector<int> o = y.unravel(j);
    std::vector<double> v;
    for (int64_t k = 0; k < slice_shape.count(); ++k) {
      const std::vector<int> r = slice_shape.unravel(k);
      std::vector<int> q(n);
      size_t t = 0;
      for (int d = 0; d < n; ++d) q[d] = out_dims[d] == 1 ? (red_dims.empty() ? 0 : r[t++]) : o[d];
      v.push_back(a[a.index(q)]);
    }
    double acc = 0;
    int64_t best = 0;
    switch (op) {
      case Reduce::add: for (double x : v) acc += x; break;
      case Reduce::avg: for (double x : v) acc += x; acc /= static_cast<double>(v.size()); break;
      case Reduce::norm1: for (double x : v) acc += std::fabs(x); break;
      case Reduce::norm2: for (double x : v) acc += x * x; acc = std::sqrt(acc); break;
      case Reduce::mul: acc = 1; for (double x : v) acc *= x; break;
      case Reduce::mul_no_zeros: acc = 1; for (double x : v) if (x != 0) acc *= x; break;
      case Reduce::min: case Reduce::max: case Reduce::amax: {
        bool found = false;
        for (size_t k = 0; k < v.size(); ++k) {
          const double x = op == Reduce::amax ? std::fabs(v[k]) : v[k];
          if (std::isnan(x)) {
            if (propagate_nan) { acc = x; best = static_cast<int64_t>(k); found = true; break; }
            continue;
          }
          const bool better = !found || (op == Reduce::min ? x < acc : x > acc);
          if (better) { acc = x; best = static_cast<int64_t>(k); found = true; }
        }
        if (!found) acc = std::numeric_limits<double>::quiet_NaN();
        break;
      }
    }
    y[j] = acc;
    if (indices) (*indices)[j] = best;
  }
  return y;
}

}  // namespace ref
