// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include <cmath>
#include <limits>

#include "common/test_util.h"
#include "ref/activation.h"
#include "unit/pointwise_test_util.h"

namespace {

const cudnnActivationMode_t kModes[] = {CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_TANH,
                                        CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_ACTIVATION_ELU, CUDNN_ACTIVATION_SWISH};

struct ActDesc {
  cudnnActivationDescriptor_t d = nullptr;
  ActDesc() { EXPECT_EQ(cudnnCreateActivationDescriptor(&d), CUDNN_STATUS_SUCCESS); }
  ActDesc(const ref::Activation& a) : ActDesc() { set(a); }
  ~ActDesc() { cudnnDestroyActivationDescriptor(d); }
  void set(const ref::Activation& a) {
    EXPECT_EQ(cudnnSetActivationDescriptor(d, a.mode, a.propagate_nan ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                           a.coef),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetActivationDescriptorSwishBeta(d, a.swish_beta), CUDNN_STATUS_SUCCESS);
  }
  operator cudnnActivationDescriptor_t() const { return d; }
};

ref::Activation random_activation(std::mt19937_64& rng, cudnnActivationMode_t mode) {
  ref::Activation a;
  a.mode = mode;
  a.propagate_nan = ft::uniform_int(rng, 0, 1);
  a.coef = mode == CUDNN_ACTIVATION_CLIPPED_RELU ? ft::uniform(rng, 0.5, 2.0)
           : mode == CUDNN_ACTIVATION_ELU        ? ft::uniform(rng, 0.3, 1.5)
                                                 : ft::uniform(rng, -1, 1);  // ignored by the other modes
  a.swish_beta = ft::uniform(rng, 0.5, 2.0);
  return a;
}

std::vector<double> expected(const ref::Tensor& r, const ft::HostTensor& prior, double alpha, double beta) {
  return ref::blend(r.v, prior.values(), alpha, beta);
}

TEST(ActivationDescriptor, RoundTripAndSwishBeta) {
  ActDesc a;
  FT_OK(cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_PROPAGATE_NAN, 6.0));
  cudnnActivationMode_t m;
  cudnnNanPropagation_t n;
  double coef = 0;
  FT_OK(cudnnGetActivationDescriptor(a, &m, &n, &coef));
  EXPECT_EQ(m, CUDNN_ACTIVATION_CLIPPED_RELU);
  EXPECT_EQ(n, CUDNN_PROPAGATE_NAN);
  EXPECT_EQ(coef, 6.0);
  double b = 0;
  FT_OK(cudnnGetActivationDescriptorSwishBeta(a, &b));
  EXPECT_EQ(b, 1.0);  // freednn's default
  FT_OK(cudnnSetActivationDescriptorSwishBeta(a, 1.702));
  FT_OK(cudnnGetActivationDescriptorSwishBeta(a, &b));
  EXPECT_EQ(b, 1.702);
  FT_OK(cudnnGetActivationDescriptor(a, &m, &n, &coef));  // swish beta leaves the rest alone
  EXPECT_EQ(coef, 6.0);
}

