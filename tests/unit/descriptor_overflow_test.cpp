// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Regression tests for inputs found by fuzz/descriptor_fuzzer: huge dims / strides whose products overflowed
// int64 in the size arithmetic (undefined behaviour) instead of being rejected.
#include <climits>

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

// Found by review (session 41): a packed tensor of exactly 2^31 elements with a leading dim of extent 1 has the packed
// stride 2^31 there, which the API's int cannot hold (it read back as INT_MIN). Read back as 2^31 - 1, the values
// set an equivalent descriptor.
TEST(DescriptorOverflow, StrideOfTwoTo31ReadsBackUsable) {
  ft::TensorDesc d, e;
  FT_OK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, 1, 2, 32768, 32768));
  cudnnDataType_t t;
  int n, c, h, w, ns, cs, hs, ws;
  FT_OK(cudnnGetTensor4dDescriptor(d, &t, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
  EXPECT_EQ(ns, INT_MAX);
  EXPECT_EQ(cs, 32768 * 32768);
  FT_OK(cudnnSetTensor4dDescriptorEx(e, t, n, c, h, w, ns, cs, hs, ws));
  size_t a = 0, b = 0;
  FT_OK(cudnnGetTensorSizeInBytes(d, &a));
  FT_OK(cudnnGetTensorSizeInBytes(e, &b));
  EXPECT_EQ(a, b);
  int nb = 0, dims[4], strides[4];
  FT_OK(cudnnGetTensorNdDescriptor(d, 4, &t, &nb, dims, strides));
  for (int i = 0; i < 4; ++i) EXPECT_GT(strides[i], 0) << "dim " << i;
}

// Found by review (run 40): products of individually valid settings that overflowed or truncated downstream.
TEST(DescriptorOverflow, TransformFoldProducts) {
  cudnnTensorTransformDescriptor_t t;
  FT_OK(cudnnCreateTensorTransformDescriptor(&t));
  const uint32_t huge[4] = {65536, 65536, 65536, 65536};  // each allowed; the product 2^64 wrapped to 0 (a / 0)
  EXPECT_EQ(cudnnSetTensorTransformDescriptor(t, 6, CUDNN_TENSOR_NCHW, nullptr, nullptr, huge, CUDNN_TRANSFORM_UNFOLD),
            CUDNN_STATUS_NOT_SUPPORTED);
  // FOLD: the padded channels times the folds past 2^31 - 1
  const uint32_t two[2] = {2, 1};
  const int32_t before[4] = {0, 0, 0, 0}, after[4] = {0, INT_MAX - 1, 0, 0};
  FT_OK(cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NCHW, before, after, two, CUDNN_TRANSFORM_FOLD));
  ft::TensorDesc src, dst;
  FT_OK(cudnnSetTensor4dDescriptor(src, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 2, 2));
  size_t bytes = 0;
  EXPECT_EQ(cudnnInitTransformDest(t, src, dst, &bytes), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnDestroyTensorTransformDescriptor(t));
}

TEST(DescriptorOverflow, SpatialTransformerGridAndTheta) {
  cudnnSpatialTransformerDescriptor_t st;
  FT_OK(cudnnCreateSpatialTransformerDescriptor(&st));
  const int grid_big[4] = {3, 1, 16384, 32768};  // y fits, the grid (3 x 2^30 elements) does not
  EXPECT_EQ(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, grid_big),
            CUDNN_STATUS_NOT_SUPPORTED);
  const int theta_big[4] = {357913942, 1, 1, 1};  // theta: N x 6 elements past 2^31 - 1
  EXPECT_EQ(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, theta_big),
            CUDNN_STATUS_NOT_SUPPORTED);
  const int plane_big[4] = {1, 1, 32768, 32769};  // H x W x 2 past 2^31 - 1
  EXPECT_EQ(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, plane_big),
            CUDNN_STATUS_NOT_SUPPORTED);
  const int ok[4] = {2, 3, 16, 16};
  FT_OK(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, ok));
  FT_OK(cudnnDestroySpatialTransformerDescriptor(st));
}

