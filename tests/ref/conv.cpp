// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "ref/conv.h"

namespace ref {
namespace {

// The geometry of one convolution: for every (output position o, filter tap r) pair, the input position it reads
// (-1: outside x, a padding zero) and the tap's index as stored in w (flipped for CUDNN_CONVOLUTION), computed once
// from the definition: i = o * stride - pad + r * dilation in each spatial dim.
struct Terms {
  int xc = 1, yc = 1;                // channels of x and y
  int cg = 1, kg = 1;                // input channels per group, output channels per group
  int64_t osp = 1, ksp = 1, isp = 1;  // output, filter and input positions (spatial)
  std::vector<int64_t> input;        // [o * ksp + r]: flattened input position, or -1
  std::vector<int64_t> stored;       // [r]: flattened tap position in w

  Terms(const std::vector<int>& xd, const std::vector<int>& wd, const std::vector<int>& yd, const ConvParams& p) {
    const int ns = static_cast<int>(xd.size()) - 2;
    xc = xd[1];
    yc = yd[1];
    cg = wd[1];
    kg = wd[0] / p.groups;
    for (int i = 0; i < ns; ++i) {
      osp *= yd[2 + i];
      ksp *= wd[2 + i];
      isp *= xd[2 + i];
    }
    input.assign(static_cast<size_t>(osp * ksp), -1);
    stored.resize(static_cast<size_t>(ksp));
    std::vector<int> tap(static_cast<size_t>(ksp * ns)), o(ns);  // tap[r * ns + i]: tap r's coordinate in dim i
    for (int64_t rl = 0; rl < ksp; ++rl) {
      int64_t u = rl, rs = 0;
      for (int i = ns - 1; i >= 0; --i) {
        tap[static_cast<size_t>(rl * ns + i)] = static_cast<int>(u % wd[2 + i]);
        u /= wd[2 + i];
      }
      for (int i = 0; i < ns; ++i) {
        const int r = tap[static_cast<size_t>(rl * ns + i)];
        rs = rs * wd[2 + i] + (p.convolution ? wd[2 + i] - 1 - r : r);
      }
      stored[static_cast<size_t>(rl)] = rs;
    }
    for (int64_t ol = 0; ol < osp; ++ol) {
      int64_t t = ol;
      for (int i = ns - 1; i >= 0; --i) {
        o[i] = static_cast<int>(t % yd[2 + i]);
        t /= yd[2 + i];
      }
      for (int64_t rl = 0; rl < ksp; ++rl) {
        int64_t il = 0;
        bool inside = true;
        for (int i = 0; i < ns; ++i) {
          const int pos = o[i] * p.stride[i] - p.pad[i] + tap[static_cast<size_t>(rl * ns + i)] * p.dilation[i];
          inside = inside && pos >= 0 && pos < xd[2 + i];
          il = il * xd[2 + i] + pos;
        }
        if (inside) input[static_cast<size_t>(ol * ksp + rl)] = il;
      }
    }
  }

  // f(x index, w index, y index) for every term of image n, output channel k and its group's input channel cw,
  // in a fixed order (output positions, then taps)
  template <class F>
  void each(int n, int k, int cw, F&& f) const {
    const int c = (k / kg) * cg + cw;
    const int64_t x0 = (static_cast<int64_t>(n) * xc + c) * isp, w0 = (static_cast<int64_t>(k) * cg + cw) * ksp;
    const int64_t y0 = (static_cast<int64_t>(n) * yc + k) * osp;
    for (int64_t ol = 0; ol < osp; ++ol)
      for (int64_t rl = 0; rl < ksp; ++rl) {
        const int64_t il = input[static_cast<size_t>(ol * ksp + rl)];
        if (il >= 0) f(x0 + il, w0 + stored[static_cast<size_t>(rl)], y0 + ol);
      }
  }
};

// body(j) for j in [0, count), in parallel threads: each j writes output elements no other j writes, and sums them
// in an order of its own, so the results do not depend on the thread count.
template <class F>
void each_disjoint(int64_t count, F&& body) {
#pragma omp parallel for schedule(dynamic)
  for (int64_t j = 0; j < count; ++j) body(j);
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

// The terms grouped by what they write, so that the groups can run in parallel: the forward by (n, k), backward
// data by (n, c) (the output channels of c's group in order), backward filter by (k, cw) (the images in order).
Tensor conv_forward(const Tensor& x, const Tensor& w, const ConvParams& p) {
  Tensor y(conv_output_dims(x.dims, w.dims, p), 0.0);
  const Terms t(x.dims, w.dims, y.dims, p);
  each_disjoint(int64_t{y.dims[0]} * y.dims[1], [&](int64_t j) {
    const int n = static_cast<int>(j / y.dims[1]), k = static_cast<int>(j % y.dims[1]);
    for (int cw = 0; cw < t.cg; ++cw)
      t.each(n, k, cw, [&](int64_t xi, int64_t wi, int64_t yi) { y[yi] += x[xi] * w[wi]; });
  });
  return y;
}

Tensor conv_backward_data(const Tensor& dy, const Tensor& w, const std::vector<int>& xdims, const ConvParams& p) {
  Tensor dx(xdims, 0.0);
  const Terms t(xdims, w.dims, dy.dims, p);
  each_disjoint(int64_t{xdims[0]} * xdims[1], [&](int64_t j) {
    const int n = static_cast<int>(j / xdims[1]), c = static_cast<int>(j % xdims[1]);
    const int g = c / t.cg, cw = c % t.cg;
    for (int k = g * t.kg; k < (g + 1) * t.kg; ++k)
      t.each(n, k, cw, [&](int64_t xi, int64_t wi, int64_t yi) { dx[xi] += dy[yi] * w[wi]; });
  });
  return dx;
}

Tensor conv_backward_filter(const Tensor& x, const Tensor& dy, const std::vector<int>& wdims, const ConvParams& p) {
  Tensor dw(wdims, 0.0);
  const Terms t(x.dims, wdims, dy.dims, p);
  each_disjoint(int64_t{wdims[0]} * wdims[1], [&](int64_t j) {
    const int k = static_cast<int>(j / wdims[1]), cw = static_cast<int>(j % wdims[1]);
    for (int n = 0; n < x.dims[0]; ++n)
      t.each(n, k, cw, [&](int64_t xi, int64_t wi, int64_t yi) { dw[wi] += dy[yi] * x[xi]; });
  });
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
