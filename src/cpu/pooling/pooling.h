// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <cstdint>

#include "core/pooling_desc.h"
#include "core/tensor_desc.h"

// CPU pooling, 1 to 3 spatial dims (4-D and 5-D tensors through the API).
//
// Window semantics (shared by forward and backward): output position o of a spatial dim covers input indices
// o*stride - pad .. o*stride - pad + window - 1; only indices inside [0, in) are read (padding is never a value).
//  * MAX / MAX_DETERMINISTIC: the maximum of the read elements; ties go to the first in window scan order
//    (outermost spatial dim first). PROPAGATE_NAN: the first NaN wins and the result is NaN. NOT_PROPAGATE_NAN:
//    NaNs are skipped; a window of only NaNs gives NaN. A window that reads nothing (all padding) gives 0.
//  * AVERAGE_COUNT_INCLUDE_PADDING: sum / (window positions inside the padded extent [-pad, in + pad)),
//    the full window size whenever the output size follows the floor formula.
//  * AVERAGE_COUNT_EXCLUDE_PADDING: sum / (number of elements read); 0 when nothing is read.
// Backward routes dy to the argmax recomputed from x (max modes), or spreads dy / divisor over the elements
// read (average modes), accumulating over overlapping windows; planes run in parallel, each in a fixed order,
// so results do not depend on the thread count.
namespace fd::cpu {

struct PoolGeometry {
  int64_t n = 1, c = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int win[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, stride[3] = {1, 1, 1};
  cudnnPoolingMode_t mode = CUDNN_POOLING_MAX;
  bool propagate_nan = false;
  static PoolGeometry from(const cudnnPoolingStruct& p, const cudnnTensorStruct& x, const cudnnTensorStruct& y);
  int64_t in_plane() const { return in[0] * in[1] * in[2]; }
  int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

void pooling_forward(const PoolGeometry& g, double alpha, const cudnnTensorStruct& x_desc, const void* x,
                     double beta, const cudnnTensorStruct& y_desc, void* y);
void pooling_backward(const PoolGeometry& g, double alpha, const cudnnTensorStruct& dy_desc, const void* dy,
                      const cudnnTensorStruct& x_desc, const void* x, double beta, const cudnnTensorStruct& dx_desc,
                      void* dx);

}  // namespace fd::cpu
