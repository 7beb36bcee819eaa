// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The CUTLASS tensor-core convolutions (cuda:cutlass_sm80_fprop / _dgrad / _wgrad), forced by id, against the double
// reference: ResNet-like shapes in NHWC f16/bf16, NCHW and padded layouts (staged through the workspace), TF32
// float, alpha/beta, CUDNN_CONVOLUTION mode, split-K wgrad, the fused bias/activation forward, channel counts that
// are not multiples of the vector width (zero-padded in the staged copies; the 16-bit forward with C <= 4 on the
// fixed-channel kernel; strided ones with few channels over space-to-depth copies), and the problems they must
// decline. GPU suite only (and only in builds with the CUTLASS
// headers).
#include "unit/conv_check.h"

namespace {

using ft_conv::OnlyImpl;
using ft_conv::Problem;
using ft_conv::Shape;

constexpr const char* kSm80 = "cuda:cutlass_sm80_";  // a prefix: the three ids below, one per direction
constexpr const char* kFprop = "cuda:cutlass_sm80_fprop";
constexpr const char* kDgrad = "cuda:cutlass_sm80_dgrad";
constexpr const char* kWgrad = "cuda:cutlass_sm80_wgrad";
constexpr int kFwdAlgo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
constexpr int kBwdDataAlgo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
constexpr int kBwdFilterAlgo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;

// ResNet-like layers at small N: {name, n, c, k, g, in, kernel, pad, stride, dilation}.
std::vector<Shape> shapes() {
  return {
      {"1x1", 2, 64, 128, 1, {14, 14}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"3x3", 2, 32, 64, 1, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"3x3s2", 2, 64, 32, 1, {28, 28}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"1x1s2", 3, 128, 64, 1, {14, 14}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      {"odd_spatial", 4, 16, 24, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"dilated", 2, 16, 16, 1, {12, 12}, {3, 3}, {2, 2}, {1, 1}, {2, 2}},
      {"2x2s2", 2, 16, 32, 1, {8, 8}, {2, 2}, {0, 0}, {2, 2}, {1, 1}},
      {"split_k", 4, 16, 16, 1, {28, 28}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},  // wgrad: N*P*Q = 3136, several slices
      {"many_tiles", 8, 16, 64, 1, {56, 56}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},  // fprop: >= 132 128x128 tiles
  };
}

double tol(const Problem& p) { return p.dt == CUDNN_DATA_FLOAT ? 5e-3 : ft::tolerance(p.dt) * 2; }

// Every direction of one problem, each forced to its CUTLASS implementation (ft_conv_check::check_directions:
// beta != 0 blends with random prior data, beta == 0 poisons the output first).
void check_all(cudnnHandle_t h, Problem& p, std::mt19937_64& rng, double alpha, double beta,
               const std::string& tag = "cutlass_sm80") {
  OnlyImpl only(kSm80);
  ft_conv_check::check_directions(h, p, {kFwdAlgo, kBwdDataAlgo, kBwdFilterAlgo}, rng, alpha, beta, tol(p), tag);
}

TEST(ConvCutlassSm80, NhwcHalfAndBf16ResNetShapes) {
  SKIP_UNLESS_CUTLASS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  int i = 0;
  for (const Shape& s : shapes()) {
    for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
      const bool conv_mode = i % 3 == 1;
      Problem p(s, t, true, false, conv_mode, rng);
      const double beta = i % 4 == 2 ? -0.5 : 0.0, alpha = i % 4 == 2 ? 0.75 : 1.0;
      check_all(h, p, rng, alpha, beta);
      ++i;
    }
  }
}

// Operands in NCHW, and NHWC with padded strides: copied to packed NHWC in the workspace, results written back
// with the alpha/beta blend.
TEST(ConvCutlassSm80, StagedLayouts) {
  SKIP_UNLESS_CUTLASS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  const auto all = shapes();
  for (int i : {1, 2, 5}) {
    Problem nchw(all[static_cast<size_t>(i)], CUDNN_DATA_HALF, false, false, i == 2, rng);
    check_all(h, nchw, rng, 1.0, i == 1 ? 0.5 : 0.0);
    Problem padded(all[static_cast<size_t>(i)], CUDNN_DATA_BFLOAT16, true, true, false, rng);
    check_all(h, padded, rng, 0.5, i == 5 ? -1.0 : 0.0);
  }
}

// Float data with the default math type: TF32 tensor cores (10-bit mantissa products, float sums).
TEST(ConvCutlassSm80, Tf32Float) {
  SKIP_UNLESS_CUTLASS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  const auto all = shapes();
  for (int i : {0, 2, 7}) {
    Problem p(all[static_cast<size_t>(i)], CUDNN_DATA_FLOAT, i != 2, false, i == 7, rng);
    FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
    check_all(h, p, rng, 1.0, i == 0 ? 0.25 : 0.0);
  }
}

// cudnnConvolutionBiasActivationForward through the CUTLASS forward: NHWC y (the in-place finishing pass, z folded
// into CUTLASS's source operand, z aliasing y as in residual blocks) and NCHW y (the staged write-back).
TEST(ConvCutlassSm80, FusedBiasActivation) {
  SKIP_UNLESS_CUTLASS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kFprop);
  const auto all = shapes();
  for (int variant = 0; variant < 3; ++variant) {
    const bool nhwc = variant < 2, alias = variant == 1;
    Problem p(all[static_cast<size_t>(variant)], CUDNN_DATA_HALF, nhwc, false, false, rng);
    ft_conv_check::check_fused(h, p, kFwdAlgo, rng, alias, ft::tolerance(CUDNN_DATA_HALF) * 4, "cutlass_sm80",
                               {.alpha1 = 0.5, .alpha2 = -1.25, .nan = CUDNN_PROPAGATE_NAN});
  }
}

