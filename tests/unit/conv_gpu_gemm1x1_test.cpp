// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:gemm_1x1 forced by id (GPU test mode only): random 1x1 problems in NCHW and NHWC, every float type,
// stride 1 and 2, 2-D and 3-D, alpha/beta, the three directions against the double reference; the NCHW
// backward filter with several rounds of partial-sum slots; TF32 (on cuBLASLt and on cuBLAS; the NCHW backward
// filter as one wgmma GEMM on a Hopper); the fused bias + ReLU forward (z apart and z = y); and the problems it
// must decline.
#include "unit/conv_check.h"

namespace {

using ft_conv::OnlyImpl;
using ft_conv::Problem;
using ft_conv::Shape;

constexpr const char* kId = "cuda:gemm_1x1";
const ft_conv_check::Algos kAlgos{CUDNN_CONVOLUTION_FWD_ALGO_GEMM, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
                                CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1};

// Reduction lengths here are at most a few hundred: the type's tolerance with some headroom.
double tol(cudnnDataType_t t) { return ft::tolerance(t) * (t == CUDNN_DATA_FLOAT ? 8 : 2); }

Shape random_1x1(std::mt19937_64& rng, int stride, bool three_d) {
  auto u = [&](int lo, int hi) { return ft::uniform_int(rng, lo, hi); };
  const int nsp = three_d ? 3 : 2;
  Shape s{"1x1s" + std::to_string(stride), u(1, 3), u(1, 13), u(1, 11), 1, {}, {}, {}, {}, {}};
  for (int i = 0; i < nsp; ++i) {
    s.in.push_back(u(1, 9) | (i == 0 ? 1 : 0));  // odd sizes among them
    s.ker.push_back(1);
    s.pad.push_back(0);
    s.stride.push_back(three_d && i == 0 ? 1 : stride);
    s.dil.push_back(u(1, 2));  // no effect on a 1x1 filter
  }
  return s;
}

TEST(ConvGpuGemm1x1, RandomProblemsEveryTypeLayoutStride) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  int i = 0;
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
    for (bool nhwc : {false, true}) {
      for (int stride : {1, 2}) {
        for (int rep = 0; rep < 2; ++rep, ++i) {
          Problem p(random_1x1(rng, stride, rep == 1 && i % 4 == 1), t, nhwc, false, i % 3 == 0, rng);
          const bool blend = rep == 1;
          ft_conv_check::check_directions(h, p, kAlgos, rng, blend ? 0.75 : 1.0, blend ? -0.5 : 0.0, tol(t), kId);
        }
      }
    }
  }
}

