// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:patch_fprop (the forward of few-input-channel layers on mma.sync over an input patch in shared memory),
// forced by id: stem-like and odd shapes (tile edges in P, Q and K, two K tiles, C * R * S not a multiple of the
// mma's k, dilation, strides 1 to 4), f16 / bf16 / TF32, packed NHWC, NCHW and padded NHWC, cross-correlation and
// convolution, alpha / beta, the fused bias + ReLU forward, and what it declines. cuda:patch_dgrad (the backward
// data of the same layers, strides as phases) likewise: phases without taps (1x1 stride 2), two dy chunks
// (K = 80), unequal strides; cuda:patch_wgrad (the backward filter: partial sums per block added in order)
// likewise, bit-identical across runs; cuda:patch_fma_fprop, _fma_dgrad and _fma_wgrad (float FMA) at float
// precision. GPU suite only.
#include <initializer_list>
#include <string>
#include <vector>

#include "unit/conv_check.h"
#include "unit/conv_fixture.h"

namespace {

using ft_conv::OnlyImpl;
using ft_conv::Problem;
using ft_conv::Shape;

constexpr int kAlgo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
constexpr double kTf32Tol = 5e-3;  // 10-bit mantissa products (as the other TF32 suites)

#define SKIP_UNLESS_GPU() \
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU suite only (FREEDNN_BACKEND=cuda)"

std::vector<Shape> patch_shapes() {
  return {
      {"stem", 2, 3, 64, 1, {32, 32}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},
      {"stem_odd", 3, 3, 24, 1, {23, 30}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},
      {"c3_k80_3x3", 2, 3, 80, 1, {20, 37}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"c4_3x3_s2", 2, 4, 16, 1, {15, 17}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"c1_8x8_s4", 2, 1, 8, 1, {33, 31}, {8, 8}, {2, 2}, {4, 4}, {1, 1}},
      {"c2_dil2", 2, 2, 12, 1, {19, 21}, {3, 3}, {2, 2}, {1, 1}, {2, 2}},
      {"c8_5x5", 2, 8, 40, 1, {18, 18}, {5, 5}, {2, 2}, {1, 1}, {1, 1}},
  };
}

double tol_of(cudnnDataType_t t) { return t == CUDNN_DATA_FLOAT ? kTf32Tol : ft::tolerance(t) * 2; }

void check_forward(cudnnHandle_t h, Problem& p, std::mt19937_64& rng, double alpha, double beta, double tol = 0) {
  ft_conv_check::check_forward(h, p, kAlgo, rng, alpha, beta, tol > 0 ? tol : tol_of(p.dt), "patch");
}

// Float problems run as TF32: the fixture gives them FMA_MATH in the GPU suite.
void allow_tf32(Problem& p) {
  if (p.dt == CUDNN_DATA_FLOAT) EXPECT_EQ(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH), CUDNN_STATUS_SUCCESS);
}

// check(p, alpha, beta) over every shape x data type x layout (packed NHWC, NCHW, NHWC with padded strides), the
// convolution mode on every fourth case, alpha / beta varied; float runs as TF32 unless `fma` (FMA_MATH then).
template <class Check>
void for_each_case(const std::vector<Shape>& shapes, std::initializer_list<cudnnDataType_t> types, bool fma,
                   std::mt19937_64& rng, Check&& check) {
  int i = 0;
  for (const Shape& s : shapes)
    for (cudnnDataType_t t : types)
      for (int layout = 0; layout < 3; ++layout) {
        Problem p(s, t, layout != 1, layout == 2, i % 4 == 3, rng);
        if (!fma) allow_tf32(p);
        const double alpha = i % 2 ? 0.75 : 1.0, beta = i % 3 == 1 ? 0.5 : 0.0;
        ++i;
        check(p, alpha, beta);
      }
}

constexpr auto kMmaTypes = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT};
const double kFmaFwdTol = ft::tolerance(CUDNN_DATA_FLOAT) * 4;  // float sums of up to 256 products
const double kFmaTol = ft::tolerance(CUDNN_DATA_FLOAT) * 8;     // backward: sums over many more

