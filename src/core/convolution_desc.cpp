// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/convolution_desc.h"

#include "core/dtype.h"
#include "core/status.h"

namespace {
std::string int_list(const int* v, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}
}  // namespace

void cudnnConvolutionStruct::describe(fd::log::Writer& w) const {
  if (!is_set) {
    w.line("<not set>");
    return;
  }
  w.arg("mode", mode);
  w.arg("dataType", compute_type);
  w.arg("mathType", math_type);
  w.arg("reorderType", reorder_type);
  w.arg("groupCount", group_count);
  w.field("padA", "int", int_list(pad, array_length));
  w.field("strideA", "int", int_list(stride, array_length));
  w.field("dilationA", "int", int_list(dilation, array_length));
}

namespace fd {

cudnnStatus_t set_convolution(cudnnConvolutionStruct& c, int array_length, const int* pad, const int* stride,
                              const int* dilation, cudnnConvolutionMode_t mode, cudnnDataType_t compute_type) {
  FD_CHECK_PARAM(array_length > 0, "arrayLength=%d must be positive", array_length);
  FD_CHECK_SUPPORTED(array_length <= cudnnConvolutionStruct::kMaxSpatial,
                     "arrayLength=%d: at most %d spatial dims are supported", array_length,
                     cudnnConvolutionStruct::kMaxSpatial);
  FD_CHECK_PARAM(pad != nullptr && stride != nullptr && dilation != nullptr, "padA, strideA or dilationA is NULL");
  FD_CHECK_PARAM(mode == CUDNN_CONVOLUTION || mode == CUDNN_CROSS_CORRELATION, "mode=%d is not a convolution mode",
                 static_cast<int>(mode));
  FD_CHECK_PARAM(dtype_is_valid(compute_type), "computeType=%d is not a data type", static_cast<int>(compute_type));
  for (int i = 0; i < array_length; ++i) {
    FD_CHECK_PARAM(pad[i] >= 0, "padA[%d]=%d is negative", i, pad[i]);
    FD_CHECK_PARAM(stride[i] > 0, "strideA[%d]=%d must be positive", i, stride[i]);
    FD_CHECK_PARAM(dilation[i] > 0, "dilationA[%d]=%d must be positive", i, dilation[i]);
  }
  c.is_set = true;
  c.array_length = array_length;
  for (int i = 0; i < cudnnConvolutionStruct::kMaxSpatial; ++i) {
    c.pad[i] = i < array_length ? pad[i] : 0;
    c.stride[i] = i < array_length ? stride[i] : 1;
    c.dilation[i] = i < array_length ? dilation[i] : 1;
  }
  c.mode = mode;
  c.compute_type = compute_type;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_convolution(const cudnnConvolutionStruct* c, const char* role) {
  FD_CHECK_PARAM(c != nullptr, "convolution descriptor %s is NULL", role);
  FD_CHECK_PARAM(c->alive(), "convolution descriptor %s is not a live convolution descriptor", role);
  FD_CHECK_PARAM(c->is_set, "convolution descriptor %s was never set", role);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd
