// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Regression tests for inputs found by fuzz/descriptor_fuzzer: huge dims / strides whose products overflowed
// int64 in the size arithmetic (undefined behaviour) instead of being rejected.
#include "common/test_util.h"

namespace {

TEST(DescriptorOverflow, HugeDimsAreRejected) {
  ft::TensorDesc d;
  const int big = 2147483647;
  EXPECT_EQ(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, big, big, big, big),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, big, big, big, big),
            CUDNN_STATUS_NOT_SUPPORTED);
  const int dims[8] = {big, big, big, big, big, big, big, big};
  EXPECT_EQ(cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 8, dims),
            CUDNN_STATUS_NOT_SUPPORTED);
  cudnnFilterDescriptor_t f;
  FT_OK(cudnnCreateFilterDescriptor(&f));
  EXPECT_EQ(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 8, dims), CUDNN_STATUS_NOT_SUPPORTED);
  FT_OK(cudnnDestroyFilterDescriptor(f));
}

TEST(DescriptorOverflow, HugeStridesAreRejected) {
  ft::TensorDesc d;
  const int big = 2147483647;
  // Few elements, but the span (1 + sum (dim - 1) * stride) is far beyond int64 arithmetic of naive code.
  const int dims[8] = {big, 2, 2, 2, 2, 2, 2, 2}, strides[8] = {big, big, big, big, big, big, big, big};
  EXPECT_EQ(cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, 8, dims, strides), CUDNN_STATUS_NOT_SUPPORTED);
  const int dims2[4] = {2, 2, 2, 2};
  EXPECT_EQ(cudnnSetTensorNdDescriptor(d, CUDNN_DATA_DOUBLE, 4, dims2, strides), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnSetTensor4dDescriptorEx(d, CUDNN_DATA_FLOAT, 2, 2, 2, 2, big, big, big, big),
            CUDNN_STATUS_NOT_SUPPORTED);
  // The limit itself: a span of exactly 2^31 elements is accepted, one more is not.
  FT_OK(cudnnSetTensor4dDescriptorEx(d, CUDNN_DATA_INT8, 2, 1, 1, 1, 2147483647, 1, 1, 1));
  size_t size = 0;
  FT_OK(cudnnGetTensorSizeInBytes(d, &size));
  EXPECT_EQ(size, size_t(1) << 31);
  EXPECT_EQ(cudnnSetTensor4dDescriptorEx(d, CUDNN_DATA_INT8, 2, 2, 1, 1, 2147483647, 1, 1, 1),
            CUDNN_STATUS_NOT_SUPPORTED);
}

}  // namespace
