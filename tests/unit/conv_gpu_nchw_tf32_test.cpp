// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:nchw_tf32 forced by id (GPU test mode only, a Hopper with an sm_90a build; skipped elsewhere): float NCHW
// forward and stride-1 backward data on TF32 wgmma against the double reference, and the problems it must decline.
#include "unit/conv_check.h"

namespace {

using ft_conv::OnlyImpl;
using ft_conv::Problem;
using ft_conv::Shape;

constexpr const char* kId = "cuda:nchw_tf32";
constexpr int kFwd = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
constexpr int kBwdData = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
// TF32 products (10-bit mantissas) over reductions of a few hundred terms, relative to the output's largest value.
constexpr double kTol = 3e-3;

// Whether this machine runs the kernel: the forward of a small 3x3 problem is accepted.
bool kernel_here(cudnnHandle_t h, std::mt19937_64& rng) {
  Problem p({"probe", 1, 8, 8, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, false, false, rng);
  if (cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH) != CUDNN_STATUS_SUCCESS) return false;
  size_t ws = 0;
  return cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd,
                                                 static_cast<cudnnConvolutionFwdAlgo_t>(kFwd), &ws) ==
         CUDNN_STATUS_SUCCESS;
}

// Tiles of 128 output pixels that span several images (7x7, 14x14), channel counts that are not whole 8-channel
// groups, a partial 128-channel tile (K 200), several stages' worth of channels (the three stages reused), stride 2
// (forward only), dilation, 5x3 (15 taps), a rectangular filter with uneven padding, 1x1 (eight channel groups per
// stage), convolution mode (flipped taps), alpha / beta.
TEST(ConvGpuNchwTf32, ForwardAndBackwardData) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  ft::ScopedEnv on("FREEDNN_NCHW_TF32", "1");
  if (!kernel_here(h, rng)) GTEST_SKIP() << "cuda:nchw_tf32 needs an sm_90a build on a compute capability 9.0 device";
  const std::vector<Shape> shapes = {
      {"3x3_14x14_across_images", 3, 16, 24, 1, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"3x3_7x7_c20", 5, 20, 40, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"k200_partial_tile", 2, 8, 200, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"c72_many_stages", 2, 72, 64, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"stride2", 2, 12, 16, 1, {15, 13}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"dilation2", 2, 9, 20, 1, {12, 10}, {3, 3}, {2, 2}, {1, 1}, {2, 2}},
      {"5x3", 2, 6, 12, 1, {11, 9}, {5, 3}, {2, 1}, {1, 1}, {1, 1}},
      {"3x2_uneven_pad", 3, 10, 14, 1, {10, 17}, {3, 2}, {0, 1}, {1, 1}, {1, 1}},
      {"1x1_c72", 4, 72, 36, 1, {6, 6}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"1x1_stride2", 2, 24, 20, 1, {9, 9}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
  };
  int i = 0;
  for (const Shape& s : shapes) {
    for (bool conv_mode : {false, true}) {
      SCOPED_TRACE(s.name + (conv_mode ? " convolution" : " cross-correlation"));
      Problem p(s, CUDNN_DATA_FLOAT, false, false, conv_mode, rng);
      FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
      const bool blend = ++i % 3 == 0;
      const double alpha = blend ? 0.75 : 1.0, beta = blend ? -0.5 : 0.0;
      ft_conv_check::check_forward(h, p, kFwd, rng, alpha, beta, kTol, kId);
      if (s.stride[0] == 1 && s.stride[1] == 1)
        ft_conv_check::check_backward_data(h, p, kBwdData, rng, alpha, beta, kTol, kId);
      else
        EXPECT_EQ(ft_conv::backward_data(h, p, kBwdData, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED) << s.name;
    }
  }
}

// NOT_SUPPORTED for what it does not take: FMA math (no TF32), groups, NHWC, half data, 5x5 (25 taps: the stages
// do not fit in shared memory), 7x7 (49 taps); and anything without
// FREEDNN_NCHW_TF32=1 (opt-in: measured slower than cutlass_sm90).
TEST(ConvGpuNchwTf32, Declines) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  {
    ft::ScopedEnv off("FREEDNN_NCHW_TF32", nullptr);
    Problem p({"3x3", 2, 8, 8, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, false, false, rng);
    FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
    EXPECT_EQ(ft_conv::forward(h, p, kFwd, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED) << "knob unset";
  }
  ft::ScopedEnv on("FREEDNN_NCHW_TF32", "1");
  const Shape s3{"3x3", 2, 8, 8, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  {
    Problem p(s3, CUDNN_DATA_FLOAT, false, false, false, rng);  // the test mode's FMA math
    EXPECT_EQ(ft_conv::forward(h, p, kFwd, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED) << "FMA math";
  }
  {
    Problem p({"groups", 2, 8, 8, 2, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, false, false,
              rng);
    FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
    EXPECT_EQ(ft_conv::forward(h, p, kFwd, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED) << "groups";
  }
  {
    Problem p(s3, CUDNN_DATA_FLOAT, true, false, false, rng);
    FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
    EXPECT_EQ(ft_conv::forward(h, p, kFwd, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED) << "NHWC";
  }
  {
    Problem p(s3, CUDNN_DATA_HALF, false, false, false, rng);
    EXPECT_EQ(ft_conv::forward(h, p, kFwd, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED) << "half";
  }
  for (int r : {5, 7}) {
    Problem p({"wide", 2, 8, 8, 1, {12, 12}, {r, r}, {r / 2, r / 2}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, false,
              false, rng);
    FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
    EXPECT_EQ(ft_conv::forward(h, p, kFwd, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED) << r << "x" << r;
  }
}

}  // namespace
