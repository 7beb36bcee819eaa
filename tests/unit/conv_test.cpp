// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Convolution correctness: every implementation forced by id over edge shapes, all three directions, every
// float data type, NCHW / NHWC / padded strides, alpha/beta blending, int8 forward, finite differences, and
// bitwise determinism.
#include <cmath>
#include <cstring>

#include "unit/conv_check.h"
#include "unit/conv_fixture.h"

namespace {

using ft_conv::OnlyImpl;
using ft_conv::Problem;
using ft_conv::Shape;

struct ImplAlgos {
  std::string id;
  int fwd, bwd_data, bwd_filter;
};
// The implementations of the backend under test (cpu:... or cuda:...), with an algorithm of each direction
// that they serve.
std::vector<ImplAlgos> impls() {
  return {
      {ft_conv::impl_id("direct"), CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0,
       CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0},
      {ft_conv::impl_id("im2col_gemm"), CUDNN_CONVOLUTION_FWD_ALGO_GEMM, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
       CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1},
  };
}

using ft_conv_check::as_ref;

// Checks all three directions of one problem against the reference (ft_conv_check::check_directions). beta != 0
// blends with random prior data. `tol` < 0: the data type's tolerance.
void check_all_directions(cudnnHandle_t h, Problem& p, const ImplAlgos& impl, std::mt19937_64& rng, double alpha,
                          double beta, double tol = -1) {
  if (tol < 0) tol = ft::tolerance(p.dt) * (p.dt == CUDNN_DATA_FLOAT ? 4 : 1);
  ft_conv_check::check_directions(h, p, {impl.fwd, impl.bwd_data, impl.bwd_filter}, rng, alpha, beta, tol, impl.id);
}

TEST(ConvImpl, EdgeShapesEveryImplF32) {
  ft::Handle h;
  auto rng = ft::make_rng();
  for (const auto& impl : impls()) {
    OnlyImpl only(impl.id);
    int i = 0;
    for (const Shape& s : ft_conv::edge_shapes()) {
      const bool nhwc = i % 2 == 1, padded = i % 3 == 2, conv_mode = i % 2 == 0;
      Problem p(s, CUDNN_DATA_FLOAT, nhwc, padded, conv_mode, rng);
      check_all_directions(h, p, impl, rng, 1.0, 0.0);
      ++i;
    }
  }
}

TEST(ConvImpl, AlphaBetaBlendingEveryImpl) {
  ft::Handle h;
  auto rng = ft::make_rng();
  const auto shapes = ft_conv::edge_shapes();
  for (const auto& impl : impls()) {
    OnlyImpl only(impl.id);
    for (int i : {1, 5, 8}) {
      Problem p(shapes[static_cast<size_t>(i)], CUDNN_DATA_FLOAT, i == 5, i == 8, i == 1, rng);
      check_all_directions(h, p, impl, rng, 0.75, -0.5);
    }
  }
}

TEST(ConvImpl, EveryFloatTypeEveryLayout) {
  ft::Handle h;
  auto rng = ft::make_rng();
  const auto shapes = ft_conv::edge_shapes();
  for (const auto& impl : impls()) {
    OnlyImpl only(impl.id);
    for (cudnnDataType_t t : {CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
      for (int layout = 0; layout < 3; ++layout) {
        const Shape& s = shapes[static_cast<size_t>((layout * 3 + static_cast<int>(t)) % shapes.size())];
        Problem p(s, t, layout == 1, layout == 2, layout == 0, rng);
        check_all_directions(h, p, impl, rng, 1.0, layout == 2 ? 0.5 : 0.0);
      }
    }
  }
}

// Float data with CUDNN_DEFAULT_MATH: the GPU may use TF32 tensor cores (10-bit mantissa products, float sums),
// so the check allows TF32 rounding there; on the CPU everything stays at float precision.
TEST(ConvImpl, DefaultMathFloat) {
  ft::Handle h;
  auto rng = ft::make_rng();
  const auto shapes = ft_conv::edge_shapes();
  for (const auto& impl : impls()) {
    OnlyImpl only(impl.id);
    for (int i : {1, 5, 8}) {
      Problem p(shapes[static_cast<size_t>(i)], CUDNN_DATA_FLOAT, i == 5, i == 8, i == 1, rng);
      FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
      check_all_directions(h, p, impl, rng, 1.0, i == 5 ? 0.5 : 0.0, ft::gpu_mode() ? 5e-3 : 4e-5);
    }
  }
}

TEST(ConvImpl, HalfWithHalfCompute) {
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(ft_conv::edge_shapes()[1], CUDNN_DATA_HALF, false, false, false, rng);
  ASSERT_EQ(cudnnSetConvolution2dDescriptor(p.cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_HALF),
            CUDNN_STATUS_SUCCESS);
  for (const auto& impl : impls()) {
    OnlyImpl only(impl.id);
    check_all_directions(h, p, impl, rng, 1.0, 0.0);
  }
}

// int8 forward: x s8 or u8, w s8, int32 sums, y f32 (INT8_EXT_CONFIG) or s8 (saturated, INT8_CONFIG).
TEST(ConvImpl, Int8Forward) {
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(ft_conv::impl_id("direct"));
  const auto shapes = ft_conv::edge_shapes();
  for (cudnnDataType_t xt : {CUDNN_DATA_INT8, CUDNN_DATA_UINT8}) {
    for (cudnnDataType_t yt : {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8}) {
      for (int i : {1, 5, 8}) {
        Problem p(shapes[static_cast<size_t>(i)], xt, true, i == 8, false, rng, yt, CUDNN_DATA_INT8);
        if (xt == CUDNN_DATA_UINT8)
          p.x.fill_ints(rng, 0, 255);
        else
          p.x.fill_ints(rng, -128, 127);
        p.w.fill_ints(rng, -128, 127);
        p.y.poison();
        const double alpha = yt == CUDNN_DATA_INT8 ? 1.0 / 4096 : 1.0;
        ASSERT_EQ(ft_conv::forward(h, p, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, alpha, 0.0),
                  CUDNN_STATUS_SUCCESS)
            << p.str();
        auto r = ref::conv_forward(as_ref(p.x), as_ref(p.w), p.params).v;
        for (double& v : r) {
          v *= alpha;
          if (yt == CUDNN_DATA_INT8) v = std::min(127.0, std::max(-128.0, std::nearbyint(v)));
        }
        const auto got = p.y.values();
        for (size_t j = 0; j < r.size(); ++j) ASSERT_EQ(got[j], r[j]) << "element " << j << " of " << p.str();
      }
    }
  }
  // The GEMM implementation declines int8 (float sums are not exact), so GEMM reports NOT_SUPPORTED.
  OnlyImpl gemm(ft_conv::impl_id("im2col_gemm"));
  Problem p(shapes[1], CUDNN_DATA_INT8, true, false, false, rng, CUDNN_DATA_FLOAT, CUDNN_DATA_INT8);
  EXPECT_EQ(ft_conv::forward(h, p, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED);
}

// INT8x4 and INT8x32 (NCHW_VECT_C), built by hand: element (n, c, h, w) at ((n*C/v + c/v)*H*W + h*W + w)*v + c%v.
TEST(ConvImpl, Int8VectorLayouts) {
  ft::Handle h;
  auto rng = ft::make_rng();
  for (int v : {4, 32}) {
    const cudnnDataType_t t = v == 4 ? CUDNN_DATA_INT8x4 : CUDNN_DATA_INT8x32;
    const int N = 2, C = v, K = v == 4 ? 8 : 32, H = 5, W = 4, R = 3, S = 3;
    auto offset = [&](int cc, int n, int c, int hh, int ww, int hs, int ws) {
      return ((static_cast<int64_t>(n) * (cc / v) + c / v) * hs * ws + hh * ws + ww) * v + c % v;
    };
    ft::Buffer<int8_t> x(static_cast<size_t>(N * C * H * W)), w(static_cast<size_t>(K * C * R * S));
    ref::Tensor xr({N, C, H, W}), wr({K, C, R, S});
    for (int n = 0; n < N; ++n)
      for (int c = 0; c < C; ++c)
        for (int i = 0; i < H; ++i)
          for (int j = 0; j < W; ++j) {
            const int val = ft::uniform_int(rng, -20, 20);
            x[static_cast<size_t>(offset(C, n, c, i, j, H, W))] = static_cast<int8_t>(val);
            xr[xr.index({n, c, i, j})] = val;
          }
    for (int k = 0; k < K; ++k)
      for (int c = 0; c < C; ++c)
        for (int i = 0; i < R; ++i)
          for (int j = 0; j < S; ++j) {
            const int val = ft::uniform_int(rng, -20, 20);
            w[static_cast<size_t>(offset(C, k, c, i, j, R, S))] = static_cast<int8_t>(val);
            wr[wr.index({k, c, i, j})] = val;
          }
    ft::TensorDesc xd, yd;
    ft_conv::FilterDesc wd;
    ft_conv::ConvDesc cd;
    FT_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW_VECT_C, t, N, C, H, W));
    FT_OK(cudnnSetFilter4dDescriptor(wd, t, CUDNN_TENSOR_NCHW_VECT_C, K, C, R, S));
    FT_OK(cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_INT32));
    FT_OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, H, W));
    ft::Buffer<float> y(static_cast<size_t>(N * K * H * W), NAN);
    const float one = 1, zero = 0;
    FT_OK(cudnnConvolutionForward(h, &one, xd, x.data(), wd, w.data(), cd,
                                  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, nullptr, 0, &zero, yd, y.data()));
    ft::sync_device();
    ref::ConvParams prm;
    prm.pad = {1, 1};
    prm.stride = {1, 1};
    prm.dilation = {1, 1};
    const auto r = ref::conv_forward(xr, wr, prm);
    for (size_t j = 0; j < r.v.size(); ++j) ASSERT_EQ(static_cast<double>(y[j]), r.v[j]) << "INT8x" << v << " " << j;
  }
}

// Gradients of L(x, w) = sum(dy * conv(x, w)) by central differences of the library's own forward.
TEST(ConvImpl, FiniteDifferenceBothBackwardPasses) {
  ft::Handle h;
  auto rng = ft::make_rng();
  const auto shapes = ft_conv::edge_shapes();
  for (const auto& impl : impls()) {
    OnlyImpl only(impl.id);
    for (int si : {2, 4, 5, 8}) {
      Problem p(shapes[static_cast<size_t>(si)], CUDNN_DATA_DOUBLE, si == 5, false, si == 4, rng);
      p.x.fill_uniform(rng, -1, 1);
      p.w.fill_uniform(rng, -1, 1);
      ft::HostTensor dy = p.y;
      dy.fill_uniform(rng, -1, 1);
      const ft::HostTensor x0 = p.x, w0 = p.w;
      auto loss = [&]() {
        EXPECT_EQ(ft_conv::forward(h, p, impl.fwd, 1.0, 0.0), CUDNN_STATUS_SUCCESS);
        double l = 0;
        for (int64_t i = 0; i < p.y.count(); ++i) l += p.y.get(i) * dy.get(i);
        return l;
      };
      // library gradients
      p.y = dy;
      ASSERT_EQ(ft_conv::backward_data(h, p, impl.bwd_data, 1.0, 0.0), CUDNN_STATUS_SUCCESS);
      const auto dx = p.x.values();
      p.x = x0;
      ASSERT_EQ(ft_conv::backward_filter(h, p, impl.bwd_filter, 1.0, 0.0), CUDNN_STATUS_SUCCESS);
      const auto dw = p.w.values();
      p.w = w0;
      const double eps = 1e-3;
      for (int trial = 0; trial < 6; ++trial) {
        const int64_t i = ft::uniform_int(rng, 0, static_cast<int>(p.x.count() - 1));
        const double v = x0.get(i);
        p.x.set(i, v + eps);
        const double lp = loss();
        p.x.set(i, v - eps);
        const double lm = loss();
        p.x.set(i, v);
        EXPECT_NEAR((lp - lm) / (2 * eps), dx[static_cast<size_t>(i)], 1e-7) << impl.id << " dx[" << i << "] " << p.str();
        const int64_t j = ft::uniform_int(rng, 0, static_cast<int>(p.w.count() - 1));
        const double u = w0.get(j);
        p.w.set(j, u + eps);
        const double lp2 = loss();
        p.w.set(j, u - eps);
        const double lm2 = loss();
        p.w.set(j, u);
        EXPECT_NEAR((lp2 - lm2) / (2 * eps), dw[static_cast<size_t>(j)], 1e-7) << impl.id << " dw[" << j << "] " << p.str();
      }
    }
  }
}

