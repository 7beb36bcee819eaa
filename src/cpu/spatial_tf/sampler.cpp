// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include <cmath>
#include <vector>

#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"
#include "cpu/spatial_tf/spatial_tf.h"

namespace fd::cpu {
namespace {

// The 4 bilinear neighbours of one sample point.
template <class T>
struct Taps {
  int64_t x0, y0;
  T fx, fy;
  T scale_x, scale_y;  // d(pixel)/d(normalized)
};

template <class T>
Taps<T> taps(T gx, T gy, int64_t h, int64_t w) {
  Taps<T> t;
  t.scale_x = static_cast<T>(w - 1) / T(2);
  t.scale_y = static_cast<T>(h - 1) / T(2);
  const T px = (gx + T(1)) * t.scale_x, py = (gy + T(1)) * t.scale_y;
  const T fx0 = std::floor(px), fy0 = std::floor(py);
  t.x0 = static_cast<int64_t>(fx0);
  t.y0 = static_cast<int64_t>(fy0);
  t.fx = px - fx0;
  t.fy = py - fy0;
  return t;
}

template <class T>
T at(const T* plane, int64_t h, int64_t w, int64_t r, int64_t c) {
  return (r >= 0 && r < h && c >= 0 && c < w) ? plane[r * w + c] : T(0);
}

bool finite_taps(double gx, double gy) { return std::isfinite(gx) && std::isfinite(gy) && std::fabs(gx) < 1e9 && std::fabs(gy) < 1e9; }

}  // namespace

void st_sampler_forward(const cudnnSpatialTransformerStruct& st, double alpha, const cudnnTensorStruct& xd,
                        const void* x, const void* grid, double beta, const cudnnTensorStruct& yd, void* y) {
  with_compute_type(st.dtype, [&](auto tag) {
    using T = decltype(tag);
    const std::vector<T> xv = read_tensor<T>(xd, x);
    const std::vector<T> g = read_tensor<T>(grid_tensor(st), grid);
    const int64_t n = xd.dims[0], c = xd.dims[1], h = xd.dims[2], w = xd.dims[3];
    const int64_t ho = yd.dims[2], wo = yd.dims[3];
    std::vector<T> yv(static_cast<size_t>(n * c * ho * wo));
    parallel_for(n * ho * wo, [&](int64_t i) {
      const int64_t b = i / (ho * wo), pos = i % (ho * wo);
      const T gx = g[2 * i], gy = g[2 * i + 1];
      if (!finite_taps(gx, gy)) {
        for (int64_t ch = 0; ch < c; ++ch) yv[(b * c + ch) * ho * wo + pos] = std::isnan(gx + gy) ? gx + gy : T(0);
        return;
      }
      const Taps<T> t = taps(gx, gy, h, w);
      for (int64_t ch = 0; ch < c; ++ch) {
        const T* p = xv.data() + (b * c + ch) * h * w;
        const T top = (T(1) - t.fx) * at(p, h, w, t.y0, t.x0) + t.fx * at(p, h, w, t.y0, t.x0 + 1);
        const T bot = (T(1) - t.fx) * at(p, h, w, t.y0 + 1, t.x0) + t.fx * at(p, h, w, t.y0 + 1, t.x0 + 1);
        yv[(b * c + ch) * ho * wo + pos] = (T(1) - t.fy) * top + t.fy * bot;
      }
    }, 1024);
    write_tensor<T>(yd, y, yv.data(), alpha, beta);
  });
}

void st_sampler_backward(const cudnnSpatialTransformerStruct& st, double alpha, const cudnnTensorStruct& xd,
                         const void* x, double beta, const cudnnTensorStruct& dxd, void* dx, double alpha_dgrid,
                         const cudnnTensorStruct& dyd, const void* dy, const void* grid, double beta_dgrid,
                         void* dgrid) {
  with_compute_type(st.dtype, [&](auto tag) {
    using T = decltype(tag);
    const cudnnTensorStruct gd = grid_tensor(st);
    const std::vector<T> xv = read_tensor<T>(xd, x);
    const std::vector<T> dyv = read_tensor<T>(dyd, dy);
    const std::vector<T> g = read_tensor<T>(gd, grid);
    const int64_t n = xd.dims[0], c = xd.dims[1], h = xd.dims[2], w = xd.dims[3];
    const int64_t ho = dyd.dims[2], wo = dyd.dims[3];
    std::vector<T> dxv(xv.size(), T(0)), dg(g.size(), T(0));
    // dx: one (batch, channel) plane per task, scattered in a fixed order.
    parallel_for(n * c, [&](int64_t bc) {
      const int64_t b = bc / c;
      T* p = dxv.data() + bc * h * w;
      const T* dyp = dyv.data() + bc * ho * wo;
      auto add = [&](int64_t r, int64_t col, T v) {
        if (r >= 0 && r < h && col >= 0 && col < w) p[r * w + col] += v;
      };
      for (int64_t pos = 0; pos < ho * wo; ++pos) {
        const T gx = g[2 * (b * ho * wo + pos)], gy = g[2 * (b * ho * wo + pos) + 1];
        if (!finite_taps(gx, gy)) continue;
        const Taps<T> t = taps(gx, gy, h, w);
        const T d = dyp[pos];
        add(t.y0, t.x0, (T(1) - t.fy) * (T(1) - t.fx) * d);
        add(t.y0, t.x0 + 1, (T(1) - t.fy) * t.fx * d);
        add(t.y0 + 1, t.x0, t.fy * (T(1) - t.fx) * d);
        add(t.y0 + 1, t.x0 + 1, t.fy * t.fx * d);
      }
    }, 2);
    // dgrid: one sample point per task, summed over channels.
    parallel_for(n * ho * wo, [&](int64_t i) {
      const int64_t b = i / (ho * wo), pos = i % (ho * wo);
      const T gx = g[2 * i], gy = g[2 * i + 1];
      if (!finite_taps(gx, gy)) return;
      const Taps<T> t = taps(gx, gy, h, w);
      T sx = T(0), sy = T(0);
      for (int64_t ch = 0; ch < c; ++ch) {
        const T* p = xv.data() + (b * c + ch) * h * w;
        const T d = dyv[(b * c + ch) * ho * wo + pos];
        const T v00 = at(p, h, w, t.y0, t.x0), v01 = at(p, h, w, t.y0, t.x0 + 1);
        const T v10 = at(p, h, w, t.y0 + 1, t.x0), v11 = at(p, h, w, t.y0 + 1, t.x0 + 1);
        sx += d * ((T(1) - t.fy) * (v01 - v00) + t.fy * (v11 - v10));
        sy += d * ((T(1) - t.fx) * (v10 - v00) + t.fx * (v11 - v01));
      }
      dg[2 * i] = sx * t.scale_x;
      dg[2 * i + 1] = sy * t.scale_y;
    }, 1024);
    write_tensor<T>(dxd, dx, dxv.data(), alpha, beta);
    write_tensor<T>(gd, dgrid, dg.data(), alpha_dgrid, beta_dgrid);
  });
}

}  // namespace fd::cpu
