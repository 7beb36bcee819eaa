// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "ref/softmax.h"

#include <cmath>
#include <vector>

namespace ref {
namespace {

// Whether linear elements a and b belong to the same softmax group.
bool same_group(const Tensor& t, cudnnSoftmaxMode_t mode, const std::vector<int>& ia, const std::vector<int>& ib) {
  if (ia[0] != ib[0]) return false;
  if (mode == CUDNN_SOFTMAX_MODE_INSTANCE) return true;
  for (int d = 2; d < t.rank(); ++d)
    if (ia[d] != ib[d]) return false;
  return true;
}

// The linear indices of the group holding element i.
std::vector<int64_t> group_of(const Tensor& t, cudnnSoftmaxMode_t mode, int64_t i) {
  static thread_local std::vector<std::vector<int>> idx;
  static thread_local std::vector<int> idx_dims;
  if (idx_dims != t.dims) {  // cache the multi-indices of the last shape seen
    idx.clear();
    for (int64_t j = 0; j < t.count(); ++j) idx.push_back(t.unravel(j));
    idx_dims = t.dims;
  }
  std::vector<int64_t> g;
  for (int64_t j = 0; j < t.count(); ++j)
    if (same_group(t, mode, idx[i], idx[j])) g.push_back(j);
  return g;
}

}  // namespace

Tensor softmax_forward(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, const Tensor& x) {
  Tensor y(x.dims);
  for (int64_t i = 0; i < x.count(); ++i) {
    double mx = -INFINITY;
    const std::vector<int64_t> g = group_of(x, mode, i);
    for (int64_t j : g) mx = std::max(mx, x[j]);
    double sum = 0;
    for (int64_t j : g) sum += std::exp(x[j] - mx);
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
