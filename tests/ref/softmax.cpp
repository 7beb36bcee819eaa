// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "ref/softmax.h"

#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace ref {
namespace {

// The group holding element i: the same image (INSTANCE), and the same spatial position too (CHANNEL). Its first
// element (linear index) names it; group_of lists its elements in row-major order.
int64_t group_first(const Tensor& t, cudnnSoftmaxMode_t mode, int64_t i) {
  const int64_t per_image = t.count() / t.dims[0];
  int64_t inner = 1;
  for (int d = 2; d < t.rank(); ++d) inner *= t.dims[d];
  const int64_t n = i / per_image;
  return mode == CUDNN_SOFTMAX_MODE_INSTANCE ? n * per_image : n * per_image + i % inner;
}

std::vector<int64_t> group_of(const Tensor& t, cudnnSoftmaxMode_t mode, int64_t i) {
  const int64_t per_image = t.count() / t.dims[0];
  int64_t inner = 1;
  for (int d = 2; d < t.rank(); ++d) inner *= t.dims[d];
  const int64_t first = group_first(t, mode, i);
  std::vector<int64_t> g;
  if (mode == CUDNN_SOFTMAX_MODE_INSTANCE) {
    for (int64_t j = 0; j < per_image; ++j) g.push_back(first + j);
  } else {
    for (int64_t c = 0; c < per_image / inner; ++c) g.push_back(first + c * inner);  // every channel
  }
  return g;
}

}  // namespace

Tensor softmax_forward(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, const Tensor& x) {
  Tensor y(x.dims);
  std::map<int64_t, std::pair<double, double>> stats;  // group (its first element) -> max, sum of exp(x - max)
  for (int64_t i = 0; i < x.count(); ++i) {
    auto it = stats.find(group_first(x, mode, i));
    if (it == stats.end()) {
      const std::vector<int64_t> g = group_of(x, mode, i);
      double mx = -INFINITY;
      for (int64_t j : g) mx = std::max(mx, x[j]);
      double sum = 0;
      for (int64_t j : g) sum += std::exp(x[j] - mx);
      it = stats.emplace(g[0], std::make_pair(mx, sum)).first;
    }
    const double mx = it->second.first, sum = it->second.second;
    y[i] = algo == CUDNN_SOFTMAX_LOG ? (x[i] - mx) - std::log(sum) : std::exp(x[i] - mx) / sum;
  }
  return y;
}

Tensor softmax_backward(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, const Tensor& y, const Tensor& dy) {
  Tensor dx(y.dims);
  for (int64_t i = 0; i < y.count(); ++i) {
    const std::vector<int64_t> g = group_of(y, mode, i);
    double acc = 0;
    if (algo == CUDNN_SOFTMAX_LOG) {
      // y = log p: d y_j / d x_i = [i == j] - p_i
      for (int64_t j : g) acc += dy[j] * ((j == i ? 1.0 : 0.0) - std::exp(y[i]));
    } else {
      // y = p: d y_j / d x_i = p_j ([i == j] - p_i)
      for (int64_t j : g) acc += dy[j] * y[j] * ((j == i ? 1.0 : 0.0) - y[i]);
    }
    dx[i] = acc;
  }
  return dx;
}

}  // namespace ref
