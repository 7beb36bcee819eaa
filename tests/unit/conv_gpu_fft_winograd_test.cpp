// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The GPU FFT and Winograd convolutions (cuda:fft, cuda:winograd), forced by id: every direction and algorithm
// enum they serve, against the double reference, over NCHW / NHWC / padded layouts, float and half (and bf16,
// double for Winograd), cross-correlation and convolution, odd sizes, padding 0..3, alpha/beta with beta != 0,
// the fused bias + activation epilogue; and their declines (stride 2, dilation 2, 3-D, wrong filter size,
// unsupported data types) give NOT_SUPPORTED. GPU test mode only (skipped on the CPU backend, which has neither).
//
// Tolerance: FFT and Winograd round differently from a direct sum (transforms of whole planes / tiles), so the
// float error grows with the reduction length L (taps x channels, or images x output pixels for dw). The check is
// max |got - ref| <= tol * max |ref| with tol = 1e-4 * sqrt(L) for float (and double), and at least the storage
// type's own tolerance (x2) for half and bf16 (results rounded to 11 / 8 bits).
#include <cmath>

#include "unit/conv_check.h"
#include "unit/conv_fixture.h"

namespace {

using ft_conv::OnlyImpl;
using ft_conv::Problem;
using ft_conv::Shape;
using ft_conv_check::as_ref;
using ft_conv_check::output_before;

struct Algos {
  std::vector<int> fwd, bwd_data, bwd_filter;
};

Algos fft_algos() {
  return {{CUDNN_CONVOLUTION_FWD_ALGO_FFT, CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING},
          {CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING},
          {CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING}};
}

Algos winograd_algos() {
  return {{CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED},
          {CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED},
          {CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED}};
}

double tol_for(cudnnDataType_t t, int64_t reduction) {
  const double base = 1e-4 * std::sqrt(static_cast<double>(std::max<int64_t>(reduction, 1)));
  return t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16 ? std::max(base, 2 * ft::tolerance(t)) : base;
}

int64_t prod(const std::vector<int>& v, size_t from = 0) {
  int64_t r = 1;
  for (size_t i = from; i < v.size(); ++i) r *= v[i];
  return r;
}

// Every direction of one problem with algorithm enums `algos` (each one run), against the reference.
void check_problem(cudnnHandle_t h, Problem& p, const Algos& algos, std::mt19937_64& rng, double alpha, double beta) {
  const std::string what = p.str() + " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
  const int64_t taps = prod(p.wdims, 2);
  const double tol_f = tol_for(p.dt, p.wdims[1] * taps);
  const double tol_d = tol_for(p.dt, (p.ydims[1] / p.s.g) * taps);
  const double tol_w = tol_for(p.dt, p.ydims[0] * prod(p.ydims, 2));
  for (int algo : algos.fwd) {
    p.x.fill_uniform(rng, -1, 1);
    p.w.fill_uniform(rng, -1, 1);
    const std::vector<double> prior = output_before(p.y, rng, beta);
    ASSERT_EQ(ft_conv::forward(h, p, algo, alpha, beta), CUDNN_STATUS_SUCCESS) << "fwd algo " << algo << " " << what;
    const auto r = ref::conv_forward(as_ref(p.x), as_ref(p.w), p.params);
    EXPECT_TRUE(ft::near(p.y.values(), ref::blend(r.v, prior, alpha, beta), tol_f,
                         "fwd algo " + std::to_string(algo) + " " + what));
  }
  for (int algo : algos.bwd_data) {
    p.y.fill_uniform(rng, -1, 1);
    p.w.fill_uniform(rng, -1, 1);
    const std::vector<double> prior = output_before(p.x, rng, beta);
    ASSERT_EQ(ft_conv::backward_data(h, p, algo, alpha, beta), CUDNN_STATUS_SUCCESS)
        << "bwd data algo " << algo << " " << what;
    const auto r = ref::conv_backward_data(as_ref(p.y), as_ref(p.w), p.xdims, p.params);
    EXPECT_TRUE(ft::near(p.x.values(), ref::blend(r.v, prior, alpha, beta), tol_d,
                         "bwd data algo " + std::to_string(algo) + " " + what));
  }
  for (int algo : algos.bwd_filter) {
    p.x.fill_uniform(rng, -1, 1);
    p.y.fill_uniform(rng, -1, 1);
    const std::vector<double> prior = output_before(p.w, rng, beta);
    ASSERT_EQ(ft_conv::backward_filter(h, p, algo, alpha, beta), CUDNN_STATUS_SUCCESS)
        << "bwd filter algo " << algo << " " << what;
    const auto r = ref::conv_backward_filter(as_ref(p.x), as_ref(p.y), p.wdims, p.params);
    EXPECT_TRUE(ft::near(p.w.values(), ref::blend(r.v, prior, alpha, beta), tol_w,
                         "bwd filter algo " + std::to_string(algo) + " " + what));
  }
}

// Runs the shapes over data types and layouts: problem i gets layout i % 3 (NCHW, NHWC, padded), convolution
// mode on odd i, and beta != 0 on every third problem.
void check_shapes(const std::string& id, const Algos& algos, const std::vector<Shape>& shapes,
                  const std::vector<cudnnDataType_t>& types) {
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only(id);
  int i = 0;
  for (cudnnDataType_t t : types) {
    for (const Shape& s : shapes) {
      const int layout = i % 3;
      Problem p(s, t, layout == 1, layout == 2, i % 2 == 1, rng);
      const bool blend = i % 3 == 0;
      check_problem(h, p, algos, rng, blend ? 0.75 : 1.0, blend ? -0.5 : 0.0);
      if (::testing::Test::HasFatalFailure()) return;
      ++i;
    }
  }
}

#define SKIP_UNLESS_GPU() \
  if (!ft::gpu_mode()) GTEST_SKIP() << "cuda:fft and cuda:winograd run in GPU test mode only"

TEST(ConvGpuFft, EveryDirectionAgainstReference) {
  SKIP_UNLESS_GPU();
  const std::vector<Shape> shapes = {
      {"3x3p1", 2, 3, 4, 1, {7, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"5x5p2", 1, 4, 3, 1, {11, 8}, {5, 5}, {2, 2}, {1, 1}, {1, 1}},
      {"odd_rect_p0", 3, 5, 2, 1, {5, 13}, {3, 2}, {0, 1}, {1, 1}, {1, 1}},
      {"groups2", 2, 4, 6, 2, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"1x1", 2, 3, 5, 1, {4, 5}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"larger", 2, 8, 6, 1, {31, 26}, {5, 5}, {2, 1}, {1, 1}, {1, 1}},
  };
  check_shapes("cuda:fft", fft_algos(), shapes, {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF});
  check_shapes("cuda:fft", fft_algos(), {shapes[0], shapes[3]}, {CUDNN_DATA_BFLOAT16});
}

void check_winograd_shapes() {
  const std::vector<Shape> shapes = {
      {"3x3p1", 2, 3, 4, 1, {6, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"odd_out", 1, 5, 3, 1, {5, 8}, {3, 3}, {0, 2}, {1, 1}, {1, 1}},
      {"groups2", 2, 4, 6, 2, {4, 5}, {3, 3}, {1, 0}, {1, 1}, {1, 1}},
      {"pad3", 1, 2, 3, 1, {3, 4}, {3, 3}, {3, 2}, {1, 1}, {1, 1}},
      {"larger", 3, 16, 8, 1, {17, 15}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},  // partial 4x4 and 2x2 tiles
  };
  check_shapes("cuda:winograd", winograd_algos(), shapes, {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF});
  check_shapes("cuda:winograd", winograd_algos(), {shapes[0], shapes[2]}, {CUDNN_DATA_DOUBLE, CUDNN_DATA_BFLOAT16});
}

// The default F(4x4, 3x3).
TEST(ConvGpuWinograd, EveryDirectionAgainstReference) {
  SKIP_UNLESS_GPU();
  check_winograd_shapes();
}

// F(2x2, 3x3) (FREEDNN_WINOGRAD_TILE=2, read once per process: run alone, as ctest does, this test reaches it;
// after other Winograd calls in one process it checks the default again).
TEST(ConvGpuWinograd, TileTwoAgainstReference) {
  SKIP_UNLESS_GPU();
  ft::ScopedEnv tile("FREEDNN_WINOGRAD_TILE", "2");
  check_winograd_shapes();
}

// Images in several chunks (FREEDNN_WINOGRAD_CHUNK_MB=1, read once per process like the tile: run alone, as ctest
// does): 590 KB of transformed tiles per image, so one image a chunk, five chunks; backward filter sums across them.
TEST(ConvGpuWinograd, ChunkedAgainstReference) {
  SKIP_UNLESS_GPU();
  ft::ScopedEnv chunk("FREEDNN_WINOGRAD_CHUNK_MB", "1");
  const std::vector<Shape> shapes = {{"chunked", 5, 32, 32, 1, {30, 30}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}};
  {
    // In chunks of one image the workspace does not grow with the batch; where an earlier Winograd call in this
    // process latched the default budget first (a sanitizer's whole-suite run), chunking cannot be checked here.
    ft::Handle h;
    auto rng = ft::make_rng();
    OnlyImpl only("cuda:winograd");
    size_t ws[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
      Shape s = shapes[0];
      s.n = i == 0 ? 1 : 5;
      Problem p(s, CUDNN_DATA_FLOAT, false, false, false, rng);
      FT_OK(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd,
                                                    CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, &ws[i]));
    }
    if (ws[0] != ws[1]) GTEST_SKIP() << "the chunk budget was read before this test set it (" << ws[1] << " bytes for 5"
                                     << " images, " << ws[0] << " for 1): run it in a process of its own";
  }
  check_shapes("cuda:winograd", winograd_algos(), shapes, {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF});
}

// Backward filter with its tile sums in parts (FREEDNN_WINOGRAD_WGRAD_SPLIT=4, read once per process: run alone):
// 16 tiles per image, so four parts of 16 (and 2 for the grouped shape); every direction still checked.
TEST(ConvGpuWinograd, WgradSplitAgainstReference) {
  SKIP_UNLESS_GPU();
  ft::ScopedEnv split("FREEDNN_WINOGRAD_WGRAD_SPLIT", "4");
  const std::vector<Shape> shapes = {{"split", 4, 8, 8, 1, {16, 16}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
                                     {"split_groups", 2, 8, 6, 2, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}};
  {
    // Four partial P (36 x 4 x 8 x 8 floats) beside V and Z (36 x 8 x 64 floats each): a workspace below that
    // means an earlier Winograd call in this process latched the default (no split).
    ft::Handle h;
    auto rng = ft::make_rng();
    OnlyImpl only("cuda:winograd");
    Problem p(shapes[0], CUDNN_DATA_FLOAT, false, false, false, rng);
    size_t ws = 0;
    FT_OK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.xd, p.yd, p.cd, p.wd,
                                                         CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, &ws));
    if (ws < sizeof(float) * (36 * 4 * 64 + 2 * 36 * 8 * 64))
      GTEST_SKIP() << "the split was read before this test set it (" << ws << " bytes): run it in a process of its own";
  }
  check_shapes("cuda:winograd", winograd_algos(), shapes, {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF});
}

// F(4x4)'s output rows stored 16 bytes at a time (FREEDNN_WINOGRAD_ROW_STORES=1, the default since run 43; read once
// per process: run alone, as ctest does, it holds even where the environment turns the knob off). Rows of
// 12 and 8 elements, with and without a blend into y; the padded-stride and NHWC cases keep the element stores.
TEST(ConvGpuWinograd, RowStoresAgainstReference) {
  SKIP_UNLESS_GPU();
  ft::ScopedEnv rows("FREEDNN_WINOGRAD_ROW_STORES", "1");
  const std::vector<Shape> shapes = {{"rows12", 2, 4, 6, 1, {8, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
                                     {"rows8_p0", 3, 5, 4, 1, {10, 10}, {3, 3}, {0, 0}, {1, 1}, {1, 1}},
                                     {"rows_groups", 2, 4, 8, 2, {6, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}};
  check_shapes("cuda:winograd", winograd_algos(), shapes, {CUDNN_DATA_FLOAT});
  // check_shapes blends every NCHW case; these two NCHW ones (rows of 12 and of 8) store without a blend.
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:winograd");
  for (const Shape& sh : {shapes[0], shapes[2]}) {
    Problem p(sh, CUDNN_DATA_FLOAT, false, false, false, rng);
    check_problem(h, p, winograd_algos(), rng, 1.0, 0.0);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The split backward filter over several chunks, the last one smaller (FREEDNN_WINOGRAD_WGRAD_SPLIT=4 with
// FREEDNN_WINOGRAD_CHUNK_MB=1, both read once per process: run alone): 331,776 bytes of tiles per image, so chunks
// of 3, 3 and 1 images (108, 108 and 36 tiles, four parts each); every part accumulates across the chunks.
TEST(ConvGpuWinograd, WgradSplitChunkedAgainstReference) {
  SKIP_UNLESS_GPU();
  ft::ScopedEnv split("FREEDNN_WINOGRAD_WGRAD_SPLIT", "4");
  ft::ScopedEnv chunk("FREEDNN_WINOGRAD_CHUNK_MB", "1");
  const Shape sh{"split_chunks", 7, 32, 32, 1, {24, 24}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:winograd");
  Problem p(sh, CUDNN_DATA_FLOAT, false, false, false, rng);
  size_t ws = 0;
  FT_OK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.xd, p.yd, p.cd, p.wd,
                                                       CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, &ws));
  // 256 bytes of alignment room, four partial P of 36 x 32 x 32 floats, V and Z of 36 x 32 x 108 floats each.
  const size_t expected = 256 + sizeof(float) * (36 * 4 * 32 * 32 + 2 * 36 * 32 * 108);
  if (ws != expected)
    GTEST_SKIP() << "workspace " << ws << " bytes, not the " << expected << " of this layout: the knobs were read "
                 << "before this test set them (or the layout changed)";
  check_shapes("cuda:winograd", winograd_algos(), {sh}, {CUDNN_DATA_FLOAT});
}

// The workspace query and the call agree: one byte less than the query is refused.
TEST(ConvGpuFftWinograd, WorkspaceQueryMatchesCall) {
  SKIP_UNLESS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(Shape{"ws", 2, 3, 4, 1, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, false, false,
            rng);
  p.x.fill_uniform(rng, -1, 1);
  p.w.fill_uniform(rng, -1, 1);
  for (auto [id, algo] : {std::pair<const char*, cudnnConvolutionFwdAlgo_t>{"cuda:fft", CUDNN_CONVOLUTION_FWD_ALGO_FFT},
                          {"cuda:winograd", CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED}}) {
    OnlyImpl only(id);
    size_t ws = 0;
    FT_OK(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, algo, &ws));
    EXPECT_GT(ws, 0u) << id;
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int n = 0;
    FT_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, p.xd, p.wd, p.cd, p.yd, 8, &n, perf));
    for (int i = 0; i < n; ++i)
      if (perf[i].algo == algo) {
        EXPECT_EQ(perf[i].status, CUDNN_STATUS_SUCCESS) << id;
        EXPECT_EQ(perf[i].memory, ws) << id;
        EXPECT_EQ(perf[i].determinism, CUDNN_DETERMINISTIC) << id;
      }
    ft::Bytes buf(ws);
    const float one = 1, zero = 0;
    EXPECT_EQ(cudnnConvolutionForward(h, &one, p.xd, p.x.data(), p.wd, p.w.data(), p.cd, algo, buf.data(), ws - 1,
                                      &zero, p.yd, p.y.data()),
              CUDNN_STATUS_BAD_PARAM)
        << id;
    FT_OK(cudnnConvolutionForward(h, &one, p.xd, p.x.data(), p.wd, p.w.data(), p.cd, algo, buf.data(), ws, &zero,
                                  p.yd, p.y.data()));
    const auto r = ref::conv_forward(as_ref(p.x), as_ref(p.w), p.params);
    EXPECT_TRUE(ft::near(p.y.values(), r.v, tol_for(CUDNN_DATA_FLOAT, 27), std::string(id) + " " + p.str()));
  }
}

// cuda:fft's plan life cycle: the workspace queries of all three directions first (they make the handle's cuFFT
// plans), then the calls with exactly the queried sizes; two problems interleaved; then a second handle that never
// queried runs the same problems (its plans are made inside the call, the logged last resort) and is destroyed
// right after queuing work (cudnnDestroy waits for the plans' last runs). Every result against the reference.
struct FftSizes {
  size_t fwd = 0, bwd_data = 0, bwd_filter = 0;
};

FftSizes query_fft(cudnnHandle_t h, const Problem& p) {
  FftSizes s;
  EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, CUDNN_CONVOLUTION_FWD_ALGO_FFT, &s.fwd),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.wd, p.yd, p.cd, p.xd,
                                                         CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING, &s.bwd_data),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.xd, p.yd, p.cd, p.wd,
                                                           CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT, &s.bwd_filter),
            CUDNN_STATUS_SUCCESS);
  return s;
}

