// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cpu/dropout/dropout.h"

#include <vector>

#include "core/dropout_rng.h"
#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"

namespace fd::cpu {
namespace {

template <class T>
T scale_of(float p) {
  return p >= 1.0f ? T(0) : T(1) / (T(1) - static_cast<T>(p));
}

}  // namespace

double dropout_uniform(uint64_t seed, uint64_t counter, uint64_t index) {
  return fd::dropout_uniform(seed, counter, index);
}

void dropout_forward(float p, uint64_t seed, uint64_t counter, const cudnnTensorStruct& xd, const void* x,
                     const cudnnTensorStruct& yd, void* y, uint8_t* mask) {
  with_compute_type(xd.dtype, [&](auto t) {
    using T = decltype(t);
    std::vector<T> v = read_tensor<T>(xd, x);
    const T s = scale_of<T>(p);
    const double pd = p;
    parallel_for(static_cast<int64_t>(v.size()), [&](int64_t i) {
      const bool keep = pd < 1.0 && dropout_uniform(seed, counter, static_cast<uint64_t>(i)) >= pd;
      mask[i] = keep ? 1 : 0;
      v[i] = keep ? v[i] * s : T(0);
    }, 4096);
    write_tensor<T>(yd, y, v.data(), 1.0, 0.0);
  });
}

void dropout_backward(float p, const cudnnTensorStruct& dyd, const void* dy, const cudnnTensorStruct& dxd, void* dx,
                      const uint8_t* mask) {
  with_compute_type(dyd.dtype, [&](auto t) {
    using T = decltype(t);
    std::vector<T> v = read_tensor<T>(dyd, dy);
    const T s = scale_of<T>(p);
    parallel_for(static_cast<int64_t>(v.size()), [&](int64_t i) { v[i] = mask[i] ? v[i] * s : T(0); }, 4096);
    write_tensor<T>(dxd, dx, v.data(), 1.0, 0.0);
  });
}

}  // namespace fd::cpu
