// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cpu:im2col_gemm: the convolution as matrix products (CUTLASS's shapes, made explicit):
//   fwd    y_g[ocg x osp]  = w_g[ocg x K] * col[K x osp]                 (K = icg * kd * kh * kw)
//   bwd_d  col[K x osp]    = w_g^T * dy_g[ocg x osp], then col2im adds col into dx
//   bwd_w  dw_g[ocg x K]  += dy_g * col^T, image after image
// per image and group, with OpenBLAS's sgemm/dgemm (multithreaded, cache-blocked inside). The column matrix
// of a chunk of images lives in the caller's workspace; the chunk size depends on the problem only, so the
// workspace query and the run agree. A 1x1 kernel with unit stride and no padding needs no column matrix.
// im2col and col2im run over the cores; every output element is summed in a fixed order (col2im owns one
// dx plane per task, dw accumulates images in order), so results are deterministic for a given thread count.
#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cpu/common/parallel.h"
#include "cpu/conv/conv_io.h"
#include "cpu/conv/impls.h"

namespace fd::cpu::conv {
namespace {

constexpr size_t kColumnBudget = size_t{32} << 20;  // bytes of column matrix per chunk of images
constexpr size_t kAlignSlack = 64;

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
              static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb),
              beta, c, static_cast<int>(ldc));
}
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
          const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
              static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb),
              beta, c, static_cast<int>(ldc));
}

size_t elem_size(const ConvProblem& p) { return p.computes_in_double() ? sizeof(double) : sizeof(float); }
int64_t col_rows(const ConvProblem& p) { return p.icg() * p.ksp(); }
size_t col_bytes_per_image(const ConvProblem& p) {
  return static_cast<size_t>(col_rows(p) * p.osp()) * elem_size(p);
}
int64_t chunk_images(const ConvProblem& p) {
  const size_t per = col_bytes_per_image(p);
  return std::clamp<int64_t>(static_cast<int64_t>(kColumnBudget / std::max<size_t>(per, 1)), 1, p.mb);
}

// col[(c, kd, kh, kw)][(od, oh, ow)] = x_g[c][od*sd - pd + kd*dd][...] (0 in the padding), for `count` images.
template <class T>
void im2col(const ConvProblem& p, const T* x, int64_t grp, int64_t n0, int64_t count, T* col) {
  const int64_t rows = col_rows(p), osp = p.osp();
  parallel_for(count * rows, [&](int64_t t) {
    const int64_t img = t / rows, r = t % rows;
    const int64_t c = r / p.ksp(), k = r % p.ksp();
    const int64_t kd = k / (p.kh * p.kw), kh = (k / p.kw) % p.kh, kw = k % p.kw;
    const T* xc = x + ((n0 + img) * p.ic + grp * p.icg() + c) * p.isp();
    T* out = col + (img * rows + r) * osp;
    for (int64_t od = 0; od < p.od; ++od) {
      const int64_t id = od * p.sd - p.pd + kd * p.dd;
      for (int64_t oh = 0; oh < p.oh; ++oh) {
        const int64_t ih = oh * p.sh - p.ph + kh * p.dh;
        T* o = out + (od * p.oh + oh) * p.ow;
        if (id < 0 || id >= p.id || ih < 0 || ih >= p.ih) {
          std::fill(o, o + p.ow, T(0));
          continue;
        }
        const T* xr = xc + (id * p.ih + ih) * p.iw;
        for (int64_t ow = 0; ow < p.ow; ++ow) {
          const int64_t iw = ow * p.sw - p.pw + kw * p.dw;
          o[ow] = iw >= 0 && iw < p.iw ? xr[iw] : T(0);
        }
      }
    }
  }, 8);
}

