// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The sm_90a CUTLASS convolutions (cuda:cutlass_sm90_fprop / _dgrad / _wgrad), forced by id: random ResNet-like
// NHWC half and bfloat16 problems in every direction they serve (alpha/beta blending included), the fused
// bias + activation forward, the float forward on TF32 tensor cores (NHWC directly; NCHW, padded strides and odd
// channel counts staged through the workspace), the float dgrad on TF32 (forwards over stride phases), the float
// wgrad on TF32 (a forward over transposed copies, in slices of dy's rows), the batch-split wgrad (slices of unequal size, blending, the model's own choice, under CUDA
// graph capture), and the problems they decline (NOT_SUPPORTED when forced). Runs only in the GPU suite, on a
// compute capability 9.0 device of a build that has the kernels.
#include <cmath>
#include <functional>
#include <cstdlib>
#include <optional>
#include <string>

#ifdef FT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include "unit/conv_check.h"
#include "unit/conv_fixture.h"

namespace {

using ft_conv::OnlyImpl;
using ft_conv::Problem;
using ft_conv::Shape;

constexpr const char* kIds = "cuda:cutlass_sm90_";  // a prefix: all three directions

// Forces the sm90 ids and lets the wgrad kernel take problems with few dw tiles (it declines them by default in
// favour of the split-K sm80 kernel), so small test problems reach it.
struct OnlySm90 {
  OnlyImpl only{kIds};
  OnlySm90() { setenv("FREEDNN_SM90_WGRAD_MIN_TILES", "1", 1); }
  ~OnlySm90() { unsetenv("FREEDNN_SM90_WGRAD_MIN_TILES"); }
};

bool hopper_with_kernels() {
#if defined(FT_WITH_CUDA) && defined(FT_WITH_CUTLASS_SM90)
  if (!ft::gpu_mode()) return false;
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) return false;
  return prop.major == 9 && prop.minor == 0;
#else
  return false;
#endif
}

#define SKIP_UNLESS_HOPPER()                                                                              \
  if (!hopper_with_kernels())                                                                             \
  GTEST_SKIP() << "needs the GPU suite on a compute capability 9.0 device and a build with the sm90 kernels"

ref::Tensor as_ref(const ft::HostTensor& t) { return ref::Tensor(t.dims, t.values()); }

// A random ResNet-like layer: 1x1, 3x3 pad 1, or either with stride 2; N 2..4, 7..28 pixels, C and K multiples of
// 8 in 16..256, small enough for the double reference (<= ~4e7 multiply-adds).
Shape random_layer(std::mt19937_64& rng, bool unit_stride) {
  static const int chans[] = {16, 24, 32, 64, 72, 128, 136, 256};
  for (;;) {
    const int kind = ft::uniform_int(rng, 0, 3);
    const bool k3 = kind % 2 == 1, s2 = !unit_stride && kind >= 2;
    const int n = ft::uniform_int(rng, 2, 4), hw = ft::uniform_int(rng, 7, 28);
    const int c = chans[ft::uniform_int(rng, 0, 7)], k = chans[ft::uniform_int(rng, 0, 7)];
    const int r = k3 ? 3 : 1, s = s2 ? 2 : 1, pad = k3 ? 1 : 0;
    const int out = (hw + 2 * pad - r) / s + 1;
    if (static_cast<double>(n) * out * out * k * c * r * r > 4e7) continue;
    return {std::string(k3 ? "3x3" : "1x1") + (s2 ? "s2" : "s1"), n, c, k, 1, {hw, hw + (kind == 0 ? 1 : 0)},
            {r, r}, {pad, pad}, {s, s}, {1, 1}};
  }
}

// Output rounding dominates (float sums over <= a few thousand terms add ~1e-6).
double tol(cudnnDataType_t t) { return ft::tolerance(t) * 2; }

// tolerance: 0 for the data type's (tol above); the TF32 tests pass theirs.
double tol_or(double tolerance, cudnnDataType_t t) { return tolerance > 0 ? tolerance : tol(t); }

void check_forward(cudnnHandle_t h, Problem& p, std::mt19937_64& rng, double alpha, double beta,
                   double tolerance = 0) {
  ft_conv_check::check_forward(h, p, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, rng, alpha, beta,
                               tol_or(tolerance, p.dt), "sm90");
}

void check_backward_data(cudnnHandle_t h, Problem& p, std::mt19937_64& rng, double alpha, double beta,
                         double tolerance = 0) {
  ft_conv_check::check_backward_data(h, p, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, rng, alpha, beta,
                                     tol_or(tolerance, p.dt), "sm90");
}

void check_backward_filter(cudnnHandle_t h, Problem& p, std::mt19937_64& rng, double alpha, double beta,
                           double tolerance = 0) {
  ft_conv_check::check_backward_filter(h, p, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, rng, alpha, beta,
                                       tol_or(tolerance, p.dt), "sm90");
}

TEST(ConvSm90, RandomResNetLayersEveryDirection) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlySm90 only;
  for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
    for (int i = 0; i < 5; ++i) {
      const double alpha = i % 2 ? 0.75 : 1.0, beta = i % 2 ? -0.5 : 0.0;
      {
        Problem p(random_layer(rng, false), t, true, false, false, rng);
        check_forward(h, p, rng, alpha, beta);
        check_backward_filter(h, p, rng, alpha, beta);
      }
      Problem q(random_layer(rng, true), t, true, false, false, rng);  // dgrad: unit stride only
      check_backward_data(h, q, rng, alpha, beta);
    }
  }
}

// Fixed shapes at the edges of the kernel choice: K and C at 64 (small tiles) and 72 (big tiles, a partial one).
TEST(ConvSm90, TileEdges) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlySm90 only;
  const std::vector<Shape> shapes = {
      {"k64", 2, 64, 64, 1, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"k72", 3, 72, 72, 1, {8, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"c16k256", 2, 16, 256, 1, {7, 7}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"dilated", 2, 32, 40, 1, {12, 12}, {3, 3}, {2, 2}, {1, 1}, {2, 2}},
  };
  int i = 0;
  for (const Shape& s : shapes) {
    const cudnnDataType_t t = i++ % 2 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
    Problem p(s, t, true, false, false, rng);
    check_forward(h, p, rng, 1.0, 0.25);
    check_backward_data(h, p, rng, 1.0, 0.0);
    check_backward_filter(h, p, rng, 0.5, 0.0);
  }
}

// 16-bit backward data at strides above 1 as forwards per stride phase writing dx in place
// (dgrad_phases16.h): ResNet's 3x3 and 1x1 stride-2 layers in small (the 1x1 leaves three phases to the pass
// beside them), odd dx extents, unequal strides, stride 3, dilation with stride (a phase no tap reaches), 5x5
// filters, 128x64 tiles (C <= 64, or any C with FREEDNN_SM90_DGRAD16_NARROW=1) and 128x128; blending and not;
// the phases as separate launches (FREEDNN_SM90_PHASES_GROUPED=0) on concurrent streams or
// (FREEDNN_SM90_PHASES_SERIAL=1) on one, and (the default for two or more live phases of 128x128 tiles) in one
// grouped persistent launch.
TEST(ConvSm90, Dgrad16StridePhases) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlySm90 only;
  const std::vector<Shape> shapes = {
      {"3x3s2_c64", 2, 64, 64, 1, {14, 14}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"3x3s2_c128_odd", 3, 128, 96, 1, {13, 15}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"1x1s2", 2, 64, 128, 1, {12, 12}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      {"1x1s2_odd", 2, 136, 64, 1, {11, 9}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      {"3x3s21", 2, 32, 48, 1, {10, 12}, {3, 3}, {1, 1}, {2, 1}, {1, 1}},
      {"3x3s3", 2, 40, 24, 1, {16, 17}, {3, 3}, {0, 0}, {3, 3}, {1, 1}},  // pad 1 would window columns
      {"3x3s2d2", 2, 16, 32, 1, {15, 15}, {3, 3}, {2, 2}, {2, 2}, {2, 2}},
      {"5x5s2", 2, 24, 16, 1, {16, 16}, {5, 5}, {2, 2}, {2, 2}, {1, 1}},
  };
  int i = 0;
  {
    ft::ScopedEnv separate("FREEDNN_SM90_PHASES_GROUPED", "0");
    for (const Shape& s : shapes) {
      for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
        SCOPED_TRACE(s.name);
        const bool blend = ++i % 2 == 0;
        Problem p(s, t, true, false, false, rng);
        check_backward_data(h, p, rng, blend ? 0.75 : 1.0, blend ? -0.5 : 0.0);
      }
    }
  }
  {
    ft::ScopedEnv separate("FREEDNN_SM90_PHASES_GROUPED", "0");
    ft::ScopedEnv narrow("FREEDNN_SM90_DGRAD16_NARROW", "1");
    ft::ScopedEnv serial("FREEDNN_SM90_PHASES_SERIAL", "1");  // and the phases one after the other on one stream
    for (const Shape& s : {shapes[1], shapes[3]}) {
      SCOPED_TRACE(std::string("narrow, serial ") + s.name);
      Problem p(s, ++i % 2 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16, true, false, false, rng);
      check_backward_data(h, p, rng, 1.0, i % 4 == 0 ? 0.5 : 0.0);
    }
  }
  // The phases (C > 64) in one launch of the grouped persistent kernel (the default), with and without blending
  // (the epilogue's source loads); `many` has 196 tiles, so some CTAs of an H200 (132) take two (with blending, the
  // second tile's source loads hung in run 21 until every tile ended with store_tail).
  // 3x3s2d21_c72 (row dilation 2): two live phases and two no tap reaches, whose pass runs beside the grouped launch.
  const Shape many{"3x3s2_c72_k16_n8", 8, 72, 16, 1, {56, 56}, {3, 3}, {1, 1}, {2, 2}, {1, 1}};
  const Shape dilated{"3x3s2d21_c72", 2, 72, 24, 1, {15, 14}, {3, 3}, {2, 1}, {2, 2}, {2, 1}};
  for (const Shape& s : {shapes[1], shapes[3], many, dilated})
    for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
      SCOPED_TRACE(std::string("grouped ") + s.name);
      const bool blend = ++i % 2 == 0;
      Problem p(s, t, true, false, false, rng);
      check_backward_data(h, p, rng, blend ? 0.75 : 1.0, blend ? -0.5 : 0.0);
    }
  // One live phase (1x1 stride 2, C > 64) in a grouped launch beside the pass over the three empty ones (the
  // default); 1x1s2_many has more tiles than an H200 has SMs.
  const Shape one_many{"1x1s2_many", 16, 136, 64, 1, {60, 58}, {1, 1}, {0, 0}, {2, 2}, {1, 1}};  // 220 tiles
  for (const Shape& s : {shapes[3], one_many})
    for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
      SCOPED_TRACE(std::string("grouped single ") + s.name);
      const bool blend = ++i % 2 == 0;
      Problem p(s, t, true, false, false, rng);
      check_backward_data(h, p, rng, blend ? 0.75 : 1.0, blend ? -0.5 : 0.0);
    }
}

