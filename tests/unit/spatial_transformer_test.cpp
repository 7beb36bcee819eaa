// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include <cmath>
#include <vector>

#include "common/test_util.h"
#include "ref/spatial_transformer.h"

namespace {

struct StDesc {
  cudnnSpatialTransformerDescriptor_t d = nullptr;
  StDesc() { EXPECT_EQ(cudnnCreateSpatialTransformerDescriptor(&d), CUDNN_STATUS_SUCCESS); }
  ~StDesc() { cudnnDestroySpatialTransformerDescriptor(d); }
  operator cudnnSpatialTransformerDescriptor_t() const { return d; }
};

struct Scale {
  double dv;
  float fv;
  Scale(double v) : dv(v), fv(static_cast<float>(v)) {}
  const void* ptr(cudnnDataType_t t) const { return t == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&dv) : &fv; }
};

ft::HostTensor make(std::mt19937_64& rng, cudnnDataType_t dt, const std::vector<int>& dims) {
  const int layout = ft::uniform_int(rng, 0, 3);
  const bool nhwc = layout == 1 || layout == 3;
  if (layout >= 2) return ft::HostTensor(dt, dims, ft::padded_strides(rng, dims, nhwc));
  return ft::HostTensor(dt, dims, nhwc);
}

// A random affine theta: a rotation/scale near identity plus a shift, so part of the grid leaves [-1, 1].
void random_theta(std::mt19937_64& rng, ft::HostTensor& theta) {
  for (int b = 0; b < theta.dims[0]; ++b) {
    const double a = ft::uniform(rng, -0.6, 0.6), s = ft::uniform(rng, 0.7, 1.3);
    const double v[6] = {s * std::cos(a), -s * std::sin(a), ft::uniform(rng, -0.4, 0.4),
                         s * std::sin(a), s * std::cos(a),  ft::uniform(rng, -0.4, 0.4)};
    for (int k = 0; k < 6; ++k) theta.set(b * 6 + k, v[k] + ft::uniform(rng, -0.05, 0.05));
  }
}

const cudnnDataType_t kTypes[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};

TEST(SpatialTransformer, GridGeneratorRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (auto dt : kTypes)
    for (int t = 0; t < 3; ++t) {
      const int n = ft::uniform_int(rng, 1, 3), ho = ft::uniform_int(rng, 1, 6), wo = ft::uniform_int(rng, 1, 6);
      SCOPED_TRACE(std::string(ft::type_name(dt)) + " " + std::to_string(n) + "x" + std::to_string(ho) + "x" +
                   std::to_string(wo));
      StDesc st;
      const int dims[4] = {n, ft::uniform_int(rng, 1, 3), ho, wo};
      ASSERT_EQ(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, dt, 4, dims), CUDNN_STATUS_SUCCESS);
      ft::HostTensor theta(dt, {n, 2, 3}), grid(dt, {n, ho, wo, 2}), dgrid(dt, {n, ho, wo, 2}), dtheta(dt, {n, 2, 3});
      random_theta(rng, theta);
      dgrid.fill_uniform(rng, -1, 1);
      grid.poison();
      dtheta.poison();
      ASSERT_EQ(cudnnSpatialTfGridGeneratorForward(h, st, theta.data(), grid.data()), CUDNN_STATUS_SUCCESS);
      const ref::Tensor g = ref::st_grid_forward(ref::Tensor({n, 2, 3}, theta.values()), ho, wo);
      EXPECT_TRUE(ft::near(grid.values(), g.v, ft::tolerance(dt), "grid"));
      ASSERT_EQ(cudnnSpatialTfGridGeneratorBackward(h, st, dgrid.data(), dtheta.data()), CUDNN_STATUS_SUCCESS);
      const ref::Tensor d = ref::st_grid_backward(ref::Tensor({n, ho, wo, 2}, dgrid.values()));
      EXPECT_TRUE(ft::near(dtheta.values(), d.v, ft::tolerance(dt) * 4, "dtheta"));
    }
}