// Channel counts off the kernels' 16-byte vectors: C and K padded with zeros in the workspace copies (C <= 4 to 4
// channels for the 16-bit forward's fixed-channel kernel, otherwise to multiples of 8, or 4 for TF32), the results
// written back without the padding.
TEST(ConvCutlassSm80, PaddedChannels) {
  SKIP_UNLESS_CUTLASS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  // ResNet-50's first layer at a small size: C = 3 -> K = 64, 7x7 stride 2 pad 3.
  const Shape stem{"stem_c3", 2, 3, 64, 1, {32, 32}, {7, 7}, {3, 3}, {2, 2}, {1, 1}};
  const Shape odd{"c5_k12", 2, 5, 12, 1, {10, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  const Shape odd_s2{"c5_k12_s2", 3, 5, 12, 1, {11, 12}, {3, 3}, {1, 1}, {2, 2}, {1, 1}};  // strided dgrad
  const Shape c4{"c4_k8", 2, 4, 8, 1, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};  // fixed-channel kernel, no copy of x
  const Shape c1{"c1_k3", 2, 1, 3, 1, {12, 10}, {5, 3}, {2, 1}, {1, 2}, {1, 1}};
  for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
    Problem p(stem, t, true, false, false, rng);
    check_all(h, p, rng, 1.0, 0.0);
    Problem pb(stem, t, true, false, t == CUDNN_DATA_BFLOAT16, rng);
    check_all(h, pb, rng, 0.5, -0.75);
  }
  Problem p1(odd, CUDNN_DATA_HALF, true, false, false, rng);
  check_all(h, p1, rng, 1.0, 0.0);
  Problem p2(odd, CUDNN_DATA_BFLOAT16, false, false, true, rng);  // NCHW, convolution mode
  check_all(h, p2, rng, 0.75, 0.5);
  Problem p3(odd_s2, CUDNN_DATA_HALF, true, true, false, rng);  // padded NHWC strides
  check_all(h, p3, rng, 1.0, -1.0);
  Problem p4(stem, CUDNN_DATA_HALF, false, false, false, rng);  // NCHW stem
  check_all(h, p4, rng, 1.0, 0.0);
  Problem p5(c4, CUDNN_DATA_HALF, true, false, true, rng);
  check_all(h, p5, rng, 1.0, 0.25);
  Problem p6(c1, CUDNN_DATA_BFLOAT16, true, false, false, rng);
  check_all(h, p6, rng, 1.0, 0.0);
  // TF32: C = 3 padded to 4, K = 6 to 8.
  for (const Shape& sh : {stem, Shape{"c3_k6", 2, 3, 6, 1, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}}) {
    Problem p(sh, CUDNN_DATA_FLOAT, true, false, false, rng);
    FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
    check_all(h, p, rng, 1.0, sh.k == 6 ? 0.5 : 0.0);
    Problem q(sh, CUDNN_DATA_FLOAT, false, false, false, rng);
    FT_OK(cudnnSetConvolutionMathType(q.cd, CUDNN_DEFAULT_MATH));
    check_all(h, q, rng, 1.0, 0.0);
  }
}

// The fused forward with K padded (y computed into the workspace, bias/z/ReLU applied in the write-back).
TEST(ConvCutlassSm80, FusedPaddedChannels) {
  SKIP_UNLESS_CUTLASS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kFprop);
  const Shape sh{"c3_k12", 2, 3, 12, 1, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  Problem p(sh, CUDNN_DATA_HALF, true, false, false, rng);
  size_t ws = 0;
  FT_OK(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd,
                                                static_cast<cudnnConvolutionFwdAlgo_t>(kFwdAlgo), &ws));
  EXPECT_GT(ws, 0u);  // x, w and y are staged
  ft_conv_check::check_fused(h, p, kFwdAlgo, rng, false, ft::tolerance(CUDNN_DATA_HALF) * 4, "cutlass_sm80 padded",
                             {.alpha1 = 1.5, .alpha2 = 0.5, .nan = CUDNN_PROPAGATE_NAN});
}

