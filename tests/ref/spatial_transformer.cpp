// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "ref/spatial_transformer.h"

#include <cmath>

namespace ref {
namespace {

double norm(int i, int n) { return n > 1 ? -1.0 + 2.0 * i / (n - 1) : 0.0; }
double kernel(double t) { return std::fabs(t) < 1.0 ? 1.0 - std::fabs(t) : 0.0; }
double kernel_slope(double t) {
  if (t >= -1.0 && t < 0.0) return 1.0;
  if (t >= 0.0 && t < 1.0) return -1.0;
  return 0.0;
}

}  // namespace

Tensor st_grid_forward(const Tensor& theta, int h, int w) {
  const int n = theta.dims[0];
  Tensor g({n, h, w, 2});
  for (int b = 0; b < n; ++b)
    for (int r = 0; r < h; ++r)
      for (int c = 0; c < w; ++c)
        for (int k = 0; k < 2; ++k)
          g[g.index({b, r, c, k})] = theta[theta.index({b, k, 0})] * norm(c, w) +
                                     theta[theta.index({b, k, 1})] * norm(r, h) + theta[theta.index({b, k, 2})];
  return g;
}

Tensor st_grid_backward(const Tensor& dgrid) {
  const int n = dgrid.dims[0], h = dgrid.dims[1], w = dgrid.dims[2];
  Tensor dt({n, 2, 3}, 0.0);
  for (int b = 0; b < n; ++b)
    for (int r = 0; r < h; ++r)
      for (int c = 0; c < w; ++c)
        for (int k = 0; k < 2; ++k) {
          const double d = dgrid[dgrid.index({b, r, c, k})];
          dt[dt.index({b, k, 0})] += d * norm(c, w);
          dt[dt.index({b, k, 1})] += d * norm(r, h);
          dt[dt.index({b, k, 2})] += d;
        }
  return dt;
}

Tensor st_sampler_forward(const Tensor& x, const Tensor& grid) {
  const int n = x.dims[0], ch = x.dims[1], hi = x.dims[2], wi = x.dims[3], ho = grid.dims[1], wo = grid.dims[2];
  Tensor y({n, ch, ho, wo}, 0.0);
  for (int b = 0; b < n; ++b)
    for (int r = 0; r < ho; ++r)
      for (int c = 0; c < wo; ++c) {
        const double px = (grid[grid.index({b, r, c, 0})] + 1) * (wi - 1) / 2;
        const double py = (grid[grid.index({b, r, c, 1})] + 1) * (hi - 1) / 2;
        for (int k = 0; k < ch; ++k) {
          double s = 0;
          for (int i = 0; i < hi; ++i)
            for (int j = 0; j < wi; ++j) s += x[x.index({b, k, i, j})] * kernel(py - i) * kernel(px - j);
          y[y.index({b, k, r, c})] = s;
        }
      }
  return y;
}

void st_sampler_backward(const Tensor& x, const Tensor& grid, const Tensor& dy, Tensor* dx, Tensor* dgrid) {
  const int n = x.dims[0], ch = x.dims[1], hi = x.dims[2], wi = x.dims[3], ho = grid.dims[1], wo = grid.dims[2];
  *dx = Tensor(x.dims, 0.0);
  *dgrid = Tensor(grid.dims, 0.0);
  for (int b = 0; b < n; ++b)
    for (int r = 0; r < ho; ++r)
      for (int c = 0; c < wo; ++c) {
        const double px = (grid[grid.index({b, r, c, 0})] + 1) * (wi - 1) / 2;
        const double py = (grid[grid.index({b, r, c, 1})] + 1) * (hi - 1) / 2;
        double gx = 0, gy = 0;
        for (int k = 0; k < ch; ++k) {
          const double d = dy[dy.index({b, k, r, c})];
          for (int i = 0; i < hi; ++i)
            for (int j = 0; j < wi; ++j) {
              const double v = x[x.index({b, k, i, j})];
              (*dx)[dx->index({b, k, i, j})] += d * kernel(py - i) * kernel(px - j);
              gx += d * v * kernel(py - i) * kernel_slope(px - j);
              gy += d * v * kernel_slope(py - i) * kernel(px - j);
            }
        }
        (*dgrid)[dgrid->index({b, r, c, 0})] = gx * (wi - 1) / 2;
        (*dgrid)[dgrid->index({b, r, c, 1})] = gy * (hi - 1) / 2;
      }
}

}  // namespace ref