// Identity theta on equal sizes reproduces the input; corners map to the corner pixel centers.
TEST(SpatialTransformer, IdentityAndCorners) {
  ft::Handle h;
  StDesc st;
  const int dims[4] = {1, 1, 3, 4};
  FT_OK(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_DOUBLE, 4, dims));
  const ft::Buffer<double> theta = {1, 0, 0, 0, 1, 0};  // device-visible in GPU test mode
  ft::Buffer<double> grid(3 * 4 * 2);
  FT_OK(cudnnSpatialTfGridGeneratorForward(h, st, theta.data(), grid.data()));
  ft::sync_device();
  EXPECT_DOUBLE_EQ(grid[0], -1.0);
  EXPECT_DOUBLE_EQ(grid[1], -1.0);
  EXPECT_DOUBLE_EQ(grid[2], -1.0 + 2.0 / 3.0);  // x of (h=0, w=1)
  EXPECT_DOUBLE_EQ(grid[grid.size() - 2], 1.0);
  EXPECT_DOUBLE_EQ(grid[grid.size() - 1], 1.0);
  ft::HostTensor x(CUDNN_DATA_DOUBLE, {1, 1, 3, 4}), y(CUDNN_DATA_DOUBLE, {1, 1, 3, 4});
  for (int i = 0; i < 12; ++i) x.set(i, i * 1.5 - 3);
  ft::TensorDesc xd(x), yd(y);
  const double one = 1, zero = 0;
  FT_OK(cudnnSpatialTfSamplerForward(h, st, &one, xd, x.data(), grid.data(), &zero, yd, y.data()));
  for (int i = 0; i < 12; ++i) EXPECT_NEAR(y.get(i), x.get(i), 1e-12) << i;
  // Shift by one pixel pitch (2 / (W - 1)): each column samples its right neighbour, the last one falls outside.
  const ft::Buffer<double> shift = {1, 0, 2.0 / 3.0, 0, 1, 0};
  FT_OK(cudnnSpatialTfGridGeneratorForward(h, st, shift.data(), grid.data()));
  FT_OK(cudnnSpatialTfSamplerForward(h, st, &one, xd, x.data(), grid.data(), &zero, yd, y.data()));
  EXPECT_NEAR(y.get(0), x.get(1), 1e-12);
  EXPECT_NEAR(y.get(3), 0.0, 1e-12);  // (0, 3) maps one pixel past the last column
}

TEST(SpatialTransformer, SamplerRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (auto dt : kTypes)
    for (int t = 0; t < 4; ++t) {
      const int n = ft::uniform_int(rng, 1, 2), c = ft::uniform_int(rng, 1, 3);
      const int hi = ft::uniform_int(rng, 1, 6), wi = ft::uniform_int(rng, 1, 6);
      const int ho = ft::uniform_int(rng, 1, 5), wo = ft::uniform_int(rng, 1, 5);
      const double alpha = ft::uniform(rng, 0.5, 2), beta = t % 2 ? ft::uniform(rng, -1, 1) : 0.0;
      const double ag = ft::uniform(rng, 0.5, 2), bg = t % 2 ? 0.0 : ft::uniform(rng, -1, 1);
      SCOPED_TRACE(std::string(ft::type_name(dt)) + " in " + std::to_string(hi) + "x" + std::to_string(wi) +
                   " out " + std::to_string(ho) + "x" + std::to_string(wo) + " beta " + std::to_string(beta));
      StDesc st;
      const int dims[4] = {n, c, ho, wo};
      ASSERT_EQ(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, dt, 4, dims), CUDNN_STATUS_SUCCESS);
      ft::HostTensor x = make(rng, dt, {n, c, hi, wi}), y = make(rng, dt, {n, c, ho, wo});
      ft::HostTensor dx = make(rng, dt, {n, c, hi, wi}), dy = make(rng, dt, {n, c, ho, wo});
      ft::HostTensor grid(dt, {n, ho, wo, 2}), dgrid(dt, {n, ho, wo, 2});
      x.fill_uniform(rng, -1, 1);
      dy.fill_uniform(rng, -1, 1);
      grid.fill_uniform(rng, -1.3, 1.3);
      if (beta != 0) {
        y.fill_uniform(rng, -1, 1);
        dx.fill_uniform(rng, -1, 1);
      } else {
        y.poison();
        dx.poison();
      }
      if (bg != 0) {
        dgrid.fill_uniform(rng, -1, 1);
      } else {
        dgrid.poison();
      }
      const auto y0 = y.values(), dx0 = dx.values(), dg0 = dgrid.values();
      ft::TensorDesc xd(x), yd(y), dxd(dx), dyd(dy);
      const Scale a(alpha), b(beta), sa(ag), sb(bg);
      ASSERT_EQ(cudnnSpatialTfSamplerForward(h, st, a.ptr(dt), xd, x.data(), grid.data(), b.ptr(dt), yd, y.data()),
                CUDNN_STATUS_SUCCESS);
      const ref::Tensor rx({n, c, hi, wi}, x.values()), rg({n, ho, wo, 2}, grid.values());
      const ref::Tensor ry = ref::st_sampler_forward(rx, rg);
      EXPECT_TRUE(ft::near(y.values(), ref::blend(ry.v, y0, alpha, beta), ft::tolerance(dt), "y"));
      ASSERT_EQ(cudnnSpatialTfSamplerBackward(h, st, a.ptr(dt), xd, x.data(), b.ptr(dt), dxd, dx.data(), sa.ptr(dt),
                                              dyd, dy.data(), grid.data(), sb.ptr(dt), dgrid.data()),
                CUDNN_STATUS_SUCCESS);
      ref::Tensor rdx, rdg;
      ref::st_sampler_backward(rx, rg, ref::Tensor({n, c, ho, wo}, dy.values()), &rdx, &rdg);
      EXPECT_TRUE(ft::near(dx.values(), ref::blend(rdx.v, dx0, alpha, beta), ft::tolerance(dt) * 2, "dx"));
      EXPECT_TRUE(ft::near(dgrid.values(), ref::blend(rdg.v, dg0, ag, bg), ft::tolerance(dt) * 4, "dgrid"));
    }
}

