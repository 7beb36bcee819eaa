// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cudnnGetFoldedConvBackwardDataDescriptors: the folded stride-1 problem, run through the transforms, gives the
// dx of the direct strided call.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <vector>

#include "common/test_util.h"
#include "unit/conv_fixture.h"

namespace {

using ft_conv::ConvDesc;
using ft_conv::FilterDesc;
using ft_conv::Problem;
using ft_conv::Shape;

struct Transform {
  cudnnTensorTransformDescriptor_t d = nullptr;
  Transform() { EXPECT_EQ(cudnnCreateTensorTransformDescriptor(&d), CUDNN_STATUS_SUCCESS); }
  ~Transform() { cudnnDestroyTensorTransformDescriptor(d); }
};

struct Folded {
  FilterDesc wf;
  ft::TensorDesc dyp, dxf;
  ConvDesc cf;
  Transform wfold, dypad, dxfold, dxunfold;
  cudnnStatus_t get(cudnnHandle_t h, Problem& p, cudnnTensorFormat_t fmt) {
    return cudnnGetFoldedConvBackwardDataDescriptors(h, p.wd, p.yd, p.cd, p.xd, fmt, wf, dyp, cf, dxf, wfold.d,
                                                     dypad.d, dxfold.d, dxunfold.d);
  }
};

size_t bytes_of(cudnnTensorDescriptor_t d) {
  size_t n = 0;
  EXPECT_EQ(cudnnGetTensorSizeInBytes(d, &n), CUDNN_STATUS_SUCCESS);
  return n;
}

TEST(ConvFolded, FoldedProblemGivesTheDirectDx) {
  ft::Handle h;
  auto rng = ft::make_rng();
  const Shape shapes[] = {{"s2k3", 2, 3, 4, 1, {9, 8}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
                          {"s3k5", 1, 2, 3, 1, {11, 10}, {5, 4}, {2, 0}, {3, 2}, {1, 1}},
                          {"g2", 2, 4, 4, 2, {7, 7}, {3, 3}, {0, 1}, {2, 3}, {1, 1}},
                          {"s1", 1, 3, 2, 1, {5, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
                          {"3d", 1, 2, 2, 1, {5, 6, 5}, {3, 2, 3}, {1, 0, 1}, {2, 2, 1}, {1, 1, 1}}};
  for (const Shape& s : shapes) {
    for (cudnnDataType_t dt : {CUDNN_DATA_DOUBLE, CUDNN_DATA_FLOAT}) {
      for (cudnnTensorFormat_t fmt : {CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC}) {
        Problem p(s, dt, fmt == CUDNN_TENSOR_NHWC, false, false, rng);
        p.w.fill_uniform(rng, -1, 1);
        p.y.fill_uniform(rng, -1, 1);
        p.x.poison();
        ASSERT_EQ(ft_conv::backward_data(h, p, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1.0, 0.0), CUDNN_STATUS_SUCCESS);
        const std::vector<double> direct = p.x.values();

        Folded f;
        ASSERT_EQ(f.get(h, p, fmt), CUDNN_STATUS_SUCCESS) << p.str();
        int stride[3], pad[3], dil[3], n = 0;
        cudnnConvolutionMode_t mode;
        cudnnDataType_t ct;
        ASSERT_EQ(cudnnGetConvolutionNdDescriptor(f.cf, 3, &n, pad, stride, dil, &mode, &ct), CUDNN_STATUS_SUCCESS);
        for (int i = 0; i < n; ++i) EXPECT_EQ(stride[i], 1);
        const float one = 1.0f, zero = 0.0f;
        const double oned = 1.0, zerod = 0.0;
        const void* a = dt == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&oned) : &one;
        const void* b = dt == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&zerod) : &zero;
        size_t wbytes = 0;
        ASSERT_EQ(cudnnGetFilterSizeInBytes(f.wf, &wbytes), CUDNN_STATUS_SUCCESS);
        ft::Bytes wf(wbytes), dyp(bytes_of(f.dyp)), dxf(bytes_of(f.dxf));
        ASSERT_EQ(cudnnTransformFilter(h, f.wfold.d, a, p.wd, p.w.data(), b, f.wf, wf.data()), CUDNN_STATUS_SUCCESS);
        ASSERT_EQ(cudnnTransformTensorEx(h, f.dypad.d, a, p.yd, p.y.data(), b, f.dyp, dyp.data()),
                  CUDNN_STATUS_SUCCESS);
        size_t ws = 0;
        ASSERT_EQ(cudnnGetConvolutionBackwardDataWorkspaceSize(h, f.wf, f.dyp, f.cf, f.dxf,
                                                               CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, &ws),
                  CUDNN_STATUS_SUCCESS);
        ft::Bytes wsbuf(ws + 1);
        ASSERT_EQ(cudnnConvolutionBackwardData(h, a, f.wf, wf.data(), f.dyp, dyp.data(), f.cf,
                                               CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, wsbuf.data(), ws, b, f.dxf,
                                               dxf.data()),
                  CUDNN_STATUS_SUCCESS);
        p.x.poison();
        ASSERT_EQ(cudnnTransformTensorEx(h, f.dxunfold.d, a, f.dxf, dxf.data(), b, p.xd, p.x.data()),
                  CUDNN_STATUS_SUCCESS);
        EXPECT_TRUE(ft::near(p.x.values(), direct, ft::tolerance(dt), "folded dx " + p.str()));
        // The fold transform of dx is the unfold's inverse: folding dx gives the folded dx's layout back.
        ft::Bytes refold(bytes_of(f.dxf));
        EXPECT_EQ(cudnnTransformTensorEx(h, f.dxfold.d, a, p.xd, p.x.data(), b, f.dxf, refold.data()),
                  CUDNN_STATUS_SUCCESS);
      }
    }
  }
}

// A stride is a fold of the transforms (at most 65536): stride 65537 gave 4295098369 channels, cast to int
// (found by review, run 40).
TEST(ConvFolded, StridePastTheFoldLimit) {
  ft::Handle h;
  auto rng = ft::make_rng();
  const Shape s{"s65537", 1, 1, 1, 1, {1, 1}, {1, 1}, {0, 0}, {65537, 65537}, {1, 1}};
  Problem p(s, CUDNN_DATA_FLOAT, false, false, false, rng);
  Folded f;
  EXPECT_EQ(f.get(h, p, CUDNN_TENSOR_NCHW), CUDNN_STATUS_NOT_SUPPORTED);
}

TEST(ConvFolded, BadArguments) {
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(ft_conv::edge_shapes()[1], CUDNN_DATA_FLOAT, false, false, false, rng);
  Folded f;
  EXPECT_EQ(cudnnGetFoldedConvBackwardDataDescriptors(nullptr, p.wd, p.yd, p.cd, p.xd, CUDNN_TENSOR_NCHW, f.wf, f.dyp,
                                                      f.cf, f.dxf, f.wfold.d, f.dypad.d, f.dxfold.d, f.dxunfold.d),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetFoldedConvBackwardDataDescriptors(h, p.wd, p.yd, p.cd, p.xd, CUDNN_TENSOR_NCHW, nullptr, f.dyp,
                                                      f.cf, f.dxf, f.wfold.d, f.dypad.d, f.dxfold.d, f.dxunfold.d),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetFoldedConvBackwardDataDescriptors(h, p.wd, p.yd, p.cd, p.xd, CUDNN_TENSOR_NCHW, f.wf, f.dyp, f.cf,
                                                      f.dxf, f.wfold.d, nullptr, f.dxfold.d, f.dxunfold.d),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetFoldedConvBackwardDataDescriptors(h, p.wd, p.yd, p.cd, p.xd, static_cast<cudnnTensorFormat_t>(7),
                                                      f.wf, f.dyp, f.cf, f.dxf, f.wfold.d, f.dypad.d, f.dxfold.d,
                                                      f.dxunfold.d),
            CUDNN_STATUS_BAD_PARAM);
  // dx and dy swapped: inconsistent shapes.
  EXPECT_EQ(cudnnGetFoldedConvBackwardDataDescriptors(h, p.wd, p.xd, p.cd, p.yd, CUDNN_TENSOR_NCHW, f.wf, f.dyp, f.cf,
                                                      f.dxf, f.wfold.d, f.dypad.d, f.dxfold.d, f.dxunfold.d),
            CUDNN_STATUS_BAD_PARAM);
  // CUDNN_CONVOLUTION mode flips the filter: not foldable.
  Problem q(ft_conv::edge_shapes()[1], CUDNN_DATA_FLOAT, false, false, true, rng);
  EXPECT_EQ(cudnnGetFoldedConvBackwardDataDescriptors(h, q.wd, q.yd, q.cd, q.xd, CUDNN_TENSOR_NCHW, f.wf, f.dyp, f.cf,
                                                      f.dxf, f.wfold.d, f.dypad.d, f.dxfold.d, f.dxunfold.d),
            CUDNN_STATUS_NOT_SUPPORTED);
}

}  // namespace
