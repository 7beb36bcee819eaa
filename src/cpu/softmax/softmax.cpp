// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cpu/softmax/softmax.h"

#include <cmath>
#include <vector>

#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"

namespace fd::cpu {
namespace {

// The groups of a packed logical-order buffer: `groups` groups of `len` elements; element j of group g is at
// base(g) + j * step.
struct Groups {
  int64_t groups = 0, len = 0, step = 0, inner = 1;
  int64_t base(int64_t g) const { return step == 1 ? g * len : (g / inner) * len * inner + g % inner; }
};

Groups make_groups(const cudnnTensorStruct& d, cudnnSoftmaxMode_t mode) {
  const int64_t n = d.dims[0];
  const int64_t c = d.nb_dims > 1 ? d.dims[1] : 1;
  int64_t spatial = 1;
  for (int i = 2; i < d.nb_dims; ++i) spatial *= d.dims[i];
  Groups g;
  if (mode == CUDNN_SOFTMAX_MODE_INSTANCE) {
    g.groups = n;
    g.len = c * spatial;
    g.step = 1;
  } else {
    g.groups = n * spatial;
    g.len = c;
    g.step = spatial;
    g.inner = spatial;
  }
  return g;
}

}  // namespace

void softmax_forward(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, double alpha,
                     const cudnnTensorStruct& x_desc, const void* x, double beta, const cudnnTensorStruct& y_desc,
                     void* y) {
  with_compute_type(y_desc.dtype, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> v = read_tensor<T>(x_desc, x);
    const Groups gr = make_groups(x_desc, mode);
    parallel_for(gr.groups, [&](int64_t g) {
      T* p = v.data() + gr.base(g);
      const int64_t s = gr.step;
      T mx = T(0);
      if (algo != CUDNN_SOFTMAX_FAST) {
        mx = p[0];
        for (int64_t j = 1; j < gr.len; ++j) mx = p[j * s] > mx ? p[j * s] : mx;
      }
      T sum = T(0);
      if (algo == CUDNN_SOFTMAX_LOG) {
        for (int64_t j = 0; j < gr.len; ++j) sum += std::exp(p[j * s] - mx);
        const T lse = mx + std::log(sum);
        for (int64_t j = 0; j < gr.len; ++j) p[j * s] -= lse;
      } else {
        for (int64_t j = 0; j < gr.len; ++j) {
          p[j * s] = std::exp(p[j * s] - mx);
          sum += p[j * s];
        }
        const T inv = T(1) / sum;
        for (int64_t j = 0; j < gr.len; ++j) p[j * s] *= inv;
      }
    }, 64);
    write_tensor<T>(y_desc, y, v.data(), alpha, beta);
  });
}

void softmax_backward(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, double alpha,
                      const cudnnTensorStruct& y_desc, const void* y, const cudnnTensorStruct& dy_desc,
                      const void* dy, double beta, const cudnnTensorStruct& dx_desc, void* dx) {
  with_compute_type(dx_desc.dtype, [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> yv = read_tensor<T>(y_desc, y);
    std::vector<T> g = read_tensor<T>(dy_desc, dy);
    const Groups gr = make_groups(y_desc, mode);
    parallel_for(gr.groups, [&](int64_t k) {
      const int64_t b = gr.base(k), s = gr.step;
      const T* yp = yv.data() + b;
      T* gp = g.data() + b;
      T sum = T(0);
      if (algo == CUDNN_SOFTMAX_LOG) {
        for (int64_t j = 0; j < gr.len; ++j) sum += gp[j * s];
        for (int64_t j = 0; j < gr.len; ++j) gp[j * s] -= std::exp(yp[j * s]) * sum;
      } else {
        for (int64_t j = 0; j < gr.len; ++j) sum += yp[j * s] * gp[j * s];
        for (int64_t j = 0; j < gr.len; ++j) gp[j * s] = yp[j * s] * (gp[j * s] - sum);
      }
    }, 64);
    write_tensor<T>(dx_desc, dx, g.data(), alpha, beta);
  });
}

}  // namespace fd::cpu
