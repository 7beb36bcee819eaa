// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The CUTLASS float-FMA convolutions (cuda:cutlass_simt_fprop / _dgrad / _wgrad), forced by id, against the double
// reference: float data under CUDNN_FMA_MATH (the GPU fixture's default for float) and DEFAULT_MATH, NHWC, NCHW and
// padded layouts (staged through the workspace), channel counts of any size (no padding: one-element accesses),
// strided backward data, split-K backward filter, alpha/beta, CUDNN_CONVOLUTION mode, the fused forward, and what
// they must decline. GPU suite only (and only in builds with the CUTLASS headers).
#include "unit/conv_check.h"

namespace {

using ft_conv::OnlyImpl;
using ft_conv::Problem;
using ft_conv::Shape;

constexpr const char* kSimt = "cuda:cutlass_simt_";  // a prefix: the three ids below
constexpr const char* kFprop = "cuda:cutlass_simt_fprop";
constexpr const char* kDgrad = "cuda:cutlass_simt_dgrad";
constexpr const char* kWgrad = "cuda:cutlass_simt_wgrad";
constexpr int kFwdAlgo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
constexpr int kBwdDataAlgo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
constexpr int kBwdFilterAlgo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;

// {name, n, c, k, g, in, kernel, pad, stride, dilation}
std::vector<Shape> shapes() {
  return {
      {"1x1", 2, 64, 128, 1, {14, 14}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"3x3", 2, 32, 64, 1, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"3x3s2", 2, 64, 32, 1, {28, 28}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"1x1s2", 3, 48, 40, 1, {14, 14}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      {"stem_c3", 2, 3, 64, 1, {30, 30}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},  // forward over space-to-depth copies
      {"odd_c5_k7", 3, 5, 7, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"odd_s2_c7_k9", 2, 7, 9, 1, {11, 12}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},  // strided dgrad, odd sizes
      {"dilated", 2, 16, 16, 1, {12, 12}, {3, 3}, {2, 2}, {1, 1}, {2, 2}},
      {"split_k", 4, 16, 16, 1, {28, 28}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},  // wgrad: N*P*Q = 3136, several slices
      {"s3_k5_c1", 3, 1, 5, 1, {16, 13}, {5, 5}, {2, 1}, {3, 3}, {1, 1}},  // space-to-depth, stride 3, zero taps
  };
}

// Float sums of up to 3136 products (the split-K backward filter over N*P*Q) of values in [-1, 1]: a few float
// roundings relative to the largest output.
const double kTol = ft::tolerance(CUDNN_DATA_FLOAT) * 4;

void check_all(cudnnHandle_t h, Problem& p, std::mt19937_64& rng, double alpha, double beta) {
  OnlyImpl only(kSimt);
  ft_conv_check::check_directions(h, p, {kFwdAlgo, kBwdDataAlgo, kBwdFilterAlgo}, rng, alpha, beta, kTol,
                                  "cutlass_simt");
}

TEST(ConvCutlassSimt, FloatFmaShapes) {
  SKIP_UNLESS_CUTLASS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  int i = 0;
  for (const Shape& s : shapes()) {
    const bool nhwc = i % 2 == 0, conv_mode = i % 3 == 1;
    Problem p(s, CUDNN_DATA_FLOAT, nhwc, false, conv_mode, rng);
    FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_FMA_MATH));
    const double beta = i % 4 == 2 ? -0.5 : 0.0, alpha = i % 4 == 2 ? 0.75 : 1.0;
    check_all(h, p, rng, alpha, beta);
    ++i;
  }
}

// DEFAULT_MATH permits TF32 but does not require it: the FMA kernels accept it (and report FMA_MATH); NHWC with
// padded strides goes through the staged copies.
TEST(ConvCutlassSimt, DefaultMathAndPaddedStrides) {
  SKIP_UNLESS_CUTLASS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  const auto all = shapes();
  for (int i : {1, 4, 6}) {
    Problem p(all[static_cast<size_t>(i)], CUDNN_DATA_FLOAT, true, true, i == 4, rng);
    FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
    check_all(h, p, rng, 1.0, i == 6 ? 0.5 : 0.0);
  }
}

// cudnnConvolutionBiasActivationForward through the FMA forward: NHWC y (in-place finishing pass, z aliasing y)
// and NCHW y (the staged write-back); then NHWC y with K = 7, whose finishing pass cannot take 16-byte vectors
// (found by review: it dropped the tail and misplaced the bias).
TEST(ConvCutlassSimt, FusedBiasActivation) {
  SKIP_UNLESS_CUTLASS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kFprop);
  const auto all = shapes();
  for (int variant = 0; variant < 5; ++variant) {
    const bool nhwc = variant != 2, alias = variant == 1 || variant == 4;
    Problem p(all[static_cast<size_t>(variant >= 2 ? 5 : variant)], CUDNN_DATA_FLOAT, nhwc, false, false, rng);
    FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_FMA_MATH));
    ft_conv_check::check_fused(h, p, kFwdAlgo, rng, alias, kTol * 4, "cutlass_simt",
                               {.alpha1 = 0.5, .alpha2 = -1.25, .nan = CUDNN_PROPAGATE_NAN});
  }
}

// Forced onto problems outside their kernels, every direction reports NOT_SUPPORTED (and does not run).
TEST(ConvCutlassSimt, DeclinesUnsupportedProblems) {
  SKIP_UNLESS_CUTLASS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  auto expect_declined = [&](Problem& p, const std::string& why) {
    ft_conv_check::expect_declined(h, p, {kFprop, kDgrad, kWgrad}, {kFwdAlgo, kBwdDataAlgo, kBwdFilterAlgo}, why);
  };

  const Shape base{"b", 2, 16, 16, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  Problem half(base, CUDNN_DATA_HALF, true, false, false, rng);
  expect_declined(half, "half data");
  Problem dbl(base, CUDNN_DATA_DOUBLE, true, false, false, rng);
  expect_declined(dbl, "double data");
  const Shape grouped{"g2", 2, 16, 16, 2, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  Problem g(grouped, CUDNN_DATA_FLOAT, true, false, false, rng);
  expect_declined(g, "groups = 2");
}

}  // namespace
