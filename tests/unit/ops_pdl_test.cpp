// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Chains of memory-bound op calls, each reading what the call before it wrote, queued back to back with no host
// wait between them: with FREEDNN_OPS_PDL=1 (cuda/common/ops_pdl.h) every call's kernel is a programmatic dependent
// of the one before, and a kernel that touched memory before its pdl_wait would read a stale value and lose a step.
// Small integers throughout, so every step is exact and the check is equality. Runs on every backend (the CPU one
// and the plain launches must give the same), with and without the knob (on by default on 9.0 devices).
// The second chain (batch norm, pooling, softmax, reduction) is not exact in integers: it runs with the knob off
// (plain stream order, nothing to race) and on, and the two must agree to the bit (every kernel is deterministic).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/test_util.h"

namespace {

// Per step: C += B (cudnnAddTensor, B a per-channel bias), D += C (cudnnTransformTensor, beta 1), E += relu(D)
// (cudnnActivationForward, beta 1), F = 2 E - F (cudnnOpTensor ADD with alpha1 2, alpha2 -1, beta 0, B and C both
// F). Checks C, D, E and F against the same steps in double.
void run_chain(const std::vector<int>& dims, bool nhwc, int steps) {
  ft::Handle h;
  auto rng = ft::make_rng();
  const cudnnDataType_t t = CUDNN_DATA_FLOAT;
  ft::HostTensor c(t, dims, nhwc), d(t, dims, nhwc), e(t, dims, nhwc), f(t, dims, nhwc);
  ft::HostTensor b(t, {1, dims[1], 1, 1});
  c.fill_ints(rng, -4, 4);
  d.fill_ints(rng, -4, 4);
  e.fill_ints(rng, 0, 2);
  f.fill_ints(rng, -2, 2);
  b.fill_ints(rng, -1, 1);
  std::vector<double> rc = c.values(), rd = d.values(), re = e.values(), rf = f.values();
  const std::vector<double> rb = b.values();
  ft::TensorDesc cd(c), bd(b);
  cudnnActivationDescriptor_t act = nullptr;
  FT_OK(cudnnCreateActivationDescriptor(&act));
  FT_OK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  cudnnOpTensorDescriptor_t op = nullptr;
  FT_OK(cudnnCreateOpTensorDescriptor(&op));
  FT_OK(cudnnSetOpTensorDescriptor(op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
  const float one = 1, zero = 0, two = 2, minus_one = -1;
  for (int i = 0; i < steps; ++i) {
    FT_OK(cudnnAddTensor(h, &one, bd, b.data(), &one, cd, c.data()));
    FT_OK(cudnnTransformTensor(h, &one, cd, c.data(), &one, cd, d.data()));
    FT_OK(cudnnActivationForward(h, act, &one, cd, d.data(), &one, cd, e.data()));
    FT_OK(cudnnOpTensor(h, op, &two, cd, e.data(), &minus_one, cd, f.data(), &zero, cd, f.data()));
  }
  const int64_t n = c.count();
  const int64_t per_channel = n / dims[0] / dims[1];
  for (int i = 0; i < steps; ++i) {
    for (int64_t k = 0; k < n; ++k) {
      rc[k] += rb[(k / per_channel) % dims[1]];
      rd[k] += rc[k];
      re[k] += rd[k] > 0 ? rd[k] : 0;
      rf[k] = 2 * re[k] - rf[k];
    }
  }
  const std::string what = std::string(nhwc ? "nhwc " : "nchw ") + c.str();
  EXPECT_EQ(c.values(), rc) << "C (add tensor) " << what;
  EXPECT_EQ(d.values(), rd) << "D (transform) " << what;
  EXPECT_EQ(e.values(), re) << "E (activation) " << what;
  EXPECT_EQ(f.values(), rf) << "F (op tensor) " << what;
  cudnnDestroyOpTensorDescriptor(op);
  cudnnDestroyActivationDescriptor(act);
}

TEST(OpsPdl, ChainedCallsSeeEachOthersWrites) {
  for (const char* pdl : {"0", "1"}) {
    ft::ScopedEnv knob("FREEDNN_OPS_PDL", pdl);
    SCOPED_TRACE(std::string("FREEDNN_OPS_PDL=") + pdl);
    run_chain({8, 64, 14, 14}, true, 6);   // 16-byte vectors; the bias broadcast over channels-last
    run_chain({4, 24, 7, 9}, false, 6);    // NCHW planes of 63: the dense kernels' scalar tails
    run_chain({64, 256, 7, 7}, true, 3);   // ResNet-50-like, many blocks
  }
}

// Tensor i of `plain` (knob off) and of `pdl` (knob on) hold the same bits, and the plain run no NaN.
void expect_same_bits(const char* const* names, const std::vector<ft::HostTensor>& plain,
                      const std::vector<ft::HostTensor>& pdl, const std::string& what) {
  ASSERT_EQ(plain.size(), pdl.size());
  for (size_t i = 0; i < plain.size(); ++i) {
    const std::vector<double> a = plain[i].values(), b = pdl[i].values();
    ASSERT_EQ(a.size(), b.size());
    int64_t bad = 0, nan = 0;
    for (size_t j = 0; j < a.size(); ++j) {
      if (std::isnan(a[j])) ++nan;
      if (std::memcmp(&a[j], &b[j], sizeof(double)) != 0) ++bad;
    }
    EXPECT_EQ(nan, 0) << names[i] << " has NaN with plain launches, " << what;
    EXPECT_EQ(bad, 0) << names[i] << ": " << bad << " of " << a.size()
                      << " values differ between plain and PDL launches, " << what;
  }
}

// One step of the second chain, all tensors of dims in x's layout (channels-last when nhwc):
//   B = bn_train(A)            (FREEDNN_BN_CLUSTER=1: the one-kernel cluster path where it applies)
//   E = bn_backward(A, dy = B)
//   C = maxpool3x3s1p1(E), G = maxpool_backward(y = C, dy = C, x = E)
//   D = softmax_channel(C + G)  (C += G by cudnnAddTensor first)
//   r = avg over n, h, w of D   (cudnnReduceTensor)
//   A += r                      (cudnnAddTensor, broadcast)
//   F = bn_infer(A) with the running statistics, A = A + F / 2 (cudnnOpTensor)
struct Chain {
  // A B C D E F G, then r, scale, bias, running mean / var, saved mean / inv var, dscale, dbias
  std::vector<ft::HostTensor> t;
};

void run_norm_chain(cudnnDataType_t t, const std::vector<int>& dims, bool nhwc, int steps, uint64_t seed, Chain* out) {
  std::mt19937_64 rng(seed);
  ft::Handle h;
  const cudnnDataType_t pt = t == CUDNN_DATA_DOUBLE ? t : CUDNN_DATA_FLOAT;
  const std::vector<int> pdims = {1, dims[1], 1, 1};
  Chain& c = *out;
  for (int i = 0; i < 7; ++i) c.t.emplace_back(t, dims, nhwc);
  c.t.emplace_back(t, pdims, nhwc);
  for (int i = 0; i < 8; ++i) c.t.emplace_back(pt, pdims);
  ft::HostTensor &A = c.t[0], &B = c.t[1], &C = c.t[2], &D = c.t[3], &E = c.t[4], &F = c.t[5], &G = c.t[6];
  ft::HostTensor &r = c.t[7], &scale = c.t[8], &bias = c.t[9], &rmean = c.t[10], &rvar = c.t[11];
  ft::HostTensor &smean = c.t[12], &sinv = c.t[13], &dscale = c.t[14], &dbias = c.t[15];
  A.fill_uniform(rng, -2, 2);
  scale.fill_uniform(rng, 0.5, 1.5);
  bias.fill_uniform(rng, -0.5, 0.5);
  rmean.fill_uniform(rng, -0.1, 0.1);
  rvar.fill_uniform(rng, 0.5, 1.5);
  for (int i = 1; i < 7; ++i) c.t[i].poison();
  for (ft::HostTensor* p : {&r, &smean, &sinv, &dscale, &dbias}) p->poison();
  ft::TensorDesc xd(A), rd(r), pd(scale);
  cudnnPoolingDescriptor_t pool = nullptr;
  FT_OK(cudnnCreatePoolingDescriptor(&pool));
  FT_OK(cudnnSetPooling2dDescriptor(pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 3, 1, 1, 1, 1));
  cudnnReduceTensorDescriptor_t red = nullptr;
  FT_OK(cudnnCreateReduceTensorDescriptor(&red));
  FT_OK(cudnnSetReduceTensorDescriptor(red, CUDNN_REDUCE_TENSOR_AVG, pt, CUDNN_NOT_PROPAGATE_NAN,
                                       CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES));
  size_t ws_bytes = 0;
  FT_OK(cudnnGetReductionWorkspaceSize(h, red, xd, rd, &ws_bytes));
  void* ws = ws_bytes ? ft::alloc_visible(ws_bytes) : nullptr;
  cudnnOpTensorDescriptor_t op = nullptr;
  FT_OK(cudnnCreateOpTensorDescriptor(&op));
  FT_OK(cudnnSetOpTensorDescriptor(op, CUDNN_OP_TENSOR_ADD, pt, CUDNN_NOT_PROPAGATE_NAN));
  const double one_d = 1, zero_d = 0, half_d = 0.5;
  const float one_f = 1, zero_f = 0, half_f = 0.5;
  const bool dbl = t == CUDNN_DATA_DOUBLE;
  const void* one = dbl ? static_cast<const void*>(&one_d) : &one_f;
  const void* zero = dbl ? static_cast<const void*>(&zero_d) : &zero_f;
  const void* half = dbl ? static_cast<const void*>(&half_d) : &half_f;
  const cudnnBatchNormMode_t m = CUDNN_BATCHNORM_SPATIAL;
  const double eps = 1e-5;
  ft::ScopedEnv cluster("FREEDNN_BN_CLUSTER", "1");
  for (int i = 0; i < steps; ++i) {
    FT_OK(cudnnBatchNormalizationForwardTraining(h, m, one, zero, xd, A.data(), xd, B.data(), pd, scale.data(),
                                                 bias.data(), 0.25, rmean.data(), rvar.data(), eps, smean.data(),
                                                 sinv.data()));
    FT_OK(cudnnBatchNormalizationBackward(h, m, one, zero, one, zero, xd, A.data(), xd, B.data(), xd, E.data(), pd,
                                          scale.data(), dscale.data(), dbias.data(), eps, smean.data(), sinv.data()));
    FT_OK(cudnnPoolingForward(h, pool, one, xd, E.data(), zero, xd, C.data()));
    FT_OK(cudnnPoolingBackward(h, pool, one, xd, C.data(), xd, C.data(), xd, E.data(), zero, xd, G.data()));
    FT_OK(cudnnAddTensor(h, one, xd, G.data(), one, xd, C.data()));
    FT_OK(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, one, xd, C.data(), zero, xd,
                              D.data()));
    FT_OK(cudnnReduceTensor(h, red, nullptr, 0, ws, ws_bytes, one, xd, D.data(), zero, rd, r.data()));
    FT_OK(cudnnAddTensor(h, one, rd, r.data(), one, xd, A.data()));
    FT_OK(cudnnBatchNormalizationForwardInference(h, m, one, zero, xd, A.data(), xd, F.data(), pd, scale.data(),
                                                  bias.data(), rmean.data(), rvar.data(), eps));
    FT_OK(cudnnOpTensor(h, op, one, xd, A.data(), half, xd, F.data(), zero, xd, A.data()));
  }
  ft::sync_device();
  if (ws) ft::free_visible(ws);
  cudnnDestroyOpTensorDescriptor(op);
  cudnnDestroyReduceTensorDescriptor(red);
  cudnnDestroyPoolingDescriptor(pool);
}

TEST(OpsPdl, NormPoolSoftmaxReduceChainMatchesPlainLaunches) {
  const char* names[] = {"A", "B", "C", "D", "E", "F", "G", "r", "scale", "bias", "running mean", "running var",
                         "saved mean", "saved inv var", "dscale", "dbias"};
  struct Case {
    cudnnDataType_t t;
    std::vector<int> dims;
    bool nhwc;
  };
  const Case cases[] = {
      {CUDNN_DATA_HALF, {8, 512, 7, 7}, true},     // bn_cluster, infer_tiles, NHWC pooling, vector softmax rows
      {CUDNN_DATA_BFLOAT16, {4, 256, 14, 14}, true},
      {CUDNN_DATA_FLOAT, {4, 64, 14, 14}, false},  // planes: stats_planes, infer_planes, planar pooling, columns
  };
  const uint64_t seed = ft::seed();
  for (const Case& k : cases) {
    Chain plain, pdl;
    {
      ft::ScopedEnv off("FREEDNN_OPS_PDL", "0");
      run_norm_chain(k.t, k.dims, k.nhwc, 3, seed, &plain);
    }
    {
      ft::ScopedEnv on("FREEDNN_OPS_PDL", "1");
      run_norm_chain(k.t, k.dims, k.nhwc, 3, seed, &pdl);
    }
    expect_same_bits(names, plain.t, pdl.t, plain.t[0].str());
  }
}

// Depthwise convolutions back to back (FREEDNN_ONLY_IMPL=cuda:depthwise, f16 NHWC, 3x3, pad 1): per step
//   y1 = fwd(x, stride 1) / 4  y2 = fwd(y1, stride 2) / 4  dx = bwd_data(dy = y2, stride 2) / 4  x += dx
//   dw1 = bwd_filter(x, dy = y1, stride 1) / 1024  dw2 = bwd_filter(y1, dy = y2, stride 2) / 1024
//   w += (dw1 + dw2) / 16
// (scaled so that nothing grows out of half's range over the steps)
// each reading what a kernel before it wrote (the backward filters' second kernel reads the first's partials).
// With the knob off and on, the results must agree to the bit.
void run_depthwise_chain(int steps, uint64_t seed, std::vector<ft::HostTensor>* out) {
  std::mt19937_64 rng(seed);
  ft::Handle h;
  const cudnnDataType_t t = CUDNN_DATA_HALF;
  const int n = 4, c = 64, hw = 28;
  std::vector<ft::HostTensor>& v = *out;
  v.emplace_back(t, std::vector<int>{n, c, hw, hw}, true);           // x
  v.emplace_back(t, std::vector<int>{n, c, hw, hw}, true);           // y1
  v.emplace_back(t, std::vector<int>{n, c, hw / 2, hw / 2}, true);   // y2
  v.emplace_back(t, std::vector<int>{n, c, hw, hw}, true);           // dx
  v.emplace_back(t, std::vector<int>{c, 1, 3, 3}, true);             // w
  v.emplace_back(t, std::vector<int>{c, 1, 3, 3}, true);             // dw1
  v.emplace_back(t, std::vector<int>{c, 1, 3, 3}, true);             // dw2
  ft::HostTensor &x = v[0], &y1 = v[1], &y2 = v[2], &dx = v[3], &w = v[4], &dw1 = v[5], &dw2 = v[6];
  x.fill_uniform(rng, -1, 1);
  w.fill_uniform(rng, -0.5, 0.5);
  for (int i = 1; i < 7; ++i)
    if (i != 4) v[i].poison();
  ft::TensorDesc xd(x), y1d(y1), y2d(y2), wtd(w);
  cudnnFilterDescriptor_t wd = nullptr;
  FT_OK(cudnnCreateFilterDescriptor(&wd));
  FT_OK(cudnnSetFilter4dDescriptor(wd, t, CUDNN_TENSOR_NHWC, c, 1, 3, 3));
  cudnnConvolutionDescriptor_t cv[2] = {nullptr, nullptr};
  for (int s = 0; s < 2; ++s) {
    FT_OK(cudnnCreateConvolutionDescriptor(&cv[s]));
    FT_OK(cudnnSetConvolution2dDescriptor(cv[s], 1, 1, s + 1, s + 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    FT_OK(cudnnSetConvolutionGroupCount(cv[s], c));
  }
  const auto fa = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  const auto da = CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
  const auto wa = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0;
  size_t ws_bytes = 0, b = 0;
  FT_OK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cv[0], y1d, fa, &b));
  ws_bytes = std::max(ws_bytes, b);
  FT_OK(cudnnGetConvolutionForwardWorkspaceSize(h, y1d, wd, cv[1], y2d, fa, &b));
  ws_bytes = std::max(ws_bytes, b);
  FT_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, wd, y2d, cv[1], y1d, da, &b));
  ws_bytes = std::max(ws_bytes, b);
  FT_OK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd, y1d, cv[0], wd, wa, &b));
  ws_bytes = std::max(ws_bytes, b);
  FT_OK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, y1d, y2d, cv[1], wd, wa, &b));
  ws_bytes = std::max(ws_bytes, b);
  void* ws = ws_bytes ? ft::alloc_visible(ws_bytes) : nullptr;
  const float one = 1, zero = 0, quarter = 0.25f, tiny = 1.0f / 1024, small = 1.0f / 16;
  for (int i = 0; i < steps; ++i) {
    FT_OK(cudnnConvolutionForward(h, &quarter, xd, x.data(), wd, w.data(), cv[0], fa, ws, ws_bytes, &zero, y1d,
                                  y1.data()));
    FT_OK(cudnnConvolutionForward(h, &quarter, y1d, y1.data(), wd, w.data(), cv[1], fa, ws, ws_bytes, &zero, y2d,
                                  y2.data()));
    FT_OK(cudnnConvolutionBackwardData(h, &quarter, wd, w.data(), y2d, y2.data(), cv[1], da, ws, ws_bytes, &zero, y1d,
                                       dx.data()));
    FT_OK(cudnnAddTensor(h, &one, xd, dx.data(), &one, xd, x.data()));
    FT_OK(cudnnConvolutionBackwardFilter(h, &tiny, xd, x.data(), y1d, y1.data(), cv[0], wa, ws, ws_bytes, &zero, wd,
                                         dw1.data()));
    FT_OK(cudnnConvolutionBackwardFilter(h, &tiny, y1d, y1.data(), y2d, y2.data(), cv[1], wa, ws, ws_bytes, &zero, wd,
                                         dw2.data()));
    FT_OK(cudnnAddTensor(h, &small, wtd, dw1.data(), &one, wtd, w.data()));
    FT_OK(cudnnAddTensor(h, &small, wtd, dw2.data(), &one, wtd, w.data()));
  }
  ft::sync_device();
  if (ws) ft::free_visible(ws);
  for (auto& d : cv) cudnnDestroyConvolutionDescriptor(d);
  cudnnDestroyFilterDescriptor(wd);
}

TEST(OpsPdl, DepthwiseChainMatchesPlainLaunches) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU test mode only (the chain is forced onto cuda:depthwise)";
  const char* names[] = {"x", "y1", "y2", "dx", "w", "dw1", "dw2"};
  const uint64_t seed = ft::seed();
  std::vector<ft::HostTensor> plain, pdl;
  {
    ft::ScopedEnv only("FREEDNN_ONLY_IMPL", "cuda:depthwise"), off("FREEDNN_OPS_PDL", "0");
    run_depthwise_chain(3, seed, &plain);
  }
  {
    ft::ScopedEnv only("FREEDNN_ONLY_IMPL", "cuda:depthwise"), on("FREEDNN_OPS_PDL", "1");
    run_depthwise_chain(3, seed, &pdl);
  }
  expect_same_bits(names, plain, pdl, plain[0].str());
}

}  // namespace
