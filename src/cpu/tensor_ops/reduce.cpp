// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Tensor reduction over the dims where C has extent 1: ADD, MUL, MIN, MAX, AMAX, AVG, NORM1, NORM2,
// MUL_NO_ZEROS, with flattened indices for MIN / MAX / AMAX.
#include <cmath>
#include <vector>

#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"
#include "cpu/tensor_ops/tensor_ops.h"

namespace fd::cpu {
namespace {

template <class T>
void run(const cudnnReduceTensorStruct& r, const cudnnTensorStruct& a, const void* ap, const cudnnTensorStruct& c,
         void* cp, double alpha, double beta, uint32_t* indices) {
  const std::vector<T> av = read_tensor<T>(a, ap);
  const int n = a.nb_dims;
  // Packed row-major strides of A; the reduced dims (C extent 1, A extent > 1) in row-major order.
  int64_t astride[CUDNN_DIM_MAX];
  packed_logical_strides(a, astride);
  int red[CUDNN_DIM_MAX], nred = 0;
  int64_t slice = 1;
  for (int i = 0; i < n; ++i)
    if (c.dims[i] == 1 && a.dims[i] != 1) {
      red[nred++] = i;
      slice *= a.dims[i];
    }
  const int64_t count = c.element_count();
  std::vector<T> out(static_cast<size_t>(count));
  const cudnnReduceTensorOp_t op = r.op;
  const bool prop = r.nan_opt == CUDNN_PROPAGATE_NAN;

  parallel_for(count, [&](int64_t j) {
    int64_t idx[CUDNN_DIM_MAX];
    unravel(c, j, idx);
    int64_t base = 0;
    for (int i = 0; i < n; ++i) base += idx[i] * astride[i];
    auto at = [&](int64_t k) {  // k-th element of the slice, row-major over the reduced dims
      int64_t off = base;
      for (int t = nred - 1; t >= 0; --t) {
        const int d = red[t];
        off += (k % a.dims[d]) * astride[d];
        k /= a.dims[d];
      }
      return av[off];
    };
    T acc{};
    int64_t best = 0;
    switch (op) {
      case CUDNN_REDUCE_TENSOR_MIN:
      case CUDNN_REDUCE_TENSOR_MAX:
      case CUDNN_REDUCE_TENSOR_AMAX: {
        const bool is_min = op == CUDNN_REDUCE_TENSOR_MIN;
        auto key = [&](T v) { return op == CUDNN_REDUCE_TENSOR_AMAX ? std::fabs(v) : v; };
        acc = key(at(0));
        for (int64_t k = 1; k < slice; ++k) {
          if (prop && std::isnan(acc)) break;  // the first NaN wins
          const T v = key(at(k));
          const bool better = is_min ? v < acc : v > acc;
          if (better || (std::isnan(acc) && !std::isnan(v)) || (prop && std::isnan(v))) {
            acc = v;
            best = k;
          }
        }
        break;
      }
      case CUDNN_REDUCE_TENSOR_MUL:
      case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS:
        acc = T(1);
        for (int64_t k = 0; k < slice; ++k) {
          const T v = at(k);
          if (op == CUDNN_REDUCE_TENSOR_MUL || v != T(0)) acc *= v;
        }
        break;
      default:
        for (int64_t k = 0; k < slice; ++k) {
          const T v = at(k);
          acc += op == CUDNN_REDUCE_TENSOR_NORM1 ? std::fabs(v) : op == CUDNN_REDUCE_TENSOR_NORM2 ? v * v : v;
        }
        if (op == CUDNN_REDUCE_TENSOR_AVG) acc /= static_cast<T>(slice);
        if (op == CUDNN_REDUCE_TENSOR_NORM2 && !r.sum_of_squares) acc = std::sqrt(acc);
        break;
    }
    out[j] = acc;
    if (indices) indices[j] = static_cast<uint32_t>(best);
  }, 64);
  write_tensor<T>(c, cp, out.data(), alpha, beta);
}

}  // namespace

void reduce_tensor(const cudnnReduceTensorStruct& r, const cudnnTensorStruct& a, const void* ap,
                   const cudnnTensorStruct& c, void* cp, double alpha, double beta, uint32_t* indices) {
  if (r.comp_type == CUDNN_DATA_DOUBLE)
    run<double>(r, a, ap, c, cp, alpha, beta, indices);
  else
    run<float>(r, a, ap, c, cp, alpha, beta, indices);
}

}  // namespace fd::cpu