// Implementations reported deterministic give bitwise-identical results run after run.
TEST(ConvImpl, DeterministicIdsAreBitwiseReproducible) {
  ft::Handle h;
  auto rng = ft::make_rng();
  Shape s{"det", 4, 8, 8, 1, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  Problem p(s, CUDNN_DATA_FLOAT, false, false, false, rng);
  cudnnConvolutionFwdAlgoPerf_t fperf[8];
  cudnnConvolutionBwdDataAlgoPerf_t dperf[6];
  cudnnConvolutionBwdFilterAlgoPerf_t wperf[7];
  int nf = 0, nd = 0, nw = 0;
  FT_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, p.xd, p.wd, p.cd, p.yd, 8, &nf, fperf));
  FT_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, p.wd, p.yd, p.cd, p.xd, 6, &nd, dperf));
  FT_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, p.xd, p.yd, p.cd, p.wd, 7, &nw, wperf));
  p.x.fill_uniform(rng, -1, 1);
  p.w.fill_uniform(rng, -1, 1);
  const ft::HostTensor x0 = p.x, w0 = p.w;
  ft::HostTensor dy = p.y;
  dy.fill_uniform(rng, -1, 1);
  // The output poisoned before each run (a run that writes nothing cannot match the first one's bytes), and the
  // first run's output checked as written (no poison NaN left)
  auto twice = [&](auto&& run, ft::HostTensor& (*out)(Problem&)) -> ::testing::AssertionResult {
    out(p).poison();
    run();
    ft::sync_device();  // the bytes are read directly below, not through HostTensor's synchronizing accessors
    const ft::Bytes first = out(p).bytes;
    for (double v : out(p).values())
      if (std::isnan(v)) return ::testing::AssertionFailure() << "the first run left the output unwritten";
    out(p).poison();
    run();
    ft::sync_device();
    if (first == out(p).bytes) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "two runs differ";
  };
  int checked[3] = {0, 0, 0};
  for (int i = 0; i < nf; ++i) {
    if (fperf[i].status != CUDNN_STATUS_SUCCESS || fperf[i].determinism != CUDNN_DETERMINISTIC) continue;
    ++checked[0];
    auto run = [&] {
      p.x = x0, p.w = w0;
      EXPECT_EQ(ft_conv::forward(h, p, fperf[i].algo, 1, 0), CUDNN_STATUS_SUCCESS);
    };
    EXPECT_TRUE(twice(run, [](Problem& q) -> ft::HostTensor& { return q.y; }))
        << "fwd algo " << fperf[i].algo;
  }
  for (int i = 0; i < nd; ++i) {
    if (dperf[i].status != CUDNN_STATUS_SUCCESS || dperf[i].determinism != CUDNN_DETERMINISTIC) continue;
    ++checked[1];
    auto run = [&] {
      p.y = dy, p.w = w0;
      EXPECT_EQ(ft_conv::backward_data(h, p, dperf[i].algo, 1, 0), CUDNN_STATUS_SUCCESS);
    };
    EXPECT_TRUE(twice(run, [](Problem& q) -> ft::HostTensor& { return q.x; }))
        << "bwd data algo " << dperf[i].algo;
  }
  for (int i = 0; i < nw; ++i) {
    if (wperf[i].status != CUDNN_STATUS_SUCCESS || wperf[i].determinism != CUDNN_DETERMINISTIC) continue;
    ++checked[2];
    auto run = [&] {
      p.y = dy, p.x = x0;
      EXPECT_EQ(ft_conv::backward_filter(h, p, wperf[i].algo, 1, 0), CUDNN_STATUS_SUCCESS);
    };
    EXPECT_TRUE(twice(run, [](Problem& q) -> ft::HostTensor& { return q.w; }))
        << "bwd filter algo " << wperf[i].algo;
  }
  for (int d = 0; d < 3; ++d) EXPECT_GT(checked[d], 0) << "no deterministic algorithm checked in direction " << d;
}