// The strided forward with few input channels runs over space-to-depth copies of x and w (s2d_staging.h):
// strides 2 and 3, filters the stride does not divide (zero taps in w'), s * s * C from 4 to 16 (z's channels
// padded), unequal padding, CUDNN_CONVOLUTION (the flip in s2d_filter), NCHW and padded NHWC x, alpha/beta, and the
// fused epilogue on the stem. Every form FREEDNN_SM80_S2D selects for 16-bit data (1: few-channel kernels, z's
// channels to a multiple of 4; 2: the regular kernels, to 8; 3: the regular kernels with the w taps folded into
// the channels; unset is off for 16-bit), TF32 at its default (few-channel).
TEST(ConvCutlassSm80, SpaceToDepthForward) {
  SKIP_UNLESS_CUTLASS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  const Shape cases[] = {
      {"s2_k5_c1", 3, 1, 8, 1, {13, 11}, {5, 5}, {2, 1}, {2, 2}, {1, 1}},  // z: 4 channels (wide 8, folded 3 x 4 -> 16)
      {"s2_k3_c2", 2, 2, 16, 1, {10, 12}, {3, 3}, {1, 0}, {2, 2}, {1, 1}},  // 8 (folded 2 x 8)
      {"s2_k4_c4", 2, 4, 24, 1, {9, 9}, {4, 4}, {1, 2}, {2, 2}, {1, 1}},    // 16 (folded 2 x 16), R a multiple of s
      {"s3_k7_c1", 2, 1, 8, 1, {20, 17}, {7, 7}, {3, 3}, {3, 3}, {1, 1}},   // 9 -> 12 (wide 16, folded 3 x 9 -> 32)
      {"stem", 2, 3, 64, 1, {23, 30}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},      // 12 (wide 16, folded 4 x 12 = 48)
  };
  struct Form {
    cudnnDataType_t t;
    const char* knob;  // FREEDNN_SM80_S2D, nullptr: unset
  };
  const Form forms[] = {{CUDNN_DATA_HALF, "1"},     {CUDNN_DATA_BFLOAT16, "1"}, {CUDNN_DATA_HALF, "2"},
                        {CUDNN_DATA_BFLOAT16, "2"}, {CUDNN_DATA_HALF, "3"},     {CUDNN_DATA_BFLOAT16, "3"},
                        {CUDNN_DATA_FLOAT, nullptr}};
  int i = 0;
  for (const Shape& s : cases) {
    for (const Form& f : forms) {
      ft::ScopedEnv form("FREEDNN_SM80_S2D", f.knob);
      const bool nhwc = i % 3 != 1, padded = nhwc && i % 4 == 3, conv_mode = i % 2 == 1;
      Problem p(s, f.t, nhwc, padded, conv_mode, rng);
      if (f.t == CUDNN_DATA_FLOAT) {
        FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
      }
      const double beta = i % 5 == 2 ? 0.5 : 0.0, alpha = i % 5 == 2 ? -0.75 : 1.0;
      check_all(h, p, rng, alpha, beta, std::string("cutlass_sm80 s2d=") + (f.knob != nullptr ? f.knob : "unset"));
      ++i;
    }
  }
  OnlyImpl only(kFprop);
  for (const char* knob : {"1", "2", "3"}) {
    ft::ScopedEnv form("FREEDNN_SM80_S2D", knob);
    for (int variant = 0; variant < 2; ++variant) {
      Problem p(cases[4], variant == 0 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16, variant == 0, false, false, rng);
      ft_conv_check::check_fused(h, p, kFwdAlgo, rng, false, ft::tolerance(p.dt) * 4,
                                 std::string("cutlass_sm80 s2d=") + knob,
                                 {.alpha1 = 0.5, .alpha2 = -1.25, .nan = CUDNN_PROPAGATE_NAN});
    }
  }
  // The knob reaches the plan: the stem's workspace (w' and z) grows from the few-channel form (z 15 x 18 x 12
  // here) to the wide one (15 x 18 x 16) to the folded one (15 x 15 x 48).
  Problem stem(cases[4], CUDNN_DATA_HALF, true, false, false, rng);
  size_t ws[3] = {0, 0, 0};
  for (int form = 0; form < 3; ++form) {
    ft::ScopedEnv knob("FREEDNN_SM80_S2D", std::to_string(form + 1).c_str());
    FT_OK(cudnnGetConvolutionForwardWorkspaceSize(h, stem.xd, stem.wd, stem.cd, stem.yd,
                                                  static_cast<cudnnConvolutionFwdAlgo_t>(kFwdAlgo), &ws[form]));
  }
  EXPECT_LT(ws[0], ws[1]);
  EXPECT_LT(ws[1], ws[2]);
}

