// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise forced by id (GPU test mode only): random depthwise problems (groups == C == K) with every float
// type, NCHW / NHWC / padded strides, filter sizes 1 to 5, stride 1 and 2, padding, dilation, both convolution
// modes and alpha/beta, the three directions against the double reference; channel counts that take the
// vectorized NHWC kernels; backward filter with many chunks and several tap groups; the fused bias + ReLU
// forward; and the problems it must decline. The fast NHWC path (depthwise_nhwc.cu: f32/f16/bf16, C a multiple of
// 16 bytes, 3x3 / 5x5, stride 1 / 2) gets MobileNet-v2 and EfficientNet-like layers, every padding parity, strip
// tails, fused bias + ReLU and unaligned pointers (which must fall back); backward filter the slice partials and
// the NHWC strip kernel (depthwise_wgrad_strip.cu: long runs, image-crossing runs, odd C, 5x5).
#include <cstring>
#include <string>

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

// A copy of t's bytes at `shift` bytes past an aligned address (device-visible in GPU test mode).
struct Shifted {
  ft::Bytes buf;
  size_t shift = 0;
  Shifted(const ft::HostTensor& t, size_t sh) : buf(t.bytes.size() + 16), shift(sh) {
    ft::sync_device();
    std::memcpy(ptr(), t.bytes.data(), t.bytes.size());
  }
  void* ptr() { return buf.data() + shift; }
  void copy_to(ft::HostTensor& t) {
    ft::sync_device();
    std::memcpy(t.bytes.data(), ptr(), t.bytes.size());
  }
};

// MobileNet-v2's depthwise 3x3 layers (channels, stride; spatial sizes cut down, odd and even), N = 2, every
// float type the fast path takes and both layouts; beta != 0 and convolution mode on some.
TEST(ConvGpuDepthwise, MobileNetV2Layers) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  struct L {
    int c, hw, stride;
  };
  const L layers[] = {{32, 30, 1}, {96, 29, 2}, {144, 15, 1}, {144, 14, 2}, {192, 9, 1},
                      {384, 7, 1}, {576, 14, 2}, {960, 7, 1}};
  int i = 0;
  for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT}) {
    for (bool nhwc : {true, false}) {
      for (const L& l : layers) {
        ++i;
        if (!nhwc && i % 3 != 0) continue;  // NCHW: a third of the layers (the plane kernels)
        Shape s{"mbv2", 2, l.c, l.c, l.c, {l.hw, l.hw + 1}, {3, 3}, {1, 1}, {l.stride, l.stride}, {1, 1}};
        Problem p(s, t, nhwc, false, i % 4 == 0, rng);
        const bool blend = i % 2 == 0;
        ft_conv_check::check_directions(h, p, kAlgos, rng, blend ? 0.5 : 1.0, blend ? -0.75 : 0.0, tol(t), kId);
      }
    }
  }
}

