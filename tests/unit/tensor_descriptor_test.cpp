// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "common/test_util.h"

namespace {

TEST(TensorDescriptor, Set4dNchwRoundTrip) {
  ft::TensorDesc d;
  FT_OK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5));
  cudnnDataType_t t;
  int n, c, h, w, ns, cs, hs, ws;
  FT_OK(cudnnGetTensor4dDescriptor(d, &t, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
  EXPECT_EQ(t, CUDNN_DATA_FLOAT);
  EXPECT_EQ((std::vector<int>{n, c, h, w, ns, cs, hs, ws}), (std::vector<int>{2, 3, 4, 5, 60, 20, 5, 1}));
  size_t bytes = 0;
  FT_OK(cudnnGetTensorSizeInBytes(d, &bytes));
  EXPECT_EQ(bytes, 2u * 3 * 4 * 5 * 4);
}

TEST(TensorDescriptor, Set4dNhwcStrides) {
  ft::TensorDesc d;
  FT_OK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 3, 4, 5));
  int dims[4], strides[4], nb = 0;
  cudnnDataType_t t;
  FT_OK(cudnnGetTensorNdDescriptor(d, 4, &t, &nb, dims, strides));
  EXPECT_EQ(nb, 4);
  EXPECT_EQ((std::vector<int>(strides, strides + 4)), (std::vector<int>{60, 1, 15, 3}));
}

TEST(TensorDescriptor, VectCSizes) {
  ft::TensorDesc d;
  FT_OK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 2, 8, 3, 3));
  size_t bytes = 0;
  FT_OK(cudnnGetTensorSizeInBytes(d, &bytes));
  EXPECT_EQ(bytes, 2u * 8 * 3 * 3);
  EXPECT_EQ(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8x4, 2, 8, 3, 3), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 2, 8, 3, 3),
            CUDNN_STATUS_BAD_PARAM);
}

TEST(TensorDescriptor, BadArguments) {
  ft::TensorDesc d;
  EXPECT_EQ(cudnnSetTensor4dDescriptor(nullptr, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, -1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor4dDescriptor(d, static_cast<cudnnTensorFormat_t>(7), CUDNN_DATA_FLOAT, 1, 1, 1, 1),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, static_cast<cudnnDataType_t>(99), 1, 1, 1, 1),
            CUDNN_STATUS_BAD_PARAM);
  const int dims[3] = {2, 3, 4}, strides[3] = {12, 4, 0};
  EXPECT_EQ(cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, 3, dims, strides), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, 9, dims, strides), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, 3, nullptr, strides), CUDNN_STATUS_BAD_PARAM);
  size_t sz;
  EXPECT_EQ(cudnnGetTensorSizeInBytes(d, &sz), CUDNN_STATUS_BAD_PARAM);  // never set successfully
  EXPECT_EQ(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 65536, 65536, 1, 1),
            CUDNN_STATUS_NOT_SUPPORTED);
}

TEST(TensorDescriptor, StridedSizeInBytes) {
  ft::TensorDesc d;
  FT_OK(cudnnSetTensor4dDescriptorEx(d, CUDNN_DATA_DOUBLE, 2, 3, 4, 5, 100, 30, 6, 1));
  size_t sz = 0;
  FT_OK(cudnnGetTensorSizeInBytes(d, &sz));
  EXPECT_EQ(sz, (1u + 100 + 2 * 30 + 3 * 6 + 4) * 8);
}

TEST(FilterDescriptor, RoundTripAndSize) {
  cudnnFilterDescriptor_t f;
  FT_OK(cudnnCreateFilterDescriptor(&f));
  FT_OK(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 8, 3, 5, 5));
  cudnnDataType_t t;
  cudnnTensorFormat_t fmt;
  int k, c, h, w;
  FT_OK(cudnnGetFilter4dDescriptor(f, &t, &fmt, &k, &c, &h, &w));
  EXPECT_EQ(fmt, CUDNN_TENSOR_NHWC);
  EXPECT_EQ((std::vector<int>{k, c, h, w}), (std::vector<int>{8, 3, 5, 5}));
  size_t sz = 0;
  FT_OK(cudnnGetFilterSizeInBytes(f, &sz));
  EXPECT_EQ(sz, 8u * 3 * 5 * 5 * 2);
  const int dims2[2] = {3, 3};
  EXPECT_EQ(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, dims2), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnDestroyFilterDescriptor(f));
}

TEST(Context, VersionAndErrorStrings) {
  EXPECT_EQ(cudnnGetVersion(), 8200u);
  EXPECT_STREQ(cudnnGetErrorString(CUDNN_STATUS_BAD_PARAM), "CUDNN_STATUS_BAD_PARAM");
  EXPECT_STREQ(cudnnGetErrorString(CUDNN_STATUS_VERSION_MISMATCH), "CUDNN_STATUS_VERSION_MISMATCH");
  int v = -1;
  FT_OK(cudnnGetProperty(MAJOR_VERSION, &v));
  EXPECT_EQ(v, 8);
  ft::Handle h;
  cudaStream_t s = reinterpret_cast<cudaStream_t>(1);
  FT_OK(cudnnGetStream(h, &s));
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(cudnnDestroy(nullptr), CUDNN_STATUS_BAD_PARAM);
}

}  // namespace
