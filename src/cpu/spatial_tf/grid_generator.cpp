// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include <vector>

#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"
#include "cpu/spatial_tf/spatial_tf.h"

namespace fd::cpu {
namespace {

// Within the library's tensor limit: cudnnSetSpatialTransformerNdDescriptor refuses grids and thetas of 2^31
// elements or more, so the int strides below cannot overflow and the set cannot fail.
cudnnTensorStruct packed_tensor(cudnnDataType_t dt, int d0, int d1, int d2, int d3) {
  cudnnTensorStruct t;
  const int dims[4] = {d0, d1, d2, d3};
  const int strides[4] = {d1 * d2 * d3, d2 * d3, d3, 1};
  (void)set_tensor_strided(t, dt, 4, dims, strides);
  return t;
}

template <class T>
T norm_coord(int64_t i, int64_t n) {
  return n > 1 ? T(-1) + T(2) * static_cast<T>(i) / static_cast<T>(n - 1) : T(0);
}

}  // namespace

cudnnTensorStruct grid_tensor(const cudnnSpatialTransformerStruct& st) {
  return packed_tensor(st.dtype, st.dims[0], st.dims[2], st.dims[3], 2);
}
cudnnTensorStruct theta_tensor(const cudnnSpatialTransformerStruct& st) {
  return packed_tensor(st.dtype, st.dims[0], 2, 3, 1);
}

void st_grid_forward(const cudnnSpatialTransformerStruct& st, const void* theta, void* grid) {
  with_compute_type(st.dtype, [&](auto tag) {
    using T = decltype(tag);
    const cudnnTensorStruct td = theta_tensor(st), gd = grid_tensor(st);
    const std::vector<T> th = read_tensor<T>(td, theta);
    const int64_t n = st.dims[0], h = st.dims[2], w = st.dims[3];
    std::vector<T> g(static_cast<size_t>(n * h * w * 2));
    parallel_for(n * h * w, [&](int64_t i) {
      const int64_t b = i / (h * w), r = (i / w) % h, c = i % w;
      const T xt = norm_coord<T>(c, w), yt = norm_coord<T>(r, h);
      const T* t = th.data() + b * 6;
      g[2 * i] = t[0] * xt + t[1] * yt + t[2];
      g[2 * i + 1] = t[3] * xt + t[4] * yt + t[5];
    }, 4096);
    write_tensor<T>(gd, grid, g.data(), 1.0, 0.0);
  });
}

void st_grid_backward(const cudnnSpatialTransformerStruct& st, const void* dgrid, void* dtheta) {
  with_compute_type(st.dtype, [&](auto tag) {
    using T = decltype(tag);
    const cudnnTensorStruct td = theta_tensor(st), gd = grid_tensor(st);
    const std::vector<T> dg = read_tensor<T>(gd, dgrid);
    const int64_t n = st.dims[0], h = st.dims[2], w = st.dims[3];
    std::vector<T> dt(static_cast<size_t>(n * 6), T(0));
    parallel_for(n, [&](int64_t b) {
      T* d = dt.data() + b * 6;
      for (int64_t r = 0; r < h; ++r)
        for (int64_t c = 0; c < w; ++c) {
          const T xt = norm_coord<T>(c, w), yt = norm_coord<T>(r, h);
          const T* g = dg.data() + ((b * h + r) * w + c) * 2;
          for (int k = 0; k < 2; ++k) {
            d[3 * k] += g[k] * xt;
            d[3 * k + 1] += g[k] * yt;
            d[3 * k + 2] += g[k];
          }
        }
    }, 2);
    write_tensor<T>(td, dtheta, dt.data(), 1.0, 0.0);
  });
}

}  // namespace fd::cpu
