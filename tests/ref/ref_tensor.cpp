// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "ref/ref_tensor.h"

namespace ref {

Tensor::Tensor(std::vector<int> d, double fill) : dims(std::move(d)) { v.assign(static_cast<size_t>(count()), fill); }
Tensor::Tensor(std::vector<int> d, std::vector<double> values) : dims(std::move(d)), v(std::move(values)) {}

int64_t Tensor::count() const {
  int64_t n = 1;
  for (int d : dims) n *= d;
  return n;
}

int64_t Tensor::index(const std::vector<int>& idx) const {
  int64_t l = 0;
  for (size_t i = 0; i < dims.size(); ++i) l = l * dims[i] + idx[i];
  return l;
}

std::vector<int> Tensor::unravel(int64_t linear) const {
  std::vector<int> idx(dims.size());
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    idx[i] = static_cast<int>(linear % dims[i]);
    linear /= dims[i];
  }
  return idx;
}

std::vector<double> blend(const std::vector<double>& result, const std::vector<double>& prior, double alpha,
                          double beta) {
  std::vector<double> out(result.size());
  for (size_t i = 0; i < result.size(); ++i) out[i] = alpha * result[i] + (beta != 0.0 ? beta * prior[i] : 0.0);
  return out;
}

}  // namespace ref