// The column-walk forward (depthwise_fwd_walk.cu, forced by FREEDNN_DW_FWD=walk): MobileNet-v2-like layers at small N in every
// float type (C a multiple of 8 bytes of elements: one channel vector, several, channel groups), stride 1 and 2,
// padding 0 / 1 / 2 with H != W padding, widths split into column segments, convolution mode, alpha / beta; the
// other directions run too (unaffected by the knob); the loads two steps ahead as well. The fused forward must
// decline it and stay right.
TEST(ConvGpuDepthwise, ForwardWalkNhwc) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  ft::ScopedEnv walk("FREEDNN_DW_FWD", "walk");
  ft::ScopedEnv no_tile("FREEDNN_DW_TILE", "0");  // the tile kernel would take the stride-1 forwards
  const Shape shapes[] = {
      {"w1", 2, 32, 32, 32, {30, 31}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"w2", 3, 96, 96, 96, {29, 28}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"w3", 2, 144, 144, 144, {15, 15}, {3, 3}, {0, 2}, {1, 1}, {1, 1}},
      {"w4", 2, 8, 8, 8, {5, 70}, {3, 3}, {2, 1}, {1, 1}, {1, 1}},
      {"w5", 2, 960, 960, 960, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"w6", 3, 4, 4, 4, {11, 9}, {3, 3}, {2, 0}, {2, 2}, {1, 1}},
  };
  int i = 0;
  for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT}) {
    for (const Shape& s : shapes) {
      ++i;
      if (t != CUDNN_DATA_FLOAT && s.c % 4 != 0) continue;  // 16-bit: 4 channels per vector
      Problem p(s, t, true, false, i % 3 == 0, rng);
      const bool blend = i % 2 == 0;
      ft_conv_check::check_directions(h, p, kAlgos, rng, blend ? 0.5 : 1.0, blend ? -0.75 : 0.0, tol(t), kId);
    }
  }
  {  // the loads two steps ahead (FREEDNN_DW_FWD_PREFETCH=2: 192-thread CTAs), odd segment lengths included
    ft::ScopedEnv ahead("FREEDNN_DW_FWD_PREFETCH", "2");
    for (const Shape& s : {shapes[1], shapes[3], shapes[4]}) {
      Problem p(s, CUDNN_DATA_HALF, true, false, false, rng);
      ft_conv_check::check_directions(h, p, kAlgos, rng, 1.0, 0.0, tol(CUDNN_DATA_HALF), kId);
    }
  }
  for (bool z_is_y : {false, true}) {
    Problem p(shapes[0], CUDNN_DATA_HALF, true, false, false, rng);
    ft_conv_check::check_fused(h, p, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, rng, z_is_y,
                               tol(CUDNN_DATA_HALF) * 2, kId);
  }
}

// The stride-1 shared-memory tile kernel (depthwise_tile_s1.cu, the default, FREEDNN_DW_TILE=1), forward and backward
// data: every float type, one channel vector to 16 per block (C = 960 f16: 15 chunks; C = 40 f32: 20 vectors in
// chunks of 10), padding 0 / 1 / 2 and H != W padding (backward data: padding 2 - p), tile edges in both dims,
// convolution mode, alpha / beta.
// Every direction of each shape in f16, bf16 and f32: convolution mode on every third, alpha / beta blends on every
// second; the staging in turn: TMA loads (the default on sm_90) on two of every four, cp.async with the old and the
// lean staging (FREEDNN_DW_TILE_TMA=0, FREEDNN_DW_TILE_LEAN=0 / 1) on one each (the tile tests' sweep).
template <size_t N>
void check_tile_shapes(const Shape (&shapes)[N]) {
  ft::Handle h;
  auto rng = ft::make_rng();
  int i = 0;
  for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT}) {
    for (const Shape& s : shapes) {
      ++i;
      if (!ft::take_case()) continue;
      const char* tma_on = i % 4 < 2 ? "1" : "0";
      ft::ScopedEnv tma("FREEDNN_DW_TILE_TMA", tma_on), tma_w("FREEDNN_DW_WGRAD_TILE_TMA", tma_on);
      ft::ScopedEnv staging("FREEDNN_DW_TILE_LEAN", i % 4 == 3 ? "1" : "0");
      Problem p(s, t, true, false, i % 3 == 0, rng);
      const bool blend = i % 2 == 0;
      ft_conv_check::check_directions(h, p, kAlgos, rng, blend ? 0.5 : 1.0, blend ? -0.75 : 0.0, tol(t), kId);
    }
  }
}

TEST(ConvGpuDepthwise, TileStride1Nhwc) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  OnlyImpl only(kId);
  ft::ScopedEnv tile("FREEDNN_DW_TILE", "1");
  const Shape shapes[] = {
      {"t1", 2, 144, 144, 144, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"t2", 3, 8, 8, 8, {13, 21}, {3, 3}, {0, 2}, {1, 1}, {1, 1}},
      {"t3", 2, 960, 960, 960, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"t4", 2, 40, 40, 40, {9, 17}, {3, 3}, {2, 0}, {1, 1}, {1, 1}},
      {"t5", 1, 32, 32, 32, {3, 2}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
  };
  check_tile_shapes(shapes);
}