// All three directions with the given workspace sizes (nothing queried here), each against the reference.
void run_fft(cudnnHandle_t h, Problem& p, const FftSizes& ws, std::mt19937_64& rng, const std::string& tag) {
  const float one = 1, zero = 0;
  const std::string what = tag + " " + p.str();
  const int64_t taps = prod(p.wdims, 2);
  {
    p.x.fill_uniform(rng, -1, 1);
    p.w.fill_uniform(rng, -1, 1);
    p.y.poison();
    ft::Bytes buf(ws.fwd);
    ASSERT_EQ(cudnnConvolutionForward(h, &one, p.xd, p.x.data(), p.wd, p.w.data(), p.cd,
                                      CUDNN_CONVOLUTION_FWD_ALGO_FFT, buf.data(), ws.fwd, &zero, p.yd, p.y.data()),
              CUDNN_STATUS_SUCCESS)
        << what;
    const auto r = ref::conv_forward(as_ref(p.x), as_ref(p.w), p.params);
    EXPECT_TRUE(ft::near(p.y.values(), r.v, tol_for(p.dt, p.wdims[1] * taps), "fwd " + what));
  }
  {
    p.y.fill_uniform(rng, -1, 1);
    p.x.poison();
    ft::Bytes buf(ws.bwd_data);
    ASSERT_EQ(cudnnConvolutionBackwardData(h, &one, p.wd, p.w.data(), p.yd, p.y.data(), p.cd,
                                           CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING, buf.data(), ws.bwd_data, &zero,
                                           p.xd, p.x.data()),
              CUDNN_STATUS_SUCCESS)
        << what;
    const auto r = ref::conv_backward_data(as_ref(p.y), as_ref(p.w), p.xdims, p.params);
    EXPECT_TRUE(ft::near(p.x.values(), r.v, tol_for(p.dt, (p.ydims[1] / p.s.g) * taps), "bwd data " + what));
  }
  {
    p.x.fill_uniform(rng, -1, 1);
    p.w.poison();
    ft::Bytes buf(ws.bwd_filter);
    ASSERT_EQ(cudnnConvolutionBackwardFilter(h, &one, p.xd, p.x.data(), p.yd, p.y.data(), p.cd,
                                             CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT, buf.data(), ws.bwd_filter, &zero,
                                             p.wd, p.w.data()),
              CUDNN_STATUS_SUCCESS)
        << what;
    const auto r = ref::conv_backward_filter(as_ref(p.x), as_ref(p.y), p.wdims, p.params);
    EXPECT_TRUE(ft::near(p.w.values(), r.v, tol_for(p.dt, p.ydims[0] * prod(p.ydims, 2)), "bwd filter " + what));
  }
}

