// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cpu:winograd_f2x3: forward 3x3 convolutions with stride 1 and no dilation by Winograd's minimal filtering
// F(2x2, 3x3): each 2x2 output tile is A^T [ sum over c of (G g_c G^T) . (B^T d_c B) ] A, with 16 multiplies per
// tile and channel instead of 36. The filter transforms are computed once per call; the input transform of a
// tile is shared by all output channels of its group. It serves CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD (the
// transforms stay inside the tile loop, like cuDNN's fused Winograd). Each output is computed by one thread in
// a fixed order: deterministic.
#include <array>

#include "cpu/common/parallel.h"
#include "cpu/conv/conv_io.h"
#include "cpu/conv/impls.h"

namespace fd::cpu::conv {
namespace {


// U = G g G^T for a 3x3 filter g (G is 4x3: rows [1 0 0], [1/2 1/2 1/2], [1/2 -1/2 1/2], [0 0 1]).
template <class T>
void filter_transform(const T* g, T* u) {
  T t[4][3];
  for (int j = 0; j < 3; ++j) {
    t[0][j] = g[0 * 3 + j];
    t[1][j] = (g[0 * 3 + j] + g[1 * 3 + j] + g[2 * 3 + j]) / 2;
    t[2][j] = (g[0 * 3 + j] - g[1 * 3 + j] + g[2 * 3 + j]) / 2;
    t[3][j] = g[2 * 3 + j];
  }
  for (int i = 0; i < 4; ++i) {
    u[i * 4 + 0] = t[i][0];
    u[i * 4 + 1] = (t[i][0] + t[i][1] + t[i][2]) / 2;
    u[i * 4 + 2] = (t[i][0] - t[i][1] + t[i][2]) / 2;
    u[i * 4 + 3] = t[i][2];
  }
}

// V = B^T d B (B^T rows [1 0 -1 0], [0 1 1 0], [0 -1 1 0], [0 1 0 -1]).
template <class T>
void input_transform(const T* d, T* v) {
  T t[4][4];
  for (int j = 0; j < 4; ++j) {
    t[0][j] = d[0 * 4 + j] - d[2 * 4 + j];
    t[1][j] = d[1 * 4 + j] + d[2 * 4 + j];
    t[2][j] = d[2 * 4 + j] - d[1 * 4 + j];
    t[3][j] = d[1 * 4 + j] - d[3 * 4 + j];
  }
  for (int i = 0; i < 4; ++i) {
    v[i * 4 + 0] = t[i][0] - t[i][2];
    v[i * 4 + 1] = t[i][1] + t[i][2];
    v[i * 4 + 2] = t[i][2] - t[i][1];
    v[i * 4 + 3] = t[i][1] - t[i][3];
  }
}

// Y = A^T M A (A^T rows [1 1 1 0], [0 1 -1 -1]).
template <class T>
void output_transform(const T* m, T* y) {
  T t[2][4];
  for (int j = 0; j < 4; ++j) {
    t[0][j] = m[0 * 4 + j] + m[1 * 4 + j] + m[2 * 4 + j];
    t[1][j] = m[1 * 4 + j] - m[2 * 4 + j] - m[3 * 4 + j];
  }
  for (int i = 0; i < 2; ++i) {
    y[i * 2 + 0] = t[i][0] + t[i][1] + t[i][2];
    y[i * 2 + 1] = t[i][1] - t[i][2] - t[i][3];
  }
}

template <class T>
void forward(const ConvProblem& p, const T* x, const T* w, T* y) {
  const int64_t icg = p.icg(), ocg = p.ocg();
  std::vector<T> u(static_cast<size_t>(p.oc * icg * 16));
  parallel_for(p.oc * icg, [&](int64_t i) { filter_transform(w + i * 9, u.data() + i * 16); }, 64);
  const int64_t th = (p.oh + 1) / 2, tw = (p.ow + 1) / 2;
  parallel_for(p.mb * th, [&](int64_t t) {
    const int64_t n = t / th, ty = t % th;
    std::vector<T> v(static_cast<size_t>(p.ic * 16));
    for (int64_t tx = 0; tx < tw; ++tx) {
      const int64_t h0 = ty * 2 - p.ph, w0 = tx * 2 - p.pw;
      for (int64_t c = 0; c < p.ic; ++c) {
        const T* xc = x + (n * p.ic + c) * p.isp();
        T d[16];
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) {
            const int64_t ih = h0 + i, iw = w0 + j;
            d[i * 4 + j] = ih >= 0 && ih < p.ih && iw >= 0 && iw < p.iw ? xc[ih * p.iw + iw] : T(0);
          }
        input_transform(d, v.data() + c * 16);
      }
      for (int64_t oc = 0; oc < p.oc; ++oc) {
        const int64_t grp = oc / ocg;
        T m[16] = {};
        for (int64_t c = 0; c < icg; ++c) {
          const T* uu = u.data() + (oc * icg + c) * 16;
          const T* vv = v.data() + (grp * icg + c) * 16;
          for (int e = 0; e < 16; ++e) m[e] += uu[e] * vv[e];
        }
        T out[4];
        output_transform(m, out);
        T* yo = y + (n * p.oc + oc) * p.osp();
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j) {
            const int64_t oh = ty * 2 + i, ow = tx * 2 + j;
            if (oh < p.oh && ow < p.ow) yo[oh * p.ow + ow] = out[i * 2 + j];
          }
      }
    }
  }, 1);
}

class WinogradF2x3 final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cpu:winograd_f2x3"; }
  fd::Backend backend() const override { return fd::Backend::cpu; }
  bool serves(ConvDir dir, int algo) const override {
    return dir == ConvDir::fwd && algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD;
  }
  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    if (p.nsp != 2) return {CUDNN_STATUS_NOT_SUPPORTED, "Winograd F(2x2,3x3) is 2-D only"};
    if (p.kh != 3 || p.kw != 3) return {CUDNN_STATUS_NOT_SUPPORTED, "Winograd F(2x2,3x3) needs a 3x3 filter"};
    if (p.sh != 1 || p.sw != 1 || p.dh != 1 || p.dw != 1)
      return {CUDNN_STATUS_NOT_SUPPORTED, "Winograd F(2x2,3x3) needs stride 1 and dilation 1"};
    if (p.is_int8()) return {CUDNN_STATUS_NOT_SUPPORTED, "Winograd transforms are not exact for int8"};
    return {};
  }
  size_t workspace_size(const ConvProblem&) const override { return 0; }
  bool deterministic() const override { return true; }
  cudnnMathType_t math_type(const ConvProblem&) const override { return CUDNN_DEFAULT_MATH; }
  double cost_estimate(const ConvProblem& p) const override {
    // 16/36 of the direct multiplies plus the transforms, at the direct loops' rate.
    const double bytes = 8.0 * (p.mb * p.ic * p.isp() + p.oc * p.icg() * 9 + p.mb * p.oc * p.osp());
    return p.flops() * (16.0 / 36.0) / 2e9 + bytes / 5e9;
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    return with_compute(p, [&](auto zero) -> cudnnStatus_t {
      using T = decltype(zero);
      const auto x = read_activation<T>(*p.x, a.in);
      const auto w = read_filter<T>(p, a.in2);
      std::vector<T> y(static_cast<size_t>(p.mb * p.oc * p.osp()));
      forward(p, x.data(), w.data(), y.data());
      return write_output(p, a, y);
    });
  }
};

}  // namespace

const fd::conv::ConvImpl* winograd_impl() {
  static const WinogradF2x3 impl;
  return &impl;
}

}  // namespace fd::cpu::conv
