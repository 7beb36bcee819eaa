// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Helpers shared by the tensor-op suites (tensor_ops_test, op_tensor_test, reduce_tensor_test).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "ref/ref_tensor.h"

namespace tops {

// A packed tensor's bytes one element past the start of a larger buffer: a pointer off the 16-byte grid, which the
// GPU backend's vector kernels must decline.
struct Shifted {
  ft::HostTensor buf;
  size_t es;
  explicit Shifted(const ft::HostTensor& t)
      : buf(t.dtype, {1, static_cast<int>(t.span()) + 16}), es(ft::type_size(t.dtype)) {
    buf.poison();
    ft::sync_device();
    std::memcpy(static_cast<char*>(buf.data()) + es, t.data(), static_cast<size_t>(t.span()) * es);
  }
  void* data() { return static_cast<char*>(buf.data()) + es; }
  void copy_to(ft::HostTensor& t) {
    ft::sync_device();
    std::memcpy(t.data(), data(), static_cast<size_t>(t.span()) * es);
  }
};

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

// A random scaling factor of magnitude in [lo, hi] and random sign (never close to 0: a tiny alpha would
// push low-precision outputs into their subnormal range).
inline double rand_scale(std::mt19937_64& rng, double lo, double hi) {
  return (ft::uniform_int(rng, 0, 1) ? 1.0 : -1.0) * ft::uniform(rng, lo, hi);
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

// Floating results: ft::near, relative to max |ref| or to `floor` when larger (the size of the terms that
// were blended, for results that cancel to almost nothing in a low-precision output).
inline ::testing::AssertionResult check(const ft::HostTensor& got, const std::vector<double>& ref,
                                        const std::string& what, double floor = 0) {
  if (is_int(got.dtype)) return near_int(got.values(), ref, got.dtype, what);
  double scale = 0;
  for (double r : ref)
    if (std::isfinite(r)) scale = std::max(scale, std::fabs(r));
  if (floor <= scale) return ft::near(got.values(), ref, ft::tolerance(got.dtype), what);
  const std::vector<double> g = got.values();
  for (size_t i = 0; i < ref.size(); ++i) {
    const bool ok = std::isnan(ref[i]) ? std::isnan(g[i])
                                       : std::fabs(g[i] - ref[i]) <= ft::tolerance(got.dtype) * floor;
    if (!ok)
      return ::testing::AssertionFailure() << what << ": element " << i << " is " << g[i] << ", reference " << ref[i]
                                           << " (tolerance relative to " << floor << ")"
                                           << "; seed FREEDNN_TEST_SEED=" << ft::seed();
  }
  return ::testing::AssertionSuccess();
}

// The size of the blended terms: max |alpha * r| + max |beta * prior| (beta = 0: prior not counted).
inline double blend_floor(const std::vector<double>& r, const std::vector<double>& prior, double alpha, double beta) {
  double a = 0, b = 0;
  for (double x : r)
    if (std::isfinite(x)) a = std::max(a, std::fabs(alpha * x));
  if (beta != 0)
    for (double x : prior)
      if (std::isfinite(x)) b = std::max(b, std::fabs(beta * x));
  return a + b;
}

inline std::string dims_str(const std::vector<int>& d) {
  std::ostringstream o;
  for (size_t i = 0; i < d.size(); ++i) o << (i ? "x" : "") << d[i];
  return o.str();
}

}  // namespace tops