// 16-bit backward data at unit stride in both forms: CUTLASS's dgrad collective on the grouped persistent kernel
// (the default) and CUTLASS's own non-persistent dgrad kernels (FREEDNN_SM90_DGRAD16_GROUPED=0): 128x64 tiles
// (C <= 64) and 128x128, more tiles than an H200 has SMs, a partial channel tile, dilation, 5x5, and a 1x1 filter
// with padding; blending and not.
TEST(ConvSm90, Dgrad16UnitStrideForms) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlySm90 only;
  const std::vector<Shape> shapes = {
      {"3x3_c64_many", 6, 64, 16, 1, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},     // 147 tiles of 128x64
      {"1x1_c136_many", 6, 136, 64, 1, {56, 56}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},   // 147 x 2 tiles of 128x128
      {"3x3_c72_odd", 3, 72, 40, 1, {13, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"3x3_d2", 2, 128, 24, 1, {15, 14}, {3, 3}, {2, 2}, {1, 1}, {2, 2}},
      {"5x5_c256", 2, 256, 32, 1, {9, 10}, {5, 5}, {2, 2}, {1, 1}, {1, 1}},
      {"1x1_pad1", 2, 32, 16, 1, {7, 8}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
  };
  int i = 0;
  for (const char* grouped : {"1", "0"}) {
    ft::ScopedEnv env("FREEDNN_SM90_DGRAD16_GROUPED", grouped);
    for (const Shape& s : shapes) {
      SCOPED_TRACE(std::string(s.name) + " FREEDNN_SM90_DGRAD16_GROUPED=" + grouped);
      const bool blend = ++i % 2 == 0;
      Problem p(s, i % 3 == 0 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF, true, false, false, rng);
      check_backward_data(h, p, rng, blend ? 0.75 : 1.0, blend ? -0.5 : 0.0);
    }
  }
}

struct ActDesc {
  cudnnActivationDescriptor_t d = nullptr;
  explicit ActDesc(cudnnActivationMode_t m) {
    EXPECT_EQ(cudnnCreateActivationDescriptor(&d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetActivationDescriptor(d, m, CUDNN_NOT_PROPAGATE_NAN, 0.0), CUDNN_STATUS_SUCCESS);
  }
  ~ActDesc() { cudnnDestroyActivationDescriptor(d); }
  operator cudnnActivationDescriptor_t() const { return d; }
};

// y = act(alpha1 conv + alpha2 z + bias): z a separate NHWC tensor, z == y (in place), z in NCHW, alpha2 == 0.
TEST(ConvSm90, FusedBiasActivation) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_fprop");
  const Shape s{"3x3", 2, 32, 48, 1, {10, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  int i = 0;
  for (const char* zmode : {"nhwc", "inplace", "nchw", "none"}) {
    const cudnnDataType_t t = i % 2 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
    const cudnnActivationMode_t act = i == 1 ? CUDNN_ACTIVATION_IDENTITY : CUDNN_ACTIVATION_RELU;
    ++i;
    Problem p(s, t, true, false, false, rng);
    p.x.fill_uniform(rng, -1, 1);
    p.w.fill_uniform(rng, -1, 1);
    const std::string z_kind = zmode;
    ft::HostTensor z(t, p.ydims, z_kind != "nchw");
    z.fill_uniform(rng, -1, 1);
    ft::HostTensor bias(t, {1, s.k, 1, 1}, false);
    bias.fill_uniform(rng, -1, 1);
    const double alpha1 = 0.5, alpha2 = z_kind == "none" ? 0.0 : -0.75;
    std::vector<double> zv = z.values();
    if (z_kind == "inplace") {
      p.y.fill_uniform(rng, -1, 1);
      zv = p.y.values();
    } else {
      p.y.poison();
    }
    ft::TensorDesc zd(z), bd(bias);
    ActDesc ad(act);
    const float a1 = static_cast<float>(alpha1), a2 = static_cast<float>(alpha2);
    size_t ws = 0;
    FT_OK(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd,
                                                  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, &ws));
    ft::Bytes buf(ws);
    const bool inplace = z_kind == "inplace";
    ASSERT_EQ(cudnnConvolutionBiasActivationForward(
                  h, &a1, p.xd, p.x.data(), p.wd, p.w.data(), p.cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                  ws ? buf.data() : nullptr, ws, &a2, inplace ? p.yd : zd, inplace ? p.y.data() : z.data(), bd,
                  bias.data(), ad, p.yd, p.y.data()),
              CUDNN_STATUS_SUCCESS)
        << zmode << " " << p.str();
    const auto conv = ref::conv_forward(as_ref(p.x), as_ref(p.w), p.params).v;
    const auto bv = bias.values();
    std::vector<double> want(conv.size());
    const size_t plane = conv.size() / static_cast<size_t>(s.n * s.k);
    for (size_t j = 0; j < conv.size(); ++j) {
      const double v = alpha1 * conv[j] + alpha2 * zv[j] + bv[(j / plane) % static_cast<size_t>(s.k)];
      want[j] = act == CUDNN_ACTIVATION_RELU ? std::max(0.0, v) : v;
    }
    EXPECT_TRUE(ft::near(p.y.values(), want, tol(t) * 2, std::string("fused ") + zmode + " " + p.str()));
  }
}

// What the kernels do not take is NOT_SUPPORTED when they are forced (no other implementation is enabled).
// By default a dw of few tiles is declined when the batch split does not pay either (here 784 reduction rows: one
// slice) and ALGO_1 falls to the split-K sm80 kernel.
TEST(ConvSm90, WgradFewTilesGoesToSplitK) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  const Shape s{"1x1", 4, 64, 64, 1, {14, 14}, {1, 1}, {0, 0}, {1, 1}, {1, 1}};  // one 64x64 dw tile
  Problem p(s, CUDNN_DATA_HALF, true, false, false, rng);
  {
    OnlyImpl only("cuda:cutlass_sm90_wgrad");
    EXPECT_EQ(ft_conv::backward_filter(h, p, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
  }
  OnlyImpl only("cuda:cutlass_");
  check_backward_filter(h, p, rng, 1.0, 0.0);
}

// ---- batch-split wgrad (wgrad_split.h) ---------------------------------------------------------------------


size_t bwd_filter_workspace(cudnnHandle_t h, const Problem& p) {
  size_t ws = 0;
  EXPECT_EQ(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.xd, p.yd, p.cd, p.wd,
                                                           CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, &ws),
            CUDNN_STATUS_SUCCESS);
  return ws;
}

// Forces the split: every problem counts as one of few tiles, FREEDNN_SM90_WGRAD_SPLITS slices (clamped to N).
struct ForcedSplit {
  OnlyImpl only{"cuda:cutlass_sm90_wgrad"};
  ft::ScopedEnv min_tiles{"FREEDNN_SM90_WGRAD_MIN_TILES", "1000000000"};
  ft::ScopedEnv splits;
  ft::ScopedEnv no_split{"FREEDNN_SM90_WGRAD_NO_SPLIT", nullptr};
  explicit ForcedSplit(const char* s) : splits("FREEDNN_SM90_WGRAD_SPLITS", s) {}
};

// Forced split-K ranges of unequal size (the K tiles not a multiple of the count, one K tile per range, fewer
// tiles than asked for: clamped), both tiles (K <= 64: 64x128, else 128x128; partial tiles in M and N), stride 2 and
// 1x1, f16 and bf16, alpha/beta. The result must not depend on the run (fixed-order sums): a second run with beta =
// 0 is bitwise the same. K tiles (64 reduction rows each): k64_n5 5*90 rows = 8 tiles in 3 ranges; k128_n7 7 in 4;
// k72_s2 4*36 = 3, one each; one_each 3; 1x1_clamped 3 (5 asked); k64_deep 16*196 = 49 tiles in 7 ranges of 7.
TEST(ConvSm90, WgradSplitForced) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  struct Case {
    Shape s;
    const char* splits;
  };
  const std::vector<Case> cases = {
      {{"k64_n5", 5, 32, 64, 1, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, "3"},     // K tiles 2, 3, 3
      {{"k128_n7", 7, 24, 128, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, "4"},    // 1, 2, 2, 2
      {{"k72_s2", 4, 40, 72, 1, {11, 12}, {3, 3}, {1, 1}, {2, 2}, {1, 1}}, "3"},    // 1, 1, 1
      {{"one_each", 3, 16, 48, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, "3"},    // 1, 1, 1
      {{"1x1_clamped", 2, 64, 136, 1, {10, 9}, {1, 1}, {0, 0}, {1, 1}, {1, 1}}, "5"},  // 5 asked, 3 tiles
      {{"k64_deep", 16, 64, 64, 1, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, "7"},    // 7 ranges of 7
  };
  int i = 0;
  for (const Case& c : cases) {
    ForcedSplit forced(c.splits);
    for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
      Problem p(c.s, t, true, false, false, rng);
      EXPECT_GT(bwd_filter_workspace(h, p), 0u) << "the split's partial sums: " << p.str();
      const double alpha = i % 2 ? 0.75 : 1.0, beta = i % 2 ? -0.5 : 0.0;
      ++i;
      check_backward_filter(h, p, rng, alpha, beta);
      // Determinism: the same inputs again, beta = 0 (dw is overwritten, so two runs must agree bit for bit).
      p.w.poison();
      ASSERT_EQ(ft_conv::backward_filter(h, p, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, 1.0, 0.0), CUDNN_STATUS_SUCCESS);
      const std::vector<double> first = p.w.values();
      p.w.poison();
      ASSERT_EQ(ft_conv::backward_filter(h, p, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, 1.0, 0.0), CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(p.w.values(), first) << "two runs differ: " << p.str();
    }
  }
}

// A shape of two dw tiles with 5488 reduction rows (N = 7): by default (threshold 48 tiles, the model's choice) the
// sm90 wgrad takes it split (about 10 K ranges of 8-9 tiles); FREEDNN_SM90_WGRAD_NO_SPLIT=1 makes it decline.
TEST(ConvSm90, WgradSplitByModel) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_wgrad");
  ft::ScopedEnv min_tiles("FREEDNN_SM90_WGRAD_MIN_TILES", nullptr);
  ft::ScopedEnv splits("FREEDNN_SM90_WGRAD_SPLITS", nullptr);
  const Shape s{"c16k64_n7", 7, 16, 64, 1, {28, 28}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
    Problem p(s, t, true, false, false, rng);
    {
      ft::ScopedEnv off("FREEDNN_SM90_WGRAD_NO_SPLIT", "1");
      EXPECT_EQ(ft_conv::backward_filter(h, p, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, 1, 0),
                CUDNN_STATUS_NOT_SUPPORTED)
          << p.str();
    }
    ft::ScopedEnv on("FREEDNN_SM90_WGRAD_NO_SPLIT", nullptr);
    EXPECT_GT(bwd_filter_workspace(h, p), 0u) << "expected the model to split " << p.str();
    check_backward_filter(h, p, rng, 1.0, t == CUDNN_DATA_HALF ? 0.0 : 0.5);
  }
}

#ifdef FT_WITH_CUDA
// A split backward filter under stream capture (global mode): the call is captured from a user stream into a graph,
// then the graph runs (16-bit: the split-K launch and its finish pass; TF32: the row slices' fork and join on the
// aux streams, made at the workspace query, before the capture).
// Runs call() on a user stream under CUDA graph capture, then replays the graph once and waits for it.
void replay_captured(cudnnHandle_t h, const std::function<cudnnStatus_t()>& call) {
  cudaStream_t st = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
  FT_OK(cudnnSetStream(h, st));
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal), cudaSuccess);
  const cudnnStatus_t called = call();
  const cudaError_t ended = cudaStreamEndCapture(st, &graph);
  EXPECT_EQ(called, CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(ended, cudaSuccess) << cudaGetErrorName(ended);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, st), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  FT_OK(cudnnSetStream(h, nullptr));
  cudaStreamDestroy(st);
}

void check_wgrad_graph_capture(cudnnHandle_t h, Problem& p, std::mt19937_64& rng, double tolerance) {
  p.x.fill_uniform(rng, -1, 1);
  p.y.fill_uniform(rng, -1, 1);
  p.w.fill_uniform(rng, -1, 1);
  const std::vector<double> prior = p.w.values();
  const size_t ws = bwd_filter_workspace(h, p);
  ASSERT_GT(ws, 0u);
  ft::Bytes buf(ws);
  const float alpha = 0.5f, beta = 0.25f;
  replay_captured(h, [&] {
    return cudnnConvolutionBackwardFilter(h, &alpha, p.xd, p.x.data(), p.yd, p.y.data(), p.cd,
                                          CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, buf.data(), ws, &beta, p.wd,
                                          p.w.data());
  });
  const auto r = ref::conv_backward_filter(as_ref(p.x), as_ref(p.y), p.wdims, p.params);
  EXPECT_TRUE(ft::near(p.w.values(), ref::blend(r.v, prior, alpha, beta), tolerance, "graph " + p.str()));
}

TEST(ConvSm90, WgradSplitGraphCapture) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  ForcedSplit forced("3");
  const Shape s{"k64_n5", 5, 32, 64, 1, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  Problem p(s, CUDNN_DATA_BFLOAT16, true, false, false, rng);
  check_wgrad_graph_capture(h, p, rng, tol(p.dt));
}
#endif

#ifdef FT_WITH_CUDA
// 16-bit backward data at stride 2 captured into a graph on a new handle, after the workspace query (which makes
// the aux streams the call forks, said in the info log: every live phase but the first, plus one for the pass over
// the phases no tap reaches; the captured call makes none) and replayed: one live phase beside that pass in a
// grouped launch (the default) and as a separate launch (FREEDNN_SM90_PHASES_GROUPED=0), and four phases as
// separate launches.
TEST(ConvSm90, Dgrad16StrideGraphCapture) {
  SKIP_UNLESS_HOPPER();
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_dgrad");
  const Shape one{"1x1s2_c136", 2, 136, 64, 1, {11, 9}, {1, 1}, {0, 0}, {2, 2}, {1, 1}};
  const Shape four{"3x3s2_c96", 2, 96, 64, 1, {13, 15}, {3, 3}, {1, 1}, {2, 2}, {1, 1}};
  struct Case {
    const Shape* s;
    const char* grouped;
  };
  int i = 0;
  for (const Case& c : {Case{&one, "1"}, Case{&one, "0"}, Case{&four, "0"}}) {
    ft::ScopedEnv grouped("FREEDNN_SM90_PHASES_GROUPED", c.grouped);
    const cudnnDataType_t t = i++ % 2 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
    SCOPED_TRACE(std::string(c.s->name) + " FREEDNN_SM90_PHASES_GROUPED=" + c.grouped);
    ft::Handle h;  // new: its aux streams are the query's
    Problem p(*c.s, t, true, false, false, rng);
    p.y.fill_uniform(rng, -1, 1);
    p.w.fill_uniform(rng, -1, 1);
    p.x.fill_uniform(rng, -1, 1);
    const std::vector<double> prior = p.x.values();
    size_t ws = 0;
    {
      ft::InfoLog log;
      FT_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.wd, p.yd, p.cd, p.xd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
                                                         &ws));
      EXPECT_NE(log.text.find("auxiliary stream"), std::string::npos) << "the query made no aux stream";
    }
    ft::Bytes buf(ws > 0 ? ws : 1);
    const float alpha = 0.5f, beta = 0.25f;
    {
      ft::InfoLog log;
      replay_captured(h, [&] {
        return cudnnConvolutionBackwardData(h, &alpha, p.wd, p.w.data(), p.yd, p.y.data(), p.cd,
                                            CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, buf.data(), ws, &beta, p.xd,
                                            p.x.data());
      });
      EXPECT_EQ(log.text.find("auxiliary stream"), std::string::npos) << "the captured call made aux streams:\n"
                                                                      << log.text;
    }
    const auto r = ref::conv_backward_data(as_ref(p.y), as_ref(p.w), p.xdims, p.params);
    EXPECT_TRUE(ft::near(p.x.values(), ref::blend(r.v, prior, alpha, beta), tol(p.dt), "graph " + p.str()));
  }
}
#endif

