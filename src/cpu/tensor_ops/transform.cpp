// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Tensor transform: any layout / strides / data type to any other, with optional padding and folding.
#include <vector>

#include "core/dtype.h"
#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"
#include "cpu/tensor_ops/tensor_ops.h"

namespace fd::cpu {

void unravel(const cudnnTensorStruct& d, int64_t linear, int64_t* idx) {
  for (int i = d.nb_dims - 1; i >= 0; --i) {
    idx[i] = linear % d.dims[i];
    linear /= d.dims[i];
  }
}

void broadcast_strides(const cudnnTensorStruct& in, const cudnnTensorStruct& out, int64_t* strides) {
  int64_t s = 1;
  for (int i = in.nb_dims - 1; i >= 0; --i) {
    strides[i] = (in.dims[i] == 1 && out.dims[i] != 1) ? 0 : s;
    s *= in.dims[i];
  }
}

namespace {

// Source element (row-major linear index into x) of destination element `q`, or -1 for padding.
struct Mapper {
  const cudnnTensorTransformStruct* t;
  const cudnnTensorStruct& x;
  int64_t F = 1;
  bool unfold = false;

  int64_t operator()(const int64_t* q) const {
    const int n = x.nb_dims;
    if (t == nullptr) {
      int64_t l = 0;
      for (int i = 0; i < n; ++i) l = l * x.dims[i] + q[i];
      return l;
    }
    int64_t s[CUDNN_DIM_MAX];
    if (!unfold) {
      int64_t phase = q[1] % F;
      s[1] = q[1] / F - t->pad_before[1];
      s[0] = q[0] - t->pad_before[0];
      for (int i = n - 1; i >= 2; --i) {
        const int64_t f = t->fold[i - 2];
        s[i] = q[i] * f + phase % f - t->pad_before[i];
        phase /= f;
      }
    } else {
      int64_t phase = 0;
      s[0] = q[0] + t->pad_before[0];
      for (int i = 2; i < n; ++i) {
        const int64_t f = t->fold[i - 2];
        const int64_t p = q[i] + t->pad_before[i];
        s[i] = p / f;
        phase = phase * f + p % f;
      }
      s[1] = (q[1] + t->pad_before[1]) * F + phase;
    }
    int64_t l = 0;
    for (int i = 0; i < n; ++i) {
      if (s[i] < 0 || s[i] >= x.dims[i]) return -1;
      l = l * x.dims[i] + s[i];
    }
    return l;
  }
};

// Zeroes the lanes past C in the last channel vector of a vector-type tensor.
void zero_vector_padding(const cudnnTensorStruct& y, void* yp) {
  const int v = y.vect();
  if (v == 1 || y.dims[1] % v == 0) return;
  const int64_t c0 = y.dims[1], c1 = y.stored_dim(1) * v;
  int64_t outer = 1;
  for (int i = 0; i < y.nb_dims; ++i)
    if (i != 1) outer *= y.dims[i];
  parallel_for(outer, [&](int64_t o) {
    int64_t idx[CUDNN_DIM_MAX];
    for (int i = y.nb_dims - 1; i >= 0; --i) {
      if (i == 1) continue;
      idx[i] = o % y.dims[i];
      o /= y.dims[i];
    }
    for (int64_t c = c0; c < c1; ++c) {
      idx[1] = c;
      store_scalar(dtype_scalar(y.dtype), yp, y.scalar_offset(idx), 0.0);
    }
  });
}

template <class T>
void run(const Mapper& m, const cudnnTensorStruct& x, const void* xp, const cudnnTensorStruct& y, void* yp,
         double alpha, double beta) {
  const std::vector<T> xv = read_tensor<T>(x, xp);
  std::vector<T> out(static_cast<size_t>(y.element_count()));
  parallel_for(y.element_count(), [&](int64_t i) {
    int64_t q[CUDNN_DIM_MAX];
    unravel(y, i, q);
    const int64_t s = m(q);
    out[i] = s < 0 ? T(0) : xv[s];
  }, 4096);
  write_tensor<T>(y, yp, out.data(), alpha, beta);
}

}  // namespace

void transform_tensor(const cudnnTensorTransformStruct* t, const cudnnTensorStruct& x, const void* xp,
                      const cudnnTensorStruct& y, void* yp, double alpha, double beta) {
  Mapper m{t && !t->is_identity() ? t : nullptr, x};
  if (m.t) {
    m.F = m.t->fold_product();
    m.unfold = m.t->direction == CUDNN_TRANSFORM_UNFOLD;
  }
  if (needs_double(x.dtype) || needs_double(y.dtype))
    run<double>(m, x, xp, y, yp, alpha, beta);
  else
    run<float>(m, x, xp, y, yp, alpha, beta);
  zero_vector_padding(y, yp);
}

}  // namespace fd::cpu