TEST(ActivationDescriptor, BadArguments) {
  ActDesc a;
  EXPECT_EQ(cudnnCreateActivationDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetActivationDescriptor(nullptr, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetActivationDescriptor(a, static_cast<cudnnActivationMode_t>(7), CUDNN_PROPAGATE_NAN, 0),
            CUDNN_STATUS_BAD_PARAM);
#ifndef __SANITIZE_ADDRESS__  // values outside the enum's range: UB that UBSan (sanitizer build) traps on
  EXPECT_EQ(cudnnSetActivationDescriptor(a, static_cast<cudnnActivationMode_t>(-1), CUDNN_PROPAGATE_NAN, 0),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_RELU, static_cast<cudnnNanPropagation_t>(2), 0),
            CUDNN_STATUS_BAD_PARAM);
#endif
  cudnnActivationMode_t m;
  cudnnNanPropagation_t n;
  double c;
  EXPECT_EQ(cudnnGetActivationDescriptor(a, nullptr, &n, &c), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetActivationDescriptor(nullptr, &m, &n, &c), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetActivationDescriptorSwishBeta(a, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetActivationDescriptorSwishBeta(nullptr, 1.0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyActivationDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
}

TEST(Activation, ForwardRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnDataType_t t : pt::float_types()) {
    for (cudnnActivationMode_t mode : kModes) {
      for (int trial = 0; trial < 2; ++trial) {
        const ref::Activation act = random_activation(rng, mode);
        const auto dims = pt::random_dims(rng, ft::uniform_int(rng, 1, 3), 3, 5, 5);
        ft::HostTensor x = pt::random_tensor(rng, t, dims), y = pt::random_tensor(rng, t, dims);
        x.fill_uniform(rng, -3, 3);
        const auto [alpha, beta] = pt::random_alpha_beta(rng);
        pt::prepare_output(rng, y, beta);
        const ft::HostTensor prior = y;
        ActDesc ad(act);
        ft::TensorDesc xd(x), yd(y);
        const pt::Scale a(alpha), b(beta);
        FT_OK(cudnnActivationForward(h, ad, a.ptr(t), xd, x.data(), b.ptr(t), yd, y.data()));
        const auto want = expected(ref::activation_forward(act, pt::to_ref(x)), prior, a.seen(t), b.seen(t));
        EXPECT_TRUE(ft::near(y.values(), want, pt::tol(t), std::string("act fwd ") + ft::type_name(t) + " mode " +
                                                                std::to_string(mode) + " " + x.str() + " -> " +
                                                                y.str()));
        EXPECT_TRUE(pt::gaps_untouched(y));
      }
    }
  }
}

TEST(Activation, ForwardInt8) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnActivationMode_t mode : {CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_ACTIVATION_ELU}) {
    ref::Activation act = random_activation(rng, mode);
    act.coef = mode == CUDNN_ACTIVATION_CLIPPED_RELU ? 50.0 : 1.0;
    const std::vector<int> dims{2, 5, 3, 4};
    ft::HostTensor x(CUDNN_DATA_INT8, dims, true), y(CUDNN_DATA_INT8, dims, false);
    x.fill_ints(rng, -100, 100);
    y.poison();
    ActDesc ad(act);
    ft::TensorDesc xd(x), yd(y);
    const float one = 1.0f, zero = 0.0f;
    FT_OK(cudnnActivationForward(h, ad, &one, xd, x.data(), &zero, yd, y.data()));
    const ref::Tensor r = ref::activation_forward(act, pt::to_ref(x));
    const auto got = y.values();
    for (int64_t i = 0; i < x.count(); ++i)
      ASSERT_EQ(got[i], std::max(-128.0, std::min(127.0, std::nearbyint(r[i])))) << "element " << i;
  }
}

TEST(Activation, BackwardRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnDataType_t t : pt::float_types()) {
    for (cudnnActivationMode_t mode : kModes) {
      for (int trial = 0; trial < 2; ++trial) {
        const ref::Activation act = random_activation(rng, mode);
        const auto dims = pt::random_dims(rng, ft::uniform_int(rng, 1, 3), 3, 5, 5);
        // y/dy share a layout and x/dx share one (cuDNN's documented requirement); the two pairs differ.
        const pt::Layout ly = pt::random_layout(rng), lx = pt::random_layout(rng);
        ft::HostTensor x = pt::make(rng, t, dims, lx), dx = pt::make(rng, t, dims, lx);
        ft::HostTensor y = pt::make(rng, t, dims, ly), dy = pt::make(rng, t, dims, ly);
        x.fill_uniform(rng, -3, 3);
        dy.fill_uniform(rng, -1, 1);
        // y = act(x) as the forward pass gave it (rounded to the storage type).
        const ref::Tensor yr = ref::activation_forward(act, pt::to_ref(x));
        y.set_values(yr.v);
        const auto [alpha, beta] = pt::random_alpha_beta(rng);
        pt::prepare_output(rng, dx, beta);
        const ft::HostTensor prior = dx;
        ActDesc ad(act);
        ft::TensorDesc xd(x), yd(y), dyd(dy), dxd(dx);
        const pt::Scale a(alpha), b(beta);
        FT_OK(cudnnActivationBackward(h, ad, a.ptr(t), yd, y.data(), dyd, dy.data(), xd, x.data(), b.ptr(t), dxd,
                                      dx.data()));
        // SIGMOID and TANH differentiate through the stored y, which is x's image rounded to the storage type.
        // Give the reference the x whose exact image is that stored y, so both see the same point.
        ref::Tensor xr = pt::to_ref(x);
        if (mode == CUDNN_ACTIVATION_TANH || mode == CUDNN_ACTIVATION_SIGMOID) {
          for (int64_t i = 0; i < y.count(); ++i) {
            const double yv = y.get(i);
            xr[i] = mode == CUDNN_ACTIVATION_TANH ? std::atanh(yv) : std::log(yv / (1.0 - yv));
          }
        }
        const auto want = expected(ref::activation_backward(act, xr, pt::to_ref(dy)), prior,
                                   a.seen(t), b.seen(t));
        EXPECT_TRUE(ft::near(dx.values(), want, 2 * pt::tol(t), std::string("act bwd ") + ft::type_name(t) +
                                                                    " mode " + std::to_string(mode) + " " + x.str() +
                                                                    " / " + y.str()));
        EXPECT_TRUE(pt::gaps_untouched(dx));
      }
    }
  }
}

