// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include <vector>

#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"
#include "cpu/pooling/pooling.h"
#include "cpu/pooling/pooling_window.h"

namespace fd::cpu {
namespace {
template <class T>
void backward_impl(const PoolGeometry& g, double alpha, const cudnnTensorStruct& dyd, const void* dy,
                   const cudnnTensorStruct& xd, const void* x, double beta, const cudnnTensorStruct& dxd, void* dx) {
  const bool is_max = g.mode == CUDNN_POOLING_MAX || g.mode == CUDNN_POOLING_MAX_DETERMINISTIC;
  std::vector<T> xv;
  if (is_max) xv = read_tensor<T>(xd, x);
  const std::vector<T> dyv = read_tensor<T>(dyd, dy);
  const int64_t op = g.out_plane(), ip = g.in_plane();
  std::vector<T> dxv(static_cast<size_t>(g.n * g.c * ip), T(0));
  // One plane per task: the scatter order inside a plane is fixed, so the sums are deterministic.
  parallel_for(g.n * g.c, [&](int64_t p) {
    T* dplane = dxv.data() + p * ip;
    const T* dyp = dyv.data() + p * op;
    for (int64_t j = 0; j < op; ++j) {
      int64_t o[3];
      pool_detail::unravel_out(g, j, o);
      const pool_detail::Window w = pool_detail::window_at(g, o);
      if (is_max) {
        int64_t arg;
        pool_detail::window_max(g, w, xv.data() + p * ip, &arg);
        if (arg >= 0) dplane[arg] += dyp[j];
        continue;
      }
      if (w.divisor <= 0) continue;
      const T share = dyp[j] / static_cast<T>(w.divisor);
      for (int64_t a = w.lo[0]; a < w.hi[0]; ++a)
        for (int64_t b = w.lo[1]; b < w.hi[1]; ++b)
          for (int64_t c = w.lo[2]; c < w.hi[2]; ++c) dplane[(a * g.in[1] + b) * g.in[2] + c] += share;
    }
  }, 2);
  write_tensor<T>(dxd, dx, dxv.data(), alpha, beta);
}
}  // namespace

void pooling_backward(const PoolGeometry& g, double alpha, const cudnnTensorStruct& dyd, const void* dy,
                      const cudnnTensorStruct& xd, const void* x, double beta, const cudnnTensorStruct& dxd,
                      void* dx) {
  with_compute_type(dxd.dtype, [&](auto t) { backward_impl<decltype(t)>(g, alpha, dyd, dy, xd, x, beta, dxd, dx); });
}

}  // namespace fd::cpu
