// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Convolution API: descriptors, output dims, argument errors, algorithm/NOT_SUPPORTED consistency, the _v7
// ranking, fused bias + activation, im2col, reorder.
#include <cmath>
#include <cstring>

#include "unit/conv_fixture.h"

namespace {

using ft_conv::ConvDesc;
using ft_conv::FilterDesc;
using ft_conv::OnlyImpl;
using ft_conv::Problem;
using ft_conv::Shape;

ref::Tensor as_ref(const ft::HostTensor& t) { return ref::Tensor(t.dims, t.values()); }

TEST(ConvDescriptor, RoundTrips) {
  ConvDesc c;
  FT_OK(cudnnSetConvolution2dDescriptor(c, 1, 2, 3, 4, 5, 6, CUDNN_CONVOLUTION, CUDNN_DATA_HALF));
  int ph, pw, u, v, dh, dw;
  cudnnConvolutionMode_t m;
  cudnnDataType_t t;
  FT_OK(cudnnGetConvolution2dDescriptor(c, &ph, &pw, &u, &v, &dh, &dw, &m, &t));
  EXPECT_EQ((std::vector<int>{ph, pw, u, v, dh, dw}), (std::vector<int>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(m, CUDNN_CONVOLUTION);
  EXPECT_EQ(t, CUDNN_DATA_HALF);
  const int pad[3] = {0, 1, 2}, str[3] = {1, 2, 3}, dil[3] = {2, 1, 1};
  FT_OK(cudnnSetConvolutionNdDescriptor(c, 3, pad, str, dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  int len = 0, p2[3], s2[3], d2[3];
  FT_OK(cudnnGetConvolutionNdDescriptor(c, 3, &len, p2, s2, d2, &m, &t));
  EXPECT_EQ(len, 3);
  EXPECT_EQ((std::vector<int>(p2, p2 + 3)), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ((std::vector<int>(s2, s2 + 3)), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ((std::vector<int>(d2, d2 + 3)), (std::vector<int>{2, 1, 1}));
  EXPECT_EQ(cudnnGetConvolution2dDescriptor(c, &ph, &pw, &u, &v, &dh, &dw, &m, &t), CUDNN_STATUS_BAD_PARAM);
  int g = 0;
  FT_OK(cudnnSetConvolutionGroupCount(c, 4));
  FT_OK(cudnnGetConvolutionGroupCount(c, &g));
  EXPECT_EQ(g, 4);
  cudnnMathType_t mt;
  FT_OK(cudnnSetConvolutionMathType(c, CUDNN_FMA_MATH));
  FT_OK(cudnnGetConvolutionMathType(c, &mt));
  EXPECT_EQ(mt, CUDNN_FMA_MATH);
  cudnnReorderType_t rt;
  FT_OK(cudnnSetConvolutionReorderType(c, CUDNN_NO_REORDER));
  FT_OK(cudnnGetConvolutionReorderType(c, &rt));
  EXPECT_EQ(rt, CUDNN_NO_REORDER);
}

TEST(ConvDescriptor, BadArguments) {
  ConvDesc c;
  EXPECT_EQ(cudnnCreateConvolutionDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyConvolutionDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetConvolution2dDescriptor(nullptr, 0, 0, 1, 1, 1, 1, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetConvolution2dDescriptor(c, -1, 0, 1, 1, 1, 1, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetConvolution2dDescriptor(c, 0, 0, 0, 1, 1, 1, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetConvolution2dDescriptor(c, 0, 0, 1, 1, 1, 0, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetConvolution2dDescriptor(c, 0, 0, 1, 1, 1, 1, static_cast<cudnnConvolutionMode_t>(2),
                                            CUDNN_DATA_FLOAT),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetConvolution2dDescriptor(c, 0, 0, 1, 1, 1, 1, CUDNN_CONVOLUTION, static_cast<cudnnDataType_t>(77)),
            CUDNN_STATUS_BAD_PARAM);
  const int a[4] = {1, 1, 1, 1};
  EXPECT_EQ(cudnnSetConvolutionNdDescriptor(c, 0, a, a, a, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetConvolutionNdDescriptor(c, 4, a, a, a, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnSetConvolutionNdDescriptor(c, 2, nullptr, a, a, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetConvolutionGroupCount(c, 0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetConvolutionMathType(c, static_cast<cudnnMathType_t>(9)), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetConvolutionReorderType(c, static_cast<cudnnReorderType_t>(5)), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetConvolutionGroupCount(c, nullptr), CUDNN_STATUS_BAD_PARAM);
  int len;
  cudnnConvolutionMode_t m;
  cudnnDataType_t t;
  EXPECT_EQ(cudnnGetConvolutionNdDescriptor(c, 0, &len, nullptr, nullptr, nullptr, &m, &t), CUDNN_STATUS_BAD_PARAM)
      << "never set";
}

TEST(ConvDescriptor, OutputDims) {
  ConvDesc c;
  ft::TensorDesc x;
  FilterDesc w(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, {8, 2, 3, 5});
  FT_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 3, 4, 10, 11));
  FT_OK(cudnnSetConvolution2dDescriptor(c, 1, 2, 2, 3, 1, 2, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  int n, k, h, ww;
  EXPECT_EQ(cudnnGetConvolution2dForwardOutputDim(c, x, w, &n, &k, &h, &ww), CUDNN_STATUS_BAD_PARAM)
      << "4 channels vs 2 x 1 group";
  FT_OK(cudnnSetConvolutionGroupCount(c, 2));
  FT_OK(cudnnGetConvolution2dForwardOutputDim(c, x, w, &n, &k, &h, &ww));
  // h: 1 + (10 + 2 - 3) / 2 = 5; w: 1 + (11 + 4 - 9) / 3 = 3
  EXPECT_EQ((std::vector<int>{n, k, h, ww}), (std::vector<int>{3, 8, 5, 3}));
  int out[4];
  FT_OK(cudnnGetConvolutionNdForwardOutputDim(c, x, w, 4, out));
  EXPECT_EQ((std::vector<int>(out, out + 4)), (std::vector<int>{3, 8, 5, 3}));
  EXPECT_EQ(cudnnGetConvolutionNdForwardOutputDim(c, x, w, 5, out), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetConvolution2dForwardOutputDim(c, x, w, nullptr, &k, &h, &ww), CUDNN_STATUS_BAD_PARAM);
  FilterDesc big(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, {8, 2, 13, 3});
  EXPECT_EQ(cudnnGetConvolution2dForwardOutputDim(c, x, big, &n, &k, &h, &ww), CUDNN_STATUS_BAD_PARAM);
  const int p3[3] = {0, 0, 0}, s3[3] = {1, 1, 1};
  ft::TensorDesc x5;
  const int d5[5] = {1, 2, 4, 5, 6}, st5[5] = {240, 120, 30, 6, 1};
  FT_OK(cudnnSetTensorNdDescriptor(x5, CUDNN_DATA_FLOAT, 5, d5, st5));
  FilterDesc w5(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, {3, 2, 2, 3, 4});
  FT_OK(cudnnSetConvolutionNdDescriptor(c, 3, p3, s3, s3, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT));
  FT_OK(cudnnSetConvolutionGroupCount(c, 1));
  int o5[5];
  FT_OK(cudnnGetConvolutionNdForwardOutputDim(c, x5, w5, 5, o5));
  EXPECT_EQ((std::vector<int>(o5, o5 + 5)), (std::vector<int>{1, 3, 3, 3, 3}));
}

TEST(ConvApi, BadArguments) {
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(ft_conv::edge_shapes()[1], CUDNN_DATA_FLOAT, false, false, false, rng);
  const float one = 1, zero = 0;
  const auto algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  auto fwd = [&](cudnnHandle_t hh, cudnnTensorDescriptor_t xd, cudnnFilterDescriptor_t wd,
                 cudnnConvolutionDescriptor_t cd, cudnnTensorDescriptor_t yd, const void* x, void* y, int a) {
    return cudnnConvolutionForward(hh, &one, xd, x, wd, p.w.data(), cd, static_cast<cudnnConvolutionFwdAlgo_t>(a),
                                   nullptr, 0, &zero, yd, y);
  };
  EXPECT_EQ(fwd(nullptr, p.xd, p.wd, p.cd, p.yd, p.x.data(), p.y.data(), algo), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, nullptr, p.wd, p.cd, p.yd, p.x.data(), p.y.data(), algo), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, p.xd, nullptr, p.cd, p.yd, p.x.data(), p.y.data(), algo), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, p.xd, p.wd, nullptr, p.yd, p.x.data(), p.y.data(), algo), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, p.xd, p.wd, p.cd, p.yd, nullptr, p.y.data(), algo), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, p.xd, p.wd, p.cd, p.yd, p.x.data(), p.y.data(), 8), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, p.xd, p.wd, p.cd, p.yd, p.x.data(), p.y.data(), -1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnConvolutionForward(h, nullptr, p.xd, p.x.data(), p.wd, p.w.data(), p.cd, algo, nullptr, 0, &zero,
                                    p.yd, p.y.data()),
            CUDNN_STATUS_BAD_PARAM);
  // y of the wrong spatial size, wrong channel count, wrong type, wrong rank
  ft::TensorDesc bad;
  FT_OK(cudnnSetTensor4dDescriptor(bad, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 4, 6, 6));
  EXPECT_EQ(fwd(h, p.xd, p.wd, p.cd, bad, p.x.data(), p.y.data(), algo), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnSetTensor4dDescriptor(bad, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 5, 6, 7));
  EXPECT_EQ(fwd(h, p.xd, p.wd, p.cd, bad, p.x.data(), p.y.data(), algo), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnSetTensor4dDescriptor(bad, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 2, 4, 6, 7));
  EXPECT_EQ(fwd(h, p.xd, p.wd, p.cd, bad, p.x.data(), p.y.data(), algo), CUDNN_STATUS_BAD_PARAM);
  const int d5[5] = {2, 4, 6, 7, 1}, s5[5] = {168, 42, 7, 1, 1};
  FT_OK(cudnnSetTensorNdDescriptor(bad, CUDNN_DATA_FLOAT, 5, d5, s5));
  EXPECT_EQ(fwd(h, p.xd, p.wd, p.cd, bad, p.x.data(), p.y.data(), algo), CUDNN_STATUS_BAD_PARAM);
  // groups that do not divide the channels
  FT_OK(cudnnSetConvolutionGroupCount(p.cd, 2));
  EXPECT_EQ(fwd(h, p.xd, p.wd, p.cd, p.yd, p.x.data(), p.y.data(), algo), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnSetConvolutionGroupCount(p.cd, 1));
  // unsupported compute type for float data
  FT_OK(cudnnSetConvolution2dDescriptor(p.cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_DOUBLE));
  EXPECT_EQ(fwd(h, p.xd, p.wd, p.cd, p.yd, p.x.data(), p.y.data(), algo), CUDNN_STATUS_NOT_SUPPORTED);
  FT_OK(cudnnSetConvolution2dDescriptor(p.cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  // a too small workspace for GEMM
  size_t ws = 0;
  FT_OK(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, &ws));
  EXPECT_GT(ws, 0u);
  ft::Bytes buf(ws);
  EXPECT_EQ(cudnnConvolutionForward(h, &one, p.xd, p.x.data(), p.wd, p.w.data(), p.cd,
                                    CUDNN_CONVOLUTION_FWD_ALGO_GEMM, buf.data(), ws - 1, &zero, p.yd, p.y.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, CUDNN_CONVOLUTION_FWD_ALGO_GEMM,
                                                    nullptr),
            CUDNN_STATUS_BAD_PARAM);
  // backward calls: NULL pointers, int8 data
  EXPECT_EQ(cudnnConvolutionBackwardData(h, &one, p.wd, p.w.data(), p.yd, nullptr, p.cd,
                                         CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, nullptr, 0, &zero, p.xd, p.x.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnConvolutionBackwardFilter(h, &one, p.xd, p.x.data(), p.yd, p.y.data(), p.cd,
                                           CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, nullptr, 0, &zero, p.wd, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnConvolutionBackwardFilter(h, &one, p.xd, p.x.data(), p.yd, p.y.data(), p.cd,
                                           static_cast<cudnnConvolutionBwdFilterAlgo_t>(7), nullptr, 0, &zero, p.wd,
                                           p.w.data()),
            CUDNN_STATUS_BAD_PARAM);
  Problem q(ft_conv::edge_shapes()[1], CUDNN_DATA_INT8, true, false, false, rng, CUDNN_DATA_INT8, CUDNN_DATA_INT8);
  EXPECT_EQ(ft_conv::backward_data(h, q, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(ft_conv::backward_filter(h, q, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
  // int8 x with a float filter is not a configuration
  Problem r(ft_conv::edge_shapes()[1], CUDNN_DATA_INT8, true, false, false, rng, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT);
  EXPECT_EQ(ft_conv::forward(h, r, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
  // backward bias: wrong db shape / type
  ft::TensorDesc db;
  FT_OK(cudnnSetTensor4dDescriptor(db, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 1, 1));
  ft::Buffer<float> dbv(4);
  EXPECT_EQ(cudnnConvolutionBackwardBias(h, &one, p.yd, p.y.data(), &zero, db, dbv.data()), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnSetTensor4dDescriptor(db, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 1, 4, 1, 1));
  EXPECT_EQ(cudnnConvolutionBackwardBias(h, &one, p.yd, p.y.data(), &zero, db, dbv.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnConvolutionBackwardBias(h, &one, p.yd, nullptr, &zero, db, dbv.data()), CUDNN_STATUS_BAD_PARAM);
  int count = 0;
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithmMaxCount(nullptr, &count), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithmMaxCount(h, nullptr), CUDNN_STATUS_BAD_PARAM);
}

// The workspace query, the call and the _v7 entry agree, algorithm by algorithm, also under FREEDNN_ONLY_IMPL.
TEST(ConvApi, AlgorithmStatusConsistency) {
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(ft_conv::edge_shapes()[1], CUDNN_DATA_FLOAT, false, false, false, rng);
  int count = 0;
  FT_OK(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &count));
  EXPECT_EQ(count, 8);
  FT_OK(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, &count));
  EXPECT_EQ(count, 6);
  FT_OK(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, &count));
  EXPECT_EQ(count, 7);
  const std::string im2col = ft_conv::impl_id("im2col");
  for (const std::string& only : {std::string(), ft_conv::impl_id("direct"), im2col, std::string("nothing:")}) {
    OnlyImpl o(only);
    cudnnConvolutionFwdAlgoPerf_t fp[8];
    cudnnConvolutionBwdDataAlgoPerf_t dp[6];
    cudnnConvolutionBwdFilterAlgoPerf_t wp[7];
    int nf, nd, nw;
    FT_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, p.xd, p.wd, p.cd, p.yd, 8, &nf, fp));
    FT_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, p.wd, p.yd, p.cd, p.xd, 6, &nd, dp));
    FT_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, p.xd, p.yd, p.cd, p.wd, 7, &nw, wp));
    ASSERT_EQ(nf, 8);
    ASSERT_EQ(nd, 6);
    ASSERT_EQ(nw, 7);
    for (int i = 0; i < nf; ++i) {
      size_t ws = 0;
      const cudnnStatus_t q = cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, fp[i].algo, &ws);
      EXPECT_EQ(q, fp[i].status) << only << " fwd algo " << fp[i].algo;
      EXPECT_EQ(ft_conv::forward(h, p, fp[i].algo, 1, 0), fp[i].status) << only << " fwd algo " << fp[i].algo;
      if (q == CUDNN_STATUS_SUCCESS) EXPECT_EQ(ws, fp[i].memory);
      const bool fft_or_nonfused = fp[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT ||
                                   fp[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
                                   fp[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
      if (fft_or_nonfused)  // cuda:fft and cuda:winograd; no CPU implementation
        EXPECT_EQ(fp[i].status == CUDNN_STATUS_SUCCESS, only.empty() && ft::gpu_mode());
      if (fp[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD)  // a 3x3 stride-1 problem
        EXPECT_EQ(fp[i].status == CUDNN_STATUS_SUCCESS, only.empty());
      if (fp[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM)
        EXPECT_EQ(fp[i].status == CUDNN_STATUS_SUCCESS, only.empty() || only == im2col);
    }
    for (int i = 0; i < nd; ++i) {
      size_t ws = 0;
      const cudnnStatus_t q = cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.wd, p.yd, p.cd, p.xd, dp[i].algo, &ws);
      EXPECT_EQ(q, dp[i].status) << only << " bwd data algo " << dp[i].algo;
      EXPECT_EQ(ft_conv::backward_data(h, p, dp[i].algo, 1, 0), dp[i].status) << only;
      if (q == CUDNN_STATUS_SUCCESS) EXPECT_EQ(ws, dp[i].memory);
    }
    for (int i = 0; i < nw; ++i) {
      size_t ws = 0;
      const cudnnStatus_t q =
          cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.xd, p.yd, p.cd, p.wd, wp[i].algo, &ws);
      EXPECT_EQ(q, wp[i].status) << only << " bwd filter algo " << wp[i].algo;
      EXPECT_EQ(ft_conv::backward_filter(h, p, wp[i].algo, 1, 0), wp[i].status) << only;
      if (q == CUDNN_STATUS_SUCCESS) EXPECT_EQ(ws, wp[i].memory);
    }
  }
}

TEST(ConvApi, V7RankingOrder) {
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(Shape{"big", 4, 16, 32, 1, {16, 16}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, false,
            false, rng);
  cudnnConvolutionFwdAlgoPerf_t fp[8];
  int n = 0;
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(h, p.xd, p.wd, p.cd, p.yd, 0, &n, fp), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(h, p.xd, p.wd, p.cd, p.yd, 8, nullptr, fp), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, p.xd, p.wd, p.cd, p.yd, 3, &n, fp));
  EXPECT_EQ(n, 3);
  FT_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, p.xd, p.wd, p.cd, p.yd, 8, &n, fp));
  ASSERT_EQ(n, 8);
  bool seen_unsupported = false;
  std::vector<bool> seen(8, false);
  for (int i = 0; i < n; ++i) {
    seen[static_cast<size_t>(fp[i].algo)] = true;
    if (fp[i].status != CUDNN_STATUS_SUCCESS) {
      seen_unsupported = true;
      EXPECT_EQ(fp[i].time, -1.0f);
      continue;
    }
    EXPECT_FALSE(seen_unsupported) << "a supported entry after a NOT_SUPPORTED one";
    EXPECT_GT(fp[i].time, 0.0f);
    EXPECT_EQ(fp[i].determinism, CUDNN_DETERMINISTIC);
    if (i > 0 && fp[i - 1].status == CUDNN_STATUS_SUCCESS) EXPECT_LE(fp[i - 1].time, fp[i].time);
  }
  for (bool s : seen) EXPECT_TRUE(s) << "every algorithm appears once";
  // For a sizeable 3x3 problem the scalar loops (DIRECT serves only them) are never estimated fastest; on the CPU
  // the GEMM path is.
  EXPECT_NE(fp[0].algo, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT);
  if (!ft::gpu_mode()) EXPECT_EQ(fp[0].algo, CUDNN_CONVOLUTION_FWD_ALGO_GEMM);
}

// Fused y = act(alpha1 conv(x, w) + alpha2 z + bias). Needs the activation descriptor (another helper's area).
TEST(ConvFused, BiasActivationForward) {
  ft::Handle h;
  cudnnActivationDescriptor_t act = nullptr;
  if (cudnnCreateActivationDescriptor(&act) != CUDNN_STATUS_SUCCESS ||
      cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0) != CUDNN_STATUS_SUCCESS) {
    if (act) cudnnDestroyActivationDescriptor(act);
    GTEST_SKIP() << "activation descriptors are not implemented in this build (cudnnSetActivationDescriptor)";
  }
  auto rng = ft::make_rng();
  const float zero = 0;
  for (int mode = 0; mode < 2; ++mode) {
    const bool relu = mode == 0;
    FT_OK(cudnnSetActivationDescriptor(act, relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY,
                                       CUDNN_PROPAGATE_NAN, 0.0));
    for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF}) {
      Problem p(ft_conv::edge_shapes()[5], t, mode == 1, false, false, rng);
      p.x.fill_uniform(rng, -1, 1);
      p.w.fill_uniform(rng, -1, 1);
      ft::HostTensor z = p.y, bias(t, {1, p.s.k, 1, 1}, false);
      z.fill_uniform(rng, -1, 1);
      bias.fill_uniform(rng, -1, 1);
      ft::TensorDesc zd(z), bd(bias);
      p.y.poison();
      const double a1 = 0.5, a2 = -1.25;
      float a1f = 0.5f, a2f = -1.25f;
      const bool dbl = t == CUDNN_DATA_DOUBLE;
      const auto algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
      FT_OK(cudnnConvolutionBiasActivationForward(h, dbl ? static_cast<const void*>(&a1) : &a1f, p.xd, p.x.data(),
                                                  p.wd, p.w.data(), p.cd, algo, nullptr, 0,
                                                  dbl ? static_cast<const void*>(&a2) : &a2f, zd, z.data(), bd,
                                                  bias.data(), act, p.yd, p.y.data()));
      auto r = ref::conv_forward(as_ref(p.x), as_ref(p.w), p.params);
      const auto zv = z.values();
      const int64_t plane = r.count() / (r.dims[0] * r.dims[1]);
      for (int64_t i = 0; i < r.count(); ++i) {
        double v = a1 * r[i] + a2 * zv[static_cast<size_t>(i)] + bias.get((i / plane) % p.s.k);
        r[i] = relu ? std::max(0.0, v) : v;
      }
      EXPECT_TRUE(ft::near(p.y.values(), r.v, ft::tolerance(t) * 4, "fused " + p.str()));
      if (!relu) {  // IDENTITY only with IMPLICIT_PRECOMP_GEMM
        // Scales have the data's type (double for DOUBLE data), as for every call.
        EXPECT_EQ(cudnnConvolutionBiasActivationForward(h, dbl ? static_cast<const void*>(&a1) : &a1f, p.xd,
                                                        p.x.data(), p.wd, p.w.data(), p.cd,
                                                        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0,
                                                        dbl ? static_cast<const void*>(&a2) : &a2f,
                                                        zd, z.data(), bd, bias.data(), act, p.yd, p.y.data()),
                  CUDNN_STATUS_NOT_SUPPORTED);
      }
    }
  }
  FT_OK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_TANH, CUDNN_PROPAGATE_NAN, 0.0));
  Problem p(ft_conv::edge_shapes()[1], CUDNN_DATA_FLOAT, false, false, false, rng);
  ft::HostTensor bias(CUDNN_DATA_FLOAT, {1, p.s.k, 1, 1}, false);
  ft::TensorDesc bd(bias);
  const float one = 1;
  EXPECT_EQ(cudnnConvolutionBiasActivationForward(h, &one, p.xd, p.x.data(), p.wd, p.w.data(), p.cd,
                                                  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, nullptr, 0, &zero,
                                                  p.yd, p.y.data(), bd, bias.data(), act, p.yd, p.y.data()),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnConvolutionBiasActivationForward(h, &one, p.xd, p.x.data(), p.wd, p.w.data(), p.cd,
                                                  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, nullptr, 0, &zero,
                                                  p.yd, p.y.data(), p.yd, bias.data(), act, p.yd, p.y.data()),
            CUDNN_STATUS_BAD_PARAM)
      << "bias with the shape of y";
  cudnnDestroyActivationDescriptor(act);
}

TEST(ConvFused, BadArgumentsWithoutActivation) {
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(ft_conv::edge_shapes()[1], CUDNN_DATA_FLOAT, false, false, false, rng);
  ft::HostTensor bias(CUDNN_DATA_FLOAT, {1, p.s.k, 1, 1}, false);
  ft::TensorDesc bd(bias);
  const float one = 1;
  EXPECT_EQ(cudnnConvolutionBiasActivationForward(h, &one, p.xd, p.x.data(), p.wd, p.w.data(), p.cd,
                                                  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, nullptr, 0, &one,
                                                  p.yd, p.y.data(), bd, bias.data(), nullptr, p.yd, p.y.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnConvolutionBiasActivationForward(h, &one, p.xd, p.x.data(), p.wd, p.w.data(), p.cd,
                                                  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, nullptr, 0, &one,
                                                  p.yd, p.y.data(), bd, nullptr, nullptr, p.yd, p.y.data()),
            CUDNN_STATUS_BAD_PARAM);
}

TEST(ConvIm2Col, MatchesPatchesAndReproducesForward) {
  ft::Handle h;
  auto rng = ft::make_rng();
  for (bool conv_mode : {false, true}) {
    Problem p(ft_conv::edge_shapes()[4], CUDNN_DATA_FLOAT, conv_mode, false, conv_mode, rng);
    p.x.fill_uniform(rng, -1, 1);
    p.w.fill_uniform(rng, -1, 1);
    const int rows = p.s.c * p.s.ker[0] * p.s.ker[1], osp = p.ydims[2] * p.ydims[3];
    ft::Buffer<float> col(static_cast<size_t>(p.s.n * rows * osp), NAN);
    FT_OK(cudnnIm2Col(h, p.xd, p.x.data(), p.wd, p.cd, col.data()));
    ft::sync_device();
    // col^T . w (flattened per output channel) is the forward convolution.
    const auto y = ref::conv_forward(as_ref(p.x), as_ref(p.w), p.params);
    const auto wv = p.w.values();
    std::vector<double> got(static_cast<size_t>(y.count()));
    for (int n = 0; n < p.s.n; ++n)
      for (int k = 0; k < p.s.k; ++k)
        for (int o = 0; o < osp; ++o) {
          double acc = 0;
          for (int r = 0; r < rows; ++r)
            acc += col[static_cast<size_t>((n * rows + r) * osp + o)] * wv[static_cast<size_t>(k * rows + r)];
          got[static_cast<size_t>((n * p.s.k + k) * osp + o)] = acc;
        }
    EXPECT_TRUE(ft::near(got, y.v, 1e-5, conv_mode ? "im2col conv" : "im2col xcorr"));
  }
  EXPECT_EQ(cudnnIm2Col(h, nullptr, nullptr, nullptr, nullptr, nullptr), CUDNN_STATUS_BAD_PARAM);
}

TEST(ConvReorder, Int8x32CopyAndErrors) {
  ft::Handle h;
  FilterDesc w(CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, {32, 32, 3, 3});
  ft::Buffer<int8_t> src(32 * 32 * 9), dst(src.size(), 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<int8_t>(i * 7);
  ft::Buffer<float> b(32, 2.5f), bo(32, 0.f);
  FT_OK(cudnnReorderFilterAndBias(h, w, CUDNN_DEFAULT_REORDER, src.data(), dst.data(), 1, b.data(), bo.data()));
  ft::sync_device();
  EXPECT_EQ(src, dst);
  EXPECT_EQ(b, bo);
  EXPECT_EQ(cudnnReorderFilterAndBias(h, w, CUDNN_DEFAULT_REORDER, src.data(), dst.data(), 1, nullptr, bo.data()),
            CUDNN_STATUS_BAD_PARAM);
  FilterDesc f(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, {4, 4, 3, 3});
  EXPECT_EQ(cudnnReorderFilterAndBias(h, f, CUDNN_DEFAULT_REORDER, src.data(), dst.data(), 0, nullptr, nullptr),
            CUDNN_STATUS_NOT_SUPPORTED);
}

}  // namespace
