// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include <cmath>

#include "common/test_util.h"
#include "ref/lrn.h"
#include "unit/pointwise_test_util.h"

namespace {

struct LrnDesc {
  cudnnLRNDescriptor_t d = nullptr;
  LrnDesc() { EXPECT_EQ(cudnnCreateLRNDescriptor(&d), CUDNN_STATUS_SUCCESS); }
  explicit LrnDesc(const ref::Lrn& p) : LrnDesc() {
    EXPECT_EQ(cudnnSetLRNDescriptor(d, static_cast<unsigned>(p.n), p.alpha, p.beta, p.k), CUDNN_STATUS_SUCCESS);
  }
  ~LrnDesc() { cudnnDestroyLRNDescriptor(d); }
  operator cudnnLRNDescriptor_t() const { return d; }
};

// Parameters large enough that the normalization matters (alpha/n of order 1).
ref::Lrn random_lrn(std::mt19937_64& rng, int n_hi) {
  ref::Lrn p;
  p.n = ft::uniform_int(rng, 1, n_hi);
  p.alpha = ft::uniform(rng, 0.2, 2.0);
  p.beta = ft::uniform(rng, 0.3, 1.2);
  p.k = ft::uniform(rng, 0.5, 2.0);
  return p;
}

std::string lrn_str(const ref::Lrn& p) {
  return "n=" + std::to_string(p.n) + " alpha=" + std::to_string(p.alpha) + " beta=" + std::to_string(p.beta) +
         " k=" + std::to_string(p.k);
}

TEST(LrnDescriptor, DefaultsRoundTripLimits) {
  LrnDesc d;
  unsigned n = 0;
  double a = 0, b = 0, k = 0;
  FT_OK(cudnnGetLRNDescriptor(d, &n, &a, &b, &k));
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(a, 1e-4);
  EXPECT_EQ(b, 0.75);
  EXPECT_EQ(k, 2.0);
  FT_OK(cudnnSetLRNDescriptor(d, 7, 0.5, 0.6, 1.5));
  FT_OK(cudnnGetLRNDescriptor(d, &n, &a, &b, &k));
  EXPECT_EQ(n, 7u);
  EXPECT_EQ(a, 0.5);
  EXPECT_EQ(b, 0.6);
  EXPECT_EQ(k, 1.5);
  FT_OK(cudnnSetLRNDescriptor(d, CUDNN_LRN_MIN_N, 1, CUDNN_LRN_MIN_BETA, CUDNN_LRN_MIN_K));
  FT_OK(cudnnSetLRNDescriptor(d, CUDNN_LRN_MAX_N, 1, 1, 1));
  EXPECT_EQ(cudnnSetLRNDescriptor(d, CUDNN_LRN_MIN_N - 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetLRNDescriptor(d, CUDNN_LRN_MAX_N + 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetLRNDescriptor(d, 5, 1, CUDNN_LRN_MIN_BETA / 2, 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetLRNDescriptor(d, 5, 1, 1, CUDNN_LRN_MIN_K / 2), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetLRNDescriptor(nullptr, 5, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetLRNDescriptor(d, nullptr, &a, &b, &k), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnCreateLRNDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyLRNDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
  FT_OK(cudnnGetLRNDescriptor(d, &n, &a, &b, &k));  // failed sets changed nothing
  EXPECT_EQ(n, static_cast<unsigned>(CUDNN_LRN_MAX_N));
}

TEST(Lrn, ForwardRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnDataType_t t : pt::float_types()) {
    for (int trial = 0; trial < 4; ++trial) {
      const ref::Lrn p = random_lrn(rng, 8);
      const auto dims = pt::random_dims(rng, ft::uniform_int(rng, 1, 3), 2, 9, 3);
      ft::HostTensor x = pt::random_tensor(rng, t, dims), y = pt::random_tensor(rng, t, dims);
      x.fill_uniform(rng, -2, 2);
      const auto [alpha, beta] = pt::random_alpha_beta(rng);
      pt::prepare_output(rng, y, beta);
      const ft::HostTensor prior = y;
      LrnDesc ld(p);
      ft::TensorDesc xd(x), yd(y);
      const pt::Scale a(alpha), b(beta);
      FT_OK(cudnnLRNCrossChannelForward(h, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, a.ptr(t), xd, x.data(), b.ptr(t), yd,
                                        y.data()));
      const auto want = ref::blend(ref::lrn_forward(p, pt::to_ref(x)).v, prior.values(), a.seen(t), b.seen(t));
      EXPECT_TRUE(ft::near(y.values(), want, pt::tol(t),
                           std::string("lrn fwd ") + lrn_str(p) + " " + x.str() + " -> " + y.str()));
      EXPECT_TRUE(pt::gaps_untouched(y));
    }
  }
}

TEST(Lrn, BackwardRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnDataType_t t : pt::float_types()) {
    for (int trial = 0; trial < 4; ++trial) {
      const ref::Lrn p = random_lrn(rng, 8);
      const auto dims = pt::random_dims(rng, ft::uniform_int(rng, 1, 3), 2, 9, 3);
      ft::HostTensor x = pt::random_tensor(rng, t, dims), y = pt::random_tensor(rng, t, dims),
                     dy = pt::random_tensor(rng, t, dims), dx = pt::random_tensor(rng, t, dims);
      x.fill_uniform(rng, -2, 2);
      dy.fill_uniform(rng, -1, 1);
      const ref::Tensor yr = ref::lrn_forward(p, pt::to_ref(x));
      y.set_values(yr.v);
      const auto [alpha, beta] = pt::random_alpha_beta(rng);
      pt::prepare_output(rng, dx, beta);
      const ft::HostTensor prior = dx;
      LrnDesc ld(p);
      ft::TensorDesc xd(x), yd(y), dyd(dy), dxd(dx);
      const pt::Scale a(alpha), b(beta);
      FT_OK(cudnnLRNCrossChannelBackward(h, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, a.ptr(t), yd, y.data(), dyd, dy.data(),
                                         xd, x.data(), b.ptr(t), dxd, dx.data()));
      const auto want = ref::blend(ref::lrn_backward(p, pt::to_ref(x), pt::to_ref(dy)).v, prior.values(),
                                   a.seen(t), b.seen(t));
      EXPECT_TRUE(ft::near(dx.values(), want, 2 * pt::tol(t),
                           std::string("lrn bwd ") + lrn_str(p) + " " + x.str() + " -> " + dx.str()));
      EXPECT_TRUE(pt::gaps_untouched(dx));
    }
  }
}

TEST(DivisiveNormalization, ForwardRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnDataType_t t : pt::float_types()) {
    for (int trial = 0; trial < 4; ++trial) {
      const ref::Lrn p = random_lrn(rng, 4);
      const bool with_means = trial % 2 == 0;
      const auto dims = pt::random_dims(rng, trial < 2 ? 2 : 3, 2, 3, 5);
      ft::HostTensor x = pt::random_tensor(rng, t, dims), y = pt::random_tensor(rng, t, dims);
      ft::HostTensor means(t, x.dims, x.strides), temp(t, x.dims, x.strides), temp2(t, x.dims, x.strides);
      x.fill_uniform(rng, -2, 2);
      means.fill_uniform(rng, -0.5, 0.5);
      const auto [alpha, beta] = pt::random_alpha_beta(rng);
      pt::prepare_output(rng, y, beta);
      const ft::HostTensor prior = y;
      LrnDesc ld(p);
      ft::TensorDesc xd(x), yd(y);
      const pt::Scale a(alpha), b(beta);
      FT_OK(cudnnDivisiveNormalizationForward(h, ld, CUDNN_DIVNORM_PRECOMPUTED_MEANS, a.ptr(t), xd, x.data(),
                                              with_means ? means.data() : nullptr, temp.data(), temp2.data(),
                                              b.ptr(t), yd, y.data()));
      const ref::Tensor m = with_means ? pt::to_ref(means) : ref::Tensor();
      const auto want =
          ref::blend(ref::divnorm_forward(p, pt::to_ref(x), m).v, prior.values(), a.seen(t), b.seen(t));
      EXPECT_TRUE(ft::near(y.values(), want, pt::tol(t),
                           std::string("divnorm fwd ") + lrn_str(p) + " " + x.str() + " -> " + y.str()));
      EXPECT_TRUE(pt::gaps_untouched(y));
    }
  }
}

TEST(DivisiveNormalization, BackwardRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnDataType_t t : pt::float_types()) {
    for (int trial = 0; trial < 4; ++trial) {
      const ref::Lrn p = random_lrn(rng, 4);
      const bool with_means = trial % 2 == 0;
      const auto dims = pt::random_dims(rng, trial < 2 ? 2 : 3, 2, 3, 5);
      ft::HostTensor x = pt::random_tensor(rng, t, dims), dx = pt::random_tensor(rng, t, dims);
      ft::HostTensor means(t, x.dims, x.strides), dy(t, x.dims, x.strides), temp(t, x.dims, x.strides),
          temp2(t, x.dims, x.strides), dmeans(t, dx.dims, dx.strides);
      x.fill_uniform(rng, -2, 2);
      means.fill_uniform(rng, -0.5, 0.5);
      dy.fill_uniform(rng, -1, 1);
      const auto [alpha, beta] = pt::random_alpha_beta(rng);
      pt::prepare_output(rng, dx, beta);
      pt::prepare_output(rng, dmeans, beta);
      const ft::HostTensor prior = dx, prior_m = dmeans;
      LrnDesc ld(p);
      ft::TensorDesc xd(x), dxd(dx);
      const pt::Scale a(alpha), b(beta);
      FT_OK(cudnnDivisiveNormalizationBackward(h, ld, CUDNN_DIVNORM_PRECOMPUTED_MEANS, a.ptr(t), xd, x.data(),
                                               with_means ? means.data() : nullptr, dy.data(), temp.data(),
                                               temp2.data(), b.ptr(t), dxd, dx.data(), dmeans.data()));
      const ref::Tensor m = with_means ? pt::to_ref(means) : ref::Tensor();
      const ref::Tensor g = ref::divnorm_backward(p, pt::to_ref(x), m, pt::to_ref(dy));
      ref::Tensor ng = g;
      for (auto& v : ng.v) v = -v;
      const std::string w = std::string("divnorm bwd ") + lrn_str(p) + " " + x.str() + " -> " + dx.str();
      EXPECT_TRUE(ft::near(dx.values(), ref::blend(g.v, prior.values(), a.seen(t), b.seen(t)), 2 * pt::tol(t),
                           w + " dx"));
      EXPECT_TRUE(ft::near(dmeans.values(), ref::blend(ng.v, prior_m.values(), a.seen(t), b.seen(t)),
                           2 * pt::tol(t), w + " dMeans"));
      EXPECT_TRUE(pt::gaps_untouched(dx));
      EXPECT_TRUE(pt::gaps_untouched(dmeans));
    }
  }
}

// Central differences of the library's own forward, projected on dy.
template <class Fwd>
std::vector<double> numeric_grad(const ft::HostTensor& x, const ft::HostTensor& dy, Fwd&& fwd) {
  auto objective = [&](const ft::HostTensor& xp) {
    const ft::HostTensor yp = fwd(xp);
    double s = 0;
    for (int64_t i = 0; i < yp.count(); ++i) s += yp.get(i) * dy.get(i);
    return s;
  };
  std::vector<double> num(static_cast<size_t>(x.count()));
  const double eps = 1e-6;
  for (int64_t i = 0; i < x.count(); ++i) {
    ft::HostTensor xp = x, xm = x;
    xp.set(i, x.get(i) + eps);
    xm.set(i, x.get(i) - eps);
    num[i] = (objective(xp) - objective(xm)) / (2 * eps);
  }
  return num;
}

TEST(Lrn, BackwardFiniteDifference) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t t = CUDNN_DATA_DOUBLE;
  const double one = 1, zero = 0;
  for (int n : {1, 2, 3, 4, 5}) {
    ref::Lrn p = random_lrn(rng, 1);
    p.n = n;
    const std::vector<int> dims{2, 6, 2, 2};
    ft::HostTensor x(t, dims, true), y(t, dims), dy(t, dims), dx(t, dims, true);
    x.fill_uniform(rng, -2, 2);
    dy.fill_uniform(rng, -1, 1);
    LrnDesc ld(p);
    ft::TensorDesc xd(x), yd(y), dxd(dx);
    FT_OK(cudnnLRNCrossChannelForward(h, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, xd, x.data(), &zero, yd, y.data()));
    dx.poison();
    FT_OK(cudnnLRNCrossChannelBackward(h, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, yd, y.data(), yd, dy.data(), xd,
                                       x.data(), &zero, dxd, dx.data()));
    const auto num = numeric_grad(x, dy, [&](const ft::HostTensor& xp) {
      ft::HostTensor yp(t, dims);
      EXPECT_EQ(cudnnLRNCrossChannelForward(h, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, xd, xp.data(), &zero, yd,
                                            yp.data()),
                CUDNN_STATUS_SUCCESS);
      return yp;
    });
    EXPECT_TRUE(ft::near(dx.values(), num, 1e-6, "lrn finite differences " + lrn_str(p)));
  }
}

TEST(DivisiveNormalization, BackwardFiniteDifference) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t t = CUDNN_DATA_DOUBLE;
  const double one = 1, zero = 0;
  for (int n : {2, 3}) {
    for (int spatial : {2, 3}) {
      ref::Lrn p = random_lrn(rng, 1);
      p.n = n;
      const std::vector<int> dims = spatial == 2 ? std::vector<int>{1, 2, 3, 4} : std::vector<int>{1, 2, 2, 3, 2};
      ft::HostTensor x(t, dims), means(t, dims), y(t, dims), dy(t, dims), dx(t, dims), dm(t, dims), tmp(t, dims),
          tmp2(t, dims);
      x.fill_uniform(rng, -2, 2);
      means.fill_uniform(rng, -0.5, 0.5);
      dy.fill_uniform(rng, -1, 1);
      LrnDesc ld(p);
      ft::TensorDesc xd(x);
      dx.poison();
      dm.poison();
      FT_OK(cudnnDivisiveNormalizationBackward(h, ld, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &one, xd, x.data(),
                                               means.data(), dy.data(), tmp.data(), tmp2.data(), &zero, xd,
                                               dx.data(), dm.data()));
      auto fwd_x = [&](const ft::HostTensor& xp) {
        ft::HostTensor yp(t, dims);
        EXPECT_EQ(cudnnDivisiveNormalizationForward(h, ld, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &one, xd, xp.data(),
                                                    means.data(), tmp.data(), tmp2.data(), &zero, xd, yp.data()),
                  CUDNN_STATUS_SUCCESS);
        return yp;
      };
      auto fwd_m = [&](const ft::HostTensor& mp) {
        ft::HostTensor yp(t, dims);
        EXPECT_EQ(cudnnDivisiveNormalizationForward(h, ld, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &one, xd, x.data(),
                                                    mp.data(), tmp.data(), tmp2.data(), &zero, xd, yp.data()),
                  CUDNN_STATUS_SUCCESS);
        return yp;
      };
      EXPECT_TRUE(ft::near(dx.values(), numeric_grad(x, dy, fwd_x), 1e-6, "divnorm dx fd " + lrn_str(p)));
      EXPECT_TRUE(ft::near(dm.values(), numeric_grad(means, dy, fwd_m), 1e-6, "divnorm dMeans fd " + lrn_str(p)));
    }
  }
}

