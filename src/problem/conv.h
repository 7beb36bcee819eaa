// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <cstdint>
#include <string>

#include "core/convolution_desc.h"
#include "core/filter_desc.h"
#include "core/tensor_desc.h"

namespace fd {

enum class ConvDir { fwd, bwd_data, bwd_filter };
const char* conv_dir_name(ConvDir d);  // "fwd", "bwd_d", "bwd_w" (benchdnn's names)

// One convolution problem in one direction, made from the API arguments and validated. Spatial sizes are
// always kept as 3 dims (depth, height, width): a 2-D problem has depth 1, pad 0, stride and dilation 1 there,
// so every implementation handles 2-D and 3-D alike. Tensor roles keep their forward names whatever the
// direction: `x` is x or dx, `w` is w or dw, `y` is y or dy (never swapped, unlike MIOpen).
struct ConvProblem {
  ConvDir dir = ConvDir::fwd;
  const cudnnTensorStruct* x = nullptr;
  const cudnnFilterStruct* w = nullptr;
  const cudnnTensorStruct* y = nullptr;
  const cudnnConvolutionStruct* conv = nullptr;

  cudnnDataType_t xdt = CUDNN_DATA_FLOAT, wdt = CUDNN_DATA_FLOAT, ydt = CUDNN_DATA_FLOAT;
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  int nsp = 2;  // spatial dims of the API problem: 2 or 3
  int64_t g = 1, mb = 1, ic = 1, oc = 1;
  int64_t id = 1, ih = 1, iw = 1, od = 1, oh = 1, ow = 1, kd = 1, kh = 1, kw = 1;
  int sd = 1, sh = 1, sw = 1, pd = 0, ph = 0, pw = 0, dd = 1, dh = 1, dw = 1;

  // Validates the arguments of one direction (x, w, y as the forward names them) and fills `out`.
  // BAD_PARAM for inconsistent arguments, NOT_SUPPORTED for consistent but unsupported ones, with a
  // logged reason that names the values.
  static cudnnStatus_t make(ConvDir dir, const cudnnTensorStruct* x, const cudnnFilterStruct* w,
                            const cudnnConvolutionStruct* conv, const cudnnTensorStruct* y, ConvProblem* out);

  bool is_int8() const { return compute == CUDNN_DATA_INT32; }
  // Packed buffers are computed in double for DOUBLE data and for the int8 configs (exact int32 sums).
  bool computes_in_double() const { return compute == CUDNN_DATA_DOUBLE || is_int8(); }
  int64_t icg() const { return ic / g; }
  int64_t ocg() const { return oc / g; }
  int64_t isp() const { return id * ih * iw; }
  int64_t osp() const { return od * oh * ow; }
  int64_t ksp() const { return kd * kh * kw; }
  bool is_1x1_unit() const {  // every output pixel reads exactly its own input pixel
    return ksp() == 1 && sd == 1 && sh == 1 && sw == 1 && pd == 0 && ph == 0 && pw == 0;
  }
  double flops() const { return 2.0 * static_cast<double>(mb) * oc * osp() * icg() * ksp(); }

  // "g1mb2ic3ih8iw8oc4oh8ow8kh3kw3sh1sw1ph1pw1dh1dw1" (id/od/kd/sd/pd/dd too for 3-D)
  std::string shape_string() const;
  // The whole problem in the bench syntax (docs/problem-syntax.md).
  std::string to_string() const;
  // Cache / database key: the same text.
  std::string key() const { return to_string(); }
};

}  // namespace fd