// dx_g[c] = sum of the col rows (c, k) scattered back to the input positions, for `count` images.
template <class T>
void col2im(const ConvProblem& p, const T* col, int64_t grp, int64_t n0, int64_t count, T* dx) {
  const int64_t icg = p.icg(), osp = p.osp();
  parallel_for(count * icg, [&](int64_t t) {
    const int64_t img = t / icg, c = t % icg;
    T* d = dx + ((n0 + img) * p.ic + grp * icg + c) * p.isp();
    std::fill(d, d + p.isp(), T(0));
    for (int64_t k = 0; k < p.ksp(); ++k) {
      const int64_t kd = k / (p.kh * p.kw), kh = (k / p.kw) % p.kh, kw = k % p.kw;
      const T* cr = col + (img * col_rows(p) + c * p.ksp() + k) * osp;
      for (int64_t od = 0; od < p.od; ++od) {
        const int64_t id = od * p.sd - p.pd + kd * p.dd;
        if (id < 0 || id >= p.id) continue;
        for (int64_t oh = 0; oh < p.oh; ++oh) {
          const int64_t ih = oh * p.sh - p.ph + kh * p.dh;
          if (ih < 0 || ih >= p.ih) continue;
          T* dr = d + (id * p.ih + ih) * p.iw;
          const T* crr = cr + (od * p.oh + oh) * p.ow;
          for (int64_t ow = 0; ow < p.ow; ++ow) {
            const int64_t iw = ow * p.sw - p.pw + kw * p.dw;
            if (iw >= 0 && iw < p.iw) dr[iw] += crr[ow];
          }
        }
      }
    }
  }, 4);
}

template <class T>
T* workspace_columns(const ConvArgs& a) {
  auto addr = reinterpret_cast<uintptr_t>(a.workspace);
  addr = (addr + kAlignSlack - 1) / kAlignSlack * kAlignSlack;
  return reinterpret_cast<T*>(addr);
}

template <class T>
void forward(const ConvProblem& p, const T* x, const T* w, T* y, T* col) {
  const int64_t K = col_rows(p), osp = p.osp(), ocg = p.ocg(), chunk = chunk_images(p);
  for (int64_t grp = 0; grp < p.g; ++grp) {
    const T* wg = w + grp * ocg * K;
    for (int64_t n0 = 0; n0 < p.mb; n0 += chunk) {
      const int64_t cnt = std::min(chunk, p.mb - n0);
      if (!p.is_1x1_unit()) im2col(p, x, grp, n0, cnt, col);
      for (int64_t i = 0; i < cnt; ++i) {
        const int64_t n = n0 + i;
        const T* b = p.is_1x1_unit() ? x + (n * p.ic + grp * p.icg()) * p.isp() : col + i * K * osp;
        gemm(false, false, ocg, osp, K, T(1), wg, K, b, osp, T(0), y + (n * p.oc + grp * ocg) * osp, osp);
      }
    }
  }
}

template <class T>
void backward_data(const ConvProblem& p, const T* dy, const T* w, T* dx, T* col) {
  const int64_t K = col_rows(p), osp = p.osp(), ocg = p.ocg(), chunk = chunk_images(p);
  for (int64_t grp = 0; grp < p.g; ++grp) {
    const T* wg = w + grp * ocg * K;
    for (int64_t n0 = 0; n0 < p.mb; n0 += chunk) {
      const int64_t cnt = std::min(chunk, p.mb - n0);
      for (int64_t i = 0; i < cnt; ++i) {
        const int64_t n = n0 + i;
        T* c = p.is_1x1_unit() ? dx + (n * p.ic + grp * p.icg()) * p.isp() : col + i * K * osp;
        gemm(true, false, K, osp, ocg, T(1), wg, K, dy + (n * p.oc + grp * ocg) * osp, osp, T(0), c, osp);
      }
      if (!p.is_1x1_unit()) col2im(p, col, grp, n0, cnt, dx);
    }
  }
}

template <class T>
void backward_filter(const ConvProblem& p, const T* x, const T* dy, T* dw, T* col) {
  const int64_t K = col_rows(p), osp = p.osp(), ocg = p.ocg(), chunk = chunk_images(p);
  for (int64_t grp = 0; grp < p.g; ++grp) {
    T* dwg = dw + grp * ocg * K;
    std::fill(dwg, dwg + ocg * K, T(0));
    for (int64_t n0 = 0; n0 < p.mb; n0 += chunk) {
      const int64_t cnt = std::min(chunk, p.mb - n0);
      if (!p.is_1x1_unit()) im2col(p, x, grp, n0, cnt, col);
      for (int64_t i = 0; i < cnt; ++i) {
        const int64_t n = n0 + i;
        const T* b = p.is_1x1_unit() ? x + (n * p.ic + grp * p.icg()) * p.isp() : col + i * K * osp;
        gemm(false, true, ocg, K, osp, T(1), dy + (n * p.oc + grp * ocg) * osp, osp, b, osp, T(1), dwg, K);
      }
    }
  }
}

