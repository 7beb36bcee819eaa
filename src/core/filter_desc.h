// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <string>

#include "core/checked.h"
#include "core/tensor_desc.h"

// A filter: K (output channels), C (input channels per group), then spatial dims, in a layout
// (NCHW = K C R S, NHWC = K R S C, NCHW_VECT_C for the vector types). `as_tensor` is the same memory seen as a
// strided tensor with dims (K, C, spatial...), which lets generic tensor code read and write filters.
struct cudnnFilterStruct : fd::Checked<0x46494C54u> {
  static constexpr const char* kTypeName = "cudnnFilterDescriptor_t";

  bool is_set = false;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
  int nb_dims = 0;
  int64_t dims[CUDNN_DIM_MAX] = {};
  cudnnTensorStruct as_tensor;

  size_t size_in_bytes() const { return as_tensor.size_in_bytes(); }
  std::string spec() const;  // "f32:nchw:64x3x7x7"
  void describe(fd::log::Writer& w) const;
};

namespace fd {
cudnnStatus_t set_filter(cudnnFilterStruct& f, cudnnDataType_t dtype, cudnnTensorFormat_t format, int nb_dims,
                         const int* dims);
cudnnStatus_t check_filter(const cudnnFilterStruct* f, const char* role);
}  // namespace fd
