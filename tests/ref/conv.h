// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Convolution references: loops over the definitions, in double. Tensors are x [N][C][spatial...],
// w [K][C/g][kernel...], y [N][K][out spatial...] with 1 to 3 spatial dims.
#pragma once
#include <vector>

#include "ref/ref_tensor.h"

namespace ref {

struct ConvParams {
  int groups = 1;
  std::vector<int> pad, stride, dilation;  // one per spatial dim
  bool convolution = false;                // true: CUDNN_CONVOLUTION (filter flipped); false: cross-correlation
};

std::vector<int> conv_output_dims(const std::vector<int>& xdims, const std::vector<int>& wdims, const ConvParams& p);
// y[n][k][o] = sum over c in k's group and taps r of x[n][c][o*s - p + r*d] * w[k][c'][r or flipped r]
Tensor conv_forward(const Tensor& x, const Tensor& w, const ConvParams& p);
// dx = the transpose of the forward map applied to dy
Tensor conv_backward_data(const Tensor& dy, const Tensor& w, const std::vector<int>& xdims, const ConvParams& p);
// dw = the derivative of sum(dy * conv_forward(x, w)) with respect to w
Tensor conv_backward_filter(const Tensor& x, const Tensor& dy, const std::vector<int>& wdims, const ConvParams& p);
// db[k] = sum over n and space of dy[n][k][...]
Tensor conv_backward_bias(const Tensor& dy);

}  // namespace ref