// Central differences of the library's own forward, projected on a random dy, in double.
TEST(Activation, BackwardFiniteDifference) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t t = CUDNN_DATA_DOUBLE;
  for (cudnnActivationMode_t mode : kModes) {
    const ref::Activation act = random_activation(rng, mode);
    const std::vector<int> dims{2, 3, 2, 3};
    ft::HostTensor x(t, dims, true), y(t, dims), dy(t, dims), dx(t, dims, true);
    // Keep away from the kinks of the ReLU family (0 and coef).
    for (int64_t i = 0; i < x.count(); ++i) {
      double v;
      do v = ft::uniform(rng, -2.5, 2.5);
      while (std::fabs(v) < 0.05 || std::fabs(v - act.coef) < 0.05);
      x.set(i, v);
    }
    dy.fill_uniform(rng, -1, 1);
    ActDesc ad(act);
    ft::TensorDesc xd(x), yd(y), dyd(dy), dxd(dx);
    const double one = 1, zero = 0;
    FT_OK(cudnnActivationForward(h, ad, &one, xd, x.data(), &zero, yd, y.data()));
    dx.poison();
    FT_OK(cudnnActivationBackward(h, ad, &one, yd, y.data(), dyd, dy.data(), xd, x.data(), &zero, dxd, dx.data()));
    auto objective = [&](const ft::HostTensor& xp) {
      ft::HostTensor yp(t, dims);
      EXPECT_EQ(cudnnActivationForward(h, ad, &one, xd, xp.data(), &zero, yd, yp.data()), CUDNN_STATUS_SUCCESS);
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
    EXPECT_TRUE(ft::near(dx.values(), num, 1e-6, "finite differences, mode " + std::to_string(mode)));
  }
}

TEST(Activation, InPlace) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnActivationMode_t mode : kModes) {
    const ref::Activation act = random_activation(rng, mode);
    const std::vector<int> dims{2, 4, 3, 3};
    ft::HostTensor x(CUDNN_DATA_FLOAT, dims, ft::padded_strides(rng, dims, true));
    x.poison();
    x.fill_uniform(rng, -2, 2);
    const ft::HostTensor x0 = x;
    ActDesc ad(act);
    ft::TensorDesc xd(x);
    const float one = 1, zero = 0;
    FT_OK(cudnnActivationForward(h, ad, &one, xd, x.data(), &zero, xd, x.data()));
    EXPECT_TRUE(ft::near(x.values(), ref::activation_forward(act, pt::to_ref(x0)).v, 1e-5, "in-place forward"));
    EXPECT_TRUE(pt::gaps_untouched(x));
    // Backward in place: dx == dy.
    ft::HostTensor g(CUDNN_DATA_FLOAT, dims, true);
    g.fill_uniform(rng, -1, 1);
    const ft::HostTensor g0 = g;
    ft::TensorDesc gd(g);
    ft::HostTensor xx(CUDNN_DATA_FLOAT, dims, true);
    for (int64_t i = 0; i < xx.count(); ++i) xx.set(i, x0.get(i));
    ft::HostTensor yy(CUDNN_DATA_FLOAT, dims, true);
    for (int64_t i = 0; i < yy.count(); ++i) yy.set(i, x.get(i));
    FT_OK(cudnnActivationBackward(h, ad, &one, gd, yy.data(), gd, g.data(), gd, xx.data(), &zero, gd, g.data()));
    EXPECT_TRUE(ft::near(g.values(), ref::activation_backward(act, pt::to_ref(xx), pt::to_ref(g0)).v, 2e-5,
                         "in-place backward"));
  }
}