TEST(ConvSm90, DeclinesWhenForced) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlySm90 only;
  const Shape base{"3x3", 2, 32, 32, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  auto fwd = [&](Problem& p) { return ft_conv::forward(h, p, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, 1, 0); };
  // The backward directions take packed NHWC with C, K multiples of 8 only (the forward stages the rest).
  auto dgrad = [&](Problem& p) { return ft_conv::backward_data(h, p, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1, 0); };
  {  // C = 3: not a multiple of 8
    Shape s = base;
    s.c = 3;
    Problem p(s, CUDNN_DATA_HALF, true, false, false, rng);
    EXPECT_EQ(dgrad(p), CUDNN_STATUS_NOT_SUPPORTED) << p.str();
  }
  {  // NCHW
    Problem p(base, CUDNN_DATA_HALF, false, false, false, rng);
    EXPECT_EQ(dgrad(p), CUDNN_STATUS_NOT_SUPPORTED) << p.str();
  }
  {  // float data under CUDNN_FMA_MATH (the fixture's math type for float in GPU mode): no TF32
    Problem p(base, CUDNN_DATA_FLOAT, true, false, false, rng);
    FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_FMA_MATH));
    EXPECT_EQ(fwd(p), CUDNN_STATUS_NOT_SUPPORTED) << p.str();
  }
  {  // padded (non-packed) NHWC strides
    Problem p(base, CUDNN_DATA_HALF, true, true, false, rng);
    if (p.x.span() != p.x.count() || p.y.span() != p.y.count())
      EXPECT_EQ(dgrad(p), CUDNN_STATUS_NOT_SUPPORTED) << p.str();
  }
  {  // CUDNN_CONVOLUTION (flipped filter)
    Problem p(base, CUDNN_DATA_HALF, true, false, true, rng);
    EXPECT_EQ(fwd(p), CUDNN_STATUS_NOT_SUPPORTED) << p.str();
  }
  {  // groups
    Shape s = base;
    s.g = 2;
    Problem p(s, CUDNN_DATA_HALF, true, false, false, rng);
    EXPECT_EQ(fwd(p), CUDNN_STATUS_NOT_SUPPORTED) << p.str();
  }
  {  // 16-bit dgrad with stride 2 when the stride phases are off
    ft::ScopedEnv off("FREEDNN_SM90_DGRAD16_PHASES", "0");
    Shape s = base;
    s.stride = {2, 2};
    Problem p(s, CUDNN_DATA_HALF, true, false, false, rng);
    EXPECT_EQ(ft_conv::backward_data(h, p, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1, 0), CUDNN_STATUS_NOT_SUPPORTED)
        << p.str();
  }
  {  // an algorithm they do not serve
    Problem p(base, CUDNN_DATA_HALF, true, false, false, rng);
    EXPECT_EQ(ft_conv::forward(h, p, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << p.str();
  }
}

// 16-bit forward with staged operands: NCHW, padded NHWC strides, channel counts off 8 (ResNet's C = 3 stem,
// C = 3 -> 8; K = 6 -> 8; C = 12, K = 20): packed, channel-padded copies in the workspace, the output written back.
TEST(ConvSm90, HalfForwardStagedLayouts) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_fprop");
  ft::ScopedEnv plain("FREEDNN_SM90_S2D", "0");  // the channel-padded copies (SpaceToDepthStemForward: the other way)
  const std::vector<Shape> shapes = {
      {"stem_c3", 2, 3, 64, 1, {32, 32}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},
      {"c3_k6", 2, 3, 6, 1, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"c12_k20", 2, 12, 20, 1, {10, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"res_3x3", 2, 64, 64, 1, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
  };
  int i = 0;
  for (const Shape& s : shapes)
    for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16})
      for (int layout = 0; layout < 3; ++layout) {  // packed NHWC, NCHW, NHWC with padded strides
        Problem p(s, t, layout != 1, layout == 2, false, rng);
        const double beta = ++i % 2 ? 0.0 : 0.5;
        check_forward(h, p, rng, 1.0, beta);
      }
}