// The tile kernel at stride 2 (forward only; forced by FREEDNN_DW_TILE_S2=1 here, whatever the plane): 8 x 8 output
// tiles from 17 x 17 source pixels, the same types, channel splits, paddings and edges as above (the backward
// directions run the other kernels).
TEST(ConvGpuDepthwise, TileStride2Nhwc) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  OnlyImpl only(kId);
  ft::ScopedEnv tile("FREEDNN_DW_TILE", "1"), s2("FREEDNN_DW_TILE_S2", "1");
  const Shape shapes[] = {
      {"u1", 2, 96, 96, 96, {30, 29}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"u2", 3, 8, 8, 8, {13, 21}, {3, 3}, {0, 2}, {2, 2}, {1, 1}},
      {"u3", 2, 960, 960, 960, {14, 14}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"u4", 2, 40, 40, 40, {9, 40}, {3, 3}, {2, 0}, {2, 2}, {1, 1}},
      {"u5", 1, 32, 32, 32, {3, 4}, {3, 3}, {2, 2}, {2, 2}, {1, 1}},
  };
  check_tile_shapes(shapes);
}

// Stride 2 on outputs larger than 14 x 14 with FREEDNN_DW_TILE_S2 unset: the tile kernel takes them in its TMA form
// and declines them without it (FREEDNN_DW_TILE_TMA=0 on half the cases), queuing nothing, so that the walk runs.
TEST(ConvGpuDepthwise, TileStride2LargeTakesTmaOrDeclines) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  OnlyImpl only(kId);
  ft::ScopedEnv tile("FREEDNN_DW_TILE", "1"), s2("FREEDNN_DW_TILE_S2", "");
  const Shape shapes[] = {
      {"w1", 2, 64, 64, 64, {40, 40}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"w2", 1, 16, 16, 16, {61, 33}, {3, 3}, {1, 0}, {2, 2}, {1, 1}},
  };
  check_tile_shapes(shapes);
}

// The fast NHWC kernels' edges: 5x5 filters, padding 0 / 1 / 2 / 3 (both parities of the stride-2 backward data
// strips; padding > K - 1 gives the stride-1 backward data a negative padding), widths that leave strip tails,
// H != W, one channel vector, channel counts that split into several channel groups (C = 520 f16: 65 vectors).
TEST(ConvGpuDepthwise, FastNhwcEdges) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  ft::ScopedEnv strip("FREEDNN_DW_FWD", "strip");  // the column walk would take these 3x3 forwards
  ft::ScopedEnv no_tile("FREEDNN_DW_TILE", "0");     // and the tile kernel the stride-1 ones
  int i = 0;
  for (int k : {3, 5}) {
    for (int pad : {0, 1, 2, 3}) {
      for (int stride : {1, 2}) {
        ++i;
        const cudnnDataType_t t = i % 3 == 0 ? CUDNN_DATA_FLOAT : i % 3 == 1 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
        const int c = i % 4 == 0 ? 520 : i % 4 == 1 ? 8 : 40;
        const int hgt = std::max(k - 2 * pad, 1) + 2 + i % 5, wid = std::max(k - 2 * pad, 1) + 5 + i % 7;
        Shape s{"dwedge", 1 + i % 2, c, c, c, {hgt, wid}, {k, k}, {pad, pad}, {stride, stride}, {1, 1}};
        Problem p(s, t, true, false, i % 2 == 0, rng);
        const bool blend = i % 3 == 1;
        ft_conv_check::check_directions(h, p, kAlgos, rng, blend ? 2.0 : 1.0, blend ? 0.5 : 0.0, tol(t), kId);
      }
    }
  }
}

