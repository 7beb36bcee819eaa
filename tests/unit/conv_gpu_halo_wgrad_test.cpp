// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:halo_wgrad (3x3 stride-1 backward filter from one staged dy tile and x halo per 8 x 8 pixels), forced by id:
// tile edges in P and Q, K not a multiple of 64 (a partial K tile) and several K tiles, several 32-channel blocks of
// x, padding 0 / 1 / 2 and unequal, a ResNet-50-sized plane, f16 and bf16, cross-correlation and convolution,
// alpha / beta, bit-identical reruns, the three kernels (mma.sync warps of 32 or 64 dy channels, wgmma with TMA
// loads), and what it declines. GPU suite only.
#include <string>
#include <vector>

#include "unit/conv_check.h"
#include "unit/conv_fixture.h"

namespace {

using ft_conv::OnlyImpl;
using ft_conv::Problem;
using ft_conv::Shape;

constexpr int kAlgo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
constexpr const char* kId = "cuda:halo_wgrad";

#define SKIP_UNLESS_GPU() \
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU suite only (FREEDNN_BACKEND=cuda)"

// The shapes on each kernel: mma.sync warps of 32 dy channels or of 64 (FREEDNN_HALO_WGRAD_WARP_M=64), and wgmma
// with TMA loads (FREEDNN_HALO_WGRAD_WGMMA=1); the knobs are read at every call. The last shape again on one
// cluster of slices (FREEDNN_HALO_WGRAD_MAX_SLICES=8): 13 tiles each, so the stages go round several times.
void check_shapes(const char* warp_m, const char* wgmma) {
  ft::ScopedEnv env("FREEDNN_HALO_WGRAD_WARP_M", warp_m), env2("FREEDNN_HALO_WGRAD_WGMMA", wgmma);
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  const std::vector<Shape> shapes = {
      {"c64_k64", 2, 64, 64, 1, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"c32_k40_edges", 3, 32, 40, 1, {13, 19}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"c96_k136", 2, 96, 136, 1, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"pad0", 2, 32, 64, 1, {11, 12}, {3, 3}, {0, 0}, {1, 1}, {1, 1}},
      {"pad2", 2, 64, 16, 1, {7, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
      {"pad_1_0", 2, 32, 8, 1, {10, 17}, {3, 3}, {1, 0}, {1, 1}, {1, 1}},
      {"resnet_56", 2, 64, 64, 1, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"resnet_56_few_slices", 2, 64, 64, 1, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
  };
  int i = 0;
  for (const Shape& s : shapes) {
    const bool few = s.name == "resnet_56_few_slices";
    ft::ScopedEnv slices("FREEDNN_HALO_WGRAD_MAX_SLICES", few ? "8" : nullptr);
    for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
      Problem p(s, t, true, false, i % 3 == 2, rng);
      const double alpha = i % 2 ? 0.75 : 1.0, beta = i % 4 == 1 ? 0.5 : 0.0;
      ++i;
      // bitwise reruns: fixed tiles per slice, slices added in order
      ft_conv_check::check_backward_filter_twice(h, p, kAlgo, rng, alpha, beta, ft::tolerance(t) * 2, "halo");
    }
  }
}

TEST(ConvGpuHaloWgrad, ShapesTypesModes) {
  SKIP_UNLESS_GPU();
  check_shapes("32", "0");
}

TEST(ConvGpuHaloWgrad, ShapesTypesModesWarpM64) {
  SKIP_UNLESS_GPU();
  check_shapes("64", "0");
}

TEST(ConvGpuHaloWgrad, ShapesTypesModesWgmma) {
  SKIP_UNLESS_GPU();
  check_shapes("32", "1");
}

// NOT_SUPPORTED, not a wrong answer: float, NCHW, padded NHWC strides, stride 2, 5x5, dilation, C not a multiple
// of 32, K not a multiple of 8, and the forward direction.
TEST(ConvGpuHaloWgrad, Declines) {
  SKIP_UNLESS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  const Shape ok{"ok", 2, 32, 16, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  struct Case {
    Shape s;
    cudnnDataType_t t;
    bool nhwc, padded;
  };
  const std::vector<Case> cases = {
      {ok, CUDNN_DATA_FLOAT, true, false},
      {ok, CUDNN_DATA_HALF, false, false},
      {ok, CUDNN_DATA_HALF, true, true},
      {{"s2", 2, 32, 16, 1, {9, 9}, {3, 3}, {1, 1}, {2, 2}, {1, 1}}, CUDNN_DATA_HALF, true, false},
      {{"k5", 2, 32, 16, 1, {9, 9}, {5, 5}, {2, 2}, {1, 1}, {1, 1}}, CUDNN_DATA_HALF, true, false},
      {{"dil2", 2, 32, 16, 1, {9, 9}, {3, 3}, {2, 2}, {1, 1}, {2, 2}}, CUDNN_DATA_HALF, true, false},
      {{"c48", 2, 48, 16, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_HALF, true, false},
      {{"k12", 2, 32, 12, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_BFLOAT16, true, false},
  };
  for (const Case& c : cases) {
    Problem p(c.s, c.t, c.nhwc, c.padded, false, rng);
    EXPECT_EQ(ft_conv::backward_filter(h, p, kAlgo, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED) << p.str();
  }
  Problem f(ok, CUDNN_DATA_HALF, true, false, false, rng);
  EXPECT_EQ(ft_conv::forward(h, f, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, 1.0, 0.0),
            CUDNN_STATUS_NOT_SUPPORTED);
}

}  // namespace
