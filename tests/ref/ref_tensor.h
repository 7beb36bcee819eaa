// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The reference's tensor: double values, packed, row-major over its dims (N, C, spatial...).
// Every reference function in tests/ref works on these, from the mathematical definitions, with no code
// from src/.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ref {

struct Tensor {
  std::vector<int> dims;
  std::vector<double> v;

  Tensor() = default;
  explicit Tensor(std::vector<int> d, double fill = 0.0);
  Tensor(std::vector<int> d, std::vector<double> values);
  int64_t count() const;
  int rank() const { return static_cast<int>(dims.size()); }
  // Row-major linear index of a multi-index.
  int64_t index(const std::vector<int>& idx) const;
  std::vector<int> unravel(int64_t linear) const;
  double& operator[](int64_t i) { return v[static_cast<size_t>(i)]; }
  double operator[](int64_t i) const { return v[static_cast<size_t>(i)]; }
};

// out = alpha * result + beta * prior (prior ignored when beta == 0, as cuDNN does).
std::vector<double> blend(const std::vector<double>& result, const std::vector<double>& prior, double alpha,
                          double beta);

}  // namespace ref