TEST(ConvGpuPatch, ForwardShapesLayoutsTypes) {
  SKIP_UNLESS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:patch_fprop");
  for_each_case(patch_shapes(), kMmaTypes, false, rng,
                [&](Problem& p, double alpha, double beta) { check_forward(h, p, rng, alpha, beta); });
}

// Float data under FMA_MATH (the fixture's default for float in the GPU suite): float precision.
TEST(ConvGpuPatch, FmaForwardShapesLayouts) {
  SKIP_UNLESS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:patch_fma_fprop");
  for_each_case(patch_shapes(), {CUDNN_DATA_FLOAT}, true, rng,
                [&](Problem& p, double alpha, double beta) { check_forward(h, p, rng, alpha, beta, kFmaFwdTol); });
  for (bool z_is_y : {false, true})  // the fused epilogue (a called copy since run 41)
    for (bool nhwc : {true, false}) {
      Problem p(patch_shapes()[1], CUDNN_DATA_FLOAT, nhwc, false, false, rng);
      ft_conv_check::check_fused(h, p, kAlgo, rng, z_is_y, kFmaFwdTol, "patch fma");
    }
}

// The workspace is zero and the filter may be flipped (CUDNN_CONVOLUTION) on every layout.
TEST(ConvGpuPatch, ConvolutionModeNoWorkspace) {
  SKIP_UNLESS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:patch_fprop");
  const Shape s = patch_shapes()[1];
  for (bool nhwc : {true, false}) {
    Problem p(s, CUDNN_DATA_HALF, nhwc, false, true, rng);
    size_t ws = 1;
    ASSERT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd,
                                                      static_cast<cudnnConvolutionFwdAlgo_t>(kAlgo), &ws),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(ws, 0u) << p.str();
    check_forward(h, p, rng, 1.0, 0.0);
  }
}

// cudnnConvolutionBiasActivationForward: bias, z (separate and aliasing y) and ReLU in the per-element epilogue.
TEST(ConvGpuPatch, FusedBiasActivation) {
  SKIP_UNLESS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:patch_fprop");
  const Shape s = patch_shapes()[1];
  for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT})
    for (bool z_is_y : {false, true})
      for (bool nhwc : {true, false}) {
        Problem p(s, t, nhwc, false, false, rng);
        allow_tf32(p);
        ft_conv_check::check_fused(h, p, kAlgo, rng, z_is_y, tol_of(t) * 2, "patch");
      }
}

void check_backward_data(cudnnHandle_t h, Problem& p, std::mt19937_64& rng, double alpha, double beta,
                         double tol = 0) {
  ft_conv_check::check_backward_data(h, p, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, rng, alpha, beta,
                                     tol > 0 ? tol : tol_of(p.dt), "patch");
}

