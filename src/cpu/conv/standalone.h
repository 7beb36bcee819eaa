// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include "problem/conv.h"

// The convolution-family CPU routines that are not registry implementations.
namespace fd::cpu::conv {
// cudnnIm2Col: col[n][(c, kd, kh, kw)][(od, oh, ow)] over all input channels, in x's scalar type, 0 in the
// padding; for CUDNN_CONVOLUTION the taps are stored reversed, so that col^T . w is the convolution.
void im2col_buffer(const fd::ConvProblem& p, const void* x, void* col);
size_t im2col_buffer_bytes(const fd::ConvProblem& p);
// cudnnConvolutionBackwardBias: db[c] = alpha * sum over n and space of dy + beta * db.
void bias_grad(const cudnnTensorStruct& dy_desc, const void* dy, const cudnnTensorStruct& db_desc, void* db,
               double alpha, double beta);
}  // namespace fd::cpu::conv
