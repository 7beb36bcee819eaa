// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor_desc.h"
#include "cpu/common/parallel.h"

namespace fd::cpu {

// Window of lrnN taps centred on i: [i - lo, i + hi] with lo = (n - 1) / 2, hi = n - 1 - lo (an even window
// reaches one further forward than back). Taps outside the tensor count as zero. The adjoint (the set of i
// whose window holds m) is the reflected window [m - hi, m + lo].
struct Window {
  int64_t lo, hi;
  static Window centred(unsigned n) {
    const int64_t lo = (static_cast<int64_t>(n) - 1) / 2;
    return {lo, static_cast<int64_t>(n) - 1 - lo};
  }
  Window reflected() const { return {hi, lo}; }
};

// out[.., i, ..] = sum over j in [i - w.lo, i + w.hi] of in[.., j, ..] along dim `dim` of a packed
// row-major buffer with the given dims. in and out must not alias.
template <class T>
void window_sum(const int64_t* dims, int nb_dims, int dim, Window w, const T* in, T* out) {
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < dim; ++i) outer *= dims[i];
  for (int i = dim + 1; i < nb_dims; ++i) inner *= dims[i];
  const int64_t len = dims[dim];
  parallel_for(outer * inner, [&](int64_t line) {
    const int64_t o = line / inner, in_i = line % inner;
    const T* src = in + o * len * inner + in_i;
    T* dst = out + o * len * inner + in_i;
    for (int64_t i = 0; i < len; ++i) {
      const int64_t a = i - w.lo < 0 ? 0 : i - w.lo;
      const int64_t b = i + w.hi >= len ? len - 1 : i + w.hi;
      T s = T(0);
      for (int64_t j = a; j <= b; ++j) s += src[j * inner];
      dst[i * inner] = s;
    }
  }, 256);
}

// Window sums along every dim in [first, nb_dims) (a separable box), into out; `in` is left untouched.
template <class T>
void box_sum(const int64_t* dims, int nb_dims, int first, Window w, const std::vector<T>& in, std::vector<T>& out) {
  std::vector<T> cur = in, tmp(in.size());
  for (int d = first; d < nb_dims; ++d) {
    window_sum(dims, nb_dims, d, w, cur.data(), tmp.data());
    cur.swap(tmp);
  }
  out.swap(cur);
}

}  // namespace fd::cpu