TEST(ConvGpuFft, QueryThenRunPlanLifeCycle) {
  SKIP_UNLESS_GPU();
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:fft");
  Problem p1(Shape{"q1", 2, 3, 4, 1, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, false, false,
             rng);
  Problem p2(Shape{"q2", 3, 4, 2, 2, {12, 7}, {5, 3}, {2, 0}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, true, false, true,
             rng);
  FftSizes s1, s2;
  {
    ft::Handle h;
    s1 = query_fft(h, p1);
    s2 = query_fft(h, p2);
    // cuFFT's work area is part of the size: at least the padded planes and the three spectra.
    EXPECT_GT(s1.fwd, 0u);
    EXPECT_GT(s2.bwd_filter, 0u);
    run_fft(h, p1, s1, rng, "queried");
    run_fft(h, p2, s2, rng, "queried");
    run_fft(h, p1, s1, rng, "queried again");
    // The query again gives the same sizes (the plans are cached, nothing changes).
    const FftSizes again = query_fft(h, p1);
    EXPECT_EQ(again.fwd, s1.fwd);
    EXPECT_EQ(again.bwd_data, s1.bwd_data);
    EXPECT_EQ(again.bwd_filter, s1.bwd_filter);
  }
  {
    ft::Handle h;  // never queried: the calls make their plans
    run_fft(h, p2, s2, rng, "unqueried");
    run_fft(h, p1, s1, rng, "unqueried");
  }
  {
    // Destroyed while its last runs may still be queued: the handle's destroy waits for them before dropping the
    // plans; the results are read after the destroy.
    cudnnHandle_t h = nullptr;
    FT_OK(cudnnCreate(&h));
    const FftSizes s = query_fft(h, p1);
    p1.x.fill_uniform(rng, -1, 1);
    p1.w.fill_uniform(rng, -1, 1);
    p1.y.poison();
    ft::Bytes buf(s.fwd);
    const float one = 1, zero = 0;
    FT_OK(cudnnConvolutionForward(h, &one, p1.xd, p1.x.data(), p1.wd, p1.w.data(), p1.cd,
                                  CUDNN_CONVOLUTION_FWD_ALGO_FFT, buf.data(), s.fwd, &zero, p1.yd, p1.y.data()));
    FT_OK(cudnnDestroy(h));
    const auto r = ref::conv_forward(as_ref(p1.x), as_ref(p1.w), p1.params);
    EXPECT_TRUE(ft::near(p1.y.values(), r.v, tol_for(p1.dt, 27), "after destroy " + p1.str()));
  }
}

// The fused y = relu(alpha1 conv + alpha2 z + bias) through each implementation's forward epilogue.
TEST(ConvGpuFftWinograd, BiasActivationForward) {
  SKIP_UNLESS_GPU();
  ft::Handle h;
  cudnnActivationDescriptor_t act = nullptr;
  FT_OK(cudnnCreateActivationDescriptor(&act));
  FT_OK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0));
  auto rng = ft::make_rng();
  for (auto [id, algo] : {std::pair<const char*, cudnnConvolutionFwdAlgo_t>{"cuda:fft", CUDNN_CONVOLUTION_FWD_ALGO_FFT},
                          {"cuda:winograd", CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD}}) {
    OnlyImpl only(id);
    for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF}) {
      Problem p(Shape{"fused", 2, 4, 6, 2, {7, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, t, t == CUDNN_DATA_HALF, false,
                false, rng);
      p.x.fill_uniform(rng, -1, 1);
      p.w.fill_uniform(rng, -1, 1);
      ft::HostTensor z = p.y, bias(t, {1, p.s.k, 1, 1}, false);
      z.fill_uniform(rng, -1, 1);
      bias.fill_uniform(rng, -1, 1);
      ft::TensorDesc zd(z), bd(bias);
      p.y.poison();
      size_t ws = 0;
      FT_OK(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, algo, &ws));
      ft::Bytes buf(ws);
      const float a1 = 0.5f, a2 = -1.25f;
      FT_OK(cudnnConvolutionBiasActivationForward(h, &a1, p.xd, p.x.data(), p.wd, p.w.data(), p.cd, algo, buf.data(),
                                                  ws, &a2, zd, z.data(), bd, bias.data(), act, p.yd, p.y.data()));
      auto r = ref::conv_forward(as_ref(p.x), as_ref(p.w), p.params);
      const auto zv = z.values();
      const int64_t plane = r.count() / (r.dims[0] * r.dims[1]);
      for (int64_t i = 0; i < r.count(); ++i)
        r[i] = std::max(0.0, 0.5 * r[i] - 1.25 * zv[static_cast<size_t>(i)] + bias.get((i / plane) % p.s.k));
      EXPECT_TRUE(ft::near(p.y.values(), r.v, tol_for(t, 18), std::string("fused ") + id + " " + p.str()));
    }
  }
  cudnnDestroyActivationDescriptor(act);
}

