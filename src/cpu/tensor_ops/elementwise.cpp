// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Element-wise tensor ops: op tensor (ADD, MUL, MIN, MAX, SQRT, NOT) with broadcasting, add, set, scale.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/dtype.h"
#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"
#include "cpu/tensor_ops/tensor_ops.h"

namespace fd::cpu {
namespace {

// Linear index into the packed buffer of a broadcast input, for output element i.
struct Broadcast {
  const cudnnTensorStruct& out;
  int64_t strides[CUDNN_DIM_MAX] = {};
  Broadcast(const cudnnTensorStruct& in, const cudnnTensorStruct& o) : out(o) { broadcast_strides(in, o, strides); }
  int64_t operator()(int64_t i) const {
    int64_t l = 0;
    for (int d = out.nb_dims - 1; d >= 0; --d) {
      l += (i % out.dims[d]) * strides[d];
      i /= out.dims[d];
    }
    return l;
  }
};

template <class T>
T apply(cudnnOpTensorOp_t op, bool propagate_nan, T a, T b) {
  switch (op) {
    case CUDNN_OP_TENSOR_ADD: return a + b;
    case CUDNN_OP_TENSOR_MUL: return a * b;
    case CUDNN_OP_TENSOR_MIN:
      if (propagate_nan && (std::isnan(a) || std::isnan(b))) return std::numeric_limits<T>::quiet_NaN();
      return std::fmin(a, b);
    case CUDNN_OP_TENSOR_MAX:
      if (propagate_nan && (std::isnan(a) || std::isnan(b))) return std::numeric_limits<T>::quiet_NaN();
      return std::fmax(a, b);
    case CUDNN_OP_TENSOR_SQRT: return std::sqrt(a);
    case CUDNN_OP_TENSOR_NOT: return T(1) - a;
  }
  return a;
}

template <class T>
void run_op(cudnnOpTensorOp_t op, bool propagate_nan, const cudnnTensorStruct& a, const void* ap, T alpha1,
            const cudnnTensorStruct* b, const void* bp, T alpha2, const cudnnTensorStruct& c, void* cp,
            double beta) {
  // Both inputs are read completely before C is written: C may alias A (or B).
  std::vector<T> av = read_tensor<T>(a, ap);
  std::vector<T> bv;
  const bool unary = op == CUDNN_OP_TENSOR_SQRT || op == CUDNN_OP_TENSOR_NOT;
  if (!unary) bv = read_tensor<T>(*b, bp);
  const Broadcast bmap(unary ? c : *b, c);
  parallel_for(c.element_count(), [&](int64_t i) {
    const T x = alpha1 * av[i];
    const T y = unary ? T(0) : alpha2 * bv[bmap(i)];
    av[i] = apply(op, propagate_nan, x, y);
  }, 4096);
  write_tensor<T>(c, cp, av.data(), 1.0, beta);
}

}  // namespace

void op_tensor(cudnnOpTensorOp_t op, cudnnNanPropagation_t nan_opt, bool double_compute,
               const cudnnTensorStruct& a, const void* ap, double alpha1, const cudnnTensorStruct* b,
               const void* bp, double alpha2, const cudnnTensorStruct& c, void* cp, double beta) {
  const bool prop = nan_opt == CUDNN_PROPAGATE_NAN;
  if (double_compute)
    run_op<double>(op, prop, a, ap, alpha1, b, bp, alpha2, c, cp, beta);
  else
    run_op<float>(op, prop, a, ap, static_cast<float>(alpha1), b, bp, static_cast<float>(alpha2), c, cp, beta);
}

void add_tensor(const cudnnTensorStruct& a, const void* ap, const cudnnTensorStruct& c, void* cp, double alpha,
                double beta) {
  with_compute_type(needs_double(c.dtype) ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT, [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> av = read_tensor<T>(a, ap);
    std::vector<T> out(static_cast<size_t>(c.element_count()));
    const Broadcast amap(a, c);
    parallel_for(c.element_count(), [&](int64_t i) { out[i] = av[amap(i)]; }, 4096);
    write_tensor<T>(c, cp, out.data(), alpha, beta);
  });
}

void set_tensor(const cudnnTensorStruct& y, void* yp, const void* value) {
  const cudnnDataType_t st = dtype_scalar(y.dtype);
  const size_t sz = dtype_size(st);
  unsigned char v[8];
  std::memcpy(v, value, sz);
  parallel_for(y.element_count(), [&](int64_t i) {
    int64_t idx[CUDNN_DIM_MAX];
    unravel(y, i, idx);
    std::memcpy(static_cast<unsigned char*>(yp) + y.scalar_offset(idx) * sz, v, sz);
  }, 4096);
}

void scale_tensor(const cudnnTensorStruct& y, void* yp, double alpha) {
  if (needs_double(y.dtype)) {
    const std::vector<double> v = read_tensor<double>(y, yp);
    write_tensor<double>(y, yp, v.data(), alpha, 0.0);
  } else {
    const std::vector<float> v = read_tensor<float>(y, yp);
    write_tensor<float>(y, yp, v.data(), alpha, 0.0);
  }
}

}  // namespace fd::cpu
