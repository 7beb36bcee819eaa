// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "ref/conv.h"

namespace ref {
namespace {

// Calls f(n, k, c, cw, o, r, i) for every (output, tap) pair whose input position i lies inside x:
// n image, k output channel, c input channel, cw its index inside the group, o output position, r filter tap
// (as stored in w), i input position (all flattened row-major).
template <class F>
void for_each_term(const std::vector<int>& xd, const std::vector<int>& wd, const std::vector<int>& yd,
                   const ConvParams& p, F&& f) {
  const int ns = static_cast<int>(xd.size()) - 2;
  const int cg = wd[1], kg = wd[0] / p.groups;
  std::vector<int> o(ns), r(ns);
  int64_t osp = 1, ksp = 1, isp = 1;
  for (int i = 0; i < ns; ++i) {
    osp *= yd[2 + i];
    ksp *= wd[2 + i];
    isp *= xd[2 + i];
  }
  for (int n = 0; n < xd[0]; ++n)
    for (int k = 0; k < wd[0]; ++k)
      for (int cw = 0; cw < cg; ++cw) {
        const int c = (k / kg) * cg + cw;
        for (int64_t ol = 0; ol < osp; ++ol) {
          int64_t t = ol;
          for (int i = ns - 1; i >= 0; --i) {
            o[i] = static_cast<int>(t % yd[2 + i]);
            t /= yd[2 + i];
          }
          for (int64_t rl = 0; rl < ksp; ++rl) {
            int64_t u = rl;
            for (int i = ns - 1; i >= 0; --i) {
              r[i] = static_cast<int>(u % wd[2 + i]);
              u /= wd[2 + i];
            }
            int64_t il = 0, rs = 0;
            bool inside = true;
            for (int i = 0; i < ns; ++i) {
              const int pos = o[i] * p.stride[i] - p.pad[i] + r[i] * p.dilation[i];
              inside = inside && pos >= 0 && pos < xd[2 + i];
              il = il * xd[2 + i] + pos;
              const int stored = p.convolution ? wd[2 + i] - 1 - r[i] : r[i];
              rs = rs * wd[2 + i] + stored;
            }
            if (!inside) continue;
            f((static_cast<int64_t>(n) * xd[1] + c) * isp + il, (static_cast<int64_t>(k) * cg + cw) * ksp + rs,
              (static_cast<int64_t>(n) * yd[1] + k) * osp + ol);
          }
        }
      }
}

}  // namespace

std::vector<int> conv_output_dims(const std::vector<int>& xd, const std::vector<int>& wd, const ConvParams& p) {
  std::vector<int> y = {xd[0], wd[0]};
  for (size_t i = 2; i < xd.size(); ++i) {
    const int ext = (wd[i] - 1) * p.dilation[i - 2] + 1;
    y.push_back((xd[i] + 2 * p.pad[i - 2] - ext) / p.stride[i - 2] + 1);
  }
  return y;
}

Tensor conv_forward(const Tensor& x, const Tensor& w, const ConvParams& p) {
  Tensor y(conv_output_dims(x.dims, w.dims, p), 0.0);
  for_each_term(x.dims, w.dims, y.dims, p, [&](int64_t xi, int64_t wi, int64_t yi) { y[yi] += x[xi] * w[wi]; });
  return y;
}

Tensor conv_backward_data(const Tensor& dy, const Tensor& w, const std::vector<int>& xdims, const ConvParams& p) {
  Tensor dx(xdims, 0.0);
  for_each_term(xdims, w.dims, dy.dims, p, [&](int64_t xi, int64_t wi, int64_t yi) { dx[xi] += dy[yi] * w[wi]; });
  return dx;
}

Tensor conv_backward_filter(const Tensor& x, const Tensor& dy, const std::vector<int>& wdims, const ConvParams& p) {
  Tensor dw(wdims, 0.0);
  for_each_term(x.dims, wdims, dy.dims, p, [&](int64_t xi, int64_t wi, int64_t yi) { dw[wi] += dy[yi] * x[xi]; });
  return dw;
}

Tensor conv_backward_bias(const Tensor& dy) {
  Tensor db({1, dy.dims[1]}, 0.0);
  int64_t plane = 1;
  for (size_t i = 2; i < dy.dims.size(); ++i) plane *= dy.dims[i];
  for (int n = 0; n < dy.dims[0]; ++n)
    for (int k = 0; k < dy.dims[1]; ++k)
      for (int64_t j = 0; j < plane; ++j) db[k] += dy[(static_cast<int64_t>(n) * dy.dims[1] + k) * plane + j];
  return db;
}

}  // namespace ref