TEST(DescriptorOverflow, PoolingWindowElements) {
  cudnnPoolingDescriptor_t p;
  FT_OK(cudnnCreatePoolingDescriptor(&p));
  const int win[3] = {2147483647, 2147483647, 3}, pad[3] = {1073741823, 1073741823, 1}, str[3] = {1, 1, 1};
  EXPECT_EQ(cudnnSetPoolingNdDescriptor(p, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 3,
                                        win, pad, str),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 46341,
                                        46341, 23170, 23170, 1, 1),
            CUDNN_STATUS_NOT_SUPPORTED);  // 46341^2 > 2^31 - 1
  FT_OK(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 46340,
                                    46340, 0, 0, 1, 1));
  FT_OK(cudnnDestroyPoolingDescriptor(p));
}

TEST(DescriptorOverflow, OutputExtentsPast31Bits) {
  ft::TensorDesc x;
  FT_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1));
  cudnnFilterDescriptor_t w;
  FT_OK(cudnnCreateFilterDescriptor(&w));
  FT_OK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 1, 1));
  cudnnConvolutionDescriptor_t c;
  FT_OK(cudnnCreateConvolutionDescriptor(&c));
  FT_OK(cudnnSetConvolution2dDescriptor(c, 0, INT_MAX, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  int n = 0, ch = 0, h = 0, wd = 0;  // the width 2^32 - 1 came back as -1 with SUCCESS
  EXPECT_EQ(cudnnGetConvolution2dForwardOutputDim(c, x, w, &n, &ch, &h, &wd), CUDNN_STATUS_NOT_SUPPORTED);
  cudnnPoolingDescriptor_t p;
  FT_OK(cudnnCreatePoolingDescriptor(&p));
  FT_OK(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 1, 1, 0, INT_MAX, 1, 1));
  EXPECT_EQ(cudnnGetPooling2dForwardOutputDim(p, x, &n, &ch, &h, &wd), CUDNN_STATUS_NOT_SUPPORTED);
  FT_OK(cudnnDestroyPoolingDescriptor(p));
  FT_OK(cudnnDestroyConvolutionDescriptor(c));
  FT_OK(cudnnDestroyFilterDescriptor(w));
}

// A double im2col column matrix of 2^61 elements: its byte count wrapped, the workspace query answered ~0.5 MB,
// and the call wrote far past it. Now declined (another algorithm or NOT_SUPPORTED), or sized in full.
TEST(DescriptorOverflow, Im2colColumnBytes) {
  ft::Handle hd;
  ft::TensorDesc x, y;
  FT_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 1, 1, 1, 2));
  cudnnFilterDescriptor_t w;
  FT_OK(cudnnCreateFilterDescriptor(&w));
  FT_OK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, 1, 1, 1, 1073764994));
  cudnnConvolutionDescriptor_t c;
  FT_OK(cudnnCreateConvolutionDescriptor(&c));
  FT_OK(cudnnSetConvolution2dDescriptor(c, 0, 1610601150, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_DOUBLE));
  FT_OK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 1, 1, 1, 2147437309));
  size_t ws = 0;
  const cudnnStatus_t st = cudnnGetConvolutionForwardWorkspaceSize(hd, x, w, c, y, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, &ws);
  const double column_bytes = 1073764994.0 * 2147437309.0 * 8.0;
  EXPECT_TRUE(st != CUDNN_STATUS_SUCCESS || static_cast<double>(ws) >= column_bytes)
      << "status " << st << ", workspace " << ws << " bytes for a " << column_bytes << "-byte column matrix";
  FT_OK(cudnnDestroyConvolutionDescriptor(c));
  FT_OK(cudnnDestroyFilterDescriptor(w));
}

}  // namespace