// Strided backward data through the vectorized scatter (dx rows of whole 16-byte vectors: NHWC with C % 8 == 0,
// NCHW with W % 8 == 0), odd heights and widths whose last row / column is not a strided pixel, 3-D with a depth
// stride, alpha / beta; and a row length that is not whole vectors (the per-element kernel).
TEST(ConvGpuGemm1x1, StridedBackwardDataVectorScatter) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  const std::vector<Shape> shapes = {
      Shape{"nhwc-c16", 2, 16, 8, 1, {7, 5}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      Shape{"nchw-w8", 2, 3, 5, 1, {5, 8}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      Shape{"3d-s222", 1, 8, 4, 1, {3, 4, 8}, {1, 1, 1}, {0, 0, 0}, {2, 2, 2}, {1, 1, 1}},
      Shape{"row-not-vectors", 2, 3, 4, 1, {5, 7}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
  };
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
    for (bool nhwc : {false, true}) {
      for (const Shape& s : shapes) {
        for (int blend = 0; blend < 2; ++blend) {
          Problem p(s, t, nhwc, false, false, rng);
          ft_conv_check::check_directions(h, p, kAlgos, rng, blend ? 0.75 : 1.0, blend ? -0.5 : 0.0, tol(t), kId);
        }
      }
    }
  }
}

// The NCHW gather of column-stride-2 layers in whole words (gather_w2_kernel, the default) and per element
// (gather_kernel, FREEDNN_GATHER_W2=0, read at every call): 8, 4 and 2 pixels per thread (16-bit types up to 8, float
// up to 4, double 2), ResNet-50's 56 -> 28 and 28 -> 14 rows in small, stride (1, 2), odd heights; and widths it leaves
// to gather_kernel (odd output widths, odd input widths: 2 * ow > iw). The forward and the backward filter read the
// gathered x.
TEST(ConvGpuGemm1x1, StridedGatherWords) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  const std::vector<Shape> shapes = {
      Shape{"w56", 2, 6, 5, 1, {7, 56}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      Shape{"w32", 1, 3, 4, 1, {6, 32}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      Shape{"w28", 2, 5, 3, 1, {5, 28}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      Shape{"s12", 1, 4, 4, 1, {5, 16}, {1, 1}, {0, 0}, {1, 2}, {1, 1}},
      Shape{"ow9", 2, 3, 2, 1, {4, 18}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      Shape{"iw17", 1, 2, 3, 1, {3, 17}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
  };
  int i = 0;
  for (const char* words : {"1", "0"}) {
    ft::ScopedEnv w2("FREEDNN_GATHER_W2", words);
    for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
      for (const Shape& s : shapes) {
        SCOPED_TRACE(std::string("FREEDNN_GATHER_W2=") + words);
        const bool blend = ++i % 2 == 0;
        Problem p(s, t, false, false, false, rng);
        ft_conv_check::check_directions(h, p, kAlgos, rng, blend ? 0.75 : 1.0, blend ? -0.5 : 0.0, tol(t), kId);
      }
    }
  }
}

// IMPLICIT_PRECOMP_GEMM is served too; a larger channel count (K x C GEMM tiles) and N = 1.
TEST(ConvGpuGemm1x1, PrecompAlgoLargerChannels) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  const ft_conv_check::Algos algos{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, kAlgos.bwd_data,
                                 kAlgos.bwd_filter};
  for (bool nhwc : {false, true}) {
    Shape s{"1x1big", 1, 96, 72, 1, {7, 5}, {1, 1}, {0, 0}, {nhwc ? 1 : 2, 2}, {1, 1}};
    Problem p(s, CUDNN_DATA_HALF, nhwc, false, false, rng);
    ft_conv_check::check_directions(h, p, algos, rng, 1.0, 0.25, tol(CUDNN_DATA_HALF) * 2, kId);
  }
}

// NCHW backward filter sums images in slots (32 MB of K x C partial sums): K = C = 1024 gives 8 slots, so 10
// images take two rounds, the second one partial.
TEST(ConvGpuGemm1x1, NchwBackwardFilterSeveralSlotRounds) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  Shape s{"slots", 10, 1024, 1024, 1, {1, 2}, {1, 1}, {0, 0}, {1, 1}, {1, 1}};
  Problem p(s, CUDNN_DATA_FLOAT, false, false, false, rng);
  p.x.fill_uniform(rng, -1, 1);
  p.y.fill_uniform(rng, -1, 1);
  p.w.fill_uniform(rng, -1, 1);
  const auto prior = p.w.values();
  ASSERT_EQ(ft_conv::backward_filter(h, p, kAlgos.bwd_filter, 1.5, 0.5), CUDNN_STATUS_SUCCESS);
  const auto dwref =
      ref::conv_backward_filter(ft_conv_check::as_ref(p.x), ft_conv_check::as_ref(p.y), p.wdims, p.params);
  EXPECT_TRUE(ft::near(p.w.values(), ref::blend(dwref.v, prior, 1.5, 0.5), tol(CUDNN_DATA_FLOAT), "slots dw"));
}

// Float data with CUDNN_DEFAULT_MATH: TF32 tensor cores (10-bit mantissas), so about 2e-3 relative.
TEST(ConvGpuGemm1x1, DefaultMathFloatTf32) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  for (bool nhwc : {false, true}) {
    Shape s{"tf32", 3, 64, 40, 1, {9, 7}, {1, 1}, {0, 0}, {nhwc ? 2 : 1, nhwc ? 2 : 1}, {1, 1}};
    Problem p(s, CUDNN_DATA_FLOAT, nhwc, false, false, rng);
    FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
    ft_conv_check::check_directions(h, p, kAlgos, rng, 1.0, nhwc ? 0.5 : 0.0, 3e-3, kId);
  }
}

// TF32 GEMMs on cuBLASLt (lt_gemm.h): the algorithm timed at the workspace query (the default), the heuristic's
// first answer (FREEDNN_LT_TUNE=0 on a shape never timed: its own channel counts), and cuBLAS
// (FREEDNN_GEMM1X1_LT=0); NCHW (batched GEMMs over the images) and NHWC, stride 1 and 2, blending.
TEST(ConvGpuGemm1x1, Tf32OnCublasLt) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  int i = 0;
  for (const char* mode : {"timed", "heuristic", "cublas"}) {
    const std::string m = mode;
    ft::ScopedEnv tune("FREEDNN_LT_TUNE", m == "heuristic" ? "0" : "1");
    ft::ScopedEnv lt("FREEDNN_GEMM1X1_LT", m == "cublas" ? "0" : "1");
    for (bool nhwc : {false, true}) {
      for (int stride : {1, 2}) {
        const int c = 96 + 8 * i, k = 136 - 8 * i;  // a new shape each time: nothing timed before
        Shape s{"tf32lt", 3, c, k, 1, {12, 10}, {1, 1}, {0, 0}, {stride, stride}, {1, 1}};
        SCOPED_TRACE(m + (nhwc ? " nhwc" : " nchw") + " stride " + std::to_string(stride));
        Problem p(s, CUDNN_DATA_FLOAT, nhwc, false, false, rng);
        FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
        const bool blend = ++i % 2 == 0;
        ft_conv_check::check_directions(h, p, kAlgos, rng, blend ? 0.75 : 1.0, blend ? 0.5 : 0.0, 3e-3, kId);
      }
    }
  }
}

