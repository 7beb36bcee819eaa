// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Checks shared by the convolution suites (conv_test.cpp, conv_gpu_*_test.cpp): every direction
// of a problem against the double reference with alpha/beta blending, and the fused bias + activation forward.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "unit/conv_fixture.h"

namespace ft_conv_check {

#ifdef FT_WITH_CUTLASS
constexpr bool kCutlassBuilt = true;  // the cuda:cutlass_* implementations exist in this build
#else
constexpr bool kCutlassBuilt = false;
#endif

// Skips a test of the CUTLASS implementations off the GPU suite or in a build without them.
#define SKIP_UNLESS_CUTLASS_GPU()                                                                             \
  do {                                                                                                        \
    if (!ft::gpu_mode()) GTEST_SKIP() << "GPU suite only (FREEDNN_BACKEND=cuda)";                             \
    if (!ft_conv_check::kCutlassBuilt) GTEST_SKIP() << "built without the CUTLASS headers (no cuda:cutlass_*)"; \
  } while (0)

inline ref::Tensor as_ref(const ft::HostTensor& t) { return ref::Tensor(t.dims, t.values()); }

// An output before a call: random prior data, returned for the blend, when beta != 0; else poisoned (and nothing
// returned: ref::blend reads no prior at beta 0).
inline std::vector<double> output_before(ft::HostTensor& out, std::mt19937_64& rng, double beta) {
  if (beta == 0) {
    out.poison();
    return {};
  }
  out.fill_uniform(rng, -1, 1);
  return out.values();
}

struct Algos {
  int fwd, bwd_data, bwd_filter;
};

// Forward, backward data and backward filter of `p` with the given algorithms; outputs poisoned when beta == 0,
// random prior data blended when beta != 0. tol: relative to the largest reference magnitude.
inline void check_directions(cudnnHandle_t h, ft_conv::Problem& p, const Algos& algo, std::mt19937_64& rng,
                             double alpha, double beta, double tol, const std::string& tag) {
  const std::string what = tag + " " + p.str() + " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
  p.x.fill_uniform(rng, -1, 1);
  p.w.fill_uniform(rng, -1, 1);
  std::vector<double> prior = output_before(p.y, rng, beta);
  ASSERT_EQ(ft_conv::forward(h, p, algo.fwd, alpha, beta), CUDNN_STATUS_SUCCESS) << what;
  const auto yref = ref::conv_forward(as_ref(p.x), as_ref(p.w), p.params);
  EXPECT_TRUE(ft::near(p.y.values(), ref::blend(yref.v, prior, alpha, beta), tol, "fwd y: " + what));

  p.y.fill_uniform(rng, -1, 1);  // dy
  prior = output_before(p.x, rng, beta);
  ASSERT_EQ(ft_conv::backward_data(h, p, algo.bwd_data, alpha, beta), CUDNN_STATUS_SUCCESS) << what;
  const auto dxref = ref::conv_backward_data(as_ref(p.y), as_ref(p.w), p.xdims, p.params);
  EXPECT_TRUE(ft::near(p.x.values(), ref::blend(dxref.v, prior, alpha, beta), tol, "bwd_data dx: " + what));

  p.x.fill_uniform(rng, -1, 1);
  prior = output_before(p.w, rng, beta);
  ASSERT_EQ(ft_conv::backward_filter(h, p, algo.bwd_filter, alpha, beta), CUDNN_STATUS_SUCCESS) << what;
  const auto dwref = ref::conv_backward_filter(as_ref(p.x), as_ref(p.y), p.wdims, p.params);
  EXPECT_TRUE(ft::near(p.w.values(), ref::blend(dwref.v, prior, alpha, beta), tol, "bwd_filter dw: " + what));
}

// One direction of `p` with `algo`: every input random, the output poisoned when beta == 0 or random prior data
// blended when beta != 0, against the reference; tol relative to the largest reference magnitude. Messages start
// with `tag`.
inline void check_forward(cudnnHandle_t h, ft_conv::Problem& p, int algo, std::mt19937_64& rng, double alpha,
                          double beta, double tol, const std::string& tag) {
  p.x.fill_uniform(rng, -1, 1);
  p.w.fill_uniform(rng, -1, 1);
  std::vector<double> prior = output_before(p.y, rng, beta);
  ASSERT_EQ(ft_conv::forward(h, p, algo, alpha, beta), CUDNN_STATUS_SUCCESS) << p.str();
  const auto r = ref::conv_forward(as_ref(p.x), as_ref(p.w), p.params);
  EXPECT_TRUE(ft::near(p.y.values(), ref::blend(r.v, prior, alpha, beta), tol, tag + " fwd " + p.str()));
}

inline void check_backward_data(cudnnHandle_t h, ft_conv::Problem& p, int algo, std::mt19937_64& rng, double alpha,
                                double beta, double tol, const std::string& tag) {
  p.y.fill_uniform(rng, -1, 1);
  p.w.fill_uniform(rng, -1, 1);
  std::vector<double> prior = output_before(p.x, rng, beta);
  ASSERT_EQ(ft_conv::backward_data(h, p, algo, alpha, beta), CUDNN_STATUS_SUCCESS) << p.str();
  const auto r = ref::conv_backward_data(as_ref(p.y), as_ref(p.w), p.xdims, p.params);
  EXPECT_TRUE(ft::near(p.x.values(), ref::blend(r.v, prior, alpha, beta), tol, tag + " bwd_data " + p.str()));
}

inline void check_backward_filter(cudnnHandle_t h, ft_conv::Problem& p, int algo, std::mt19937_64& rng,
                                  double alpha, double beta, double tol, const std::string& tag) {
  p.x.fill_uniform(rng, -1, 1);
  p.y.fill_uniform(rng, -1, 1);
  std::vector<double> prior = output_before(p.w, rng, beta);
  ASSERT_EQ(ft_conv::backward_filter(h, p, algo, alpha, beta), CUDNN_STATUS_SUCCESS) << p.str();
  const auto r = ref::conv_backward_filter(as_ref(p.x), as_ref(p.y), p.wdims, p.params);
  EXPECT_TRUE(ft::near(p.w.values(), ref::blend(r.v, prior, alpha, beta), tol, tag + " bwd_filter " + p.str()));
}

// check_backward_filter, then (beta 0) the same call again on a poisoned dw: the same bits (deterministic
// implementations: fixed work split, sums in a fixed order).
inline void check_backward_filter_twice(cudnnHandle_t h, ft_conv::Problem& p, int algo, std::mt19937_64& rng,
                                        double alpha, double beta, double tol, const std::string& tag) {
  check_backward_filter(h, p, algo, rng, alpha, beta, tol, tag);
  if (::testing::Test::HasFatalFailure() || beta != 0) return;
  const std::vector<double> got = p.w.values();
  p.w.poison();
  ASSERT_EQ(ft_conv::backward_filter(h, p, algo, alpha, beta), CUDNN_STATUS_SUCCESS) << p.str();
  EXPECT_EQ(p.w.values(), got) << tag << " bwd_w not deterministic: " << p.str();
}

// The coefficients and NaN rule of check_fused (alpha1/alpha2 must be exact in float).
struct FusedOpts {
  double alpha1 = 0.75, alpha2 = -0.5;
  cudnnNanPropagation_t nan = CUDNN_NOT_PROPAGATE_NAN;
};

// y = relu(alpha1 conv + alpha2 z + bias) through cudnnConvolutionBiasActivationForward with `algo` and the
// workspace it asks for; z is y itself when `z_is_y`.
inline void check_fused(cudnnHandle_t h, ft_conv::Problem& p, int algo, std::mt19937_64& rng, bool z_is_y,
                        double tol, const std::string& tag, const FusedOpts& opt = {}) {
  cudnnActivationDescriptor_t act = nullptr;
  ASSERT_EQ(cudnnCreateActivationDescriptor(&act), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, opt.nan, 0.0), CUDNN_STATUS_SUCCESS);
  const cudnnDataType_t t = p.dt;
  p.x.fill_uniform(rng, -1, 1);
  p.w.fill_uniform(rng, -1, 1);
  ft::HostTensor zsep = p.y, bias(t, {1, p.s.k, 1, 1}, false);
  if (p.xdims.size() == 5) bias = ft::HostTensor(t, {1, p.s.k, 1, 1, 1}, false);
  ft::HostTensor& z = z_is_y ? p.y : zsep;
  z.fill_uniform(rng, -1, 1);
  if (!z_is_y) p.y.poison();
  bias.fill_uniform(rng, -1, 1);
  const auto zv = z.values();
  ft::TensorDesc zd(z), bd(bias);
  const double a1 = opt.alpha1, a2 = opt.alpha2;
  const float a1f = static_cast<float>(a1), a2f = static_cast<float>(a2);
  const bool dbl = t == CUDNN_DATA_DOUBLE;
  size_t ws = 0;
  ASSERT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd,
                                                    static_cast<cudnnConvolutionFwdAlgo_t>(algo), &ws),
            CUDNN_STATUS_SUCCESS);
  ft::Bytes buf(ws);
  ASSERT_EQ(cudnnConvolutionBiasActivationForward(
                h, dbl ? static_cast<const void*>(&a1) : &a1f, p.xd, p.x.data(), p.wd, p.w.data(), p.cd,
                static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws ? buf.data() : nullptr, ws,
                dbl ? static_cast<const void*>(&a2) : &a2f, zd, z_is_y ? p.y.data() : zsep.data(), bd, bias.data(),
                act, p.yd, p.y.data()),
            CUDNN_STATUS_SUCCESS)
      << tag << " " << p.str();
  auto r = ref::conv_forward(as_ref(p.x), as_ref(p.w), p.params);
  const int64_t plane = r.count() / (r.dims[0] * r.dims[1]);
  const std::vector<double> bv = bias.values();
  for (int64_t i = 0; i < r.count(); ++i)
    r[i] = std::max(0.0, a1 * r[i] + a2 * zv[static_cast<size_t>(i)] + bv[static_cast<size_t>((i / plane) % p.s.k)]);
  EXPECT_TRUE(ft::near(p.y.values(), r.v, tol, "fused " + tag + (z_is_y ? " z=y " : " ") + p.str()));
  cudnnDestroyActivationDescriptor(act);
}

// Each direction of `p`, forced onto one implementation (ids[0] forward, ids[1] backward data, ids[2] backward
// filter) with the given algorithms, must report NOT_SUPPORTED (and not run).
inline void expect_declined(cudnnHandle_t h, ft_conv::Problem& p, const char* const (&ids)[3], const Algos& algo,
                            const std::string& why) {
  {
    ft_conv::OnlyImpl only(ids[0]);
    EXPECT_EQ(ft_conv::forward(h, p, algo.fwd, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED) << ids[0] << ": " << why;
  }
  {
    ft_conv::OnlyImpl only(ids[1]);
    EXPECT_EQ(ft_conv::backward_data(h, p, algo.bwd_data, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED)
        << ids[1] << ": " << why;
  }
  {
    ft_conv::OnlyImpl only(ids[2]);
    EXPECT_EQ(ft_conv::backward_filter(h, p, algo.bwd_filter, 1.0, 0.0), CUDNN_STATUS_NOT_SUPPORTED)
        << ids[2] << ": " << why;
  }
}

}  // namespace ft_conv_check