// Strides whose span equals the element count but which overlap (3 x 3 with strides 2, 2: nine elements over five
// offsets, four offsets no element holds). Such a tensor is not packed: the dense paths, which walk every offset of
// the span, must not take it, and the offsets between elements stay as they were.
TEST(Activation, OverlappingStridesAreNotPacked) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const ref::Activation act = random_activation(rng, CUDNN_ACTIVATION_TANH);
  const std::vector<int> dims{1, 1, 3, 3}, strides{9, 9, 2, 2};
  ft::HostTensor x(CUDNN_DATA_FLOAT, dims, strides), y = x;
  for (int64_t off = 0; off < x.span(); ++off) x.set_raw(off, 1.0);  // finite between the elements: a dense walk
  x.fill_uniform(rng, -2, 2);  // would write there  (elements sharing an offset read the value written last)
  y.poison();
  ActDesc ad(act);
  ft::TensorDesc xd(x), yd(y);
  const float one = 1, zero = 0;
  FT_OK(cudnnActivationForward(h, ad, &one, xd, x.data(), &zero, yd, y.data()));
  EXPECT_TRUE(ft::near(y.values(), ref::activation_forward(act, pt::to_ref(x)).v, 1e-5, "overlapping forward"));
  EXPECT_TRUE(pt::gaps_untouched(y));
}

TEST(Activation, NanPropagation) {
  ft::Handle h;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (cudnnActivationMode_t mode : {CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_CLIPPED_RELU}) {
    for (bool prop : {false, true}) {
      ref::Activation act;
      act.mode = mode;
      act.propagate_nan = prop;
      act.coef = 1.5;
      const std::vector<int> dims{1, 4, 1, 1};
      ft::HostTensor x(CUDNN_DATA_FLOAT, dims), y(CUDNN_DATA_FLOAT, dims), dy(CUDNN_DATA_FLOAT, dims),
          dx(CUDNN_DATA_FLOAT, dims);
      const double xs[4] = {nan, -1.0, 0.5, 3.0};
      for (int i = 0; i < 4; ++i) {
        x.set(i, xs[i]);
        dy.set(i, 1.0 + i);
      }
      y.poison();
      ActDesc ad(act);
      ft::TensorDesc d(x);
      const float one = 1, zero = 0;
      FT_OK(cudnnActivationForward(h, ad, &one, d, x.data(), &zero, d, y.data()));
      EXPECT_EQ(std::isnan(y.get(0)), prop) << "mode " << mode;
      if (!prop) EXPECT_EQ(y.get(0), 0.0);
      EXPECT_TRUE(ft::near(y.values(), ref::activation_forward(act, pt::to_ref(x)).v, 1e-6, "nan fwd"));
      dx.poison();
      FT_OK(cudnnActivationBackward(h, ad, &one, d, y.data(), d, dy.data(), d, x.data(), &zero, d, dx.data()));
      EXPECT_EQ(std::isnan(dx.get(0)), prop);
      EXPECT_TRUE(ft::near(dx.values(), ref::activation_backward(act, pt::to_ref(x), pt::to_ref(dy)).v, 1e-6,
                           "nan bwd"));
    }
  }
}