// The sampler backward in place, dx over x (same descriptor): dgrid must come from x as it was, as on the CPU,
// which computes both gradients before writing either (the GPU wrote dx first until session 41's review).
TEST(SpatialTransformer, SamplerBackwardDxOverX) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (auto dt : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE}) {
    const int n = 2, c = 3, hi = 5, wi = 6, ho = 4, wo = 5;
    StDesc st;
    const int dims[4] = {n, c, ho, wo};
    ASSERT_EQ(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, dt, 4, dims), CUDNN_STATUS_SUCCESS);
    ft::HostTensor x = make(rng, dt, {n, c, hi, wi}), dy = make(rng, dt, {n, c, ho, wo});
    ft::HostTensor grid(dt, {n, ho, wo, 2}), dgrid(dt, {n, ho, wo, 2});
    x.fill_uniform(rng, -1, 1);
    dy.fill_uniform(rng, -1, 1);
    grid.fill_uniform(rng, -1.3, 1.3);
    dgrid.poison();
    const ref::Tensor rx({n, c, hi, wi}, x.values()), rg({n, ho, wo, 2}, grid.values());
    ref::Tensor rdx, rdg;
    ref::st_sampler_backward(rx, rg, ref::Tensor({n, c, ho, wo}, dy.values()), &rdx, &rdg);
    ft::TensorDesc xd(x), dyd(dy);
    const Scale one(1.0), zero(0.0);
    ASSERT_EQ(cudnnSpatialTfSamplerBackward(h, st, one.ptr(dt), xd, x.data(), zero.ptr(dt), xd, x.data(), one.ptr(dt),
                                            dyd, dy.data(), grid.data(), zero.ptr(dt), dgrid.data()),
              CUDNN_STATUS_SUCCESS);
    EXPECT_TRUE(ft::near(x.values(), rdx.v, ft::tolerance(dt) * 2, std::string("dx over x ") + ft::type_name(dt)));
    EXPECT_TRUE(ft::near(dgrid.values(), rdg.v, ft::tolerance(dt) * 4, std::string("dgrid ") + ft::type_name(dt)));
  }
}

