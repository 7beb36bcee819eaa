// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cpu/conv/standalone.h"

#include "core/dtype.h"
#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"

namespace fd::cpu::conv {

size_t im2col_buffer_bytes(const fd::ConvProblem& p) {
  return static_cast<size_t>(p.mb * p.ic * p.ksp() * p.osp()) * dtype_size(dtype_scalar(p.xdt));
}

void im2col_buffer(const fd::ConvProblem& p, const void* xdata, void* col) {
  const std::vector<double> x = read_tensor<double>(*p.x, xdata);  // exact for every input type
  const cudnnDataType_t st = dtype_scalar(p.xdt);
  const int64_t rows = p.ic * p.ksp(), osp = p.osp();
  const bool flip = p.mode == CUDNN_CONVOLUTION;
  parallel_for(p.mb * rows, [&](int64_t t) {
    const int64_t n = t / rows, r = t % rows, c = r / p.ksp();
    const int64_t k = flip ? p.ksp() - 1 - r % p.ksp() : r % p.ksp();
    const int64_t kd = k / (p.kh * p.kw), kh = (k / p.kw) % p.kh, kw = k % p.kw;
    const double* xc = x.data() + (n * p.ic + c) * p.isp();
    const int64_t base = t * osp;
    for (int64_t od = 0; od < p.od; ++od)
      for (int64_t oh = 0; oh < p.oh; ++oh)
        for (int64_t ow = 0; ow < p.ow; ++ow) {
          const int64_t id = od * p.sd - p.pd + kd * p.dd, ih = oh * p.sh - p.ph + kh * p.dh,
                        iw = ow * p.sw - p.pw + kw * p.dw;
          const bool in = id >= 0 && id < p.id && ih >= 0 && ih < p.ih && iw >= 0 && iw < p.iw;
          store_scalar(st, col, base + (od * p.oh + oh) * p.ow + ow, in ? xc[(id * p.ih + ih) * p.iw + iw] : 0.0);
        }
  }, 16);
}

void bias_grad(const cudnnTensorStruct& dyd, const void* dy, const cudnnTensorStruct& dbd, void* db, double alpha,
               double beta) {
  with_compute_type(dyd.dtype, [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> v = read_tensor<T>(dyd, dy);
    const int64_t n = dyd.dims[0], c = dyd.dims[1], plane = dyd.element_count() / (n * c);
    std::vector<T> sum(static_cast<size_t>(c));
    parallel_for(c, [&](int64_t ch) {
      T acc = 0;
      for (int64_t i = 0; i < n; ++i) {
        const T* p = v.data() + (i * c + ch) * plane;
        for (int64_t j = 0; j < plane; ++j) acc += p[j];
      }
      sum[static_cast<size_t>(ch)] = acc;
    }, 16);
    write_tensor<T>(dbd, db, sum.data(), alpha, beta);
  });
}

}  // namespace fd::cpu::conv