TEST(Lrn, InPlaceAndDefaults) {
  auto rng = ft::make_rng();
  ft::Handle h;
  LrnDesc ld;  // defaults: n=5, alpha=1e-4, beta=0.75, k=2
  const std::vector<int> dims{2, 8, 3, 3};
  ft::HostTensor x(CUDNN_DATA_FLOAT, dims, ft::padded_strides(rng, dims, true));
  x.poison();
  x.fill_uniform(rng, -20, 20);
  const ft::HostTensor x0 = x;
  ft::TensorDesc d(x);
  const float one = 1, zero = 0;
  FT_OK(cudnnLRNCrossChannelForward(h, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, d, x.data(), &zero, d, x.data()));
  EXPECT_TRUE(ft::near(x.values(), ref::lrn_forward(ref::Lrn{}, pt::to_ref(x0)).v, 1e-5, "in-place lrn"));
  EXPECT_TRUE(pt::gaps_untouched(x));
}

TEST(Lrn, BadArguments) {
  ft::Handle h;
  LrnDesc ld;
  ft::HostTensor x(CUDNN_DATA_FLOAT, {2, 3, 4, 5}), y(CUDNN_DATA_FLOAT, {2, 3, 4, 5});
  ft::HostTensor small(CUDNN_DATA_FLOAT, {2, 3, 4, 4}), hx(CUDNN_DATA_HALF, {2, 3, 4, 5});
  ft::HostTensor i8(CUDNN_DATA_INT8, {2, 3, 4, 5}), two(CUDNN_DATA_FLOAT, {4, 5});
  ft::TensorDesc xd(x), yd(y), sd(small), hd(hx), id(i8), td(two), unset;
  const float one = 1, zero = 0;
  const auto M = CUDNN_LRN_CROSS_CHANNEL_DIM1;
  EXPECT_EQ(cudnnLRNCrossChannelForward(nullptr, ld, M, &one, xd, x.data(), &zero, yd, y.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnLRNCrossChannelForward(h, nullptr, M, &one, xd, x.data(), &zero, yd, y.data()),
            CUDNN_STATUS_BAD_PARAM);
#ifndef __SANITIZE_ADDRESS__  // values outside the enum's range: UB that UBSan (sanitizer build) traps on
  EXPECT_EQ(cudnnLRNCrossChannelForward(h, ld, static_cast<cudnnLRNMode_t>(1), &one, xd, x.data(), &zero, yd,
                                        y.data()),
            CUDNN_STATUS_BAD_PARAM);
#endif
  EXPECT_EQ(cudnnLRNCrossChannelForward(h, ld, M, nullptr, xd, x.data(), &zero, yd, y.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnLRNCrossChannelForward(h, ld, M, &one, xd, nullptr, &zero, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnLRNCrossChannelForward(h, ld, M, &one, unset, x.data(), &zero, yd, y.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnLRNCrossChannelForward(h, ld, M, &one, td, two.data(), &zero, td, two.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnLRNCrossChannelForward(h, ld, M, &one, xd, x.data(), &zero, sd, small.data()),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnLRNCrossChannelForward(h, ld, M, &one, xd, x.data(), &zero, hd, hx.data()),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnLRNCrossChannelForward(h, ld, M, &one, id, i8.data(), &zero, id, i8.data()),
            CUDNN_STATUS_NOT_SUPPORTED);
  ft::HostTensor dy(CUDNN_DATA_FLOAT, {2, 3, 4, 5}), dx(CUDNN_DATA_FLOAT, {2, 3, 4, 5});
  ft::TensorDesc dyd(dy), dxd(dx);
  EXPECT_EQ(cudnnLRNCrossChannelBackward(h, ld, M, &one, yd, y.data(), dyd, dy.data(), xd, x.data(), &zero, dxd,
                                         dx.data()),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnLRNCrossChannelBackward(h, ld, M, &one, yd, nullptr, dyd, dy.data(), xd, x.data(), &zero, dxd,
                                         dx.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnLRNCrossChannelBackward(h, ld, M, &one, yd, y.data(), dyd, dy.data(), xd, x.data(), &zero, sd,
                                         small.data()),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnLRNCrossChannelBackward(h, ld, M, &one, yd, y.data(), dyd, dy.data(), xd, x.data(), &zero, hd,
                                         hx.data()),
            CUDNN_STATUS_NOT_SUPPORTED);

  // Divisive normalization.
  ft::HostTensor tmp(CUDNN_DATA_FLOAT, {2, 3, 4, 5}), tmp2(CUDNN_DATA_FLOAT, {2, 3, 4, 5});
  ft::HostTensor three(CUDNN_DATA_FLOAT, {2, 3, 4}), xs(CUDNN_DATA_FLOAT, {2, 3, 4, 5}, true);
  ft::TensorDesc d3(three), xsd(xs);
  const auto D = CUDNN_DIVNORM_PRECOMPUTED_MEANS;
  EXPECT_EQ(cudnnDivisiveNormalizationForward(h, ld, D, &one, xd, x.data(), nullptr, tmp.data(), tmp2.data(), &zero,
                                              yd, y.data()),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDivisiveNormalizationForward(h, ld, D, &one, xd, x.data(), nullptr, nullptr, tmp2.data(), &zero, yd,
                                              y.data()),
            CUDNN_STATUS_BAD_PARAM);
#ifndef __SANITIZE_ADDRESS__  // values outside the enum's range: UB that UBSan (sanitizer build) traps on
  EXPECT_EQ(cudnnDivisiveNormalizationForward(h, ld, static_cast<cudnnDivNormMode_t>(1), &one, xd, x.data(), nullptr,
                                              tmp.data(), tmp2.data(), &zero, yd, y.data()),
            CUDNN_STATUS_BAD_PARAM);
#endif
  EXPECT_EQ(cudnnDivisiveNormalizationForward(h, ld, D, &one, d3, three.data(), nullptr, tmp.data(), tmp2.data(),
                                              &zero, d3, three.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDivisiveNormalizationForward(h, ld, D, &one, xd, x.data(), nullptr, tmp.data(), tmp2.data(), &zero,
                                              sd, small.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDivisiveNormalizationForward(h, ld, D, &one, xd, x.data(), nullptr, tmp.data(), tmp2.data(), &zero,
                                              xsd, x.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDivisiveNormalizationForward(h, ld, D, &one, xd, x.data(), nullptr, tmp.data(), tmp2.data(),
                                              nullptr, yd, y.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDivisiveNormalizationBackward(h, ld, D, &one, xd, x.data(), nullptr, dy.data(), tmp.data(),
                                               tmp2.data(), &zero, dxd, dx.data(), nullptr),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDivisiveNormalizationBackward(h, ld, D, &one, xd, x.data(), nullptr, nullptr, tmp.data(),
                                               tmp2.data(), &zero, dxd, dx.data(), nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDivisiveNormalizationBackward(h, ld, D, &one, xd, x.data(), nullptr, dy.data(), tmp.data(),
                                               tmp2.data(), &zero, sd, small.data(), nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDivisiveNormalizationBackward(nullptr, ld, D, &one, xd, x.data(), nullptr, dy.data(), tmp.data(),
                                               tmp2.data(), &zero, dxd, dx.data(), nullptr),
            CUDNN_STATUS_BAD_PARAM);
}

}  // namespace