std::vector<Shape> dgrad_shapes() {
  return {
      {"stem", 2, 3, 64, 1, {32, 32}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},
      {"stem_odd", 3, 3, 24, 1, {23, 30}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},
      {"c3_k80_3x3", 2, 3, 80, 1, {20, 37}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"c4_3x3_s2", 2, 4, 16, 1, {15, 17}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"c4_1x1_s2", 2, 4, 16, 1, {14, 15}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      {"c8_5x5_s12", 2, 8, 24, 1, {17, 18}, {5, 5}, {2, 2}, {1, 2}, {1, 1}},
      {"c1_7x7", 2, 1, 8, 1, {21, 19}, {7, 7}, {3, 3}, {1, 1}, {1, 1}},
  };
}

TEST(ConvGpuPatch, BackwardDataShapesLayoutsTypes) {
  SKIP_UNLESS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:patch_dgrad");
  for_each_case(dgrad_shapes(), kMmaTypes, false, rng,
                [&](Problem& p, double alpha, double beta) { check_backward_data(h, p, rng, alpha, beta); });
}

void check_backward_filter(cudnnHandle_t h, Problem& p, std::mt19937_64& rng, double alpha, double beta,
                           double tol = 0) {
  // the same bits again: fixed tiles per block, block-order sums
  ft_conv_check::check_backward_filter_twice(h, p, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, rng, alpha, beta,
                                             tol > 0 ? tol : tol_of(p.dt), "patch");
}

TEST(ConvGpuPatch, BackwardFilterShapesLayoutsTypes) {
  SKIP_UNLESS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:patch_wgrad");
  for_each_case(patch_shapes(), kMmaTypes, false, rng,
                [&](Problem& p, double alpha, double beta) { check_backward_filter(h, p, rng, alpha, beta); });
}

// Float data under FMA_MATH on cuda:patch_fma_dgrad (dx of <= 4 channels, <= 4 column taps per phase): float
// precision; the shapes of dgrad_shapes() it takes (16 dy channels per chunk: K = 80 takes five).
TEST(ConvGpuPatch, FmaBackwardDataShapesLayouts) {
  SKIP_UNLESS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:patch_fma_dgrad");
  std::vector<Shape> taken;
  for (const Shape& s : dgrad_shapes())
    if (s.c <= 4 && (s.ker[1] + s.stride[1] - 1) / s.stride[1] <= 4) taken.push_back(s);
  EXPECT_GE(taken.size(), 4u);
  for_each_case(taken, {CUDNN_DATA_FLOAT}, true, rng,
                [&](Problem& p, double alpha, double beta) { check_backward_data(h, p, rng, alpha, beta, kFmaTol); });
  const Shape wide_taps{"c1_7x7", 2, 1, 8, 1, {21, 19}, {7, 7}, {3, 3}, {1, 1}, {1, 1}};  // 7 column taps: declined
  Problem d(wide_taps, CUDNN_DATA_FLOAT, true, false, false, rng);
  EXPECT_EQ(ft_conv::backward_data(h, d, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED);
}

// Float data under FMA_MATH on cuda:patch_fma_wgrad: float precision, bit-identical reruns.
TEST(ConvGpuPatch, FmaBackwardFilterShapesLayouts) {
  SKIP_UNLESS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:patch_fma_wgrad");
  for_each_case(patch_shapes(), {CUDNN_DATA_FLOAT}, true, rng,
                [&](Problem& p, double alpha, double beta) { check_backward_filter(h, p, rng, alpha, beta, kFmaTol); });
}

// Declined when forced: many channels, FMA math for float, strides with more than 4 phases (dgrad); the forward
// implementation serves no backward direction.
TEST(ConvGpuPatch, Declines) {
  SKIP_UNLESS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:patch_fprop");
  const Shape wide{"c16", 2, 16, 16, 1, {10, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  Problem p(wide, CUDNN_DATA_HALF, true, false, false, rng);
  EXPECT_EQ(ft_conv::forward(h, p, kAlgo, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED);
  Problem f(patch_shapes()[0], CUDNN_DATA_FLOAT, true, false, false, rng);  // FMA_MATH from the fixture
  EXPECT_EQ(ft_conv::forward(h, f, kAlgo, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED);
  Problem d(patch_shapes()[0], CUDNN_DATA_HALF, true, false, false, rng);
  EXPECT_EQ(ft_conv::backward_data(h, d, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED);
  OnlyImpl only_dgrad("cuda:patch_dgrad");
  Problem dw(wide, CUDNN_DATA_HALF, true, false, false, rng);  // 16 channels in dx
  EXPECT_EQ(ft_conv::backward_data(h, dw, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED);
  const Shape s4{"c3_s4", 2, 3, 8, 1, {33, 31}, {8, 8}, {2, 2}, {4, 4}, {1, 1}};  // 16 phases
  Problem d4(s4, CUDNN_DATA_HALF, true, false, false, rng);
  EXPECT_EQ(ft_conv::backward_data(h, d4, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED);
}

}  // namespace
