// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include <cmath>
#include <vector>

#include "common/test_util.h"
#include "ref/dropout.h"

namespace {

struct DropDesc {
  cudnnDropoutDescriptor_t d = nullptr;
  DropDesc() { EXPECT_EQ(cudnnCreateDropoutDescriptor(&d), CUDNN_STATUS_SUCCESS); }
  ~DropDesc() { cudnnDestroyDropoutDescriptor(d); }
  operator cudnnDropoutDescriptor_t() const { return d; }
};

struct States {
  ft::Bytes buf;
  explicit States(cudnnHandle_t h) {
    size_t n = 0;
    EXPECT_EQ(cudnnDropoutGetStatesSize(h, &n), CUDNN_STATUS_SUCCESS);
    EXPECT_GT(n, 0u);
    buf.assign(n, 0xAB);
  }
  void* data() { return buf.data(); }
  size_t size() const { return buf.size(); }
};

// Device-visible (GPU test mode) reserve space.
ft::Buffer<uint8_t> reserve_for(cudnnTensorDescriptor_t xd) {
  size_t n = 0;
  EXPECT_EQ(cudnnDropoutGetReserveSpaceSize(xd, &n), CUDNN_STATUS_SUCCESS);
  return ft::Buffer<uint8_t>(n, 0xCD);
}

ft::HostTensor make(std::mt19937_64& rng, cudnnDataType_t dt, const std::vector<int>& dims, int layout) {
  const bool nhwc = layout == 1 || layout == 3;
  if (layout >= 2) return ft::HostTensor(dt, dims, ft::padded_strides(rng, dims, nhwc));
  return ft::HostTensor(dt, dims, nhwc);
}

std::vector<uint8_t> mask_of(const ft::Buffer<uint8_t>& reserve, int64_t n) {
  ft::sync_device();
  return std::vector<uint8_t>(reserve.begin(), reserve.begin() + n);
}

TEST(Dropout, ForwardBackwardRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
  const float ps[] = {0.0f, 0.3f, 0.5f, 0.9f};
  for (auto dt : types)
    for (float p : ps) {
      std::vector<int> dims = {ft::uniform_int(rng, 1, 3), ft::uniform_int(rng, 1, 4), ft::uniform_int(rng, 1, 5),
                               ft::uniform_int(rng, 1, 6)};
      if (ft::uniform_int(rng, 0, 2) == 0) dims.push_back(ft::uniform_int(rng, 1, 3));
      const int layout = ft::uniform_int(rng, 0, 3);
      SCOPED_TRACE(std::string(ft::type_name(dt)) + " p=" + std::to_string(p) + " layout=" + std::to_string(layout));
      ft::HostTensor x = make(rng, dt, dims, layout), y = make(rng, dt, dims, ft::uniform_int(rng, 0, 3));
      ft::HostTensor dy = make(rng, dt, dims, ft::uniform_int(rng, 0, 3)), dx = make(rng, dt, dims, layout);
      x.fill_uniform(rng, -2, 2);
      dy.fill_uniform(rng, -2, 2);
      y.poison();
      dx.poison();
      ft::TensorDesc xd(x), yd(y), dyd(dy), dxd(dx);
      DropDesc dd;
      States st(h);
      ASSERT_EQ(cudnnSetDropoutDescriptor(dd, h, p, st.data(), st.size(), rng()), CUDNN_STATUS_SUCCESS);
      ft::Buffer<uint8_t> reserve = reserve_for(xd);
      ASSERT_EQ(cudnnDropoutForward(h, dd, xd, x.data(), yd, y.data(), reserve.data(), reserve.size()),
                CUDNN_STATUS_SUCCESS);
      const auto mask = mask_of(reserve, x.count());
      for (uint8_t m : mask) ASSERT_TRUE(m == 0 || m == 1);
      EXPECT_TRUE(ft::near(y.values(), ref::dropout_apply(x.values(), mask, p), ft::tolerance(dt), "y"));
      ASSERT_EQ(cudnnDropoutBackward(h, dd, dyd, dy.data(), dxd, dx.data(), reserve.data(), reserve.size()),
                CUDNN_STATUS_SUCCESS);
      EXPECT_TRUE(ft::near(dx.values(), ref::dropout_apply(dy.values(), mask, p), ft::tolerance(dt), "dx"));
    }
}

// The fraction dropped matches p within 5 standard deviations; kept values are scaled by 1 / (1 - p).
TEST(Dropout, Statistics) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const int n = 200000;
  ft::HostTensor x(CUDNN_DATA_FLOAT, {1, 1, 1, n}), y(CUDNN_DATA_FLOAT, {1, 1, 1, n});
  for (int i = 0; i < n; ++i) x.set(i, 1.0);
  ft::TensorDesc xd(x), yd(y);
  const float ps[] = {0.0f, 0.3f, 0.5f, 1.0f - 1e-3f, 1.0f};
  for (float p : ps) {
    SCOPED_TRACE("p=" + std::to_string(p));
    DropDesc dd;
    States st(h);
    ASSERT_EQ(cudnnSetDropoutDescriptor(dd, h, p, st.data(), st.size(), rng()), CUDNN_STATUS_SUCCESS);
    ft::Buffer<uint8_t> reserve = reserve_for(xd);
    y.poison();
    ASSERT_EQ(cudnnDropoutForward(h, dd, xd, x.data(), yd, y.data(), reserve.data(), reserve.size()),
              CUDNN_STATUS_SUCCESS);
    int dropped = 0;
    for (int i = 0; i < n; ++i) {
      const double v = y.get(i);
      if (v == 0.0) {
        ++dropped;
      } else {
        ASSERT_NEAR(v, 1.0 / (1.0 - p), 1e-5 / (1.0 - p)) << "element " << i;
      }
    }
    const double frac = static_cast<double>(dropped) / n;
    const double sigma = std::sqrt(p * (1.0 - p) / n);
    EXPECT_NEAR(frac, p, 5 * sigma + 1e-12);
    if (p == 0.0f) EXPECT_EQ(dropped, 0);
    if (p == 1.0f) EXPECT_EQ(dropped, n);
  }
}