// Winograd F(2x2,3x3): forward only, 3x3 stride 1 without dilation; anything else is NOT_SUPPORTED.
TEST(ConvImpl, WinogradF2x3Forward) {
  ft::Handle h;
  auto rng = ft::make_rng();
  if (ft::gpu_mode()) {  // cuda:winograd serves WINOGRAD there (conv_gpu_fft_winograd_test.cpp)
    Problem p(ft_conv::edge_shapes()[1], CUDNN_DATA_FLOAT, false, false, false, rng);
    OnlyImpl only("cpu:winograd_f2x3");  // a CPU id never serves a GPU handle
    EXPECT_EQ(ft_conv::forward(h, p, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(ft_conv::forward(h, p, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED);
    return;
  }
  OnlyImpl only("cpu:winograd_f2x3");
  const std::vector<Shape> shapes = {
      {"3x3pad1", 2, 3, 4, 1, {6, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"3x3odd_out", 1, 5, 3, 1, {5, 8}, {3, 3}, {0, 2}, {1, 1}, {1, 1}},
      {"3x3groups", 2, 4, 6, 2, {4, 5}, {3, 3}, {1, 0}, {1, 1}, {1, 1}},
  };
  int i = 0;
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF}) {
    for (const Shape& s : shapes) {
      Problem p(s, t, i % 3 == 1, i % 3 == 2, i % 2 == 0, rng);
      ++i;
      p.x.fill_uniform(rng, -1, 1);
      p.w.fill_uniform(rng, -1, 1);
      const double beta = i % 2 ? 0.5 : 0.0;
      const std::vector<double> prior = ft_conv_check::output_before(p.y, rng, beta);
      ASSERT_EQ(ft_conv::forward(h, p, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, 1.0, beta), CUDNN_STATUS_SUCCESS)
          << p.str();
      const auto r = ref::conv_forward(as_ref(p.x), as_ref(p.w), p.params);
      EXPECT_TRUE(ft::near(p.y.values(), ref::blend(r.v, prior, 1.0, beta), ft::tolerance(t) * 8, "winograd " + p.str()));
    }
  }
  for (int si : {0, 2, 4, 8}) {  // 1x1, 7x7 stride 2, dilation 2, 3-D
    Problem p(ft_conv::edge_shapes()[static_cast<size_t>(si)], CUDNN_DATA_FLOAT, false, false, false, rng);
    EXPECT_EQ(ft_conv::forward(h, p, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED)
        << p.str();
  }
  Problem p(shapes[0], CUDNN_DATA_FLOAT, false, false, false, rng);
  EXPECT_EQ(ft_conv::forward(h, p, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(ft_conv::forward(h, p, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED)
      << "filtered out by FREEDNN_ONLY_IMPL";
}

TEST(ConvBackwardBias, EveryFloatType) {
  ft::Handle h;
  auto rng = ft::make_rng();
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
    for (bool nhwc : {false, true}) {
      const std::vector<int> dims = nhwc ? std::vector<int>{2, 5, 3, 4, 2} : std::vector<int>{3, 4, 5, 6};
      ft::HostTensor dy(t, dims, ft::padded_strides(rng, dims, nhwc));
      std::vector<int> bd(dims.size(), 1);
      bd[1] = dims[1];
      ft::HostTensor db(t, bd, false);
      dy.fill_uniform(rng, -1, 1);
      db.fill_uniform(rng, -1, 1);
      const auto prior = db.values();
      ft::TensorDesc dyd(dy), dbd(db);
      const double alpha = 1.5, beta = t == CUDNN_DATA_HALF ? 0.0 : -0.25;
      float af = 1.5f, bf = static_cast<float>(beta);
      double ad = alpha, bdd = beta;
      const bool dbl = t == CUDNN_DATA_DOUBLE;
      FT_OK(cudnnConvolutionBackwardBias(h, dbl ? static_cast<void*>(&ad) : &af, dyd, dy.data(),
                                         dbl ? static_cast<void*>(&bdd) : &bf, dbd, db.data()));
      const auto r = ref::conv_backward_bias(as_ref(dy));
      EXPECT_TRUE(ft::near(db.values(), ref::blend(r.v, prior, alpha, beta), ft::tolerance(t) * 4, "db"));
    }
  }
}

}  // namespace
