// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Helpers shared by activation_test.cpp, softmax_test.cpp and lrn_test.cpp: random layouts, scale factors of
// the right host type, poisoned outputs, checks that the gaps of padded layouts stay untouched.
#pragma once
#include <cudnn.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "ref/ref_tensor.h"

namespace pt {

enum class Layout { nchw, nhwc, padded_nchw, padded_nhwc };
inline const char* layout_name(Layout l) {
  switch (l) {
    case Layout::nchw: return "nchw";
    case Layout::nhwc: return "nhwc";
    case Layout::padded_nchw: return "padded-nchw";
    case Layout::padded_nhwc: return "padded-nhwc";
  }
  return "?";
}

inline Layout random_layout(std::mt19937_64& rng) { return static_cast<Layout>(ft::uniform_int(rng, 0, 3)); }

inline ft::HostTensor make(std::mt19937_64& rng, cudnnDataType_t t, const std::vector<int>& dims, Layout l) {
  switch (l) {
    case Layout::nchw: return ft::HostTensor(t, dims, false);
    case Layout::nhwc: return ft::HostTensor(t, dims, true);
    case Layout::padded_nchw: return ft::HostTensor(t, dims, ft::padded_strides(rng, dims, false));
    case Layout::padded_nhwc: return ft::HostTensor(t, dims, ft::padded_strides(rng, dims, true));
  }
  return {};
}

inline ft::HostTensor random_tensor(std::mt19937_64& rng, cudnnDataType_t t, const std::vector<int>& dims) {
  return make(rng, t, dims, random_layout(rng));
}

// alpha/beta as the API wants them: double for DOUBLE data, float otherwise.
struct Scale {
  double value;
  float f;
  double d;
  explicit Scale(double v) : value(v), f(static_cast<float>(v)), d(v) {}
  const void* ptr(cudnnDataType_t t) const { return t == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&d) : &f; }
  // The value the library sees (float-rounded unless DOUBLE).
  double seen(cudnnDataType_t t) const { return t == CUDNN_DATA_DOUBLE ? d : static_cast<double>(f); }
};

// Random alpha/beta: alpha in {1, random}, beta in {0, random}.
inline std::pair<double, double> random_alpha_beta(std::mt19937_64& rng) {
  const double a = ft::uniform_int(rng, 0, 1) ? 1.0 : ft::uniform(rng, 0.5, 2.0);
  const double b = ft::uniform_int(rng, 0, 1) ? 0.0 : ft::uniform(rng, -1.0, 1.0);
  return {a, b};
}

// An output: poisoned everywhere; when beta != 0 its logical elements get random prior values.
inline void prepare_output(std::mt19937_64& rng, ft::HostTensor& y, double beta) {
  y.poison();
  if (beta != 0.0) y.fill_uniform(rng, -1.0, 1.0);
}

// True when every stored element that is not a logical element of t still holds the 0xFF poison.
inline ::testing::AssertionResult gaps_untouched(const ft::HostTensor& t) {
  ft::sync_device();  // t.bytes is read directly
  std::set<int64_t> logical;
  for (int64_t i = 0; i < t.count(); ++i) logical.insert(t.offset(i));
  const size_t es = ft::type_size(t.dtype);
  for (int64_t off = 0; off < t.span(); ++off) {
    if (logical.count(off)) continue;
    for (size_t b = 0; b < es; ++b)
      if (t.bytes[static_cast<size_t>(off) * es + b] != 0xFF)
        return ::testing::AssertionFailure() << "gap element at offset " << off << " of " << t.str() << " was written";
  }
  return ::testing::AssertionSuccess();
}

inline ref::Tensor to_ref(const ft::HostTensor& t) { return ref::Tensor(t.dims, t.values()); }

// Random dims: N, C, then `spatial` spatial dims, each in [1, hi].
inline std::vector<int> random_dims(std::mt19937_64& rng, int spatial, int n_hi, int c_hi, int s_hi) {
  std::vector<int> d{ft::uniform_int(rng, 1, n_hi), ft::uniform_int(rng, 1, c_hi)};
  for (int i = 0; i < spatial; ++i) d.push_back(ft::uniform_int(rng, 1, s_hi));
  return d;
}

inline std::string dims_str(const std::vector<int>& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "x" : "") + std::to_string(d[i]);
  return s;
}

inline const std::vector<cudnnDataType_t>& float_types() {
  static const std::vector<cudnnDataType_t> t{CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                              CUDNN_DATA_BFLOAT16};
  return t;
}

// Tolerance for values that went through the storage type once as input and once as output.
inline double tol(cudnnDataType_t t) { return ft::tolerance(t); }

}  // namespace pt