// The same seed gives the same sequence of masks; consecutive calls differ; masks are in logical order
// whatever the layout.
TEST(Dropout, Determinism) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const std::vector<int> dims = {2, 3, 5, 7};
  ft::HostTensor x(CUDNN_DATA_FLOAT, dims), y(CUDNN_DATA_FLOAT, dims);
  ft::HostTensor xs(CUDNN_DATA_FLOAT, dims, ft::padded_strides(rng, dims, true)), ys(CUDNN_DATA_FLOAT, dims, true);
  x.fill_uniform(rng, 1, 2);
  for (int64_t i = 0; i < x.count(); ++i) xs.set(i, x.get(i));
  ft::TensorDesc xd(x), yd(y), xsd(xs), ysd(ys);
  DropDesc dd;
  States st(h);
  const unsigned long long seed = rng();
  auto run = [&](cudnnTensorDescriptor_t a, const void* ap, cudnnTensorDescriptor_t b, void* bp) {
    ft::Buffer<uint8_t> r = reserve_for(a);
    EXPECT_EQ(cudnnDropoutForward(h, dd, a, ap, b, bp, r.data(), r.size()), CUDNN_STATUS_SUCCESS);
    return mask_of(r, x.count());
  };
  ASSERT_EQ(cudnnSetDropoutDescriptor(dd, h, 0.5f, st.data(), st.size(), seed), CUDNN_STATUS_SUCCESS);
  const auto m1 = run(xd, x.data(), yd, y.data());
  const auto m2 = run(xd, x.data(), yd, y.data());
  EXPECT_NE(m1, m2);
  ASSERT_EQ(cudnnSetDropoutDescriptor(dd, h, 0.5f, st.data(), st.size(), seed), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(run(xsd, xs.data(), ysd, ys.data()), m1);
  EXPECT_EQ(run(xd, x.data(), yd, y.data()), m2);
  EXPECT_TRUE(ft::near(ys.values(), ref::dropout_apply(xs.values(), m1, 0.5), 1e-6, "strided y"));
  ASSERT_EQ(cudnnSetDropoutDescriptor(dd, h, 0.5f, st.data(), st.size(), seed + 1), CUDNN_STATUS_SUCCESS);
  EXPECT_NE(run(xd, x.data(), yd, y.data()), m1);

  // Restore attaches initialized states without resetting them: the sequence continues.
  ASSERT_EQ(cudnnSetDropoutDescriptor(dd, h, 0.5f, st.data(), st.size(), seed), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(run(xd, x.data(), yd, y.data()), m1);
  DropDesc d2;
  ASSERT_EQ(cudnnRestoreDropoutDescriptor(d2, h, 0.5f, st.data(), st.size(), seed), CUDNN_STATUS_SUCCESS);
  ft::Buffer<uint8_t> r = reserve_for(xd);
  ASSERT_EQ(cudnnDropoutForward(h, d2, xd, x.data(), yd, y.data(), r.data(), r.size()), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(mask_of(r, x.count()), m2);
  float p = 0;
  void* sp = nullptr;
  unsigned long long s = 0;
  ASSERT_EQ(cudnnGetDropoutDescriptor(d2, h, &p, &sp, &s), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(p, 0.5f);
  EXPECT_EQ(sp, st.data());
  EXPECT_EQ(s, seed);
}

// The masks are the documented hash of (seed, call counter, index) bit for bit, on every backend; Restore continues
// the counter of the states it attaches.
TEST(Dropout, MaskIsTheDocumentedHash) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const std::vector<int> dims = {2, 3, 4, 5};
  ft::HostTensor x(CUDNN_DATA_FLOAT, dims), y(CUDNN_DATA_FLOAT, dims, true);
  x.fill_uniform(rng, -1, 1);
  ft::TensorDesc xd(x), yd(y);
  DropDesc dd, d2;
  States st(h);
  const unsigned long long seed = rng();
  const float p = 0.37f;
  const size_t n = static_cast<size_t>(x.count());
  ft::Buffer<uint8_t> r = reserve_for(xd);
  ASSERT_EQ(cudnnSetDropoutDescriptor(dd, h, p, st.data(), st.size(), seed), CUDNN_STATUS_SUCCESS);
  for (uint64_t call = 0; call < 3; ++call) {
    cudnnDropoutDescriptor_t d = call < 2 ? dd.d : d2.d;
    if (call == 2) ASSERT_EQ(cudnnRestoreDropoutDescriptor(d2, h, p, st.data(), st.size(), seed), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudnnDropoutForward(h, d, xd, x.data(), yd, y.data(), r.data(), r.size()), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(mask_of(r, x.count()), ref::dropout_mask(seed, call, n, p)) << "call " << call;
  }
}

// Central differences of the forward (same mask: the descriptor is set again before each call).
TEST(Dropout, BackwardFiniteDifference) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const std::vector<int> dims = {2, 2, 3, 4};
  ft::HostTensor x(CUDNN_DATA_DOUBLE, dims), y(CUDNN_DATA_DOUBLE, dims), dy(CUDNN_DATA_DOUBLE, dims),
      dx(CUDNN_DATA_DOUBLE, dims);
  x.fill_uniform(rng, -1, 1);
  dy.fill_uniform(rng, -1, 1);
  ft::TensorDesc xd(x), yd(y), dyd(dy), dxd(dx);
  DropDesc dd;
  States st(h);
  const unsigned long long seed = rng();
  ft::Buffer<uint8_t> r = reserve_for(xd);
  auto f = [&](const ft::HostTensor& xin) {
    EXPECT_EQ(cudnnSetDropoutDescriptor(dd, h, 0.4f, st.data(), st.size(), seed), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnDropoutForward(h, dd, xd, xin.data(), yd, y.data(), r.data(), r.size()), CUDNN_STATUS_SUCCESS);
    double s = 0;
    for (int64_t j = 0; j < y.count(); ++j) s += y.get(j) * dy.get(j);
    return s;
  };
  f(x);
  ASSERT_EQ(cudnnDropoutBackward(h, dd, dyd, dy.data(), dxd, dx.data(), r.data(), r.size()), CUDNN_STATUS_SUCCESS);
  std::vector<double> fd(static_cast<size_t>(x.count()));
  const double eps = 1e-6;
  for (int64_t i = 0; i < x.count(); ++i) {
    ft::HostTensor xp = x, xm = x;
    xp.set(i, x.get(i) + eps);
    xm.set(i, x.get(i) - eps);
    fd[i] = (f(xp) - f(xm)) / (2 * eps);
  }
  EXPECT_TRUE(ft::near(dx.values(), fd, 1e-7, "dx vs finite differences"));
}

TEST(Dropout, BadArguments) {
  ft::Handle h;
  DropDesc dd;
  States st(h);
  size_t sz;
  EXPECT_EQ(cudnnCreateDropoutDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDropoutGetStatesSize(nullptr, &sz), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDropoutGetStatesSize(h, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDropoutGetReserveSpaceSize(nullptr, &sz), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetDropoutDescriptor(nullptr, h, 0.5f, st.data(), st.size(), 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetDropoutDescriptor(dd, nullptr, 0.5f, st.data(), st.size(), 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetDropoutDescriptor(dd, h, -0.1f, st.data(), st.size(), 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetDropoutDescriptor(dd, h, 1.5f, st.data(), st.size(), 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetDropoutDescriptor(dd, h, NAN, st.data(), st.size(), 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetDropoutDescriptor(dd, h, 0.5f, st.data(), st.size() - 1, 1), CUDNN_STATUS_INVALID_VALUE);
  {  // states not 8-byte aligned (the state is read and written as 64-bit words); refused before any access
    ft::Bytes big(st.size() + 8);
    EXPECT_EQ(cudnnSetDropoutDescriptor(dd, h, 0.5f, big.data() + 1, st.size(), 1),
              CUDNN_STATUS_BAD_PARAM);
  }
  float p;
  void* sp;
  unsigned long long seed;
  EXPECT_EQ(cudnnGetDropoutDescriptor(dd, h, &p, &sp, &seed), CUDNN_STATUS_BAD_PARAM);  // never set
  // Restore needs states that Set initialized.
  ft::Bytes raw(st.size(), 0);
  EXPECT_EQ(cudnnRestoreDropoutDescriptor(dd, h, 0.5f, raw.data(), raw.size(), 1), CUDNN_STATUS_BAD_PARAM);

  ft::HostTensor x(CUDNN_DATA_FLOAT, {1, 2, 3, 4}), y(CUDNN_DATA_FLOAT, {1, 2, 3, 4});
  ft::HostTensor yb(CUDNN_DATA_FLOAT, {1, 2, 3, 5}), yh(CUDNN_DATA_HALF, {1, 2, 3, 4});
  ft::HostTensor xi(CUDNN_DATA_INT8, {1, 2, 3, 4});
  ft::TensorDesc xd(x), yd(y), ybd(yb), yhd(yh), xid(xi);
  ft::Buffer<uint8_t> r = reserve_for(xd);
  // NULL states: the descriptor is set, but it cannot run.
  FT_OK(cudnnSetDropoutDescriptor(dd, h, 0.5f, nullptr, 0, 1));
  EXPECT_EQ(cudnnDropoutForward(h, dd, xd, x.data(), yd, y.data(), r.data(), r.size()), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnSetDropoutDescriptor(dd, h, 0.5f, st.data(), st.size(), 1));
  EXPECT_EQ(cudnnDropoutForward(nullptr, dd, xd, x.data(), yd, y.data(), r.data(), r.size()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDropoutForward(h, nullptr, xd, x.data(), yd, y.data(), r.data(), r.size()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDropoutForward(h, dd, xd, nullptr, yd, y.data(), r.data(), r.size()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDropoutForward(h, dd, xd, x.data(), yd, y.data(), nullptr, r.size()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDropoutForward(h, dd, xd, x.data(), yd, y.data(), r.data(), r.size() - 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDropoutForward(h, dd, xd, x.data(), ybd, yb.data(), r.data(), r.size()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDropoutForward(h, dd, xd, x.data(), yhd, yh.data(), r.data(), r.size()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDropoutForward(h, dd, xid, xi.data(), xid, xi.data(), r.data(), r.size()),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnDropoutBackward(h, dd, yd, y.data(), xd, nullptr, r.data(), r.size()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDropoutBackward(h, dd, yd, y.data(), ybd, yb.data(), r.data(), r.size()), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnDropoutForward(h, dd, xd, x.data(), yd, y.data(), r.data(), r.size()));
  FT_OK(cudnnDropoutBackward(h, dd, yd, y.data(), xd, x.data(), r.data(), r.size()));
  EXPECT_EQ(cudnnDestroyDropoutDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
}

}  // namespace
