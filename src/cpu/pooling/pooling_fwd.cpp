// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include <vector>

#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"
#include "cpu/pooling/pooling.h"
#include "cpu/pooling/pooling_window.h"

namespace fd::cpu {

PoolGeometry PoolGeometry::from(const cudnnPoolingStruct& p, const cudnnTensorStruct& x,
                                const cudnnTensorStruct& y) {
  PoolGeometry g;
  g.n = x.dims[0];
  g.c = x.dims[1];
  const int ns = x.nb_dims - 2;
  for (int d = 0; d < ns; ++d) {
    const int k = 3 - ns + d;  // right-align the spatial dims in the 3-D geometry
    g.in[k] = x.dims[2 + d];
    g.out[k] = y.dims[2 + d];
    g.win[k] = p.window[d];
    g.pad[k] = p.padding[d];
    g.stride[k] = p.stride[d];
  }
  g.mode = p.mode;
  g.propagate_nan = p.nan_opt == CUDNN_PROPAGATE_NAN;
  return g;
}

namespace {
template <class T>
void forward_impl(const PoolGeometry& g, double alpha, const cudnnTensorStruct& xd, const void* x, double beta,
                  const cudnnTensorStruct& yd, void* y) {
  const std::vector<T> xv = read_tensor<T>(xd, x);
  std::vector<T> yv(static_cast<size_t>(g.n * g.c * g.out_plane()));
  const bool is_max = g.mode == CUDNN_POOLING_MAX || g.mode == CUDNN_POOLING_MAX_DETERMINISTIC;
  const int64_t op = g.out_plane(), ip = g.in_plane();
  parallel_for(static_cast<int64_t>(yv.size()), [&](int64_t i) {
    const T* plane = xv.data() + (i / op) * ip;
    int64_t o[3];
    pool_detail::unravel_out(g, i % op, o);
    const pool_detail::Window w = pool_detail::window_at(g, o);
    if (is_max) {
      int64_t arg;
      yv[i] = pool_detail::window_max(g, w, plane, &arg);
      return;
    }
    T sum = T(0);
    for (int64_t a = w.lo[0]; a < w.hi[0]; ++a)
      for (int64_t b = w.lo[1]; b < w.hi[1]; ++b)
        for (int64_t c = w.lo[2]; c < w.hi[2]; ++c) sum += plane[(a * g.in[1] + b) * g.in[2] + c];
    yv[i] = w.divisor > 0 ? sum / static_cast<T>(w.divisor) : T(0);
  }, 256);
  write_tensor<T>(yd, y, yv.data(), alpha, beta);
}
}  // namespace

void pooling_forward(const PoolGeometry& g, double alpha, const cudnnTensorStruct& xd, const void* x, double beta,
                     const cudnnTensorStruct& yd, void* y) {
  with_compute_type(xd.dtype, [&](auto t) { forward_impl<decltype(t)>(g, alpha, xd, x, beta, yd, y); });
}

}  // namespace fd::cpu