// The forward workspace of IMPLICIT_PRECOMP_GEMM (the staged copies).
size_t fwd_workspace(cudnnHandle_t h, const Problem& p) {
  size_t ws = 0;
  EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd,
                                                    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, &ws),
            CUDNN_STATUS_SUCCESS);
  return ws;
}

// Stem-like forwards for space-to-depth: the stem, odd sizes and filters that are not a multiple of the stride
// (z's zero taps), stride 4 over one channel.
std::vector<Shape> stem_like_shapes() {
  return {
      {"stem", 2, 3, 64, 1, {32, 32}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},
      {"stem_odd", 3, 3, 24, 1, {23, 30}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},
      {"c4_3x3", 2, 4, 16, 1, {15, 17}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"c3_5x5", 2, 3, 40, 1, {19, 20}, {5, 5}, {2, 2}, {2, 2}, {1, 1}},
      {"c1_s4", 2, 1, 8, 1, {33, 31}, {8, 8}, {2, 2}, {4, 4}, {1, 1}},
  };
}

// The bytes of the folded space-to-depth copy z of x for shape s: N x (P + ceil(R / st) - 1) x Q x (ceil(S / st) *
// st * st * C rounded up to 8 channels) elements (the derived problem's input; the plain staging of x holds
// N x H x W x 8, 0.6x that for the stem).
size_t s2d_z_bytes(const Shape& s, cudnnDataType_t t) {
  const int st = s.stride[0];
  const int p = (s.in[0] + 2 * s.pad[0] - s.ker[0]) / st + 1, q = (s.in[1] + 2 * s.pad[1] - s.ker[1]) / st + 1;
  const int u = p + (s.ker[0] + st - 1) / st - 1, cz = ((s.ker[1] + st - 1) / st * st * st * s.c + 7) / 8 * 8;
  return static_cast<size_t>(s.n) * u * q * cz * (t == CUDNN_DATA_FLOAT ? 4 : 2);
}

// Stem-like forwards (stride s >= 2, s * s * C <= 16) through folded space-to-depth copies (the default;
// FREEDNN_SM90_S2D=0 stages plain channel-padded copies instead): x -> z of ceil(S / s) * s * s * C channels, a
// ceil(R / s) x 1 filter; stem_like_shapes; packed NHWC, NCHW
// and padded NHWC x / y (the padded layout added after run 13), f16 and bf16, alpha/beta. The workspace holds z
// (run 13 compared it with the plain staging's instead: the 32x32 stem's happened to be equal byte for byte).
TEST(ConvSm90, SpaceToDepthStemForward) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_fprop");
  const std::vector<Shape> shapes = stem_like_shapes();
  int i = 0;
  for (const Shape& s : shapes)
    for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16})
      for (int layout = 0; layout < 3; ++layout) {  // packed NHWC, NCHW, NHWC with padded strides
        Problem p(s, t, layout != 1, layout == 2, false, rng);
        ft::ScopedEnv on("FREEDNN_SM90_S2D", "1");
        EXPECT_GE(fwd_workspace(h, p), s2d_z_bytes(s, t)) << "the workspace must hold z: " << p.str();
        const double alpha = i % 2 ? 0.75 : 1.0, beta = i % 3 == 1 ? 0.5 : 0.0;
        ++i;
        check_forward(h, p, rng, alpha, beta);
      }
}

// ---- float data on TF32 tensor cores (forward only) ----------------------------------------------------------

// TF32 products keep 10 mantissa bits (the tensor cores read the operands' top 19 bits): the same bound as the sm80
// TF32 tests (conv_gpu_cutlass_test.cpp), relative to the largest reference magnitude.
constexpr double kTf32Tol = 5e-3;

// A float problem with TF32 allowed by the math type (the fixture sets CUDNN_FMA_MATH for float in GPU mode).
struct Tf32Problem : Problem {
  Tf32Problem(const Shape& s, bool nhwc, bool padded, std::mt19937_64& rng, cudnnMathType_t math = CUDNN_DEFAULT_MATH)
      : Problem(s, CUDNN_DATA_FLOAT, nhwc, padded, false, rng) {
    EXPECT_EQ(cudnnSetConvolutionMathType(cd, math), CUDNN_STATUS_SUCCESS);
  }
};

void check_tf32_forward(cudnnHandle_t h, Problem& p, std::mt19937_64& rng, double alpha, double beta) {
  check_forward(h, p, rng, alpha, beta, kTf32Tol);
}

// check(p, i) on an NCHW TF32 problem of each shape, with the transposing copy's flat tiles on, then off
// (FREEDNN_CHWN_FLAT, read at every call); i counts the checks from 1.
template <class Check>
void each_chwn_flat_setting(const std::vector<Shape>& shapes, std::mt19937_64& rng, Check&& check) {
  int i = 0;
  for (const char* flat : {"1", "0"}) {
    ft::ScopedEnv env("FREEDNN_CHWN_FLAT", flat);
    for (const Shape& s : shapes) {
      SCOPED_TRACE(std::string(s.name) + " FREEDNN_CHWN_FLAT=" + flat);
      Tf32Problem p(s, false, false, rng);
      check(p, ++i);
    }
  }
}