// Problems outside each implementation's scope: NOT_SUPPORTED from the query and the call, in every direction.
TEST(ConvGpuFftWinograd, DeclinesGiveNotSupported) {
  SKIP_UNLESS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  struct Case {
    const char* id;
    Algos algos;
    Shape s;
    cudnnDataType_t t;
  };
  const Shape stride2{"stride2", 2, 3, 4, 1, {9, 8}, {3, 3}, {1, 1}, {2, 2}, {1, 1}};
  const Shape dilation2{"dilation2", 2, 3, 4, 1, {9, 8}, {3, 3}, {2, 2}, {1, 1}, {2, 2}};
  const Shape three_d{"3d", 1, 2, 3, 1, {4, 5, 4}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}};
  const Shape five{"5x5", 1, 2, 3, 1, {8, 8}, {5, 5}, {2, 2}, {1, 1}, {1, 1}};
  const Shape ok{"3x3", 1, 2, 3, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  const std::vector<Case> cases = {
      {"cuda:fft", fft_algos(), stride2, CUDNN_DATA_FLOAT},
      {"cuda:fft", fft_algos(), dilation2, CUDNN_DATA_FLOAT},
      {"cuda:fft", fft_algos(), three_d, CUDNN_DATA_FLOAT},
      {"cuda:fft", fft_algos(), ok, CUDNN_DATA_DOUBLE},
      {"cuda:winograd", winograd_algos(), stride2, CUDNN_DATA_FLOAT},
      {"cuda:winograd", winograd_algos(), dilation2, CUDNN_DATA_FLOAT},
      {"cuda:winograd", winograd_algos(), three_d, CUDNN_DATA_FLOAT},
      {"cuda:winograd", winograd_algos(), five, CUDNN_DATA_FLOAT},
  };
  for (const Case& c : cases) {
    OnlyImpl only(c.id);
    Problem p(c.s, c.t, false, false, false, rng);
    const std::string what = std::string(c.id) + " " + p.str();
    size_t ws = 0;
    for (int a : c.algos.fwd) {
      EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd,
                                                        static_cast<cudnnConvolutionFwdAlgo_t>(a), &ws),
                CUDNN_STATUS_NOT_SUPPORTED)
          << what;
      EXPECT_EQ(ft_conv::forward(h, p, a, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << what;
    }
    for (int a : c.algos.bwd_data) EXPECT_EQ(ft_conv::backward_data(h, p, a, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << what;
    for (int a : c.algos.bwd_filter)
      EXPECT_EQ(ft_conv::backward_filter(h, p, a, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << what;
  }
  // cuDNN has no backward-filter WINOGRAD (fused) algorithm: nothing serves it.
  Problem p(ok, CUDNN_DATA_FLOAT, false, false, false, rng);
  EXPECT_EQ(ft_conv::backward_filter(h, p, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD, 1, 0),
            CUDNN_STATUS_NOT_SUPPORTED);
}

}  // namespace