// Channel counts the fast path does not take (not a multiple of 16 bytes of elements: the generic kernels), and
// dilation 2 / stride 3 / 7x7 on otherwise fast shapes.
TEST(ConvGpuDepthwise, FallbackShapesNhwc) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  const std::vector<std::pair<Shape, cudnnDataType_t>> cases = {
      {{"c13", 2, 13, 13, 13, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_HALF},
      {{"c20", 2, 20, 20, 20, {9, 10}, {3, 3}, {1, 1}, {2, 2}, {1, 1}}, CUDNN_DATA_HALF},    // 20 % 8 != 0
      {{"c20f", 2, 20, 20, 20, {9, 10}, {3, 3}, {1, 1}, {2, 2}, {1, 1}}, CUDNN_DATA_FLOAT},  // fast: 20 % 4 == 0
      {{"c12", 2, 12, 12, 12, {8, 8}, {5, 5}, {2, 2}, {1, 1}, {1, 1}}, CUDNN_DATA_BFLOAT16},
      {{"dil2", 2, 16, 16, 16, {11, 12}, {3, 3}, {2, 2}, {1, 1}, {2, 2}}, CUDNN_DATA_HALF},
      {{"s3", 2, 16, 16, 16, {11, 12}, {3, 3}, {1, 1}, {3, 3}, {1, 1}}, CUDNN_DATA_HALF},
      {{"k7", 2, 16, 16, 16, {11, 12}, {7, 7}, {3, 3}, {1, 1}, {1, 1}}, CUDNN_DATA_HALF},
      {{"s21", 2, 16, 16, 16, {11, 12}, {3, 3}, {1, 1}, {2, 1}, {1, 1}}, CUDNN_DATA_FLOAT},
      {{"f64", 2, 16, 16, 16, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_DOUBLE},
  };
  int i = 0;
  for (const auto& [s, t] : cases) {
    Problem p(s, t, true, false, ++i % 2 == 0, rng);
    ft_conv_check::check_directions(h, p, kAlgos, rng, 1.0, i % 3 == 0 ? 0.5 : 0.0, tol(t), kId);
  }
}

// Data pointers off the 16-byte (and 8-byte) grid: the fast kernels must not be used (a misaligned vector
// access would fault) and the results must still be right, in every direction.
TEST(ConvGpuDepthwise, UnalignedPointersNhwc) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT}) {
    for (int stride : {1, 2}) {
      Shape s{"unal", 2, 32, 32, 32, {13, 14}, {3, 3}, {1, 1}, {stride, stride}, {1, 1}};
      Problem p(s, t, true, false, false, rng);
      const size_t shift = t == CUDNN_DATA_HALF ? 2 : 4;
      const std::string what = p.str() + " shift " + std::to_string(shift);
      const float one = 1.0f, zero = 0.0f;
      p.x.fill_uniform(rng, -1, 1);
      p.w.fill_uniform(rng, -1, 1);
      p.y.poison();
      {
        Shifted x(p.x, shift), y(p.y, shift);
        ASSERT_EQ(cudnnConvolutionForward(h, &one, p.xd, x.ptr(), p.wd, p.w.data(), p.cd,
                                          CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &zero, p.yd, y.ptr()),
                  CUDNN_STATUS_SUCCESS)
            << what;
        y.copy_to(p.y);
      }
      const auto yref = ref::conv_forward(ft_conv_check::as_ref(p.x), ft_conv_check::as_ref(p.w), p.params);
      EXPECT_TRUE(ft::near(p.y.values(), yref.v, tol(t), "fwd " + what));

      p.y.fill_uniform(rng, -1, 1);
      p.x.poison();
      {
        Shifted dy(p.y, shift), dx(p.x, shift);
        ASSERT_EQ(cudnnConvolutionBackwardData(h, &one, p.wd, p.w.data(), p.yd, dy.ptr(), p.cd,
                                               CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, nullptr, 0, &zero, p.xd, dx.ptr()),
                  CUDNN_STATUS_SUCCESS)
            << what;
        dx.copy_to(p.x);
      }
      const auto dxref =
          ref::conv_backward_data(ft_conv_check::as_ref(p.y), ft_conv_check::as_ref(p.w), p.xdims, p.params);
      EXPECT_TRUE(ft::near(p.x.values(), dxref.v, tol(t), "bwd_data " + what));

      p.x.fill_uniform(rng, -1, 1);
      p.w.poison();
      {
        size_t ws = 0;
        ASSERT_EQ(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.xd, p.yd, p.cd, p.wd,
                                                                 CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, &ws),
                  CUDNN_STATUS_SUCCESS);
        ft::Bytes wsbuf(ws);
        Shifted x(p.x, shift), dy(p.y, shift);
        ASSERT_EQ(cudnnConvolutionBackwardFilter(h, &one, p.xd, x.ptr(), p.yd, dy.ptr(), p.cd,
                                                 CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, wsbuf.data(), ws, &zero, p.wd,
                                                 p.w.data()),
                  CUDNN_STATUS_SUCCESS)
            << what;
        ft::sync_device();
      }
      const auto dwref =
          ref::conv_backward_filter(ft_conv_check::as_ref(p.x), ft_conv_check::as_ref(p.y), p.wdims, p.params);
      EXPECT_TRUE(ft::near(p.w.values(), dwref.v, tol(t) * 2, "bwd_filter " + what));
    }
  }
}