// The 16-bit forward on the grouped persistent kernel (the default, sm90_grouped.h): both tiles (K <= 64: 128x64),
// random ResNet-like layers, blending and not, and layers of more tiles than an H200 has SMs (132), so that CTAs
// walk several tiles and their pipelines run on across tiles (k136_many blends: run 21 hung there before every
// tile's epilogue ended with store_tail). Then the same layers on the non-persistent kernels
// (FREEDNN_SM90_PERSISTENT=0).
TEST(ConvSm90, PersistentForward) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_fprop");
  std::vector<Shape> shapes = {
      {"k64_many", 6, 8, 64, 1, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},      // 147 tiles of 128x64
      {"k136_many", 8, 16, 136, 1, {56, 56}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},   // 392 tiles of 128x128
      {"k72_s2", 3, 24, 72, 1, {29, 31}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
  };
  for (int j = 0; j < 3; ++j) shapes.push_back(random_layer(rng, false));
  int i = 0;
  for (const char* persistent : {"1", "0"}) {
    ft::ScopedEnv env("FREEDNN_SM90_PERSISTENT", persistent);
    for (const Shape& s : shapes) {
      SCOPED_TRACE(std::string(s.name) + " FREEDNN_SM90_PERSISTENT=" + persistent);
      const bool blend = ++i % 2 == 0;
      Problem p(s, i % 3 == 0 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF, true, false, false, rng);
      check_forward(h, p, rng, blend ? 0.5 : 1.0, blend ? 0.75 : 0.0);
    }
  }
}