// L(theta, x) = <dy, sampler(x, grid(theta))>: central differences against the backward chain.
TEST(SpatialTransformer, BackwardFiniteDifference) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (int t = 0; t < 3; ++t) {
    const int n = 2, c = 2, hi = ft::uniform_int(rng, 2, 5), wi = ft::uniform_int(rng, 2, 5), ho = 3, wo = 4;
    StDesc st;
    const int dims[4] = {n, c, ho, wo};
    ASSERT_EQ(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_DOUBLE, 4, dims),
              CUDNN_STATUS_SUCCESS);
    ft::HostTensor x(CUDNN_DATA_DOUBLE, {n, c, hi, wi}), dx(CUDNN_DATA_DOUBLE, {n, c, hi, wi});
    ft::HostTensor y(CUDNN_DATA_DOUBLE, {n, c, ho, wo}), dy(CUDNN_DATA_DOUBLE, {n, c, ho, wo});
    ft::HostTensor theta(CUDNN_DATA_DOUBLE, {n, 2, 3}), dtheta(CUDNN_DATA_DOUBLE, {n, 2, 3});
    ft::Buffer<double> grid(n * ho * wo * 2), dgrid(grid.size());
    x.fill_uniform(rng, -1, 1);
    dy.fill_uniform(rng, -1, 1);
    random_theta(rng, theta);
    ft::TensorDesc xd(x), yd(y), dxd(dx), dyd(dy);
    const double one = 1, zero = 0;
    auto loss = [&](const ft::HostTensor& xin, const ft::HostTensor& th) {
      EXPECT_EQ(cudnnSpatialTfGridGeneratorForward(h, st, th.data(), grid.data()), CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(cudnnSpatialTfSamplerForward(h, st, &one, xd, xin.data(), grid.data(), &zero, yd, y.data()),
                CUDNN_STATUS_SUCCESS);
      double s = 0;
      for (int64_t j = 0; j < y.count(); ++j) s += y.get(j) * dy.get(j);
      return s;
    };
    loss(x, theta);
    ASSERT_EQ(cudnnSpatialTfSamplerBackward(h, st, &one, xd, x.data(), &zero, dxd, dx.data(), &one, dyd, dy.data(),
                                            grid.data(), &zero, dgrid.data()),
              CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudnnSpatialTfGridGeneratorBackward(h, st, dgrid.data(), dtheta.data()), CUDNN_STATUS_SUCCESS);
    const double eps = 1e-6;
    std::vector<double> fdx(static_cast<size_t>(x.count())), fdt(static_cast<size_t>(theta.count()));
    for (int64_t i = 0; i < x.count(); ++i) {
      ft::HostTensor xp = x, xm = x;
      xp.set(i, x.get(i) + eps);
      xm.set(i, x.get(i) - eps);
      fdx[i] = (loss(xp, theta) - loss(xm, theta)) / (2 * eps);
    }
    for (int64_t i = 0; i < theta.count(); ++i) {
      ft::HostTensor tp = theta, tm = theta;
      tp.set(i, theta.get(i) + eps);
      tm.set(i, theta.get(i) - eps);
      fdt[i] = (loss(x, tp) - loss(x, tm)) / (2 * eps);
    }
    EXPECT_TRUE(ft::near(dx.values(), fdx, 1e-6, "dx vs finite differences"));
    EXPECT_TRUE(ft::near(dtheta.values(), fdt, 1e-5, "dtheta vs finite differences"));
  }
}

