// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "ref/pooling.h"

#include <cmath>
#include <limits>

namespace ref {
namespace {

struct WindowInfo {
  std::vector<int64_t> read;  // linear indices into x of the elements read, in window order
  double divisor = 0;
};

// Walks the window of output multi-index `o` (N, C, spatial...) in lexicographic window order.
WindowInfo window_of(const PoolParams& p, const Tensor& x, const std::vector<int>& o) {
  const int ns = x.rank() - 2;
  WindowInfo w;
  int64_t total = 1;
  for (int d = 0; d < ns; ++d) total *= p.window[d];
  double padded_positions = 0;
  std::vector<int> k(ns, 0);
  for (int64_t t = 0; t < total; ++t) {
    int64_t r = t;
    for (int d = ns - 1; d >= 0; --d) {
      k[d] = static_cast<int>(r % p.window[d]);
      r /= p.window[d];
    }
    bool inside = true, inside_padded = true;
    std::vector<int> idx = {o[0], o[1]};
    for (int d = 0; d < ns; ++d) {
      const int i = o[2 + d] * p.stride[d] - p.pad[d] + k[d];
      const int in = x.dims[2 + d];
      if (i < 0 || i >= in) inside = false;
      if (i < -p.pad[d] || i >= in + p.pad[d]) inside_padded = false;
      idx.push_back(i);
    }
    if (inside_padded) padded_positions += 1;
    if (inside) w.read.push_back(x.index(idx));
  }
  w.divisor = p.mode == 1 ? padded_positions : static_cast<double>(w.read.size());
  return w;
}

bool is_max(const PoolParams& p) { return p.mode == 0 || p.mode == 3; }

// The argmax (first maximum, NaN rules as documented in the header); -1 when nothing qualifies.
int64_t argmax(const PoolParams& p, const Tensor& x, const WindowInfo& w, double* value) {
  int64_t best = -1;
  bool saw_nan = false;
  for (int64_t i : w.read) {
    if (std::isnan(x[i])) {
      if (p.propagate_nan) {
        *value = x[i];
        return i;
      }
      saw_nan = true;
    } else if (best < 0 || x[i] > x[best]) {
      best = i;
    }
  }
  *value = best >= 0 ? x[best] : (saw_nan ? std::numeric_limits<double>::quiet_NaN() : 0.0);
  return best;
}

}  // namespace

int pool_out_dim(int in, int window, int pad, int stride) { return 1 + (in + 2 * pad - window) / stride; }

Tensor pooling_forward(const PoolParams& p, const Tensor& x, const std::vector<int>& out_spatial) {
  std::vector<int> ydims = {x.dims[0], x.dims[1]};
  ydims.insert(ydims.end(), out_spatial.begin(), out_spatial.end());
  Tensor y(ydims);
  for (int64_t j = 0; j < y.count(); ++j) {
    const WindowInfo w = window_of(p, x, y.unravel(j));
    if (is_max(p)) {
      double v;
      argmax(p, x, w, &v);
      y[j] = v;
    } else {
      double s = 0;
      for (int64_t i : w.read) s += x[i];
      y[j] = w.divisor > 0 ? s / w.divisor : 0.0;
    }
  }
  return y;
}

Tensor pooling_backward(const PoolParams& p, const Tensor& x, const Tensor& dy) {
  Tensor dx(x.dims, 0.0);
  for (int64_t j = 0; j < dy.count(); ++j) {
    const WindowInfo w = window_of(p, x, dy.unravel(j));
    if (is_max(p)) {
      double v;
      const int64_t a = argmax(p, x, w, &v);
      if (a >= 0) dx[a] += dy[j];
    } else if (w.divisor > 0) {
      for (int64_t i : w.read) dx[i] += dy[j] / w.divisor;
    }
  }
  return dx;
}

}  // namespace ref