// Forced onto problems outside their kernels, every direction reports NOT_SUPPORTED (and does not run).
TEST(ConvCutlassSm80, DeclinesUnsupportedProblems) {
  SKIP_UNLESS_CUTLASS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  auto expect_declined = [&](Problem& p, const std::string& why) {
    ft_conv_check::expect_declined(h, p, {kFprop, kDgrad, kWgrad}, {kFwdAlgo, kBwdDataAlgo, kBwdFilterAlgo}, why);
  };

  const Shape base{"b", 2, 16, 16, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  Problem dbl(base, CUDNN_DATA_DOUBLE, true, false, false, rng);
  expect_declined(dbl, "double data");
  Problem fma(base, CUDNN_DATA_FLOAT, true, false, false, rng);  // the fixture sets CUDNN_FMA_MATH in GPU mode
  FT_OK(cudnnSetConvolutionMathType(fma.cd, CUDNN_FMA_MATH));
  expect_declined(fma, "float with CUDNN_FMA_MATH");
  Problem half_compute(base, CUDNN_DATA_HALF, true, false, false, rng);
  FT_OK(cudnnSetConvolution2dDescriptor(half_compute.cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_HALF));
  expect_declined(half_compute, "half compute type");
  const Shape grouped{"g2", 2, 16, 16, 2, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  Problem g(grouped, CUDNN_DATA_HALF, true, false, false, rng);
  expect_declined(g, "groups = 2");
}

}  // namespace