TEST(SpatialTransformer, BadArguments) {
  ft::Handle h;
  StDesc st;
  const int dims[4] = {1, 2, 3, 3}, bad[4] = {1, 0, 3, 3}, dims5[5] = {1, 2, 3, 3, 3};
  const auto B = CUDNN_SAMPLER_BILINEAR;
  EXPECT_EQ(cudnnCreateSpatialTransformerDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetSpatialTransformerNdDescriptor(nullptr, B, CUDNN_DATA_FLOAT, 4, dims), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetSpatialTransformerNdDescriptor(st, static_cast<cudnnSamplerType_t>(3), CUDNN_DATA_FLOAT, 4, dims),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetSpatialTransformerNdDescriptor(st, B, static_cast<cudnnDataType_t>(99), 4, dims),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetSpatialTransformerNdDescriptor(st, B, CUDNN_DATA_FLOAT, 4, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetSpatialTransformerNdDescriptor(st, B, CUDNN_DATA_FLOAT, 4, bad), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetSpatialTransformerNdDescriptor(st, B, CUDNN_DATA_FLOAT, -1, dims), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetSpatialTransformerNdDescriptor(st, B, CUDNN_DATA_FLOAT, 5, dims5), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnSetSpatialTransformerNdDescriptor(st, B, CUDNN_DATA_INT8, 4, dims), CUDNN_STATUS_NOT_SUPPORTED);
  ft::Buffer<float> theta(6, 0.f), grid(18, 0.f);
  EXPECT_EQ(cudnnSpatialTfGridGeneratorForward(h, st, theta.data(), grid.data()), CUDNN_STATUS_BAD_PARAM);  // unset
  FT_OK(cudnnSetSpatialTransformerNdDescriptor(st, B, CUDNN_DATA_FLOAT, 4, dims));
  EXPECT_EQ(cudnnSpatialTfGridGeneratorForward(nullptr, st, theta.data(), grid.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSpatialTfGridGeneratorForward(h, nullptr, theta.data(), grid.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSpatialTfGridGeneratorForward(h, st, nullptr, grid.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSpatialTfGridGeneratorBackward(h, st, grid.data(), nullptr), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnSpatialTfGridGeneratorForward(h, st, theta.data(), grid.data()));

  ft::HostTensor x(CUDNN_DATA_FLOAT, {1, 2, 5, 5}), y(CUDNN_DATA_FLOAT, {1, 2, 3, 3});
  ft::HostTensor yw(CUDNN_DATA_FLOAT, {1, 2, 3, 4}), yc(CUDNN_DATA_FLOAT, {1, 3, 3, 3});
  ft::HostTensor yh(CUDNN_DATA_HALF, {1, 2, 3, 3}), x5(CUDNN_DATA_FLOAT, {1, 2, 5, 5, 5});
  ft::TensorDesc xd(x), yd(y), ywd(yw), ycd(yc), yhd(yh), x5d(x5);
  const float one = 1, zero = 0;
  EXPECT_EQ(cudnnSpatialTfSamplerForward(h, st, nullptr, xd, x.data(), grid.data(), &zero, yd, y.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSpatialTfSamplerForward(h, st, &one, xd, x.data(), nullptr, &zero, yd, y.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSpatialTfSamplerForward(h, st, &one, xd, x.data(), grid.data(), &zero, ywd, yw.data()),
            CUDNN_STATUS_BAD_PARAM);  // y differs from stDesc
  EXPECT_EQ(cudnnSpatialTfSamplerForward(h, st, &one, xd, x.data(), grid.data(), &zero, yhd, yh.data()),
            CUDNN_STATUS_BAD_PARAM);  // dtype differs
  EXPECT_EQ(cudnnSpatialTfSamplerForward(h, st, &one, x5d, x5.data(), grid.data(), &zero, yd, y.data()),
            CUDNN_STATUS_NOT_SUPPORTED);
  FT_OK(cudnnSpatialTfSamplerForward(h, st, &one, xd, x.data(), grid.data(), &zero, yd, y.data()));
  ft::HostTensor dx(CUDNN_DATA_FLOAT, {1, 2, 5, 5});
  ft::TensorDesc dxd(dx);
  ft::Buffer<float> dgrid(18);
  EXPECT_EQ(cudnnSpatialTfSamplerBackward(h, st, &one, xd, x.data(), &zero, dxd, dx.data(), nullptr, yd, y.data(),
                                          grid.data(), &zero, dgrid.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSpatialTfSamplerBackward(h, st, &one, xd, x.data(), &zero, yd, dx.data(), &one, yd, y.data(),
                                          grid.data(), &zero, dgrid.data()),
            CUDNN_STATUS_BAD_PARAM);  // dx shape differs from x
  EXPECT_EQ(cudnnSpatialTfSamplerBackward(h, st, &one, xd, x.data(), &zero, dxd, dx.data(), &one, yd, y.data(),
                                          grid.data(), &zero, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnSpatialTfSamplerBackward(h, st, &one, xd, x.data(), &zero, dxd, dx.data(), &one, yd, y.data(),
                                      grid.data(), &zero, dgrid.data()));
  EXPECT_EQ(cudnnDestroySpatialTransformerDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
}

}  // namespace