// The NCHW TF32 backward filter on a Hopper: one wgmma GEMM over all images' pixels (wgrad1x1_tf32.cu) where the
// pixels per image are a multiple of 4 and the slots' partial sums would be large, else the slot GEMMs. Partial k / c
// tiles (K 200, C 72), an odd C (scalar stores), 14x14 (an image's last k-step mostly zeros), the stride-2 gather,
// many slices going round the stages, 3 x 3 tiles in one slice; 7x7 (49 pixels) and 32x32 with few channels (small
// partials) on the GEMMs; K > 128 on two warpgroups (the default) and on one (FREEDNN_WGRAD1X1_WM=1); with the
// kernel off (FREEDNN_WGRAD1X1_WGMMA=0) too. Bitwise reruns: fixed slices added in order.
TEST(ConvGpuGemm1x1, NchwTf32BackwardFilterOneGemm) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  const std::vector<Shape> shapes = {
      {"k200_c72_14x14", 4, 72, 200, 1, {14, 14}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"odd_c", 3, 75, 40, 1, {4, 6}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"stride2", 2, 136, 64, 1, {8, 8}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      {"many_slices", 64, 64, 64, 1, {8, 8}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"tiles_3x3", 2, 264, 384, 1, {4, 4}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"7x7_gemms", 3, 64, 96, 1, {7, 7}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"32x32_gemms", 2, 16, 24, 1, {32, 32}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
  };
  int i = 0;
  // The kernel as chosen (two warpgroups where K > 128), on one warpgroup (FREEDNN_WGRAD1X1_WM=1), and off.
  const char* variants[3][2] = {{"1", nullptr}, {"1", "1"}, {"0", nullptr}};
  for (const auto& v : variants) {
    ft::ScopedEnv env("FREEDNN_WGRAD1X1_WGMMA", v[0]), wm("FREEDNN_WGRAD1X1_WM", v[1]);
    for (const Shape& s : shapes) {
      SCOPED_TRACE(s.name + std::string(" FREEDNN_WGRAD1X1_WGMMA=") + v[0] + " FREEDNN_WGRAD1X1_WM=" +
                   (v[1] ? v[1] : "default"));
      Problem p(s, CUDNN_DATA_FLOAT, false, false, false, rng);
      FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
      const bool blend = ++i % 3 == 0;
      ft_conv_check::check_backward_filter_twice(h, p, kAlgos.bwd_filter, rng, blend ? 0.75 : 1.0,
                                                 blend ? 0.5 : 0.0, 3e-3, "tf32 wgrad");
    }
  }
}

TEST(ConvGpuGemm1x1, FusedBiasRelu) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  int i = 0;
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE}) {
    for (bool nhwc : {false, true}) {
      for (bool z_is_y : {false, true}) {
        Problem p(random_1x1(rng, ++i % 3 == 0 ? 2 : 1, false), t, nhwc, false, false, rng);
        ft_conv_check::check_fused(h, p, i % 2 ? CUDNN_CONVOLUTION_FWD_ALGO_GEMM
                                             : CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                                 rng, z_is_y, tol(t) * 2, kId);
      }
    }
  }
}

// Forced on problems it does not take: NOT_SUPPORTED for the query and the call, every direction.
TEST(ConvGpuGemm1x1, Declines) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  const std::vector<Shape> shapes = {
      {"3x3", 2, 4, 6, 1, {5, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"1x1pad", 2, 4, 6, 1, {5, 6}, {1, 1}, {1, 0}, {1, 1}, {1, 1}},
      {"1x1groups", 2, 4, 6, 2, {5, 6}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
  };
  for (const Shape& s : shapes) {
    Problem p(s, CUDNN_DATA_FLOAT, false, false, false, rng);
    size_t ws = 0;
    EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, &ws),
              CUDNN_STATUS_NOT_SUPPORTED)
        << s.name;
    EXPECT_EQ(ft_conv::forward(h, p, kAlgos.fwd, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << s.name;
    EXPECT_EQ(ft_conv::backward_data(h, p, kAlgos.bwd_data, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << s.name;
    EXPECT_EQ(ft_conv::backward_filter(h, p, kAlgos.bwd_filter, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << s.name;
  }
  // x NCHW, y NHWC: no common packed layout
  Problem p(Shape{"1x1mixed", 2, 4, 6, 1, {5, 6}, {1, 1}, {0, 0}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, false,
            false, rng);
  FT_OK(cudnnSetTensor4dDescriptor(p.yd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 2, 6, 5, 6));
  EXPECT_EQ(ft_conv::forward(h, p, kAlgos.fwd, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << p.str();
  // algorithms it does not serve
  Problem q(Shape{"1x1", 2, 4, 6, 1, {5, 6}, {1, 1}, {0, 0}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, false, false,
            rng);
  EXPECT_EQ(ft_conv::forward(h, q, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(ft_conv::backward_data(h, q, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(ft_conv::backward_filter(h, q, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
}

}  // namespace