// Backward filter with many channels: several channel groups (NHWC) and many slices, NHWC and NCHW; run twice,
// bitwise identical (deterministic).
TEST(ConvGpuDepthwise, BackwardFilterSlicesDeterministic) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  for (bool nhwc : {true, false}) {
    for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT}) {
      Shape s{"wgrad", 3, 264, 264, 264, {23, 21}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
      Problem p(s, t, nhwc, false, t == CUDNN_DATA_FLOAT, rng);
      p.x.fill_uniform(rng, -1, 1);
      p.y.fill_uniform(rng, -1, 1);
      p.w.poison();
      ASSERT_EQ(ft_conv::backward_filter(h, p, kAlgos.bwd_filter, 1.0, 0.0), CUDNN_STATUS_SUCCESS) << p.str();
      ft::sync_device();
      const auto first = p.w.bytes;
      const auto dwref =
          ref::conv_backward_filter(ft_conv_check::as_ref(p.x), ft_conv_check::as_ref(p.y), p.wdims, p.params);
      EXPECT_TRUE(ft::near(p.w.values(), dwref.v, tol(t) * 4, "bwd_filter " + p.str()));
      p.w.poison();
      ASSERT_EQ(ft_conv::backward_filter(h, p, kAlgos.bwd_filter, 1.0, 0.0), CUDNN_STATUS_SUCCESS) << p.str();
      ft::sync_device();
      EXPECT_TRUE(first == p.w.bytes) << "not bitwise reproducible: " << p.str();
    }
  }
}

// One NHWC backward-filter case: against the reference (with beta), then run again: bitwise identical.
struct WgradCase {
  Shape s;
  cudnnDataType_t t;
  bool conv_mode;
  double beta;
};

void check_wgrad_nhwc(ft::Handle& h, std::mt19937_64& rng, const std::vector<WgradCase>& cases) {
  for (const WgradCase& c : cases) {
    if (!ft::take_case()) continue;
    Problem p(c.s, c.t, true, false, c.conv_mode, rng);
    const std::string what = "bwd_filter " + p.str() + " beta=" + std::to_string(c.beta);
    p.x.fill_uniform(rng, -1, 1);
    p.y.fill_uniform(rng, -1, 1);
    p.w.fill_uniform(rng, -1, 1);
    if (c.beta == 0.0) p.w.poison();
    const auto prior = p.w.values();
    const auto prior_bytes = p.w.bytes;
    ASSERT_EQ(ft_conv::backward_filter(h, p, kAlgos.bwd_filter, 1.0, c.beta), CUDNN_STATUS_SUCCESS) << what;
    ft::sync_device();
    const auto first = p.w.bytes;
    const auto dwref =
        ref::conv_backward_filter(ft_conv_check::as_ref(p.x), ft_conv_check::as_ref(p.y), p.wdims, p.params);
    EXPECT_TRUE(ft::near(p.w.values(), c.beta == 0.0 ? dwref.v : ref::blend(dwref.v, prior, 1.0, c.beta),
                         tol(c.t) * 4, what));
    p.w.bytes = prior_bytes;
    ASSERT_EQ(ft_conv::backward_filter(h, p, kAlgos.bwd_filter, 1.0, c.beta), CUDNN_STATUS_SUCCESS) << what;
    ft::sync_device();
    EXPECT_TRUE(first == p.w.bytes) << "not bitwise reproducible: " << what;
  }
}

