// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise forced by id (GPU test mode only): random depthwise problems (groups == C == K) with every float
// type, NCHW / NHWC / padded strides, filter sizes 1 to 5, stride 1 and 2, padding, dilation, both convolution
// modes and alpha/beta, the three directions against the double reference; channel counts that take the
// vectorized NHWC kernels; backward filter with many chunks and several tap groups; the fused bias + ReLU
// forward; and the problems it must decline.
#include "unit/conv_check.h"

namespace {

using ft_conv::OnlyImpl;
using ft_conv::Problem;
using ft_conv::Shape;

constexpr const char* kId = "cuda:depthwise";
const ft_conv_check::Algos kAlgos{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0,
                                CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0};

double tol(cudnnDataType_t t) { return ft::tolerance(t) * (t == CUDNN_DATA_FLOAT ? 8 : 2); }

// C: a multiple of 8 (the 16-byte NHWC kernels for every type) when `vec`, else any.
Shape random_depthwise(std::mt19937_64& rng, bool vec) {
  auto u = [&](int lo, int hi) { return ft::uniform_int(rng, lo, hi); };
  const int c = vec ? 8 * u(1, 3) : u(1, 13);
  Shape s{"dw", u(1, 3), c, c, c, {}, {}, {}, {}, {}};
  for (int i = 0; i < 2; ++i) {
    const int k = u(1, 5), d = u(1, 4) == 4 ? 2 : 1, p = u(0, (k - 1) * d);
    const int ext = (k - 1) * d + 1;
    s.in.push_back(std::max(ext - 2 * p, 1) + u(0, 12));
    s.ker.push_back(k);
    s.pad.push_back(p);
    s.stride.push_back(u(1, 2));
    s.dil.push_back(d);
  }
  return s;
}

TEST(ConvGpuDepthwise, RandomProblemsEveryTypeLayout) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  int i = 0;
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
    for (int layout = 0; layout < 3; ++layout) {  // NCHW, NHWC, padded NHWC or NCHW
      for (int rep = 0; rep < 3; ++rep, ++i) {
        const bool nhwc = layout == 1 || (layout == 2 && rep % 2 == 0);
        Problem p(random_depthwise(rng, rep == 0), t, nhwc, layout == 2, i % 2 == 1, rng);
        const bool blend = rep == 2;
        ft_conv_check::check_directions(h, p, kAlgos, rng, blend ? 0.75 : 1.0, blend ? -0.5 : 0.0, tol(t), kId);
      }
    }
  }
}

// MobileNet-v2-like layers (3x3, stride 1 and 2, pad 1), the other forward algorithms it serves.
TEST(ConvGpuDepthwise, MobileNetLikeLayers) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  int i = 0;
  for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT}) {
    for (bool nhwc : {true, false}) {
      for (int stride : {1, 2}) {
        Shape s{"mbv2", 2, 32, 32, 32, {19, 17}, {3, 3}, {1, 1}, {stride, stride}, {1, 1}};
        Problem p(s, t, nhwc, false, false, rng);
        const ft_conv_check::Algos algos{++i % 2 ? CUDNN_CONVOLUTION_FWD_ALGO_DIRECT
                                               : CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                                       kAlgos.bwd_data, kAlgos.bwd_filter};
        ft_conv_check::check_directions(h, p, algos, rng, 1.0, stride == 2 ? 0.5 : 0.0, tol(t), kId);
      }
    }
  }
}

// Backward filter over many pixels (many chunks of partial sums) and a 5x5 filter (three tap groups of 9).
TEST(ConvGpuDepthwise, BackwardFilterManyChunksAndTapGroups) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  for (bool nhwc : {true, false}) {
    for (int k : {3, 5}) {
      Shape s{"bwdw", 4, 16, 16, 16, {40, 37}, {k, k}, {k / 2, k / 2}, {1, 1}, {1, 1}};
      Problem p(s, CUDNN_DATA_FLOAT, nhwc, false, k == 5, rng);
      p.x.fill_uniform(rng, -1, 1);
      p.y.fill_uniform(rng, -1, 1);
      p.w.fill_uniform(rng, -1, 1);
      const auto prior = p.w.values();
      ASSERT_EQ(ft_conv::backward_filter(h, p, kAlgos.bwd_filter, 1.0, -0.25), CUDNN_STATUS_SUCCESS) << p.str();
      const auto dwref =
          ref::conv_backward_filter(ft_conv_check::as_ref(p.x), ft_conv_check::as_ref(p.y), p.wdims, p.params);
      EXPECT_TRUE(ft::near(p.w.values(), ref::blend(dwref.v, prior, 1.0, -0.25), tol(CUDNN_DATA_FLOAT) * 4,
                           "bwd_filter " + p.str()));
    }
  }
}

TEST(ConvGpuDepthwise, FusedBiasRelu) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  int i = 0;
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF}) {
    for (bool nhwc : {false, true}) {
      for (bool z_is_y : {false, true}) {
        Problem p(random_depthwise(rng, ++i % 2 == 0), t, nhwc, false, false, rng);
        ft_conv_check::check_fused(h, p, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, rng, z_is_y, tol(t) * 2, kId);
      }
    }
  }
}

// Forced on problems it does not take: NOT_SUPPORTED for every direction.
TEST(ConvGpuDepthwise, Declines) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  const std::vector<Shape> shapes = {
      {"groups1", 2, 4, 4, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"groups2", 2, 4, 4, 2, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"multiplier2", 2, 4, 8, 4, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"3d", 2, 4, 4, 4, {3, 6, 6}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
  };
  for (const Shape& s : shapes) {
    Problem p(s, CUDNN_DATA_FLOAT, false, false, false, rng);
    EXPECT_EQ(ft_conv::forward(h, p, kAlgos.fwd, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << s.name;
    EXPECT_EQ(ft_conv::backward_data(h, p, kAlgos.bwd_data, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << s.name;
    EXPECT_EQ(ft_conv::backward_filter(h, p, kAlgos.bwd_filter, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << s.name;
  }
  Problem q(Shape{"dw", 2, 4, 4, 4, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, false, false,
            rng);
  EXPECT_EQ(ft_conv::forward(h, q, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(ft_conv::backward_data(h, q, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
}

}  // namespace