// PingPongGrouped's cases under the caller's FREEDNN_SM90_PINGPONG.
static void check_grouped_forms() {
  ft::Handle h;
  auto rng = ft::make_rng();
  int i = 0;
  {
    OnlyImpl only("cuda:cutlass_sm90_fprop");
    const std::vector<Shape> fwd = {
        {"one_tile", 1, 32, 72, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
        {"two_tiles", 1, 24, 136, 1, {8, 16}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
        {"k136_many", 8, 16, 136, 1, {56, 56}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},  // 392 tiles
        {"k256_s2", 4, 64, 256, 1, {29, 31}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
        {"k72_3x3", 3, 24, 72, 1, {29, 31}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    };
    for (const Shape& s : fwd)
      for (bool blend : {false, true}) {
        SCOPED_TRACE(std::string("pingpong fwd ") + s.name + (blend ? " blend" : ""));
        Problem p(s, ++i % 2 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF, true, false, false, rng);
        check_forward(h, p, rng, blend ? 0.5 : 1.0, blend ? 0.75 : 0.0);
      }
  }
  OnlySm90 only;
  const std::vector<Shape> dgrad = {
      {"3x3s2_c128_odd", 3, 128, 96, 1, {13, 15}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"3x3s2_c72_k16_n8", 8, 72, 16, 1, {56, 56}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"3x3s2d21_c72", 2, 72, 24, 1, {15, 14}, {3, 3}, {2, 1}, {2, 2}, {2, 1}},
      {"1x1s2_many", 16, 136, 64, 1, {60, 58}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
  };
  for (const Shape& s : dgrad)
    for (bool blend : {false, true}) {
      SCOPED_TRACE(std::string("pingpong dgrad ") + s.name + (blend ? " blend" : ""));
      Problem p(s, ++i % 2 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF, true, false, false, rng);
      check_backward_data(h, p, rng, blend ? 0.75 : 1.0, blend ? -0.5 : 0.0);
    }
}

// The grouped persistent kernel's two forms: two consumer warp groups taking the CTA's tiles in turn (the default)
// and one (FREEDNN_SM90_PINGPONG=0): forwards of one tile (the second consumer idle), two, and many per CTA, and
// the 16-bit dgrad's stride phases (grouped, and one live phase beside the pass over the empty ones); blending
// (the source loads, whose buffers the consumers share) and not.
TEST(ConvSm90, PingPongGrouped) {
  SKIP_UNLESS_HOPPER();
  for (const char* form : {"1", "0"}) {
    SCOPED_TRACE(std::string("FREEDNN_SM90_PINGPONG=") + form);
    ft::ScopedEnv pingpong("FREEDNN_SM90_PINGPONG", form);
    check_grouped_forms();
  }
  // and the tiles in m-fastest order (FREEDNN_SM90_RASTER_N=0; n fastest is the default)
  ft::ScopedEnv raster("FREEDNN_SM90_RASTER_N", "0");
  SCOPED_TRACE("FREEDNN_SM90_RASTER_N=0");
  check_grouped_forms();
}

// The small tiles (K forward, C backward data <= 64) with the pipeline as deep as shared memory holds
// (FREEDNN_SM90_STAGES=0; the default is 4 stages, two CTAs per SM, which the other tests run): 16-bit forward and
// backward data, and TF32 forward, the stride-phase dgrad and the transposed wgrad (they run the forward kernels).
// Enough M tiles for several per SM; blending and not.
TEST(ConvSm90, DeepPipelineSmallTiles) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlySm90 only;
  ft::ScopedEnv deepest("FREEDNN_SM90_STAGES", "0");
  const std::vector<Shape> small = {
      {"c64k64", 4, 64, 64, 1, {28, 28}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"c48k32", 3, 48, 32, 1, {17, 23}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"c64k16_1x1", 4, 64, 16, 1, {30, 30}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"c16k64_s2", 2, 16, 64, 1, {33, 33}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},  // 16-bit: forward only (stride 2)
  };
  int i = 0;
  for (const Shape& s : small)
    for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
      const bool blend = ++i % 2 == 0;
      Problem p(s, t, true, false, false, rng);
      check_forward(h, p, rng, blend ? 0.75 : 1.0, blend ? -0.5 : 0.0);
      if (s.stride[0] == 1) check_backward_data(h, p, rng, blend ? 1.0 : 0.5, blend ? 0.25 : 0.0);
    }
  for (const Shape& s : {small[0], small[3]}) {
    Tf32Problem p(s, true, false, rng);
    const bool blend = ++i % 2 == 0;
    check_forward(h, p, rng, 1.0, blend ? 0.5 : 0.0, kTf32Tol);
    check_backward_data(h, p, rng, 1.0, blend ? -0.5 : 0.0, kTf32Tol);
    check_backward_filter(h, p, rng, 1.0, 0.0, kTf32Tol);
  }
}


// Packed NHWC float operands go to the kernel directly; NCHW ones are staged (workspace > 0). alpha/beta blending.
TEST(ConvSm90, Tf32ForwardRandomLayers) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_fprop");
  for (int i = 0; i < 6; ++i) {
    const bool nhwc = i % 2 == 0;
    const double alpha = i % 3 == 1 ? 0.75 : 1.0, beta = i % 3 == 1 ? -0.5 : i % 3 == 2 ? 1.0 : 0.0;
    Tf32Problem p(random_layer(rng, false), nhwc, false, rng);
    if (!nhwc) EXPECT_GT(fwd_workspace(h, p), 0u) << p.str();  // x, w and y staged
    check_tf32_forward(h, p, rng, alpha, beta);
  }
}

// Float data (TF32) on the grouped persistent kernel (the default for 128x128 tiles) and on the non-persistent
// kernels (FREEDNN_SM90_TF32_PERSISTENT=0): forwards with K > 64 (NHWC, and NCHW through the staged copies; more
// tiles than an H200 has SMs), and the dgrad's single live phase (unit stride, written straight into NHWC dx or
// staged for NCHW; a 1x1 stride-2 filter beside its empty phases); blending and not.
static void check_tf32_persistent_forms();
TEST(ConvSm90, Tf32Persistent) {
  SKIP_UNLESS_HOPPER();
  for (const char* form : {"1", "0"}) {
    SCOPED_TRACE(std::string("FREEDNN_SM90_TF32_PERSISTENT=") + form);
    ft::ScopedEnv env("FREEDNN_SM90_TF32_PERSISTENT", form);
    check_tf32_persistent_forms();
  }
}

static void check_tf32_persistent_forms() {
  ft::Handle h;
  auto rng = ft::make_rng();
  int i = 0;
  // Each shape in NHWC and NCHW, the blending cycling through (1, 0), (0.75, -0.5), (1, 1).
  const auto each_layout = [&](const std::vector<Shape>& shapes, const char* what, const auto& check) {
    for (const Shape& s : shapes)
      for (bool nhwc : {true, false}) {
        SCOPED_TRACE(std::string(what) + s.name + (nhwc ? " nhwc" : " nchw"));
        const double alpha = i % 3 == 1 ? 0.75 : 1.0, beta = i % 3 == 1 ? -0.5 : i % 3 == 2 ? 1.0 : 0.0;
        ++i;
        Tf32Problem p(s, nhwc, false, rng);
        check(p, alpha, beta);
      }
  };
  {
    OnlyImpl only("cuda:cutlass_sm90_fprop");
    const std::vector<Shape> fwd = {
        {"k72", 3, 40, 72, 1, {8, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
        {"k136_many", 6, 16, 136, 1, {56, 56}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},  // 147 x 2 tiles
        {"k128_s2", 3, 64, 128, 1, {29, 31}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
    };
    each_layout(fwd, "tf32 persistent fwd ",
                [&](Problem& p, double alpha, double beta) { check_tf32_forward(h, p, rng, alpha, beta); });
  }
  OnlyImpl only("cuda:cutlass_sm90_dgrad");
  const std::vector<Shape> dgrad = {
      {"3x3_c136_many", 6, 136, 24, 1, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"1x1_c72", 3, 72, 40, 1, {13, 11}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"1x1s2_k136", 2, 136, 64, 1, {14, 13}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
  };
  each_layout(dgrad, "tf32 persistent dgrad ", [&](Problem& p, double alpha, double beta) {
    check_backward_data(h, p, rng, alpha, beta, kTf32Tol);
  });
}

// Strided 1x1 forwards with a staged x: only the pixels the filter reads are copied and the kernel runs at stride 1
// (FREEDNN_SM90_SUBSAMPLE, read at every call; on by default; 0: all of x copied, the kernel strides): stride 2 on
// odd and even sizes, stride 3 x 2, K above and below 64, float (TF32) and half, NCHW and padded NHWC, blending.
// The workspace shrinks with the copy.
TEST(ConvSm90, SubsampledStridedOneByOne) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_fprop");
  const std::vector<Shape> shapes = {
      {"1x1s2_k136", 3, 40, 136, 1, {13, 14}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      {"1x1s2_k64", 2, 72, 64, 1, {28, 28}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      {"1x1s3x2_k24", 2, 16, 24, 1, {17, 11}, {1, 1}, {0, 0}, {3, 2}, {1, 1}},
  };
  int i = 0;
  for (const Shape& s : shapes)
    for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF})
      for (int layout = 1; layout < 3; ++layout) {  // NCHW, NHWC with padded strides
        size_t ws[2] = {0, 0};
        // One problem (one draw of strides) for both forms: y's random strides may come out packed in one draw and
        // not in the other, and y's copy outweighs what subsampling x saves (run 39: 1x1s2_k136 f16, 52224 > 44032).
        Problem p(s, t, layout == 2, layout == 2, false, rng);
        if (t == CUDNN_DATA_FLOAT)
          EXPECT_EQ(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH), CUDNN_STATUS_SUCCESS);
        const bool x_staged = layout == 1 || p.x.span() != p.x.count();  // a packed NHWC x is read in place
        for (const char* form : {"1", "0"}) {
          SCOPED_TRACE(std::string("FREEDNN_SM90_SUBSAMPLE=") + form + " " + s.name + " " +
                       (t == CUDNN_DATA_FLOAT ? "tf32" : "f16") + (layout == 1 ? " nchw" : " padded"));
          ft::ScopedEnv env("FREEDNN_SM90_SUBSAMPLE", form);
          ws[form[0] - '0'] = fwd_workspace(h, p);
          const double alpha = i % 2 ? 0.75 : 1.0, beta = i % 3 == 2 ? -0.5 : 0.0;
          ++i;
          check_forward(h, p, rng, alpha, beta, t == CUDNN_DATA_FLOAT ? kTf32Tol : 0);
        }
        if (x_staged) EXPECT_LT(ws[1], ws[0]) << s.name << ": the subsampled copy of x is smaller";
      }
}

// Fixed shapes: ResNet-50 3x3 layers (small N), tile edges (K 64 / 72), and what goes through the staged copies:
// NCHW, padded NHWC strides, channel counts off 4 (C = 3 -> 4, K = 6 -> 8; C = 5, K = 12 in NCHW).
TEST(ConvSm90, Tf32ForwardShapesAndLayouts) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_fprop");
  ft::ScopedEnv plain("FREEDNN_SM90_S2D", "0");  // stem_c3 through the channel-padded copies
  const std::vector<Shape> shapes = {
      {"res2_3x3", 2, 64, 64, 1, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"res3_3x3", 2, 128, 128, 1, {10, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"k72", 3, 72, 72, 1, {8, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"3x3s2", 2, 64, 32, 1, {15, 16}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"dilated", 2, 32, 40, 1, {12, 12}, {3, 3}, {2, 2}, {1, 1}, {2, 2}},
      {"stem_c3", 2, 3, 64, 1, {32, 32}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},
      {"c3_k6", 2, 3, 6, 1, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"c5_k12", 2, 5, 12, 1, {10, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      // 5 x 5 and 7 x 7 outputs: the write-back's scalar stores (planes not a multiple of 4 pixels), channel tiles
      // of 64 with a partial last one
      {"5x5_k130", 2, 16, 130, 1, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"7x7_k80", 3, 48, 80, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
  };
  int i = 0;
  for (const Shape& s : shapes) {
    const double beta = i % 2 ? 0.5 : 0.0;
    for (int layout = 0; layout < 3; ++layout) {  // packed NHWC, NCHW, NHWC with padded strides
      Tf32Problem p(s, layout != 1, layout == 2, rng);
      check_tf32_forward(h, p, rng, 1.0, beta);
    }
    ++i;
  }
}

// The TF32 forward's staged KCRS filter in flat tiles of as many rows of C as a tile holds (448 of a 3x3 filter's
// 9 taps, spread evenly: C = 600 takes two tiles of 320 rows, the second partial; a 5x5 filter's 25; a 1x1 filter's
// single tap in one tile of every row, its K = 6 padded to 8 with zero rows: an unpadded 1x1 filter is read as it
// is), and x's planes beside it (x of the stride-2 1x1 is its subsampled view, on the 32 x 32 tiles);
// FREEDNN_CHWN_FLAT=0 (read at every call) keeps both on the 32 x 32 tiles.
TEST(ConvSm90, Tf32ForwardFlatChwnCopy) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_fprop");
  const std::vector<Shape> shapes = {
      {"c600_3x3", 2, 600, 16, 1, {6, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"c72_5x5f", 2, 72, 40, 1, {7, 7}, {5, 5}, {2, 2}, {1, 1}, {1, 1}},
      {"c40_1x1_k6", 3, 40, 6, 1, {7, 7}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"c1000_1x1s2_k6", 2, 1000, 6, 1, {6, 6}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
  };
  each_chwn_flat_setting(shapes, rng,
                         [&](Tf32Problem& p, int i) { check_tf32_forward(h, p, rng, 1.0, i % 2 ? 0.5 : 0.0); });
}

// The same space-to-depth forwards with float data on TF32 tensor cores (z's channels padded to multiples of 4).
TEST(ConvSm90, Tf32SpaceToDepthStemForward) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_fprop");
  ft::ScopedEnv on("FREEDNN_SM90_S2D", "1");
  int i = 0;
  for (const Shape& s : stem_like_shapes())
    for (bool nhwc : {true, false}) {
      Tf32Problem p(s, nhwc, false, rng);
      check_tf32_forward(h, p, rng, 1.0, ++i % 2 ? 0.0 : -0.5);
    }
}

// cudnnConvolutionBiasActivationForward with float data: packed NHWC y (z in the kernel's epilogue, z aliasing y),
// NCHW y (computed into the workspace, bias/z/ReLU in the write-back), K off 4 with NHWC y (staged as well).
TEST(ConvSm90, Tf32FusedBiasActivation) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_fprop");
  const Shape s{"3x3", 2, 32, 48, 1, {10, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  const Shape odd{"c3_k6", 2, 3, 6, 1, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  const int algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  const Shape small{"7x7_k80", 2, 24, 80, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};  // 49-pixel planes
  for (bool z_is_y : {false, true}) {
    Tf32Problem nhwc(s, true, false, rng);
    ft_conv_check::check_fused(h, nhwc, algo, rng, z_is_y, kTf32Tol, "sm90 tf32 nhwc");
    Tf32Problem nchw(s, false, false, rng);
    ft_conv_check::check_fused(h, nchw, algo, rng, z_is_y, kTf32Tol, "sm90 tf32 nchw");
    Tf32Problem nchw7(small, false, false, rng);
    ft_conv_check::check_fused(h, nchw7, algo, rng, z_is_y, kTf32Tol, "sm90 tf32 nchw 7x7");
  }
  Tf32Problem p(odd, true, false, rng);
  ft_conv_check::check_fused(h, p, algo, rng, false, kTf32Tol, "sm90 tf32 padded K");
}

// Sets NVIDIA_TF32_OVERRIDE for a scope and restores the previous value.
struct Tf32Override {
  std::optional<std::string> old;
  explicit Tf32Override(const char* v) {
    if (const char* e = std::getenv("NVIDIA_TF32_OVERRIDE")) old = e;
    setenv("NVIDIA_TF32_OVERRIDE", v, 1);
  }
  ~Tf32Override() {
    if (old)
      setenv("NVIDIA_TF32_OVERRIDE", old->c_str(), 1);
    else
      unsetenv("NVIDIA_TF32_OVERRIDE");
  }
};

// No TF32 where cuDNN allows none: CUDNN_FMA_MATH, NVIDIA_TF32_OVERRIDE=0 (the float dgrad and wgrad are tested
// below). Forced, the implementation declines (NOT_SUPPORTED); TENSOR_OP_MATH and DEFAULT_MATH run.
TEST(ConvSm90, Tf32DeclinesWithoutTf32) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlySm90 only;
  const Shape s{"3x3", 2, 32, 32, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  const int algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  for (bool nhwc : {true, false}) {
    Tf32Problem fma(s, nhwc, false, rng, CUDNN_FMA_MATH);
    EXPECT_EQ(ft_conv::forward(h, fma, algo, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << "FMA_MATH " << fma.str();
    Tf32Problem p(s, nhwc, false, rng, CUDNN_TENSOR_OP_MATH);
    {
      Tf32Override off("0");
      EXPECT_EQ(ft_conv::forward(h, p, algo, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << "TF32 override 0 " << p.str();
    }
    {
      Tf32Override on("1");  // anything but "0" leaves TF32 allowed
      check_tf32_forward(h, p, rng, 1.0, 0.0);
    }
  }
}

// ---- float backward data on TF32 tensor cores (dgrad_tf32.h) -------------------------------------------------

// The float dgrad runs as one forward per stride phase over dy in NHWC and the phase's sub-filter: ResNet's 3x3 and
// 1x1 layers at stride 1 and 2 (1x1 stride 2: three phases without a tap, zeros in dx), odd sizes (phases of
// unequal size), the stem (7x7 stride 2, C = 3 padded to 4, a window below dy's last row), dilation at stride 1
// and 2 (stride 2 with dilation 2: a phase no tap reaches), stride 3, C and K off 4, both kernels (C <= 64:
// 128x64), CUDNN_CONVOLUTION mode (the sub-filters flipped), packed NHWC (stride 1: the kernel writes dx itself),
// NCHW and padded strides, alpha/beta. The 128x128 phases run in one grouped persistent launch (the default;
// 3x3s2_c136_many has 200 tiles, so some CTAs of an H200 take two), and as separate launches with
// FREEDNN_SM90_PHASES_GROUPED=0.
TEST(ConvSm90, Tf32DgradShapesAndLayouts) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_dgrad");
  const std::vector<Shape> shapes = {
      {"res2_3x3", 2, 64, 64, 1, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"3x3s2_c72", 3, 72, 40, 1, {16, 15}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"1x1s2_k136", 2, 136, 64, 1, {14, 13}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      {"1x1_c5_k6", 3, 5, 6, 1, {7, 9}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"stem_c3", 2, 3, 64, 1, {32, 30}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},
      {"dilated", 2, 32, 40, 1, {12, 12}, {3, 3}, {2, 2}, {1, 1}, {2, 2}},
      {"s2_dil2", 2, 16, 24, 1, {13, 12}, {3, 3}, {2, 2}, {2, 2}, {2, 2}},
      {"s3_k4", 2, 24, 16, 1, {17, 16}, {4, 4}, {1, 1}, {3, 3}, {1, 1}},
      {"3x3s2_c136_many", 4, 136, 24, 1, {56, 56}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
  };
  int i = 0;
  for (const Shape& s : shapes) {
    for (int layout = 0; layout < 3; ++layout) {  // packed NHWC, NCHW, NHWC with padded strides
      Tf32Problem p(s, layout != 1, layout == 2, rng);
      const double alpha = i % 3 == 1 ? 0.75 : 1.0, beta = i % 3 == 1 ? -0.5 : i % 3 == 2 ? 1.0 : 0.0;
      ++i;
      check_backward_data(h, p, rng, alpha, beta, kTf32Tol);
    }
  }
  {
    ft::ScopedEnv separate("FREEDNN_SM90_PHASES_GROUPED", "0");
    for (const Shape& s : {shapes[1], shapes[8]}) {
      SCOPED_TRACE(std::string("separate launches ") + s.name);
      Tf32Problem p(s, false, false, rng);
      check_backward_data(h, p, rng, 0.75, ++i % 2 ? 0.5 : 0.0, kTf32Tol);
    }
  }
  for (const Shape& s : {shapes[1], shapes[4]}) {  // CUDNN_CONVOLUTION
    Problem p(s, CUDNN_DATA_FLOAT, false, false, true, rng);
    FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
    check_backward_data(h, p, rng, 1.0, 0.0, kTf32Tol);
  }
}

// The TF32 dgrad's copy of NCHW dy to NHWC in flat plane tiles (the default; FREEDNN_CHWN_FLAT=0, read at every
// call, the 32 x 32 tiles: both run): planes of 49, 25 and 30 elements (not a multiple of 4: one run of 16-byte
// vectors over the tile's adjacent planes), K over one and two tiles of 32 (the second partial), stride 1 and 2, a
// 3x3 filter, blends; K not a multiple of 4 on odd planes keeps the 32 x 32 tiles.
TEST(ConvSm90, Tf32DgradFlatChwnCopy) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_dgrad");
  const std::vector<Shape> shapes = {
      {"1x1_7x7_k136", 2, 64, 136, 1, {7, 7}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"1x1s2_7x7_k40", 2, 24, 40, 1, {14, 13}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      {"3x3_5x5_k36", 3, 16, 36, 1, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"1x1_5x6_k34", 2, 8, 34, 1, {5, 6}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"1x1_7x7_k38", 2, 16, 38, 1, {7, 7}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},  // K % 4 != 0: 32 x 32 tiles
  };
  each_chwn_flat_setting(shapes, rng, [&](Tf32Problem& p, int i) {
    const bool blend = i % 2 == 0;
    check_backward_data(h, p, rng, blend ? 0.75 : 1.0, blend ? -0.5 : 0.0, kTf32Tol);
  });
}

// Every dx element is summed by one CTA in a fixed order: two runs give the same bits (stride 2: four phases on
// the aux streams; stride 1 NCHW: one phase and the write-back pass). Under CUDA graph capture too.
TEST(ConvSm90, Tf32DgradDeterministic) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_dgrad");
  for (const Shape& s : {Shape{"3x3s2", 4, 64, 128, 1, {14, 14}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
                         Shape{"3x3", 2, 96, 64, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}}) {
    Tf32Problem p(s, false, false, rng);
    p.y.fill_uniform(rng, -1, 1);
    p.w.fill_uniform(rng, -1, 1);
    p.x.poison();
    ASSERT_EQ(ft_conv::backward_data(h, p, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1.0, 0.0), CUDNN_STATUS_SUCCESS);
    const std::vector<double> first = p.x.values();
    p.x.poison();
    ASSERT_EQ(ft_conv::backward_data(h, p, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1.0, 0.0), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(p.x.values(), first) << "two runs differ: " << p.str();
  }
}

#ifdef FT_WITH_CUDA
// The four phases of a stride-2 dgrad on the aux streams, captured from a user stream into a CUDA graph (the
// workspace query made the streams first) and replayed: the reference, blended with alpha / beta.
TEST(ConvSm90, Tf32DgradGraphCapture) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_dgrad");
  const Shape s{"3x3s2", 3, 40, 64, 1, {14, 13}, {3, 3}, {1, 1}, {2, 2}, {1, 1}};
  Tf32Problem p(s, false, false, rng);
  p.y.fill_uniform(rng, -1, 1);
  p.w.fill_uniform(rng, -1, 1);
  p.x.fill_uniform(rng, -1, 1);
  const std::vector<double> prior = p.x.values();
  size_t ws = 0;
  FT_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.wd, p.yd, p.cd, p.xd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
                                                     &ws));
  ASSERT_GT(ws, 0u);
  ft::Bytes buf(ws);
  const float alpha = 0.5f, beta = 0.25f;
  replay_captured(h, [&] {
    return cudnnConvolutionBackwardData(h, &alpha, p.wd, p.w.data(), p.yd, p.y.data(), p.cd,
                                        CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, buf.data(), ws, &beta, p.xd, p.x.data());
  });
  const auto r = ref::conv_backward_data(as_ref(p.y), as_ref(p.w), p.xdims, p.params);
  EXPECT_TRUE(ft::near(p.x.values(), ref::blend(r.v, prior, alpha, beta), kTf32Tol, "graph " + p.str()));
}
#endif

// Declined (forced: NOT_SUPPORTED): CUDNN_FMA_MATH, NVIDIA_TF32_OVERRIDE=0, FREEDNN_SM90_DGRAD_NO_TF32=1 (then the
// sm80 TF32 kernels serve ALGO_1), and a phase that would read a window of dy's columns (a 1x1 filter with padding
// 1: its one tap reads dy from column 1).
TEST(ConvSm90, Tf32DgradDeclines) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  const int algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
  const Shape s{"3x3", 2, 32, 32, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  {
    OnlyImpl only("cuda:cutlass_sm90_dgrad");
    for (bool nhwc : {true, false}) {
      Tf32Problem fma(s, nhwc, false, rng, CUDNN_FMA_MATH);
      EXPECT_EQ(ft_conv::backward_data(h, fma, algo, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << "FMA_MATH " << fma.str();
      Tf32Problem p(s, nhwc, false, rng, CUDNN_TENSOR_OP_MATH);
      {
        Tf32Override off("0");
        EXPECT_EQ(ft_conv::backward_data(h, p, algo, 1, 0), CUDNN_STATUS_NOT_SUPPORTED)
            << "TF32 override 0 " << p.str();
      }
      {
        ft::ScopedEnv knob("FREEDNN_SM90_DGRAD_NO_TF32", "1");
        EXPECT_EQ(ft_conv::backward_data(h, p, algo, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << "NO_TF32 " << p.str();
      }
      {
        Tf32Override on("1");
        check_backward_data(h, p, rng, 1.0, 0.0, kTf32Tol);
      }
    }
    const Shape pad1{"1x1_pad1", 2, 8, 8, 1, {6, 6}, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
    Tf32Problem p(pad1, false, false, rng);
    EXPECT_EQ(ft_conv::backward_data(h, p, algo, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << p.str();
  }
  OnlyImpl only("cuda:cutlass_sm");  // the knob hands float to the sm80 kernels
  ft::ScopedEnv knob("FREEDNN_SM90_DGRAD_NO_TF32", "1");
  Tf32Problem p(s, false, false, rng);
  check_backward_data(h, p, rng, 1.0, 0.0, kTf32Tol);
}

// ---- float backward filter on TF32 tensor cores (wgrad_tf32.h) ----------------------------------------------

// The float wgrad runs as a forward over transposed copies of x and dy, in slices of dy's rows: x / dy in packed
// NHWC, NCHW and padded strides (the copies read any layout), KRSC and KCRS filters (the finish pass writes either),
// N and K off 4 (zero padding), stride 2 with rows and columns the forward never reads (cropped), stride 3 over a
// 2x2 filter, dilation, 1x1,
// both kernels (K <= 64: 128x64, else 128x128 in clusters of 2), alpha/beta. The copies mean a workspace always.
TEST(ConvSm90, Tf32WgradShapesAndLayouts) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_wgrad");
  const std::vector<Shape> shapes = {
      {"res2_3x3", 2, 64, 64, 1, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"3x3s2_k70", 3, 32, 70, 1, {15, 16}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"1x1_k136", 4, 48, 136, 1, {7, 7}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"1x1s2_crop", 2, 16, 24, 1, {10, 11}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
      {"dilated_n5", 5, 8, 12, 1, {12, 12}, {3, 3}, {2, 2}, {1, 1}, {2, 2}},
      {"stem_c3_k6", 3, 3, 6, 1, {32, 30}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},
      {"stride3_k2", 2, 8, 12, 1, {9, 10}, {2, 2}, {0, 1}, {3, 3}, {1, 1}},  // rows between the windows unread
  };
  int i = 0;
  for (const Shape& s : shapes) {
    for (int layout = 0; layout < 3; ++layout) {  // packed NHWC, NCHW, NHWC with padded strides
      Tf32Problem p(s, layout != 1, layout == 2, rng);
      EXPECT_GT(bwd_filter_workspace(h, p), 0u) << p.str();
      const double alpha = i % 3 == 1 ? 0.75 : 1.0, beta = i % 3 == 1 ? -0.5 : i % 3 == 2 ? 1.0 : 0.0;
      ++i;
      check_backward_filter(h, p, rng, alpha, beta, kTf32Tol);
    }
  }
}

// Slices of dy's rows: forced counts (uneven rows, one row each, more than P asked: clamped), one slice
// (FREEDNN_SM90_WGRAD_NO_SPLIT), alpha/beta; a second run with beta = 0 is bitwise the same (fixed-order sums).
TEST(ConvSm90, Tf32WgradSlicesForced) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  struct Case {
    Shape s;
    const char* splits;  // nullptr: FREEDNN_SM90_WGRAD_NO_SPLIT=1
  };
  const std::vector<Case> cases = {
      {{"p10_s3", 2, 16, 64, 1, {10, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, "3"},     // rows 3, 3, 4
      {{"p5_each", 3, 24, 72, 1, {10, 10}, {3, 3}, {1, 1}, {2, 2}, {1, 1}}, "5"},   // one row per slice
      {{"p4_clamped", 2, 8, 16, 1, {4, 6}, {1, 1}, {0, 0}, {1, 1}, {1, 1}}, "9"},   // 9 asked, 4 rows
      {{"one_slice", 4, 32, 40, 1, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, nullptr},
  };
  int i = 0;
  for (const Case& c : cases) {
    OnlyImpl only("cuda:cutlass_sm90_wgrad");
    ft::ScopedEnv splits("FREEDNN_SM90_WGRAD_SPLITS", c.splits);
    ft::ScopedEnv no_split("FREEDNN_SM90_WGRAD_NO_SPLIT", c.splits ? nullptr : "1");
    for (bool nhwc : {true, false}) {
      Tf32Problem p(c.s, nhwc, false, rng);
      const double alpha = i % 2 ? 0.75 : 1.0, beta = i % 2 ? -0.5 : 0.0;
      ++i;
      check_backward_filter(h, p, rng, alpha, beta, kTf32Tol);
      p.w.poison();
      ASSERT_EQ(ft_conv::backward_filter(h, p, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, 1.0, 0.0), CUDNN_STATUS_SUCCESS);
      const std::vector<double> first = p.w.values();
      p.w.poison();
      ASSERT_EQ(ft_conv::backward_filter(h, p, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, 1.0, 0.0), CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(p.w.values(), first) << "two runs differ: " << p.str();
    }
  }
}

// A dw of 5 tiles (C*R*S = 576 rows, K = 64) over 28 dy rows: the model splits it (about 7 slices), so the
// workspace holds more partials than with FREEDNN_SM90_WGRAD_NO_SPLIT=1 (one slice); both are right.
TEST(ConvSm90, Tf32WgradSlicesByModel) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_wgrad");
  ft::ScopedEnv splits("FREEDNN_SM90_WGRAD_SPLITS", nullptr);
  const Shape s{"c64k64_28", 8, 64, 64, 1, {28, 28}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  Tf32Problem p(s, false, false, rng);
  size_t one = 0;
  {
    ft::ScopedEnv off("FREEDNN_SM90_WGRAD_NO_SPLIT", "1");
    one = bwd_filter_workspace(h, p);
    check_backward_filter(h, p, rng, 1.0, 0.0, kTf32Tol);
  }
  ft::ScopedEnv on("FREEDNN_SM90_WGRAD_NO_SPLIT", nullptr);
  EXPECT_GT(bwd_filter_workspace(h, p), one) << "expected the model to split " << p.str();
  check_backward_filter(h, p, rng, 0.5, 0.25, kTf32Tol);
}

#ifdef FT_WITH_CUDA
TEST(ConvSm90, Tf32WgradGraphCapture) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_wgrad");
  ft::ScopedEnv splits("FREEDNN_SM90_WGRAD_SPLITS", "3");
  ft::ScopedEnv no_split("FREEDNN_SM90_WGRAD_NO_SPLIT", nullptr);
  const Shape s{"p10_s3", 3, 16, 64, 1, {10, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  Tf32Problem p(s, false, false, rng);
  check_wgrad_graph_capture(h, p, rng, kTf32Tol);
}
#endif

// Declined (forced: NOT_SUPPORTED): CUDNN_FMA_MATH, NVIDIA_TF32_OVERRIDE=0, FREEDNN_SM90_WGRAD_NO_TF32=1 (then the
// sm80 TF32 kernel serves ALGO_1), and a dy row too wide for one TMA im2col run (Q = 150 at stride 2).
TEST(ConvSm90, Tf32WgradDeclines) {
  SKIP_UNLESS_HOPPER();
  ft::Handle h;
  auto rng = ft::make_rng();
  const int algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
  const Shape s{"3x3", 2, 32, 32, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  {
    OnlyImpl only("cuda:cutlass_sm90_wgrad");
    for (bool nhwc : {true, false}) {
      Tf32Problem fma(s, nhwc, false, rng, CUDNN_FMA_MATH);
      EXPECT_EQ(ft_conv::backward_filter(h, fma, algo, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << "FMA_MATH " << fma.str();
      Tf32Problem p(s, nhwc, false, rng, CUDNN_TENSOR_OP_MATH);
      {
        Tf32Override off("0");
        EXPECT_EQ(ft_conv::backward_filter(h, p, algo, 1, 0), CUDNN_STATUS_NOT_SUPPORTED)
            << "TF32 override 0 " << p.str();
      }
      {
        ft::ScopedEnv knob("FREEDNN_SM90_WGRAD_NO_TF32", "1");
        EXPECT_EQ(ft_conv::backward_filter(h, p, algo, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << "NO_TF32 " << p.str();
      }
      {
        Tf32Override on("1");
        check_backward_filter(h, p, rng, 1.0, 0.0, kTf32Tol);
      }
    }
    const Shape wide{"1x1s2_wide", 1, 4, 4, 1, {2, 300}, {1, 1}, {0, 0}, {2, 2}, {1, 1}};
    Tf32Problem p(wide, false, false, rng);
    EXPECT_EQ(ft_conv::backward_filter(h, p, algo, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << p.str();
  }
  OnlyImpl only("cuda:cutlass_sm");  // the knob hands float to the sm80 kernel
  ft::ScopedEnv knob("FREEDNN_SM90_WGRAD_NO_TF32", "1");
  Tf32Problem p(s, false, false, rng);
  check_backward_filter(h, p, rng, 1.0, 0.0, kTf32Tol);
}

}  // namespace