// The NHWC backward-filter strip kernel (depthwise_wgrad_strip.cu): MobileNet-v2's first layers at small N (runs
// of 3-14 output rows, longer than the dy ring), 5x5 with stride 1 and 2, C odd or not a multiple of the
// two-channel vector (one channel per thread; C = 6: a CTA width that does not divide a warp), odd widths (strip
// tails), pad 0 / 1 / 2 and H != W padding, beta != 0, convolution mode, every float type, and C = 2048 on 2x8
// images, where the partial-sum cap makes each run 2 or 4 whole images (the walk crossing images). Each is run
// twice: bitwise identical.
TEST(ConvGpuDepthwise, BackwardFilterStripNhwc) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  ft::ScopedEnv strip("FREEDNN_DW_WGRAD", "strip");  // the row walk would take the 3x3 layers 14 or more wide
  const std::vector<WgradCase> cases = {
      {{"mb1", 8, 32, 32, 32, {112, 112}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_HALF, false, 0.0},
      {{"mb2", 4, 96, 96, 96, {112, 112}, {3, 3}, {1, 1}, {2, 2}, {1, 1}}, CUDNN_DATA_HALF, true, -0.5},
      {{"mb3", 6, 144, 144, 144, {56, 57}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_BFLOAT16, false, 0.25},
      {{"mb4", 5, 144, 144, 144, {29, 27}, {3, 3}, {1, 1}, {2, 2}, {1, 1}}, CUDNN_DATA_FLOAT, false, 0.0},
      {{"k5s2", 4, 40, 40, 40, {61, 59}, {5, 5}, {2, 2}, {2, 2}, {1, 1}}, CUDNN_DATA_FLOAT, true, 0.0},
      {{"k5s1", 16, 24, 24, 24, {45, 45}, {5, 5}, {2, 2}, {1, 1}, {1, 1}}, CUDNN_DATA_HALF, false, 0.5},
      {{"k5p0", 3, 9, 9, 9, {12, 15}, {5, 5}, {0, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_BFLOAT16, true, 0.0},
      {{"odd13", 3, 13, 13, 13, {9, 11}, {3, 3}, {0, 0}, {2, 2}, {1, 1}}, CUDNN_DATA_HALF, true, 0.0},
      {{"odd7f", 5, 7, 7, 7, {10, 13}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, -1.0},
      {{"c6", 3, 6, 6, 6, {17, 9}, {3, 3}, {0, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_BFLOAT16, false, 0.0},
      {{"c18s2", 7, 18, 18, 18, {14, 15}, {3, 3}, {1, 0}, {2, 2}, {1, 1}}, CUDNN_DATA_HALF, false, 0.75},
      {{"cross", 64, 2048, 2048, 2048, {2, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_HALF, false, 0.0},
      {{"crossf", 64, 2048, 2048, 2048, {2, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, true, 0.5},
  };
  check_wgrad_nhwc(h, rng, cases);
}

// The row-walk backward-filter kernel (depthwise_wgrad_rows.cu, forced by FREEDNN_DW_WGRAD=rows): 3x3 at stride 1 and 2,
// every padding 0..2 (H != W padding), f16 / bf16 / f32 (C a multiple of the 16-byte vector: one channel vector,
// several, channel groups of 24 vectors), rows split into column segments (C = 8 on 3 x 40 images), lanes taking
// several short rows (7x7), odd widths, beta != 0, convolution mode; five of them with the loads two steps ahead.
// Each is run twice: bitwise identical.
TEST(ConvGpuDepthwise, BackwardFilterRowsNhwc) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  ft::ScopedEnv rows("FREEDNN_DW_WGRAD", "rows");
  ft::ScopedEnv one("FREEDNN_DW_WGRAD_PREFETCH", "1");  // loads one step ahead, 256-thread CTAs
  const std::vector<WgradCase> cases = {
      {{"r1", 8, 32, 32, 32, {112, 112}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_HALF, false, 0.0},
      {{"r2", 4, 96, 96, 96, {112, 112}, {3, 3}, {1, 1}, {2, 2}, {1, 1}}, CUDNN_DATA_HALF, true, -0.5},
      {{"r3", 6, 144, 144, 144, {56, 57}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_BFLOAT16, false, 0.25},
      {{"r4", 5, 144, 144, 144, {29, 27}, {3, 3}, {1, 1}, {2, 2}, {1, 1}}, CUDNN_DATA_FLOAT, false, 0.0},
      {{"r5", 3, 16, 16, 16, {9, 11}, {3, 3}, {0, 0}, {2, 2}, {1, 1}}, CUDNN_DATA_HALF, true, 0.0},
      {{"r6", 5, 8, 8, 8, {10, 13}, {3, 3}, {2, 2}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, -1.0},
      {{"r7", 7, 24, 24, 24, {14, 15}, {3, 3}, {1, 0}, {2, 2}, {1, 1}}, CUDNN_DATA_HALF, false, 0.75},
      {{"r8", 3, 40, 40, 40, {17, 9}, {3, 3}, {0, 2}, {1, 1}, {1, 1}}, CUDNN_DATA_BFLOAT16, true, 0.0},
      {{"r9", 64, 960, 960, 960, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_HALF, false, 0.0},
      {{"r10", 2, 576, 576, 576, {14, 14}, {3, 3}, {1, 1}, {2, 2}, {1, 1}}, CUDNN_DATA_FLOAT, true, 0.5},
      {{"r11", 2, 8, 8, 8, {3, 40}, {3, 3}, {1, 2}, {1, 1}, {1, 1}}, CUDNN_DATA_HALF, false, 0.0},
  };
  check_wgrad_nhwc(h, rng, cases);
  ft::ScopedEnv ahead("FREEDNN_DW_WGRAD_PREFETCH", "2");  // loads two steps ahead, 192-thread CTAs
  check_wgrad_nhwc(h, rng, {cases[1], cases[2], cases[5], cases[8], cases[10]});
}

// The stride-1 shared-memory tile backward filter (depthwise_wgrad_tile.cu, the default there, forced by
// FREEDNN_DW_WGRAD=tile): f16 / bf16 / f32, one channel vector to 16 per block and several chunks, padding 0..2 with
// H != W padding, tile edges in rows and columns, beta != 0, convolution mode, N = 64 at 7x7 (many tiles per slice),
// an odd vector count (t7: the TMA kernel declines it, the cp.async kernel serves it). Each is run twice: bitwise
// identical. Three kernels: the TMA loads (the default on sm_90), the cp.async kernel with either staging.
TEST(ConvGpuDepthwise, BackwardFilterTileNhwc) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  ft::ScopedEnv tile("FREEDNN_DW_WGRAD", "tile");
  const std::vector<WgradCase> cases = {
      {{"t1", 4, 144, 144, 144, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_HALF, false, 0.0},
      {{"t2", 3, 8, 8, 8, {13, 21}, {3, 3}, {0, 2}, {1, 1}, {1, 1}}, CUDNN_DATA_HALF, true, -0.5},
      {{"t3", 64, 960, 960, 960, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_HALF, false, 0.0},
      {{"t4", 2, 40, 40, 40, {9, 17}, {3, 3}, {2, 0}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, 0.25},
      {{"t5", 5, 32, 32, 32, {19, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_BFLOAT16, true, 0.0},
      {{"t6", 2, 24, 24, 24, {3, 2}, {3, 3}, {2, 2}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, 0.0},
      {{"t7", 3, 12, 12, 12, {10, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_HALF, false, 0.5},
  };
  for (const char* kernel : {"tma", "cp.async", "cp.async lean"}) {
    const bool tma = kernel[0] == 't', lean = std::string(kernel).size() > 8;
    ft::ScopedEnv loads("FREEDNN_DW_WGRAD_TILE_TMA", tma ? "1" : "0");
    ft::ScopedEnv staging("FREEDNN_DW_TILE_LEAN", lean ? "1" : "0");
    SCOPED_TRACE(kernel);
    check_wgrad_nhwc(h, rng, cases);
  }
}

// The fused bias + ReLU forward on the fast NHWC kernels (3x3 and 5x5, stride 1 and 2).
TEST(ConvGpuDepthwise, FusedBiasReluFastNhwc) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(kId);
  int i = 0;
  for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT}) {
    for (int k : {3, 5}) {
      for (int stride : {1, 2}) {
        Shape s{"fusedfast", 2, 48, 48, 48, {11, 13}, {k, k}, {k / 2, k / 2}, {stride, stride}, {1, 1}};
        Problem p(s, t, true, false, false, rng);
        ft_conv_check::check_fused(h, p, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, rng, ++i % 2 == 0,
                                   tol(t) * 2, kId);
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
