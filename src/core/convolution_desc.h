// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <string>

#include "core/checked.h"
#include "core/log.h"

// A convolution: per spatial dim padding, stride and dilation (1 to 3 spatial dims), the mode (CONVOLUTION
// flips the filter, CROSS_CORRELATION does not), the compute type, the group count, the math type and the
// INT8x32 reorder type.
struct cudnnConvolutionStruct : fd::Checked<0x434F4E56u> {
  static constexpr const char* kTypeName = "cudnnConvolutionDescriptor_t";
  static constexpr int kMaxSpatial = 3;

  bool is_set = false;
  int array_length = 0;  // spatial dims
  int pad[kMaxSpatial] = {};
  int stride[kMaxSpatial] = {};
  int dilation[kMaxSpatial] = {};
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  int group_count = 1;
  cudnnMathType_t math_type = CUDNN_DEFAULT_MATH;
  cudnnReorderType_t reorder_type = CUDNN_DEFAULT_REORDER;

  void describe(fd::log::Writer& w) const;
};

namespace fd {
cudnnStatus_t set_convolution(cudnnConvolutionStruct& c, int array_length, const int* pad, const int* stride,
                              const int* dilation, cudnnConvolutionMode_t mode, cudnnDataType_t compute_type);
// Non-null, live, set.
cudnnStatus_t check_convolution(const cudnnConvolutionStruct* c, const char* role);
// Output spatial size of one dim: 1 + (in + 2 pad - ((k - 1) dilation + 1)) / stride (may be <= 0).
inline long long conv_output_size(long long in, long long k, int pad, int stride, int dilation) {
  const long long ext = (k - 1) * dilation + 1;
  const long long span = in + 2LL * pad - ext;
  if (span < 0) return 0;
  return 1 + span / stride;
}
}  // namespace fd