class Im2colGemm final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cpu:im2col_gemm"; }
  fd::Backend backend() const override { return fd::Backend::cpu; }
  bool serves(ConvDir dir, int algo) const override {
    switch (dir) {
      case ConvDir::fwd: return algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
      case ConvDir::bwd_data: return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
      case ConvDir::bwd_filter:
        return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 || algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
    }
    return false;
  }
  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    if (p.is_int8())
      return {CUDNN_STATUS_NOT_SUPPORTED,
              "int8 needs exact int32 sums; the float GEMM is exact only below 2^24, so cpu:im2col_gemm declines"};
    const int64_t lim = INT32_MAX;
    if (col_rows(p) > lim || p.osp() > lim || p.oc > lim)
      return {CUDNN_STATUS_NOT_SUPPORTED, "a GEMM dimension exceeds the 32-bit BLAS interface"};
    // One image's column matrix, in bytes, within the tensors' own limit (2^36): its size cannot wrap
    if (col_rows(p) * p.osp() > (int64_t{1} << 36) / static_cast<int64_t>(elem_size(p)))
      return {CUDNN_STATUS_NOT_SUPPORTED, "one image's column matrix would exceed 2^36 bytes"};
    return {};
  }
  size_t workspace_size(const ConvProblem& p) const override {
    if (p.is_1x1_unit()) return 0;
    return static_cast<size_t>(chunk_images(p)) * col_bytes_per_image(p) + kAlignSlack;
  }
  bool deterministic() const override { return true; }
  cudnnMathType_t math_type(const ConvProblem&) const override { return CUDNN_DEFAULT_MATH; }
  double cost_estimate(const ConvProblem& p) const override {
    // A multithreaded BLAS reaches some 20 GFLOP/s on small machines; the column matrix is written and read.
    const double col = p.is_1x1_unit() ? 0.0 : 2.0 * static_cast<double>(p.mb) * p.g * col_bytes_per_image(p);
    const double bytes = 8.0 * (p.mb * p.ic * p.isp() + p.oc * p.icg() * p.ksp() + p.mb * p.oc * p.osp());
    return p.flops() / 2e10 + (col + bytes) / 5e9 + 2e-6 * static_cast<double>(p.mb * p.g);
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    return with_compute(p, [&](auto zero) -> cudnnStatus_t {
      using T = decltype(zero);
      T* col = p.is_1x1_unit() ? nullptr : workspace_columns<T>(a);
      switch (p.dir) {
        case ConvDir::fwd: {
          const auto x = read_activation<T>(*p.x, a.in);
          const auto w = read_filter<T>(p, a.in2);
          std::vector<T> y(static_cast<size_t>(p.mb * p.oc * p.osp()));
          forward(p, x.data(), w.data(), y.data(), col);
          return write_output(p, a, y);
        }
        case ConvDir::bwd_data: {
          const auto dy = read_activation<T>(*p.y, a.in);
          const auto w = read_filter<T>(p, a.in2);
          std::vector<T> dx(static_cast<size_t>(p.mb * p.ic * p.isp()));
          backward_data(p, dy.data(), w.data(), dx.data(), col);
          return write_output(p, a, dx);
        }
        case ConvDir::bwd_filter: {
          const auto x = read_activation<T>(*p.x, a.in);
          const auto dy = read_activation<T>(*p.y, a.in2);
          std::vector<T> dw(static_cast<size_t>(p.oc * p.icg() * p.ksp()));
          backward_filter(p, x.data(), dy.data(), dw.data(), col);
          return write_output(p, a, dw);
        }
      }
      return CUDNN_STATUS_INTERNAL_ERROR;
    });
  }
};

}  // namespace

const fd::conv::ConvImpl* im2col_gemm_impl() {
  static const Im2colGemm impl;
  return &impl;
}

}  // namespace fd::cpu::conv
