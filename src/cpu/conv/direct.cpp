// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cpu:direct: the convolution sums computed where they are defined, one output element at a time.
// Each output element is owned by one thread and summed in a fixed order, so results are deterministic.
// It is the correctness baseline beside im2col_gemm, and the one implementation that handles the int8
// configurations (it sums int8 products exactly, in double). It serves the cuDNN algorithms that compute
// the convolution implicitly, without a materialized matrix: IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM and DIRECT
// forward, ALGO_0 / ALGO_1 backward data and ALGO_0 / ALGO_1 / ALGO_3 backward filter.
#include <algorithm>

#include "cpu/common/parallel.h"
#include "cpu/conv/conv_io.h"
#include "cpu/conv/impls.h"

namespace fd::cpu::conv {
namespace {

// Range of kernel taps k in [0, K) with 0 <= o*s - p + k*d < I.
inline void tap_range(int64_t o, int s, int p, int d, int64_t K, int64_t I, int64_t* k0, int64_t* k1) {
  const int64_t base = o * s - p;
  int64_t lo = base >= 0 ? 0 : (-base + d - 1) / d;
  int64_t hi = base >= I ? 0 : (I - 1 - base) / d + 1;
  *k0 = std::min(lo, K);
  *k1 = std::max(*k0, std::min(hi, K));
}

template <class T>
void forward(const ConvProblem& p, const T* x, const T* w, T* y) {
  const int64_t icg = p.icg(), ocg = p.ocg();
  parallel_for(p.mb * p.oc, [&](int64_t noc) {
    const int64_t n = noc / p.oc, oc = noc % p.oc, grp = oc / ocg;
    const T* wo = w + oc * icg * p.ksp();
    T* yo = y + noc * p.osp();
    for (int64_t od = 0; od < p.od; ++od) {
      int64_t kd0, kd1;
      tap_range(od, p.sd, p.pd, p.dd, p.kd, p.id, &kd0, &kd1);
      for (int64_t oh = 0; oh < p.oh; ++oh) {
        int64_t kh0, kh1;
        tap_range(oh, p.sh, p.ph, p.dh, p.kh, p.ih, &kh0, &kh1);
        for (int64_t ow = 0; ow < p.ow; ++ow) {
          int64_t kw0, kw1;
          tap_range(ow, p.sw, p.pw, p.dw, p.kw, p.iw, &kw0, &kw1);
          T acc = 0;
          for (int64_t c = 0; c < icg; ++c) {
            const T* xc = x + (n * p.ic + grp * icg + c) * p.isp();
            const T* wc = wo + c * p.ksp();
            for (int64_t kd = kd0; kd < kd1; ++kd) {
              const int64_t id = od * p.sd - p.pd + kd * p.dd;
              for (int64_t kh = kh0; kh < kh1; ++kh) {
                const int64_t ih = oh * p.sh - p.ph + kh * p.dh;
                const int64_t xb = (id * p.ih + ih) * p.iw + ow * p.sw - p.pw;
                const T* wr = wc + (kd * p.kh + kh) * p.kw;
                for (int64_t kw = kw0; kw < kw1; ++kw) acc += xc[xb + kw * p.dw] * wr[kw];
              }
            }
          }
          yo[(od * p.oh + oh) * p.ow + ow] = acc;
        }
      }
    }
  }, 1);
}

// dx[n][c][i] = sum over the taps k and outputs o with i = o*s - p + k*d of dy[n][oc][o] w[oc][c][k].
template <class T>
void backward_data(const ConvProblem& p, const T* dy, const T* w, T* dx) {
  const int64_t icg = p.icg(), ocg = p.ocg();
  auto taps = [](int64_t i, int s, int pad, int d, int64_t O, int64_t k, int64_t* o) {
    const int64_t num = i + pad - k * d;
    if (num < 0 || num % s != 0) return false;
    *o = num / s;
    return *o < O;
  };
  parallel_for(p.mb * p.ic, [&](int64_t nic) {
    const int64_t n = nic / p.ic, c = nic % p.ic, grp = c / icg, cg = c % icg;
    T* dxc = dx + nic * p.isp();
    for (int64_t id = 0; id < p.id; ++id)
      for (int64_t ih = 0; ih < p.ih; ++ih)
        for (int64_t iw = 0; iw < p.iw; ++iw) {
          T acc = 0;
          for (int64_t kd = 0; kd < p.kd; ++kd) {
            int64_t od;
            if (!taps(id, p.sd, p.pd, p.dd, p.od, kd, &od)) continue;
            for (int64_t kh = 0; kh < p.kh; ++kh) {
              int64_t oh;
              if (!taps(ih, p.sh, p.ph, p.dh, p.oh, kh, &oh)) continue;
              for (int64_t kw = 0; kw < p.kw; ++kw) {
                int64_t ow;
                if (!taps(iw, p.sw, p.pw, p.dw, p.ow, kw, &ow)) continue;
                const int64_t opos = (od * p.oh + oh) * p.ow + ow, kpos = (kd * p.kh + kh) * p.kw + kw;
                for (int64_t k = 0; k < ocg; ++k) {
                  const int64_t oc = grp * ocg + k;
                  acc += dy[(n * p.oc + oc) * p.osp() + opos] * w[(oc * icg + cg) * p.ksp() + kpos];
                }
              }
            }
          }
          dxc[(id * p.ih + ih) * p.iw + iw] = acc;
        }
  }, 1);
}

// dw[oc][c][k] = sum over n and outputs o of dy[n][oc][o] x[n][grp*icg + c][o*s - p + k*d].
template <class T>
void backward_filter(const ConvProblem& p, const T* x, const T* dy, T* dw) {
  const int64_t icg = p.icg(), ocg = p.ocg();
  parallel_for(p.oc * icg, [&](int64_t occ) {
    const int64_t oc = occ / icg, c = occ % icg, grp = oc / ocg;
    T* dwc = dw + occ * p.ksp();
    for (int64_t kd = 0; kd < p.kd; ++kd)
      for (int64_t kh = 0; kh < p.kh; ++kh)
        for (int64_t kw = 0; kw < p.kw; ++kw) {
          T acc = 0;
          for (int64_t n = 0; n < p.mb; ++n) {
            const T* xc = x + (n * p.ic + grp * icg + c) * p.isp();
            const T* dyc = dy + (n * p.oc + oc) * p.osp();
            for (int64_t od = 0; od < p.od; ++od) {
              const int64_t id = od * p.sd - p.pd + kd * p.dd;
              if (id < 0 || id >= p.id) continue;
              for (int64_t oh = 0; oh < p.oh; ++oh) {
                const int64_t ih = oh * p.sh - p.ph + kh * p.dh;
                if (ih < 0 || ih >= p.ih) continue;
                const T* xr = xc + (id * p.ih + ih) * p.iw;
                const T* dyr = dyc + (od * p.oh + oh) * p.ow;
                for (int64_t ow = 0; ow < p.ow; ++ow) {
                  const int64_t iw = ow * p.sw - p.pw + kw * p.dw;
                  if (iw >= 0 && iw < p.iw) acc += dyr[ow] * xr[iw];
                }
              }
            }
          }
          dwc[(kd * p.kh + kh) * p.kw + kw] = acc;
        }
  }, 1);
}

class Direct final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cpu:direct"; }
  fd::Backend backend() const override { return fd::Backend::cpu; }
  bool serves(ConvDir dir, int algo) const override {
    switch (dir) {
      case ConvDir::fwd:
        return algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
               algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
      case ConvDir::bwd_data:
        return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 || algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
      case ConvDir::bwd_filter:
        return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 || algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 ||
               algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
    }
    return false;
  }
  fd::conv::Verdict applicable(const ConvProblem&) const override { return {}; }
  size_t workspace_size(const ConvProblem&) const override { return 0; }
  bool deterministic() const override { return true; }
  cudnnMathType_t math_type(const ConvProblem&) const override { return CUDNN_DEFAULT_MATH; }
  double cost_estimate(const ConvProblem& p) const override {
    // About 1 GFLOP/s per core for the scalar loops, plus reading and writing every operand once.
    const double bytes = 8.0 * (p.mb * p.ic * p.isp() + p.oc * p.icg() * p.ksp() + p.mb * p.oc * p.osp());
    return p.flops() / 2e9 + bytes / 5e9;
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    return with_compute(p, [&](auto zero) -> cudnnStatus_t {
      using T = decltype(zero);
      switch (p.dir) {
        case ConvDir::fwd: {
          const auto x = read_activation<T>(*p.x, a.in);
          const auto w = read_filter<T>(p, a.in2);
          std::vector<T> y(static_cast<size_t>(p.mb * p.oc * p.osp()));
          forward(p, x.data(), w.data(), y.data());
          return write_output(p, a, y);
        }
        case ConvDir::bwd_data: {
          const auto dy = read_activation<T>(*p.y, a.in);
          const auto w = read_filter<T>(p, a.in2);
          std::vector<T> dx(static_cast<size_t>(p.mb * p.ic * p.isp()));
          backward_data(p, dy.data(), w.data(), dx.data());
          return write_output(p, a, dx);
        }
        case ConvDir::bwd_filter: {
          const auto x = read_activation<T>(*p.x, a.in);
          const auto dy = read_activation<T>(*p.y, a.in2);
          std::vector<T> dw(static_cast<size_t>(p.oc * p.icg() * p.ksp()));
          backward_filter(p, x.data(), dy.data(), dw.data());
          return write_output(p, a, dw);
        }
      }
      return CUDNN_STATUS_INTERNAL_ERROR;
    });
  }
};

}  // namespace

const fd::conv::ConvImpl* direct_impl() {
  static const Direct impl;
  return &impl;
}

}  // namespace fd::cpu::conv