TEST(Activation, BadArguments) {
  ft::Handle h;
  ActDesc ad(ref::Activation{});
  ft::HostTensor x(CUDNN_DATA_FLOAT, {2, 3, 4, 5}), y(CUDNN_DATA_FLOAT, {2, 3, 4, 5});
  ft::HostTensor small(CUDNN_DATA_FLOAT, {2, 3, 4, 4}), hx(CUDNN_DATA_HALF, {2, 3, 4, 5});
  ft::HostTensor xs(CUDNN_DATA_FLOAT, {2, 3, 4, 5}, true), i32(CUDNN_DATA_INT32, {2, 3, 4, 5});
  ft::TensorDesc xd(x), yd(y), sd(small), hd(hx), xsd(xs), id(i32), unset;
  const float one = 1, zero = 0;
  auto fwd = [&](cudnnHandle_t hh, cudnnActivationDescriptor_t a, const void* al, cudnnTensorDescriptor_t dx_,
                 const void* px, const void* be, cudnnTensorDescriptor_t dy_, void* py) {
    return cudnnActivationForward(hh, a, al, dx_, px, be, dy_, py);
  };
  EXPECT_EQ(fwd(nullptr, ad, &one, xd, x.data(), &zero, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, nullptr, &one, xd, x.data(), &zero, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, ad, nullptr, xd, x.data(), &zero, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, ad, &one, xd, x.data(), nullptr, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, ad, &one, nullptr, x.data(), &zero, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, ad, &one, unset, x.data(), &zero, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, ad, &one, xd, nullptr, &zero, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, ad, &one, xd, x.data(), &zero, yd, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, ad, &one, xd, x.data(), &zero, sd, small.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, ad, &one, xd, x.data(), &zero, hd, hx.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, ad, &one, xd, x.data(), &zero, xsd, x.data()), CUDNN_STATUS_BAD_PARAM);  // in place, strides
  EXPECT_EQ(fwd(h, ad, &one, id, i32.data(), &zero, id, i32.data()), CUDNN_STATUS_NOT_SUPPORTED);
  ActDesc ident;
  FT_OK(cudnnSetActivationDescriptor(ident, CUDNN_ACTIVATION_IDENTITY, CUDNN_NOT_PROPAGATE_NAN, 0));
  EXPECT_EQ(fwd(h, ident, &one, xd, x.data(), &zero, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  // Different strides out of place are fine.
  EXPECT_EQ(fwd(h, ad, &one, xd, x.data(), &zero, xsd, xs.data()), CUDNN_STATUS_SUCCESS);

  ft::HostTensor dy(CUDNN_DATA_FLOAT, {2, 3, 4, 5}), dx(CUDNN_DATA_FLOAT, {2, 3, 4, 5});
  ft::TensorDesc dyd(dy), dxd(dx);
  auto bwd = [&](cudnnHandle_t hh, cudnnActivationDescriptor_t a, cudnnTensorDescriptor_t ydsc, const void* py,
                 cudnnTensorDescriptor_t dydsc, const void* pdy, cudnnTensorDescriptor_t xdsc, const void* px,
                 cudnnTensorDescriptor_t dxdsc, void* pdx) {
    return cudnnActivationBackward(hh, a, &one, ydsc, py, dydsc, pdy, xdsc, px, &zero, dxdsc, pdx);
  };
  EXPECT_EQ(bwd(h, ad, yd, y.data(), dyd, dy.data(), xd, x.data(), dxd, dx.data()), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(bwd(nullptr, ad, yd, y.data(), dyd, dy.data(), xd, x.data(), dxd, dx.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(bwd(h, nullptr, yd, y.data(), dyd, dy.data(), xd, x.data(), dxd, dx.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(bwd(h, ad, yd, y.data(), dyd, nullptr, xd, x.data(), dxd, dx.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(bwd(h, ad, yd, y.data(), dyd, dy.data(), xd, x.data(), dxd, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(bwd(h, ad, yd, y.data(), dyd, dy.data(), nullptr, x.data(), dxd, dx.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(bwd(h, ident, yd, y.data(), dyd, dy.data(), xd, x.data(), dxd, dx.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(bwd(h, ad, yd, y.data(), dyd, dy.data(), xd, x.data(), sd, small.data()), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(bwd(h, ad, yd, y.data(), dyd, dy.data(), xd, x.data(), hd, hx.data()), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(bwd(h, ad, yd, y.data(), dyd, dy.data(), xd, x.data(), xsd, dy.data()), CUDNN_STATUS_BAD_PARAM);
  ActDesc relu;
  FT_OK(cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0));
  // RELU reads x, not y; SIGMOID reads y, not x.
  EXPECT_EQ(bwd(h, relu, yd, nullptr, dyd, dy.data(), xd, x.data(), dxd, dx.data()), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(bwd(h, relu, yd, y.data(), dyd, dy.data(), xd, nullptr, dxd, dx.data()), CUDNN_STATUS_BAD_PARAM);
  ActDesc sig;
  FT_OK(cudnnSetActivationDescriptor(sig, CUDNN_ACTIVATION_SIGMOID, CUDNN_NOT_PROPAGATE_NAN, 0));
  EXPECT_EQ(bwd(h, sig, yd, nullptr, dyd, dy.data(), xd, x.data(), dxd, dx.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(bwd(h, sig, yd, y.data(), dyd, dy.data(), xd, nullptr, dxd, dx.data()), CUDNN_STATUS_SUCCESS);
}

}  // namespace
