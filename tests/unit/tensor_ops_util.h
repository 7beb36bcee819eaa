// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Helpers shared by the tensor-op suites (tensor_ops_test, op_tensor_test, reduce_tensor_test).
#pragma once
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "ref/ref_tensor.h"

namespace tops {

inline std::vector<int> rand_dims(std::mt19937_64& rng, int nb, int lo, int hi) {
  std::vector<int> d(static_cast<size_t>(nb));
  for (int& x : d) x = ft::uniform_int(rng, lo, hi);
  return d;
}

inline bool is_int(cudnnDataType_t t) {
  return t == CUDNN_DATA_INT8 || t == CUDNN_DATA_UINT8 || t == CUDNN_DATA_INT32 || t == CUDNN_DATA_INT64;
}

// A tensor in a random layout: packed NCHW, packed NHWC, or either with padding between dims.
inline ft::HostTensor rand_layout(std::mt19937_64& rng, cudnnDataType_t t, const std::vector<int>& dims,
                                  std::string* layout = nullptr) {
  const int k = ft::uniform_int(rng, 0, 3);
  const bool nhwc = (k & 1) && dims.size() >= 3;
  if (layout) *layout = std::string(nhwc ? "nhwc" : "nchw") + (k >= 2 ? "-padded" : "");
  if (k < 2) return ft::HostTensor(t, dims, nhwc);
  return ft::HostTensor(t, dims, ft::padded_strides(rng, dims, nhwc));
}

inline void fill(ft::HostTensor& t, std::mt19937_64& rng, double lo = -2, double hi = 2) {
  if (is_int(t.dtype))
    t.fill_ints(rng, t.dtype == CUDNN_DATA_UINT8 ? 0 : static_cast<int>(lo) * 4, static_cast<int>(hi) * 4);
  else
    t.fill_uniform(rng, lo, hi);
}

inline ref::Tensor to_ref(const ft::HostTensor& t) { return ref::Tensor(t.dims, t.values()); }

// A host scaling factor: float for every type but DOUBLE.
struct Scale {
  float f;
  double d;
  explicit Scale(double v) : f(static_cast<float>(v)), d(v) {}
  const void* ptr(cudnnDataType_t t) const { return t == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&d) : &f; }
  double value(cudnnDataType_t t) const { return t == CUDNN_DATA_DOUBLE ? d : static_cast<double>(f); }
};

// Integer results: each element within half a unit (plus saturation applied to the reference).
inline ::testing::AssertionResult near_int(const std::vector<double>& got, std::vector<double> ref,
                                           cudnnDataType_t t, const std::string& what) {
  const double lo = t == CUDNN_DATA_INT8 ? -128 : t == CUDNN_DATA_UINT8 ? 0 : -2147483648.0;
  const double hi = t == CUDNN_DATA_INT8 ? 127 : t == CUDNN_DATA_UINT8 ? 255 : 2147483647.0;
  if (got.size() != ref.size()) return ::testing::AssertionFailure() << what << ": size mismatch";
  for (size_t i = 0; i < ref.size(); ++i) {
    const double r = std::min(hi, std::max(lo, ref[i]));
    if (!(std::fabs(got[i] - r) <= 0.5 + 1e-6))
      return ::testing::AssertionFailure() << what << ": element " << i << " is " << got[i] << ", reference "
                                           << r << "; seed FREEDNN_TEST_SEED=" << ft::seed();
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult check(const ft::HostTensor& got, const std::vector<double>& ref,
                                        const std::string& what) {
  if (is_int(got.dtype)) return near_int(got.values(), ref, got.dtype, what);
  return ft::near(got.values(), ref, ft::tolerance(got.dtype), what);
}

inline std::string dims_str(const std::vector<int>& d) {
  std::ostringstream o;
  for (size_t i = 0; i < d.size(); ++i) o << (i ? "x" : "") << d[i];
  return o.str();
}

}  // namespace tops
