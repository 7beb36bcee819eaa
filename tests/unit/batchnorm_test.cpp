// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cudnnDeriveBNTensorDescriptor, cudnnBatchNormalization* (plain and Ex) against the reference in
// tests/ref/batchnorm, finite-difference checks of the backward, and bad arguments.
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#ifdef FT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include <freednn.h>

#include "unit/batchnorm_fixture.h"

namespace {

using bnt::Scale;
using ft::HostTensor;
using ft::TensorDesc;

const cudnnBatchNormMode_t kModes[] = {CUDNN_BATCHNORM_PER_ACTIVATION, CUDNN_BATCHNORM_SPATIAL,
                                       CUDNN_BATCHNORM_SPATIAL_PERSISTENT};

bool per_act(cudnnBatchNormMode_t m) { return m == CUDNN_BATCHNORM_PER_ACTIVATION; }

// One random batch norm problem: x, y (forward) and the parameters in the derived type.
struct Problem {
  cudnnDataType_t dtype;
  cudnnBatchNormMode_t mode;
  bnt::Shape shape;
  HostTensor x, y, z, scale, bias, mean, var;
  double eps;
  std::string str() const {
    return std::string(ft::type_name(dtype)) + " mode=" + std::to_string(mode) + " " + shape.str() +
           " eps=" + std::to_string(eps);
  }
};

Problem make_problem(std::mt19937_64& rng, cudnnDataType_t t, cudnnBatchNormMode_t mode) {
  Problem p;
  p.dtype = t;
  p.mode = mode;
  p.shape = bnt::random_shape(rng);
  p.eps = bnt::random_epsilon(rng);
  const auto& d = p.shape.dims;
  p.x = bnt::make_tensor(rng, t, d, p.shape.x_layout);
  p.x.fill_uniform(rng, -2, 3);
  p.y = bnt::make_tensor(rng, t, d, p.shape.y_layout);
  p.z = bnt::make_tensor(rng, t, d, ft::uniform_int(rng, 0, 3));
  p.z.fill_uniform(rng, -1, 1);
  const auto pd = bnt::param_dims(d, per_act(mode));
  const cudnnDataType_t pt = bnt::param_type(t);
  p.scale = bnt::make_tensor(rng, pt, pd, p.shape.param_layout);  // one descriptor: the same strides for all
  p.bias = p.mean = p.var = p.scale;
  p.scale.fill_uniform(rng, 0.5, 1.5);
  p.bias.fill_uniform(rng, -1, 1);
  p.mean.fill_uniform(rng, -0.5, 0.5);
  p.var.fill_uniform(rng, 0.5, 2);
  return p;
}

TEST(BatchNorm, DeriveDescriptor) {
  struct Case {
    cudnnDataType_t x, expect;
  };
  for (Case c : {Case{CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT}, Case{CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
                 Case{CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT}, Case{CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE}}) {
    for (cudnnBatchNormMode_t m : kModes) {
      for (int rank : {4, 5}) {
        std::vector<int> dims = rank == 4 ? std::vector<int>{2, 3, 4, 5} : std::vector<int>{2, 3, 4, 5, 6};
        HostTensor xt(c.x, dims, /*nhwc=*/true);
        TensorDesc xd(xt), out;
        FT_OK(cudnnDeriveBNTensorDescriptor(out, xd, m));
        cudnnDataType_t t;
        int nb = 0, gd[8], gs[8];
        FT_OK(cudnnGetTensorNdDescriptor(out, 8, &t, &nb, gd, gs));
        EXPECT_EQ(t, c.expect);
        EXPECT_EQ(std::vector<int>(gd, gd + nb), bnt::param_dims(dims, per_act(m))) << "mode " << m;
        EXPECT_EQ(gs[nb - 1], 1);  // packed NCHW
      }
    }
  }
}

TEST(BatchNorm, DeriveBadArguments) {
  HostTensor xt(CUDNN_DATA_FLOAT, {2, 3, 4, 5});
  TensorDesc xd(xt), out;
  EXPECT_EQ(cudnnDeriveBNTensorDescriptor(nullptr, xd, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDeriveBNTensorDescriptor(out, nullptr, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDeriveBNTensorDescriptor(out, xd, static_cast<cudnnBatchNormMode_t>(3)), CUDNN_STATUS_BAD_PARAM);
  HostTensor x3(CUDNN_DATA_FLOAT, {2, 3, 4});
  TensorDesc x3d(x3);
  EXPECT_EQ(cudnnDeriveBNTensorDescriptor(out, x3d, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_BAD_PARAM);
  HostTensor xi(CUDNN_DATA_INT8, {2, 3, 4, 5});
  TensorDesc xid(xi);
  EXPECT_EQ(cudnnDeriveBNTensorDescriptor(out, xid, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_NOT_SUPPORTED);
}

TEST(BatchNorm, ForwardInferenceRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnDataType_t t : bnt::kTypes) {
    for (cudnnBatchNormMode_t m : kModes) {
      for (int trial = 0; trial < 3; ++trial) {
        Problem p = make_problem(rng, t, m);
        const auto [a, b] = bnt::random_blend(rng);
        const Scale alpha(a), beta(b);
        const auto prior = bnt::prepare_output(rng, p.y, b);
        TensorDesc xd(p.x), yd(p.y), pd(p.scale);
        FT_OK(cudnnBatchNormalizationForwardInference(h, m, alpha.ptr(t), beta.ptr(t), xd, p.x.data(), yd,
                                                      p.y.data(), pd, p.scale.data(), p.bias.data(), p.mean.data(),
                                                      p.var.data(), p.eps));
        const auto r = ref::bn_forward(bnt::to_ref(p.x), p.scale.values(), p.bias.values(), p.mean.values(),
                                       p.var.values(), p.eps, per_act(m));
        EXPECT_TRUE(ft::near(p.y.values(), ref::blend(r.v, prior, a, b), ft::tolerance(t), "y " + p.str()));
      }
    }
  }
}

TEST(BatchNorm, ForwardTrainingRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnDataType_t t : bnt::kTypes) {
    const cudnnDataType_t pt = bnt::param_type(t);
    for (cudnnBatchNormMode_t m : kModes) {
      for (int trial = 0; trial < 3; ++trial) {
        Problem p = make_problem(rng, t, m);
        const auto [a, b] = bnt::random_blend(rng);
        const Scale alpha(a), beta(b);
        const auto prior = bnt::prepare_output(rng, p.y, b);
        const bool with_running = trial != 1, with_save = trial != 2;
        const double factor = trial == 0 ? 1.0 : ft::uniform(rng, 0.05, 0.95);
        HostTensor run_mean = p.mean, run_var = p.var, save_mean = p.mean, save_inv = p.var;
        if (factor == 1.0) {  // a factor of 1 must not read the old running values
          run_mean.poison();
          run_var.poison();
        }
        save_mean.poison();
        save_inv.poison();
        const auto old_mean = p.mean.values(), old_var = p.var.values();
        TensorDesc xd(p.x), yd(p.y), pd(p.scale);
        FT_OK(cudnnBatchNormalizationForwardTraining(
            h, m, alpha.ptr(t), beta.ptr(t), xd, p.x.data(), yd, p.y.data(), pd, p.scale.data(), p.bias.data(),
            factor, with_running ? run_mean.data() : nullptr, with_running ? run_var.data() : nullptr, p.eps,
            with_save ? save_mean.data() : nullptr, with_save ? save_inv.data() : nullptr));
        const auto xr = bnt::to_ref(p.x);
        const auto st = ref::bn_batch_stats(xr, per_act(m), p.eps);
        const auto r = ref::bn_forward(xr, p.scale.values(), p.bias.values(), st.mean, st.var, p.eps, per_act(m));
        const std::string what = p.str() + " factor=" + std::to_string(factor);
        EXPECT_TRUE(ft::near(p.y.values(), ref::blend(r.v, prior, a, b), ft::tolerance(t), "y " + what));
        // A mean sums values of either sign: its rounding error follows max |x|, not the (maybe tiny) mean.
        const double max_x = ft::max_abs(xr.v);
        if (with_save) {
          EXPECT_TRUE(ft::near(save_mean.values(), st.mean, ft::tolerance(pt), "saveMean " + what, max_x));
          EXPECT_TRUE(ft::near(save_inv.values(), st.inv_std, ft::tolerance(pt), "saveInvVariance " + what));
        }
        if (with_running) {
          std::vector<double> em(st.mean.size()), ev(st.mean.size());
          for (size_t k = 0; k < em.size(); ++k) {
            em[k] = factor == 1.0 ? st.mean[k] : (1 - factor) * old_mean[k] + factor * st.mean[k];
            ev[k] = factor == 1.0 ? st.unbiased_var[k] : (1 - factor) * old_var[k] + factor * st.unbiased_var[k];
          }
          EXPECT_TRUE(ft::near(run_mean.values(), em, ft::tolerance(pt), "runningMean " + what, max_x));
          EXPECT_TRUE(ft::near(run_var.values(), ev, ft::tolerance(pt), "runningVariance " + what));
        }
      }
    }
  }
}

// Runs cudnnBatchNormalizationBackward on p (x, dy) and checks dx, dScale, dBias against the reference.
TEST(BatchNorm, BackwardRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnDataType_t t : bnt::kTypes) {
    const cudnnDataType_t pt = bnt::param_type(t);
    for (cudnnBatchNormMode_t m : kModes) {
      for (int trial = 0; trial < 3; ++trial) {
        Problem p = make_problem(rng, t, m);
        HostTensor dy = bnt::make_tensor(rng, t, p.shape.dims, ft::uniform_int(rng, 0, 3));
        dy.fill_uniform(rng, -1, 1);
        HostTensor& dx = p.y;
        const auto [ad, bd] = bnt::random_blend(rng);
        const auto [ap, bp] = bnt::random_blend(rng);
        const Scale alpha_d(ad), beta_d(bd), alpha_p(ap), beta_p(bp);
        const auto prior_dx = bnt::prepare_output(rng, dx, bd);
        HostTensor dscale = p.mean, dbias = p.var;
        const auto prior_ds = bnt::prepare_output(rng, dscale, bp);
        const auto prior_db = bnt::prepare_output(rng, dbias, bp);
        const auto xr = bnt::to_ref(p.x);
        const auto st = ref::bn_batch_stats(xr, per_act(m), p.eps);
        const bool with_saved = trial != 0;
        HostTensor saved_mean = p.scale, saved_inv = p.scale;
        for (int64_t k = 0; k < saved_mean.count(); ++k) {
          saved_mean.set(k, st.mean[k]);
          saved_inv.set(k, st.inv_std[k]);
        }
        TensorDesc xd(p.x), dyd(dy), dxd(dx), pd(p.scale);
        FT_OK(cudnnBatchNormalizationBackward(h, m, alpha_d.ptr(t), beta_d.ptr(t), alpha_p.ptr(t), beta_p.ptr(t), xd,
                                              p.x.data(), dyd, dy.data(), dxd, dx.data(), pd, p.scale.data(),
                                              dscale.data(), dbias.data(), p.eps,
                                              with_saved ? saved_mean.data() : nullptr,
                                              with_saved ? saved_inv.data() : nullptr));
        const auto g = ref::bn_backward(xr, bnt::to_ref(dy), p.scale.values(), p.bias.values(), p.eps, per_act(m));
        const std::string what = p.str() + (with_saved ? " saved" : " recomputed");
        bnt::expect_backward_near(g, {dx, dscale, dbias, prior_dx, prior_ds, prior_db}, ad, bd, ap, bp, dy, p.scale,
                                  st.inv_std, what);
      }
    }
  }
}

// Finite differences: loss = sum(dy * y) with y from the library's own training forward, in double.
TEST(BatchNorm, BackwardFiniteDifference) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t t = CUDNN_DATA_DOUBLE;
  for (cudnnBatchNormMode_t m : {CUDNN_BATCHNORM_PER_ACTIVATION, CUDNN_BATCHNORM_SPATIAL}) {
    const std::vector<int> dims = m == CUDNN_BATCHNORM_SPATIAL ? std::vector<int>{2, 3, 2, 2} : std::vector<int>{3, 2, 2, 2};
    const bool nhwc = m == CUDNN_BATCHNORM_SPATIAL;
    HostTensor x(t, dims, nhwc), y(t, dims, nhwc), dy(t, dims, nhwc), dx(t, dims, nhwc);
    const auto pd_dims = bnt::param_dims(dims, per_act(m));
    HostTensor scale(t, pd_dims), bias(t, pd_dims), dscale(t, pd_dims), dbias(t, pd_dims);
    x.fill_uniform(rng, -2, 2);
    dy.fill_uniform(rng, -1, 1);
    scale.fill_uniform(rng, 0.5, 1.5);
    bias.fill_uniform(rng, -1, 1);
    const double eps = 1e-3;
    TensorDesc xd(x), yd(y), pd(scale);
    const Scale one(1), zero(0);
    auto loss = [&]() {
      EXPECT_EQ(cudnnBatchNormalizationForwardTraining(h, m, one.ptr(t), zero.ptr(t), xd, x.data(), yd, y.data(), pd,
                                                       scale.data(), bias.data(), 0.0, nullptr, nullptr, eps, nullptr,
                                                       nullptr),
                CUDNN_STATUS_SUCCESS);
      double l = 0;
      for (int64_t i = 0; i < y.count(); ++i) l += y.get(i) * dy.get(i);
      return l;
    };
    auto numeric = [&](HostTensor& v) {
      std::vector<double> g(static_cast<size_t>(v.count()));
      const double step = 1e-5;
      for (int64_t i = 0; i < v.count(); ++i) {
        const double orig = v.get(i);
        v.set(i, orig + step);
        const double lp = loss();
        v.set(i, orig - step);
        const double lm = loss();
        v.set(i, orig);
        g[i] = (lp - lm) / (2 * step);
      }
      return g;
    };
    FT_OK(cudnnBatchNormalizationBackward(h, m, one.ptr(t), zero.ptr(t), one.ptr(t), zero.ptr(t), xd, x.data(), xd,
                                          dy.data(), xd, dx.data(), pd, scale.data(), dscale.data(), dbias.data(), eps,
                                          nullptr, nullptr));
    EXPECT_TRUE(ft::near(dx.values(), numeric(x), 1e-6, "dx (finite differences)"));
    EXPECT_TRUE(ft::near(dscale.values(), numeric(scale), 1e-6, "dScale (finite differences)"));
    EXPECT_TRUE(ft::near(dbias.values(), numeric(bias), 1e-6, "dBias (finite differences)"));
  }
}

// The Ex entry points with bnOps = BN behave as the plain ones; they need no workspace nor reserve space.
TEST(BatchNorm, ExPlainOpsMatchPlainCalls) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnDataType_t t : bnt::kTypes) {
    for (cudnnBatchNormMode_t m : kModes) {
      Problem p = make_problem(rng, t, m);
      TensorDesc xd(p.x), yd(p.y), pd(p.scale);
      size_t ws = 99, rs = 99;
      FT_OK(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(h, m, CUDNN_BATCHNORM_OPS_BN, xd, nullptr, yd, pd,
                                                                      nullptr, &ws));
      FT_OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, m, CUDNN_BATCHNORM_OPS_BN, nullptr, xd, &rs));
      EXPECT_EQ(ws, 0u);
      EXPECT_EQ(rs, 0u);
      const Scale one(1), zero(0);
      HostTensor y2 = p.y, save_m = p.scale, save_i = p.scale, save_m2 = p.scale, save_i2 = p.scale;
      p.y.poison();
      y2.poison();
      FT_OK(cudnnBatchNormalizationForwardTraining(h, m, one.ptr(t), zero.ptr(t), xd, p.x.data(), yd, p.y.data(), pd,
                                                   p.scale.data(), p.bias.data(), 0.5, nullptr, nullptr, p.eps,
                                                   save_m.data(), save_i.data()));
      FT_OK(cudnnBatchNormalizationForwardTrainingEx(h, m, CUDNN_BATCHNORM_OPS_BN, one.ptr(t), zero.ptr(t), xd,
                                                     p.x.data(), nullptr, nullptr, yd, y2.data(), pd, p.scale.data(),
                                                     p.bias.data(), 0.5, nullptr, nullptr, p.eps, save_m2.data(),
                                                     save_i2.data(), nullptr, nullptr, 0, nullptr, 0));
      EXPECT_EQ(p.y.values(), y2.values());
      EXPECT_EQ(save_i.values(), save_i2.values());

      HostTensor dy = p.y, dx1 = p.x, dx2 = p.x, ds1 = p.mean, db1 = p.mean, ds2 = p.mean, db2 = p.mean;
      dy.fill_uniform(rng, -1, 1);
      FT_OK(cudnnGetBatchNormalizationBackwardExWorkspaceSize(h, m, CUDNN_BATCHNORM_OPS_BN, xd, yd, yd, nullptr, xd,
                                                              pd, nullptr, &ws));
      EXPECT_EQ(ws, 0u);
      FT_OK(cudnnBatchNormalizationBackward(h, m, one.ptr(t), zero.ptr(t), one.ptr(t), zero.ptr(t), xd, p.x.data(), yd,
                                            dy.data(), xd, dx1.data(), pd, p.scale.data(), ds1.data(), db1.data(),
                                            p.eps, save_m.data(), save_i.data()));
      FT_OK(cudnnBatchNormalizationBackwardEx(h, m, CUDNN_BATCHNORM_OPS_BN, one.ptr(t), zero.ptr(t), one.ptr(t),
                                              zero.ptr(t), xd, p.x.data(), yd, p.y.data(), yd, dy.data(), nullptr,
                                              nullptr, xd, dx2.data(), pd, p.scale.data(), p.bias.data(), ds2.data(),
                                              db2.data(), p.eps, save_m.data(), save_i.data(), nullptr, nullptr, 0,
                                              nullptr, 0));
      EXPECT_EQ(dx1.values(), dx2.values());
      EXPECT_EQ(ds1.values(), ds2.values());
      EXPECT_EQ(db1.values(), db2.values());
    }
  }
}

// Fused BN + (add) + ReLU, forward and backward through the reserve space, against the reference.
TEST(BatchNorm, ExActivationRandom) {
  bnt::ActDesc act(CUDNN_ACTIVATION_RELU);
  BNT_REQUIRE_ACTIVATION(act);
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnDataType_t t : bnt::kTypes) {
    const cudnnDataType_t pt = bnt::param_type(t);
    for (cudnnBatchNormMode_t m : kModes) {
      for (cudnnBatchNormOps_t ops : {CUDNN_BATCHNORM_OPS_BN_ACTIVATION, CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION}) {
        const bool add = ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
        Problem p = make_problem(rng, t, m);
        const auto [a, b] = bnt::random_blend(rng);
        const Scale alpha(a), beta(b), one(1), zero(0);
        const auto prior = bnt::prepare_output(rng, p.y, b);
        TensorDesc xd(p.x), yd(p.y), zd(p.z), pd(p.scale);
        size_t rs = 0, ws = 0;
        FT_OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, m, ops, act.d, xd, &rs));
        FT_OK(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(h, m, ops, xd, add ? zd.d : nullptr, yd, pd,
                                                                        act.d, &ws));
        EXPECT_GT(rs, 0u);
        ft::Buffer<unsigned char> reserve(rs, 0xA5), workspace(ws + 1);
        HostTensor save_m = p.scale, save_i = p.scale;  // same strides as the shared descriptor
        FT_OK(cudnnBatchNormalizationForwardTrainingEx(
            h, m, ops, alpha.ptr(t), beta.ptr(t), xd, p.x.data(), add ? zd.d : nullptr, add ? p.z.data() : nullptr,
            yd, p.y.data(), pd, p.scale.data(), p.bias.data(), 0.1, nullptr, nullptr, p.eps, save_m.data(),
            save_i.data(), act.d, workspace.data(), ws, reserve.data(), rs));
        const auto xr = bnt::to_ref(p.x), zr = bnt::to_ref(p.z);
        ref::BnFusion fusion;
        fusion.relu = true;
        fusion.z = add ? &zr : nullptr;
        const auto st = ref::bn_batch_stats(xr, per_act(m), p.eps);
        const auto r =
            ref::bn_forward(xr, p.scale.values(), p.bias.values(), st.mean, st.var, p.eps, per_act(m), fusion);
        EXPECT_TRUE(ft::near(p.y.values(), ref::blend(r.v, prior, a, b), ft::tolerance(t), "y Ex " + p.str()));

        HostTensor dy = bnt::make_tensor(rng, t, p.shape.dims, 0), dx = dy, dz = dy, ds = save_m, db = save_m;
        dy.fill_uniform(rng, -1, 1);
        dx.poison();
        dz.poison();
        ds.poison();
        db.poison();
        TensorDesc dyd(dy);
        FT_OK(cudnnGetBatchNormalizationBackwardExWorkspaceSize(h, m, ops, xd, yd, dyd, add ? dyd.d : nullptr, dyd, pd,
                                                                act.d, &ws));
        workspace.assign(ws + 1, 0);
        FT_OK(cudnnBatchNormalizationBackwardEx(
            h, m, ops, one.ptr(t), zero.ptr(t), one.ptr(t), zero.ptr(t), xd, p.x.data(), yd, p.y.data(), dyd,
            dy.data(), add ? dyd.d : nullptr, add ? dz.data() : nullptr, dyd, dx.data(), pd, p.scale.data(),
            p.bias.data(), ds.data(), db.data(), p.eps, save_m.data(), save_i.data(), act.d, workspace.data(), ws,
            reserve.data(), rs));
        const auto g = ref::bn_backward(xr, bnt::to_ref(dy), p.scale.values(), p.bias.values(), p.eps, per_act(m),
                                        fusion);
        EXPECT_TRUE(ft::near(dx.values(), g.dx.v, ft::tolerance(t) * 4, "dx Ex " + p.str(),
                             bnt::dx_terms(dy, p.scale, st.inv_std)));
        // dScale and dBias are sums of terms of either sign: their rounding follows the terms' size (max |dy|,
        // |x_hat| of order 1), not the sum's, which can cancel to near zero.
        const double dy_scale = ft::max_abs(dy.values());
        EXPECT_TRUE(ft::near(ds.values(), g.dscale, ft::tolerance(pt) * 4, "dScale Ex " + p.str(), dy_scale));
        EXPECT_TRUE(ft::near(db.values(), g.dbias, ft::tolerance(pt) * 4, "dBias Ex " + p.str(), dy_scale));
        if (add) EXPECT_TRUE(ft::near(dz.values(), g.dz.v, ft::tolerance(t), "dz Ex " + p.str()));
      }
    }
  }
}

// Shapes of the GPU fast paths: every tensor in x's layout (NHWC: statistics of 16-byte channel vectors, ReLU mask
// in memory order; NCHW: planes with and without 16-byte loads; per activation on packed NCHW; channel counts that
// need two channel chunks), and one case with y in another layout than x (mask written element by element), for
// ops BN, BN + ReLU and BN + add + ReLU through the Ex calls: y, the saved statistics, dx, dScale, dBias, dz.
TEST(BatchNorm, ExFastPathShapes) {
  bnt::ActDesc act(CUDNN_ACTIVATION_RELU);
  BNT_REQUIRE_ACTIVATION(act);
  auto rng = ft::make_rng();
  ft::Handle h;
  struct Shape {
    cudnnDataType_t t;
    cudnnBatchNormMode_t m;
    std::vector<int> dims;
    int layout, y_layout;
  };
  const auto S = CUDNN_BATCHNORM_SPATIAL;
  const Shape shapes[] = {
      {CUDNN_DATA_BFLOAT16, S, {2, 16, 5, 7}, 1, 1},      // NHWC, 8 channels per vector
      {CUDNN_DATA_BFLOAT16, S, {2, 256, 8, 8}, 1, 1},     // NHWC, several row splits
      {CUDNN_DATA_BFLOAT16, S, {3, 2064, 1, 1}, 1, 1},    // two channel chunks, the second partial
      {CUDNN_DATA_HALF, S, {3, 12, 3, 5}, 1, 1},          // NHWC, C % 8 != 0: scalar rows
      {CUDNN_DATA_HALF, S, {4, 64, 8, 8}, 1, 1},          // NHWC C = 64: 32 rows per block in the tree fold
      {CUDNN_DATA_HALF, S, {2, 24, 6, 6}, 1, 1},          // NHWC C = 24: odd row count (85) in the tree fold
      {CUDNN_DATA_FLOAT, S, {3, 8, 4, 5}, 1, 1},          // NHWC float
      {CUDNN_DATA_DOUBLE, S, {3, 6, 3, 3}, 1, 1},         // NHWC double, 2 per vector
      {CUDNN_DATA_FLOAT, S, {2, 4, 6, 6}, 0, 0},          // NCHW, planes of 36: 16-byte loads
      {CUDNN_DATA_FLOAT, S, {3, 5, 7, 7}, 0, 0},          // NCHW, odd planes: scalar loads, per-element channels
      {CUDNN_DATA_BFLOAT16, S, {2, 3, 8, 8}, 0, 0},       // NCHW bf16
      {CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_PER_ACTIVATION, {4, 8, 2, 2}, 0, 0},  // per activation, rows of 32
      {CUDNN_DATA_BFLOAT16, S, {2, 16, 3, 5}, 1, 0},      // y NCHW, x NHWC: the generic apply pass
      {CUDNN_DATA_FLOAT, S, {3, 4, 5, 3}, 3, 3},          // padded NHWC: the generic kernels
      // Rows pass 1 (stats_rows_w): 128 vector columns in 2 row slots; several row splits of one chunk.
      {CUDNN_DATA_HALF, S, {2, 1024, 2, 2}, 1, 1},
      {CUDNN_DATA_HALF, S, {8, 16, 32, 32}, 1, 1},
      {CUDNN_DATA_FLOAT, S, {3, 5, 9, 9}, 0, 0},            // NCHW planes of 81: 81 partials per channel, finalize_wide
      // One block per channel (bn_channel.cuh: needs >= 3 channels per SM, 396 on an H200): 16-byte vectors,
      // scalar planes (9 elements), half / bfloat16 / double vectors, one-element planes.
      {CUDNN_DATA_FLOAT, S, {2, 416, 4, 4}, 0, 0},
      {CUDNN_DATA_FLOAT, S, {3, 400, 3, 3}, 0, 0},
      {CUDNN_DATA_HALF, S, {2, 512, 2, 4}, 0, 0},
      {CUDNN_DATA_BFLOAT16, S, {2, 448, 3, 5}, 0, 0},
      {CUDNN_DATA_DOUBLE, S, {2, 400, 2, 2}, 0, 0},
      {CUDNN_DATA_FLOAT, S, {5, 800, 1, 1}, 0, 0},
  };
  for (const Shape& sh : shapes) {
    const cudnnDataType_t t = sh.t, pt = bnt::param_type(t);
    const bool pa = per_act(sh.m);
    for (cudnnBatchNormOps_t ops :
         {CUDNN_BATCHNORM_OPS_BN, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION}) {
      const bool add = ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION, relu = ops != CUDNN_BATCHNORM_OPS_BN;
      HostTensor x = bnt::make_tensor(rng, t, sh.dims, sh.layout), y = bnt::make_tensor(rng, t, sh.dims, sh.y_layout);
      HostTensor z = bnt::make_tensor(rng, t, sh.dims, sh.layout);
      x.fill_uniform(rng, -2, 3);
      z.fill_uniform(rng, -1, 1);
      HostTensor scale(pt, bnt::param_dims(sh.dims, pa));
      HostTensor bias = scale, save_m = scale, save_i = scale, ds = scale, db = scale;
      scale.fill_uniform(rng, 0.5, 1.5);
      bias.fill_uniform(rng, -1, 1);
      save_m.poison();
      save_i.poison();
      const auto [a, b] = bnt::random_blend(rng);
      const Scale alpha(a), beta(b), one(1), zero(0);
      const auto prior = bnt::prepare_output(rng, y, b);
      const double eps = 1e-5;
      TensorDesc xd(x), yd(y), zd(z), pd(scale);
      cudnnActivationDescriptor_t ad = relu ? act.d : nullptr;
      size_t rs = 0, ws = 0;
      FT_OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, sh.m, ops, ad, xd, &rs));
      FT_OK(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(h, sh.m, ops, xd, add ? zd.d : nullptr, yd, pd,
                                                                      ad, &ws));
      ft::Buffer<unsigned char> reserve(rs + 1, 0xA5), workspace(ws + 1);
      FT_OK(cudnnBatchNormalizationForwardTrainingEx(h, sh.m, ops, alpha.ptr(t), beta.ptr(t), xd, x.data(),
                                                     add ? zd.d : nullptr, add ? z.data() : nullptr, yd, y.data(), pd,
                                                     scale.data(), bias.data(), 0.1, nullptr, nullptr, eps,
                                                     save_m.data(), save_i.data(), ad, workspace.data(), ws,
                                                     rs ? reserve.data() : nullptr, rs));
      const auto xr = bnt::to_ref(x), zr = bnt::to_ref(z);
      ref::BnFusion fusion;
      fusion.relu = relu;
      fusion.z = add ? &zr : nullptr;
      const auto st = ref::bn_batch_stats(xr, pa, eps);
      const auto r = ref::bn_forward(xr, scale.values(), bias.values(), st.mean, st.var, eps, pa, fusion);
      const std::string what = std::string(ft::type_name(t)) + " ops=" + std::to_string(ops) + " layout " +
                               std::to_string(sh.layout) + "/" + std::to_string(sh.y_layout) + " dims " +
                               std::to_string(sh.dims[0]) + "x" + std::to_string(sh.dims[1]) + "x" +
                               std::to_string(sh.dims[2]) + "x" + std::to_string(sh.dims[3]);
      EXPECT_TRUE(ft::near(y.values(), ref::blend(r.v, prior, a, b), ft::tolerance(t), "y " + what));
      EXPECT_TRUE(ft::near(save_m.values(), st.mean, ft::tolerance(pt), "saveMean " + what, ft::max_abs(xr.v)));
      EXPECT_TRUE(ft::near(save_i.values(), st.inv_std, ft::tolerance(pt), "saveInvVariance " + what));

      if (ops == CUDNN_BATCHNORM_OPS_BN) {  // inference on the same shape (NHWC: coefficients in the apply pass)
        HostTensor mean = scale, var = scale;
        mean.fill_uniform(rng, -0.5, 0.5);
        var.fill_uniform(rng, 0.5, 2);
        const auto prior_i = bnt::prepare_output(rng, y, b);
        FT_OK(cudnnBatchNormalizationForwardInference(h, sh.m, alpha.ptr(t), beta.ptr(t), xd, x.data(), yd, y.data(),
                                                      pd, scale.data(), bias.data(), mean.data(), var.data(), eps));
        const auto ri = ref::bn_forward(xr, scale.values(), bias.values(), mean.values(), var.values(), eps, pa);
        EXPECT_TRUE(ft::near(y.values(), ref::blend(ri.v, prior_i, a, b), ft::tolerance(t), "inference y " + what));
      }

      HostTensor dy = bnt::make_tensor(rng, t, sh.dims, sh.layout), dx = dy, dz = dy;
      dy.fill_uniform(rng, -1, 1);
      if (relu) {  // no gradient where the ReLU's input is ~0: float and double may disagree on its sign there
        ref::BnFusion linear = fusion;  // (seed 2151650018 drew a pre-activation of 8.8e-9)
        linear.relu = false;
        const auto pre = ref::bn_forward(xr, scale.values(), bias.values(), st.mean, st.var, eps, pa, linear);
        for (int64_t i = 0; i < pre.count(); ++i)
          if (std::abs(pre[i]) < 1e-4) dy.set(i, 0.0);
      }
      const auto [ad2, bd2] = bnt::random_blend(rng);
      const Scale alpha_d(ad2), beta_d(bd2);
      const auto prior_dx = bnt::prepare_output(rng, dx, bd2);
      const auto prior_dz = bnt::prepare_output(rng, dz, bd2);
      ds.poison();
      db.poison();
      TensorDesc dyd(dy);
      FT_OK(cudnnGetBatchNormalizationBackwardExWorkspaceSize(h, sh.m, ops, xd, yd, dyd, add ? dyd.d : nullptr, dyd,
                                                              pd, ad, &ws));
      workspace.assign(ws + 1, 0);
      FT_OK(cudnnBatchNormalizationBackwardEx(
          h, sh.m, ops, alpha_d.ptr(t), beta_d.ptr(t), one.ptr(t), zero.ptr(t), xd, x.data(), yd, y.data(), dyd,
          dy.data(), add ? dyd.d : nullptr, add ? dz.data() : nullptr, dyd, dx.data(), pd, scale.data(), bias.data(),
          ds.data(), db.data(), eps, save_m.data(), save_i.data(), ad, workspace.data(), ws,
          rs ? reserve.data() : nullptr, rs));
      const auto g = ref::bn_backward(xr, bnt::to_ref(dy), scale.values(), bias.values(), eps, pa, fusion);
      EXPECT_TRUE(ft::near(dx.values(), ref::blend(g.dx.v, prior_dx, ad2, bd2), ft::tolerance(t) * 4, "dx " + what,
                           bnt::dx_terms(dy, scale, st.inv_std)));
      const double dy_scale = ft::max_abs(dy.values());  // dScale / dBias round at the terms' size
      EXPECT_TRUE(ft::near(ds.values(), g.dscale, ft::tolerance(pt) * 4, "dScale " + what, dy_scale));
      EXPECT_TRUE(ft::near(db.values(), g.dbias, ft::tolerance(pt) * 4, "dBias " + what, dy_scale));
      if (add) EXPECT_TRUE(ft::near(dz.values(), ref::blend(g.dz.v, prior_dz, ad2, bd2), ft::tolerance(t), "dz " + what));
    }
  }
}

// Finite differences through the fused add + ReLU: loss = sum(dy * y) with y from the forward Ex.
TEST(BatchNorm, ExActivationFiniteDifference) {
  bnt::ActDesc act(CUDNN_ACTIVATION_RELU);
  BNT_REQUIRE_ACTIVATION(act);
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t t = CUDNN_DATA_DOUBLE;
  const cudnnBatchNormMode_t m = CUDNN_BATCHNORM_SPATIAL;
  const cudnnBatchNormOps_t ops = CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
  const std::vector<int> dims{2, 3, 2, 2};
  HostTensor x(t, dims), z(t, dims), y(t, dims), dy(t, dims), dx(t, dims), dz(t, dims);
  const auto pdims = bnt::param_dims(dims, false);
  HostTensor scale(t, pdims), bias(t, pdims), ds(t, pdims), db(t, pdims);
  x.fill_uniform(rng, -2, 2);
  z.fill_uniform(rng, -1, 1);
  dy.fill_uniform(rng, -1, 1);
  scale.fill_uniform(rng, 0.5, 1.5);
  bias.fill_uniform(rng, -0.5, 0.5);
  TensorDesc xd(x), pd(scale);
  size_t rs = 0;
  FT_OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, m, ops, act.d, xd, &rs));
  ft::Buffer<unsigned char> reserve(rs);
  const Scale one(1), zero(0);
  const double eps = 1e-3;
  auto loss = [&]() {
    EXPECT_EQ(cudnnBatchNormalizationForwardTrainingEx(h, m, ops, one.ptr(t), zero.ptr(t), xd, x.data(), xd,
                                                       z.data(), xd, y.data(), pd, scale.data(), bias.data(), 0.0,
                                                       nullptr, nullptr, eps, nullptr, nullptr, act.d, nullptr, 0,
                                                       reserve.data(), rs),
              CUDNN_STATUS_SUCCESS);
    double l = 0;
    for (int64_t i = 0; i < y.count(); ++i) l += y.get(i) * dy.get(i);
    return l;
  };
  auto numeric = [&](HostTensor& v) {
    std::vector<double> g(static_cast<size_t>(v.count()));
    for (int64_t i = 0; i < v.count(); ++i) {
      const double orig = v.get(i), step = 1e-6;
      v.set(i, orig + step);
      const double lp = loss();
      v.set(i, orig - step);
      const double lm = loss();
      v.set(i, orig);
      g[i] = (lp - lm) / (2 * step);
    }
    return g;
  };
  const auto gx = numeric(x), gz = numeric(z), gs = numeric(scale), gb = numeric(bias);
  loss();  // the reserve space of the unperturbed forward
  FT_OK(cudnnBatchNormalizationBackwardEx(h, m, ops, one.ptr(t), zero.ptr(t), one.ptr(t), zero.ptr(t), xd, x.data(),
                                          xd, y.data(), xd, dy.data(), xd, dz.data(), xd, dx.data(), pd, scale.data(),
                                          bias.data(), ds.data(), db.data(), eps, nullptr, nullptr, act.d, nullptr, 0,
                                          reserve.data(), rs));
  EXPECT_TRUE(ft::near(dx.values(), gx, 1e-5, "dx (finite differences)"));
  EXPECT_TRUE(ft::near(dz.values(), gz, 1e-5, "dz (finite differences)"));
  EXPECT_TRUE(ft::near(ds.values(), gs, 1e-5, "dScale (finite differences)"));
  EXPECT_TRUE(ft::near(db.values(), gb, 1e-5, "dBias (finite differences)"));
}

TEST(BatchNorm, ExBadArguments) {
  ft::Handle h;
  HostTensor x(CUDNN_DATA_FLOAT, {2, 3, 4, 4}), y = x, p(CUDNN_DATA_FLOAT, {1, 3, 1, 1});
  TensorDesc xd(x), yd(y), pd(p);
  const Scale one(1), zero(0);
  const auto t = CUDNN_DATA_FLOAT;
  const auto m = CUDNN_BATCHNORM_SPATIAL;
  size_t sz = 0;
  // An activation op without an activation descriptor, an invalid ops value.
  EXPECT_EQ(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, m, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, nullptr, xd,
                                                                 &sz),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, m, static_cast<cudnnBatchNormOps_t>(3), nullptr,
                                                                 xd, &sz),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, m, CUDNN_BATCHNORM_OPS_BN, nullptr, xd, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(nullptr, m, CUDNN_BATCHNORM_OPS_BN, nullptr, xd, &sz),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(h, m, CUDNN_BATCHNORM_OPS_BN, xd, nullptr, nullptr,
                                                                      pd, nullptr, &sz),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnBatchNormalizationForwardTrainingEx(h, m, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, one.ptr(t), zero.ptr(t),
                                                     xd, x.data(), nullptr, nullptr, yd, y.data(), pd, p.data(),
                                                     p.data(), 0.1, nullptr, nullptr, 1e-5, nullptr, nullptr, nullptr,
                                                     nullptr, 0, nullptr, 0),
            CUDNN_STATUS_BAD_PARAM);

  bnt::ActDesc relu(CUDNN_ACTIVATION_RELU), tanh_act(CUDNN_ACTIVATION_TANH);
  BNT_REQUIRE_ACTIVATION(relu);
  ASSERT_EQ(tanh_act.status, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, m, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, tanh_act.d,
                                                                 xd, &sz),
            CUDNN_STATUS_NOT_SUPPORTED);
  FT_OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, m, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, relu.d, xd, &sz));
  ft::Buffer<unsigned char> reserve(sz);
  auto fwd = [&](cudnnBatchNormOps_t ops, const void* z, void* r, size_t rsz) {
    return cudnnBatchNormalizationForwardTrainingEx(h, m, ops, one.ptr(t), zero.ptr(t), xd, x.data(), xd, z, yd,
                                                    y.data(), pd, p.data(), p.data(), 0.1, nullptr, nullptr, 1e-5,
                                                    nullptr, nullptr, relu.d, nullptr, 0, r, rsz);
  };
  EXPECT_EQ(fwd(CUDNN_BATCHNORM_OPS_BN_ACTIVATION, nullptr, reserve.data(), sz - 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(CUDNN_BATCHNORM_OPS_BN_ACTIVATION, nullptr, nullptr, sz), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION, nullptr, reserve.data(), sz), CUDNN_STATUS_BAD_PARAM);
  FT_OK(fwd(CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION, x.data(), reserve.data(), sz));
  HostTensor dx = x, ds = p, db = p;
  EXPECT_EQ(cudnnBatchNormalizationBackwardEx(h, m, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, one.ptr(t), zero.ptr(t),
                                              one.ptr(t), zero.ptr(t), xd, x.data(), yd, y.data(), yd, y.data(),
                                              nullptr, nullptr, xd, dx.data(), pd, p.data(), p.data(), ds.data(),
                                              db.data(), 1e-5, nullptr, nullptr, relu.d, nullptr, 0, reserve.data(),
                                              sz / 2),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnBatchNormalizationForwardTrainingEx(h, m, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, one.ptr(t), zero.ptr(t),
                                                     xd, x.data(), nullptr, nullptr, yd, y.data(), pd, p.data(),
                                                     p.data(), 0.1, nullptr, nullptr, 1e-5, nullptr, nullptr,
                                                     tanh_act.d, nullptr, 0, reserve.data(), sz),
            CUDNN_STATUS_NOT_SUPPORTED);
}

TEST(BatchNorm, ForwardBadArguments) {
  ft::Handle h;
  const auto t = CUDNN_DATA_FLOAT;
  const auto m = CUDNN_BATCHNORM_SPATIAL;
  HostTensor x(t, {2, 3, 4, 4}), y = x, p(t, {1, 3, 1, 1}), pw(t, {1, 4, 1, 1}), pd_act(t, {1, 3, 4, 4});
  HostTensor yh(CUDNN_DATA_HALF, {2, 3, 4, 4}), y5(t, {2, 3, 4, 4, 1}), pdbl(CUDNN_DATA_DOUBLE, {1, 3, 1, 1});
  HostTensor x3(t, {2, 3, 4}), p3(t, {1, 3, 1}), xi(CUDNN_DATA_INT8, {2, 3, 4, 4});
  TensorDesc xd(x), yd(y), pd(p), pwd(pw), pactd(pd_act), yhd(yh), y5d(y5), pdbld(pdbl), x3d(x3), p3d(p3), xid(xi);
  const Scale one(1), zero(0);
  const void* a = one.ptr(t);
  const void* b = zero.ptr(t);
  auto infer = [&](cudnnHandle_t hh, cudnnBatchNormMode_t mm, const void* al, cudnnTensorDescriptor_t xdd,
                   cudnnTensorDescriptor_t ydd, cudnnTensorDescriptor_t pdd, const void* sc, double eps) {
    return cudnnBatchNormalizationForwardInference(hh, mm, al, b, xdd, x.data(), ydd, y.data(), pdd, sc, p.data(),
                                                   p.data(), p.data(), eps);
  };
  FT_OK(infer(h, m, a, xd, yd, pd, p.data(), 1e-5));
  EXPECT_EQ(infer(nullptr, m, a, xd, yd, pd, p.data(), 1e-5), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(infer(h, static_cast<cudnnBatchNormMode_t>(3), a, xd, yd, pd, p.data(), 1e-5), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(infer(h, m, nullptr, xd, yd, pd, p.data(), 1e-5), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(infer(h, m, a, nullptr, yd, pd, p.data(), 1e-5), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(infer(h, m, a, xd, nullptr, pd, p.data(), 1e-5), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(infer(h, m, a, xd, yd, nullptr, p.data(), 1e-5), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(infer(h, m, a, xd, yd, pd, nullptr, 1e-5), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(infer(h, m, a, xd, yd, pd, p.data(), -1.0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(infer(h, m, a, xd, yd, pwd, p.data(), 1e-5), CUDNN_STATUS_BAD_PARAM);     // wrong C
  EXPECT_EQ(infer(h, m, a, xd, yd, pactd, p.data(), 1e-5), CUDNN_STATUS_BAD_PARAM);   // per-activation shape
  EXPECT_EQ(infer(h, CUDNN_BATCHNORM_PER_ACTIVATION, a, xd, yd, pd, p.data(), 1e-5), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(infer(h, m, a, xd, yhd, pd, p.data(), 1e-5), CUDNN_STATUS_BAD_PARAM);     // x/y types differ
  EXPECT_EQ(infer(h, m, a, xd, y5d, pd, p.data(), 1e-5), CUDNN_STATUS_BAD_PARAM);     // x/y shapes differ
  EXPECT_EQ(infer(h, m, a, xd, yd, pdbld, p.data(), 1e-5), CUDNN_STATUS_BAD_PARAM);   // f32 x needs f32 params
  EXPECT_EQ(infer(h, m, a, x3d, x3d, p3d, p.data(), 1e-5), CUDNN_STATUS_BAD_PARAM);   // 3-D
  EXPECT_EQ(infer(h, m, a, xid, xid, pd, p.data(), 1e-5), CUDNN_STATUS_NOT_SUPPORTED);  // int8

  auto train = [&](void* rm, void* rv, void* sm, void* si) {
    return cudnnBatchNormalizationForwardTraining(h, m, a, b, xd, x.data(), yd, y.data(), pd, p.data(), p.data(), 0.1,
                                                  rm, rv, 1e-5, sm, si);
  };
  HostTensor r1 = p, r2 = p, s1 = p, s2 = p;
  FT_OK(train(r1.data(), r2.data(), s1.data(), s2.data()));
  FT_OK(train(nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(train(r1.data(), nullptr, nullptr, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(train(nullptr, nullptr, nullptr, s2.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnBatchNormalizationForwardTraining(h, m, a, b, xd, nullptr, yd, y.data(), pd, p.data(), p.data(), 0.1,
                                                   nullptr, nullptr, 1e-5, nullptr, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnBatchNormalizationForwardTraining(h, m, a, b, xd, x.data(), yd, y.data(), pd, p.data(), nullptr, 0.1,
                                                   nullptr, nullptr, 1e-5, nullptr, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  // The running averages' weight outside [0, 1] (NaN, -1, 5 wrote NaN or extrapolated statistics; found by review,
  // run 40); without running averages it is unused
  for (double f : {std::nan(""), -1.0, 5.0}) {
    EXPECT_EQ(cudnnBatchNormalizationForwardTraining(h, m, a, b, xd, x.data(), yd, y.data(), pd, p.data(), p.data(),
                                                     f, r1.data(), r2.data(), 1e-5, nullptr, nullptr),
              CUDNN_STATUS_BAD_PARAM) << "factor " << f;
    FT_OK(cudnnBatchNormalizationForwardTraining(h, m, a, b, xd, x.data(), yd, y.data(), pd, p.data(), p.data(), f,
                                                 nullptr, nullptr, 1e-5, nullptr, nullptr));
  }
}

TEST(BatchNorm, BackwardBadArguments) {
  ft::Handle h;
  const auto t = CUDNN_DATA_FLOAT;
  const auto m = CUDNN_BATCHNORM_SPATIAL;
  HostTensor x(t, {2, 3, 4, 4}), dy = x, dx = x, p(t, {1, 3, 1, 1}), ds = p, db = p, xw(t, {2, 3, 4, 5});
  TensorDesc xd(x), pd(p), xwd(xw);
  const Scale one(1), zero(0);
  const void* a = one.ptr(t);
  auto bwd = [&](const void* ap, cudnnTensorDescriptor_t dxd, const void* scale, void* dsp, const void* sm,
                 const void* si) {
    return cudnnBatchNormalizationBackward(h, m, a, zero.ptr(t), ap, zero.ptr(t), xd, x.data(), xd, dy.data(), dxd,
                                           dx.data(), pd, scale, dsp, db.data(), 1e-5, sm, si);
  };
  FT_OK(bwd(a, xd, p.data(), ds.data(), nullptr, nullptr));
  FT_OK(bwd(a, xd, p.data(), ds.data(), p.data(), p.data()));
  EXPECT_EQ(bwd(nullptr, xd, p.data(), ds.data(), nullptr, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(bwd(a, xwd, p.data(), ds.data(), nullptr, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(bwd(a, nullptr, p.data(), ds.data(), nullptr, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(bwd(a, xd, nullptr, ds.data(), nullptr, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(bwd(a, xd, p.data(), nullptr, nullptr, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(bwd(a, xd, p.data(), ds.data(), p.data(), nullptr), CUDNN_STATUS_BAD_PARAM);
}



// The one-kernel cluster path (bn_cluster.cuh; FREEDNN_BN_CLUSTER=1 takes it wherever its plan exists, read at every
// call) against the reference: forward training (y, the saved and running statistics; once in place, y over x) and
// backward (dx, dScale, dBias, with and without the saved statistics), clusters of 1, 2, 4 and 8 blocks
// (FREEDNN_BN_CLUSTER_G), every row stashed in shared memory, none (FREEDNN_BN_CLUSTER_STASH=0: every row read
// twice from global memory) and one per thread (both kinds in one block). Shapes: NHWC half with 256-channel
// chunks, bfloat16 with several row groups per thread, float (4 per vector), a partial last chunk (72 channels), per
// activation on NCHW (rows of C*H*W), more blocks than rows; every third spatial case with padded parameter tensors
// (their statistics strides[1] apart). The info log must name the kernel for every call. The grid-barrier form
// (FREEDNN_BN_CLUSTER_GRID=1) runs the same cases with 3, 7 (more blocks than rows on the last shape), 2 and 12
// blocks per chunk (more than eight ranks: the finalize's second batch of loads); one setting leaves the form to the
// default rule (a 16-channel 16-bit tensor's 32-byte pieces take the grid form). Every setting runs with the stash
// summed at once and in batches (FREEDNN_BN_CLUSTER_PIPE=0 / 1; the log says which), and half of them with the
// stash loaded by TMA boxes (FREEDNN_BN_CLUSTER_TMA=1).
// A tensor shape with its data type, mode and layout (bnt::make_tensor's: 0 NCHW, 1 NHWC, 2 padded).
struct TypedShape {
  cudnnDataType_t t;
  cudnnBatchNormMode_t m;
  std::vector<int> dims;
  int layout;
};

TEST(BatchNorm, ClusterKernel) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "a GPU kernel";
  auto rng = ft::make_rng();
  ft::Handle h;
  ft::InfoLog log;
  const TypedShape shapes[] = {
      {CUDNN_DATA_HALF, CUDNN_BATCHNORM_SPATIAL, {4, 2048, 3, 3}, 1},
      {CUDNN_DATA_BFLOAT16, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, {8, 512, 7, 7}, 1},
      {CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_SPATIAL, {6, 96, 5, 5}, 1},
      {CUDNN_DATA_HALF, CUDNN_BATCHNORM_SPATIAL, {3, 72, 5, 5}, 1},
      {CUDNN_DATA_HALF, CUDNN_BATCHNORM_PER_ACTIVATION, {16, 8, 4, 4}, 0},
      {CUDNN_DATA_BFLOAT16, CUDNN_BATCHNORM_SPATIAL, {1, 64, 1, 5}, 1},
      {CUDNN_DATA_HALF, CUDNN_BATCHNORM_SPATIAL, {64, 16, 3, 3}, 1},
  };
  struct Knobs {
    const char* g;
    const char* stash;
    const char* grid;  // FREEDNN_BN_CLUSTER_GRID; null: unset, the default rule
  };
  const Knobs knobs[] = {{"1", "100000", "0"}, {"2", "0", "0"},       {"8", "1", "0"},
                         {"4", "100000", "0"}, {"3", "100000", "1"},  {"7", "1", "1"},
                         {"2", "0", "1"},      {"12", "100000", "1"}, {"2", "100000", nullptr}};
  ft::ScopedEnv on("FREEDNN_BN_CLUSTER", "1");
  int variant = 0;
  for (const TypedShape& sh : shapes) {
    const cudnnDataType_t t = sh.t, pt = bnt::param_type(t);
    const bool pa = per_act(sh.m);
    for (const auto& [g, stash, grid_knob] : knobs) for (const char* pipe : {"0", "1"}) {
      ++variant;
      if (!ft::take_case()) continue;
      ft::ScopedEnv env_g("FREEDNN_BN_CLUSTER_G", g), env_s("FREEDNN_BN_CLUSTER_STASH", stash),
          env_grid("FREEDNN_BN_CLUSTER_GRID", grid_knob), env_pipe("FREEDNN_BN_CLUSTER_PIPE", pipe);
      // the stash by TMA boxes on half the settings (4 of every 8): both loaders meet both pipes, in place or not
      const bool tma = variant % 8 >= 4;
      ft::ScopedEnv env_tma("FREEDNN_BN_CLUSTER_TMA", tma ? "1" : "0");
      const std::string grid = grid_knob ? grid_knob : "default";
      const bool grid_form = grid == "1" || (grid == "default" && sh.dims[1] == 16);
      const std::string name = grid_form ? "cluster kernel (grid barrier)" : "cluster kernel,";
      const bool batched = pipe[0] == '1';
      const bool in_place = variant % 4 == 3, with_saved = variant % 2 == 0;
      HostTensor x = bnt::make_tensor(rng, t, sh.dims, sh.layout), y = x;
      x.fill_uniform(rng, -2, 3);
      // spatial statistics strides[1] apart (the backward's saved-mean shifts); per activation the other paths take
      // padded parameters with the saved statistics (BackwardRandom)
      const bool padded_params = variant % 3 == 2 && !pa;
      HostTensor scale = bnt::make_tensor(rng, pt, bnt::param_dims(sh.dims, pa), padded_params ? 2 : 0);
      HostTensor bias = scale, run_m = scale, run_v = scale, save_m = scale, save_i = scale, ds = scale, db = scale;
      scale.fill_uniform(rng, 0.5, 1.5);
      bias.fill_uniform(rng, -1, 1);
      run_m.fill_uniform(rng, -0.5, 0.5);
      run_v.fill_uniform(rng, 0.5, 2);
      save_m.poison();
      save_i.poison();
      const auto old_m = run_m.values(), old_v = run_v.values();
      const auto xr = bnt::to_ref(x);
      const auto [a, b] = in_place ? std::pair<double, double>{1, 0} : bnt::random_blend(rng);
      const Scale alpha(a), beta(b);
      const auto prior = bnt::prepare_output(rng, y, b);
      const double factor = ft::uniform(rng, 0.05, 0.95), eps = 1e-5;
      TensorDesc xd(x), pd(scale);
      HostTensor& out = in_place ? x : y;
      log.text.clear();
      FT_OK(cudnnBatchNormalizationForwardTraining(h, sh.m, alpha.ptr(t), beta.ptr(t), xd, x.data(), xd, out.data(), pd,
                                                   scale.data(), bias.data(), factor, run_m.data(), run_v.data(), eps,
                                                   save_m.data(), save_i.data()));
      const std::string what = x.str() + " G=" + g + " stash=" + stash + " grid=" + grid + " pipe=" + pipe +
                               (tma ? " tma" : "") + (in_place ? " in place" : "") +
                               (padded_params ? " params " + scale.str() : "");
      EXPECT_NE(log.text.find(name), std::string::npos) << "forward " << what << ":\n" << log.text;
      EXPECT_EQ(log.text.find(", summed in batches") != std::string::npos, batched) << "forward " << what;
      EXPECT_EQ(log.text.find(", TMA") != std::string::npos, tma) << "forward " << what;
      const auto st = ref::bn_batch_stats(xr, pa, eps);
      const auto r = ref::bn_forward(xr, scale.values(), bias.values(), st.mean, st.var, eps, pa);
      const double max_x = ft::max_abs(xr.v);
      EXPECT_TRUE(ft::near(out.values(), ref::blend(r.v, prior, a, b), ft::tolerance(t), "y " + what));
      EXPECT_TRUE(ft::near(save_m.values(), st.mean, ft::tolerance(pt), "saveMean " + what, max_x));
      EXPECT_TRUE(ft::near(save_i.values(), st.inv_std, ft::tolerance(pt), "saveInvVariance " + what));
      std::vector<double> em(st.mean.size()), ev(st.mean.size());
      for (size_t k = 0; k < em.size(); ++k) {
        em[k] = (1 - factor) * old_m[k] + factor * st.mean[k];
        ev[k] = (1 - factor) * old_v[k] + factor * st.unbiased_var[k];
      }
      EXPECT_TRUE(ft::near(run_m.values(), em, ft::tolerance(pt), "runningMean " + what, max_x));
      EXPECT_TRUE(ft::near(run_v.values(), ev, ft::tolerance(pt), "runningVariance " + what));

      // backward on the original x (restored after the in-place forward)
      HostTensor xb = bnt::make_tensor(rng, t, sh.dims, sh.layout);
      xb.set_values(xr.v);
      HostTensor dy = xb, dx = xb;
      dy.fill_uniform(rng, -1, 1);
      const auto [ad, bd] = bnt::random_blend(rng);
      const auto [ap, bp] = bnt::random_blend(rng);
      const Scale alpha_d(ad), beta_d(bd), alpha_p(ap), beta_p(bp);
      const auto prior_dx = bnt::prepare_output(rng, dx, bd);
      const auto prior_ds = bnt::prepare_output(rng, ds, bp);
      const auto prior_db = bnt::prepare_output(rng, db, bp);
      HostTensor sm = scale, si = scale;
      for (int64_t k = 0; k < sm.count(); ++k) {
        sm.set(k, st.mean[static_cast<size_t>(k)]);
        si.set(k, st.inv_std[static_cast<size_t>(k)]);
      }
      log.text.clear();
      FT_OK(cudnnBatchNormalizationBackward(h, sh.m, alpha_d.ptr(t), beta_d.ptr(t), alpha_p.ptr(t), beta_p.ptr(t), xd,
                                            xb.data(), xd, dy.data(), xd, dx.data(), pd, scale.data(), ds.data(),
                                            db.data(), eps, with_saved ? sm.data() : nullptr,
                                            with_saved ? si.data() : nullptr));
      EXPECT_NE(log.text.find(name), std::string::npos) << "backward " << what << ":\n" << log.text;
      EXPECT_EQ(log.text.find(", summed in batches") != std::string::npos, batched) << "backward " << what;
      EXPECT_EQ(log.text.find(", TMA") != std::string::npos, tma) << "backward " << what;
      const auto gr = ref::bn_backward(bnt::to_ref(xb), bnt::to_ref(dy), scale.values(), bias.values(), eps, pa);
      bnt::expect_backward_near(gr, {dx, ds, db, prior_dx, prior_ds, prior_db}, ad, bd, ap, bp, dy, scale, st.inv_std,
                                what + (with_saved ? " saved" : " recomputed"));
    }
  }
}

// Per activation with about a million statistics (2 x 1 x 1025 x 1025 float, odd row: no vectors): more column chunks
// of the rows plan than a grid's y dimension holds (65535), so the GPU takes its generic statistics kernel
// (before: a launch error). Forward training and backward against the reference.
TEST(BatchNorm, PerActivationManyStatistics) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t t = CUDNN_DATA_FLOAT;
  const auto m = CUDNN_BATCHNORM_PER_ACTIVATION;
  const std::vector<int> dims = {2, 1, 1025, 1025};
  HostTensor x = bnt::make_tensor(rng, t, dims, 0), y = x, dy = x, dx = x;
  x.fill_uniform(rng, -2, 3);
  {  // each statistic's two samples at least 0.5 apart: two float samples closer than ~sqrt(eps) give a y whose
     // float rounding (of their mean) exceeds the float tolerance in any implementation (CI met one at 5e-3 apart)
    std::vector<double> v = x.values();
    const size_t half = v.size() / 2;
    for (size_t i = 0; i < half; ++i) {
      const double gap = ft::uniform(rng, 0.5, 2.0);
      v[half + i] = v[i] + (v[i] < 0.5 ? gap : -gap);
    }
    x.set_values(v);
  }
  dy.fill_uniform(rng, -1, 1);
  y.poison();
  dx.poison();
  HostTensor scale = bnt::make_tensor(rng, t, bnt::param_dims(dims, true), 0), bias = scale, sm = scale, si = scale,
             ds = scale, db = scale;
  scale.fill_uniform(rng, 0.5, 1.5);
  bias.fill_uniform(rng, -1, 1);
  sm.poison();
  si.poison();
  ds.poison();
  db.poison();
  TensorDesc xd(x), pd(scale);
  const Scale one(1), zero(0);
  const double eps = 1e-3;
  FT_OK(cudnnBatchNormalizationForwardTraining(h, m, one.ptr(t), zero.ptr(t), xd, x.data(), xd, y.data(), pd,
                                               scale.data(), bias.data(), 0.5, nullptr, nullptr, eps, sm.data(),
                                               si.data()));
  const auto xr = bnt::to_ref(x);
  const auto st = ref::bn_batch_stats(xr, true, eps);
  const auto r = ref::bn_forward(xr, scale.values(), bias.values(), st.mean, st.var, eps, true);
  EXPECT_TRUE(ft::near(y.values(), r.v, ft::tolerance(t), "y " + x.str()));
  EXPECT_TRUE(ft::near(sm.values(), st.mean, ft::tolerance(t), "saveMean " + x.str(), ft::max_abs(xr.v)));
  EXPECT_TRUE(ft::near(si.values(), st.inv_std, ft::tolerance(t), "saveInvVariance " + x.str()));
  FT_OK(cudnnBatchNormalizationBackward(h, m, one.ptr(t), zero.ptr(t), one.ptr(t), zero.ptr(t), xd, x.data(), xd,
                                        dy.data(), xd, dx.data(), pd, scale.data(), ds.data(), db.data(), eps, nullptr,
                                        nullptr));
  const std::vector<double> none_dx(dx.values().size(), 0.0), none_p(ds.values().size(), 0.0);
  const auto gr = ref::bn_backward(xr, bnt::to_ref(dy), scale.values(), bias.values(), eps, true);
  bnt::expect_backward_near(gr, {dx, ds, db, none_dx, none_p, none_p}, 1, 0, 1, 0, dy, scale, st.inv_std,
                            "backward " + x.str());
}

// A per-channel output over a per-channel input: the saved mean written over bnBias (forward training), dScale over
// bnScale (backward). Each channel's inputs must be read before its outputs land, on every path: the GPU's cluster
// kernel (both forms) and the cooperative kernel's own finalize, where several blocks finalize a channel and one
// writes its outputs, refuse such calls (param_outputs_alias_inputs) and the other paths take them.
TEST(BatchNorm, ParameterOutputsOverInputs) {
  auto rng = ft::make_rng();
  ft::Handle h;
  ft::InfoLog log;
  const TypedShape shapes[] = {{CUDNN_DATA_HALF, CUDNN_BATCHNORM_SPATIAL, {4, 2048, 3, 3}, 1},
                          {CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_SPATIAL, {6, 96, 5, 5}, 1},
                          {CUDNN_DATA_BFLOAT16, CUDNN_BATCHNORM_SPATIAL, {2, 24, 9, 7}, 0},
                          {CUDNN_DATA_HALF, CUDNN_BATCHNORM_PER_ACTIVATION, {16, 8, 4, 4}, 0}};
  struct Knobs {
    const char *cluster, *grid, *coop_mb, *coop_finalize;
  };
  const Knobs knobs[] = {{nullptr, nullptr, nullptr, nullptr},
                         {"1", "0", nullptr, nullptr},
                         {"1", "1", nullptr, nullptr},
                         {"0", nullptr, "100000", "own"}};
  int variant = 0;
  for (const TypedShape& sh : shapes) {
    for (const Knobs& k : knobs) {
      ++variant;
      ft::ScopedEnv e1("FREEDNN_BN_CLUSTER", k.cluster), e2("FREEDNN_BN_CLUSTER_GRID", k.grid),
          e3("FREEDNN_BN_COOP_MAX_MB", k.coop_mb), e4("FREEDNN_BN_COOP_FINALIZE", k.coop_finalize);
      const cudnnDataType_t t = sh.t, pt = bnt::param_type(t);
      const bool pa = per_act(sh.m), with_saved = variant % 2 == 0;
      const double eps = 1e-5;
      HostTensor x = bnt::make_tensor(rng, t, sh.dims, sh.layout), y = x;
      x.fill_uniform(rng, -2, 3);
      y.poison();
      HostTensor scale = bnt::make_tensor(rng, pt, bnt::param_dims(sh.dims, pa), 0), bias = scale, save_i = scale;
      scale.fill_uniform(rng, 0.5, 1.5);
      bias.fill_uniform(rng, -1, 1);
      save_i.poison();
      const auto scale0 = scale.values(), bias0 = bias.values();
      const auto xr = bnt::to_ref(x);
      const std::string what = x.str() + (k.cluster ? std::string(" cluster=") + k.cluster : "") +
                               (k.grid ? std::string(" grid=") + k.grid : "") + (k.coop_mb ? " coop own" : "");
      TensorDesc xd(x), pd(scale);
      const Scale one(1), zero(0);
      log.text.clear();
      FT_OK(cudnnBatchNormalizationForwardTraining(h, sh.m, one.ptr(t), zero.ptr(t), xd, x.data(), xd, y.data(), pd,
                                                   scale.data(), bias.data(), 0.5, nullptr, nullptr, eps,
                                                   bias.data(), save_i.data()));
      if (ft::gpu_mode()) EXPECT_EQ(log.text.find("cluster kernel"), std::string::npos) << what << "\n" << log.text;
      const auto st = ref::bn_batch_stats(xr, pa, eps);
      const auto r = ref::bn_forward(xr, scale0, bias0, st.mean, st.var, eps, pa);
      EXPECT_TRUE(ft::near(y.values(), r.v, ft::tolerance(t), "y, saved mean over bnBias, " + what));
      EXPECT_TRUE(ft::near(bias.values(), st.mean, ft::tolerance(pt), "saveMean over bnBias " + what,
                           ft::max_abs(xr.v)));
      EXPECT_TRUE(ft::near(save_i.values(), st.inv_std, ft::tolerance(pt), "saveInvVariance " + what));

      HostTensor dy = x, dx = x, db = scale, sm = scale, si = scale;
      dy.fill_uniform(rng, -1, 1);
      dx.poison();
      for (int64_t c = 0; c < sm.count(); ++c) {
        sm.set(c, st.mean[static_cast<size_t>(c)]);
        si.set(c, st.inv_std[static_cast<size_t>(c)]);
      }
      const auto [ap, bp] = bnt::random_blend(rng);  // dScale blends into bnScale's own values
      const Scale alpha_p(ap), beta_p(bp);
      const auto prior_db = bnt::prepare_output(rng, db, bp);
      log.text.clear();
      FT_OK(cudnnBatchNormalizationBackward(h, sh.m, one.ptr(t), zero.ptr(t), alpha_p.ptr(t), beta_p.ptr(t), xd,
                                            x.data(), xd, dy.data(), xd, dx.data(), pd, scale.data(), scale.data(),
                                            db.data(), eps, with_saved ? sm.data() : nullptr,
                                            with_saved ? si.data() : nullptr));
      if (ft::gpu_mode()) EXPECT_EQ(log.text.find("cluster kernel"), std::string::npos) << what << "\n" << log.text;
      HostTensor scale_in = scale;  // the input's values, for the dx terms' scale
      scale_in.set_values(scale0);
      const std::vector<double> zeros(dx.values().size(), 0.0);
      const auto gr = ref::bn_backward(xr, bnt::to_ref(dy), scale0, bias0, eps, pa);
      bnt::expect_backward_near(gr, {dx, scale, db, zeros, scale0, prior_db}, 1, 0, ap, bp, dy, scale_in,
                                st.inv_std, "dScale over bnScale, " + what + (with_saved ? " saved" : ""));
    }
  }
}

// FREEDNN_BN_CLUSTER_PIPE changes when the cluster kernel sums, not what or in which order: its outputs with the
// stash summed in batches and the partials loaded eight ranks at a time must equal the plain kernel's bit for bit,
// and so must those with the stash loaded by TMA boxes (FREEDNN_BN_CLUSTER_TMA=1), at once and in batches,
// forward training (y, saved and running statistics) and backward (dx, dScale, dBias), in the cluster form (2 blocks)
// and the grid form (12 blocks: two batches of partial loads).
TEST(BatchNorm, ClusterPipeSameBits) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "a GPU kernel";
  auto rng = ft::make_rng();
  ft::Handle h;
  ft::InfoLog log;
  const cudnnDataType_t t = CUDNN_DATA_BFLOAT16, pt = bnt::param_type(t);
  const auto m = CUDNN_BATCHNORM_SPATIAL;
  const std::vector<int> dims = {8, 512, 7, 7};
  HostTensor x = bnt::make_tensor(rng, t, dims, 1), dy = x;
  x.fill_uniform(rng, -2, 3);
  dy.fill_uniform(rng, -1, 1);
  HostTensor scale = bnt::make_tensor(rng, pt, bnt::param_dims(dims, false), 0), bias = scale, run0 = scale;
  scale.fill_uniform(rng, 0.5, 1.5);
  bias.fill_uniform(rng, -1, 1);
  run0.fill_uniform(rng, 0.5, 2);
  TensorDesc xd(x), pd(scale);
  const Scale one(1), zero(0);
  ft::ScopedEnv on("FREEDNN_BN_CLUSTER", "1");
  struct Out {
    std::vector<std::vector<double>> v;
  };
  auto run = [&](const char* pipe, const char* tma = "0") {
    ft::ScopedEnv env_pipe("FREEDNN_BN_CLUSTER_PIPE", pipe), env_tma("FREEDNN_BN_CLUSTER_TMA", tma);
    HostTensor y = x, dx = x, rm = run0, rv = run0, sm = scale, si = scale, ds = scale, db = scale;
    y.poison();
    dx.poison();
    sm.poison();
    si.poison();
    ds.poison();
    db.poison();
    log.text.clear();
    EXPECT_EQ(cudnnBatchNormalizationForwardTraining(h, m, one.ptr(t), zero.ptr(t), xd, x.data(), xd, y.data(), pd,
                                                     scale.data(), bias.data(), 0.25, rm.data(), rv.data(), 1e-5,
                                                     sm.data(), si.data()),
              CUDNN_STATUS_SUCCESS);
    EXPECT_NE(log.text.find("cluster kernel"), std::string::npos) << log.text;
    EXPECT_EQ(log.text.find(", TMA") != std::string::npos, tma[0] == '1') << log.text;
    EXPECT_EQ(cudnnBatchNormalizationBackward(h, m, one.ptr(t), zero.ptr(t), one.ptr(t), zero.ptr(t), xd, x.data(), xd,
                                              dy.data(), xd, dx.data(), pd, scale.data(), ds.data(), db.data(), 1e-5,
                                              sm.data(), si.data()),
              CUDNN_STATUS_SUCCESS);
    return Out{{y.values(), rm.values(), rv.values(), sm.values(), si.values(), dx.values(), ds.values(),
                db.values()}};
  };
  const char* what[] = {"y", "runningMean", "runningVariance", "saveMean", "saveInvVariance", "dx", "dScale",
                        "dBias"};
  for (const auto& [grid, g] : {std::pair<const char*, const char*>{"0", "2"}, {"1", "12"}}) {
    ft::ScopedEnv env_grid("FREEDNN_BN_CLUSTER_GRID", grid), env_g("FREEDNN_BN_CLUSTER_G", g);
    const Out plain = run("0");
    // in batches; then the stash by TMA boxes (the same rows in the same slots), at once and in batches
    const std::pair<const char*, Out> others[] = {
        {"pipe", run("1")}, {"tma", run("0", "1")}, {"pipe tma", run("1", "1")}};
    for (const auto& [how, other] : others) {
      for (size_t i = 0; i < plain.v.size(); ++i) {
        size_t bad = 0;
        while (bad < plain.v[i].size() && (plain.v[i][bad] == other.v[i][bad] ||
                                            (std::isnan(plain.v[i][bad]) && std::isnan(other.v[i][bad]))))
          ++bad;
        EXPECT_EQ(bad, plain.v[i].size()) << what[i] << " grid=" << grid << " " << how << ": element " << bad
                                          << " differs (" << (bad < plain.v[i].size() ? plain.v[i][bad] : 0)
                                          << " vs " << (bad < plain.v[i].size() ? other.v[i][bad] : 0) << ")";
      }
    }
    for (size_t i = 0; i < plain.v.size(); ++i)
      for (double v : plain.v[i]) ASSERT_FALSE(std::isnan(v)) << what[i] << " grid=" << grid << " has NaN";
  }
}

// freednnGetLastCallBytesMoved after batch-norm calls: on the GPU, the count of the path taken (training forward:
// x read once or twice, y written, the parameters; one or two passes); on the CPU no count (-1, 0); a second query
// still sees the last computing call; a call without a count (activation) leaves none; bad arguments.
TEST(BatchNorm, ReportsBytesMoved) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t t = CUDNN_DATA_HALF, pt = bnt::param_type(t);
  const std::vector<int> dims = {4, 64, 6, 6};
  HostTensor x = bnt::make_tensor(rng, t, dims, 1), y = x;
  x.fill_uniform(rng, -1, 1);
  HostTensor scale(pt, bnt::param_dims(dims, false)), bias = scale, sm = scale, si = scale;
  scale.fill_uniform(rng, 0.5, 1.5);
  bias.fill_uniform(rng, -1, 1);
  TensorDesc xd(x), pd(scale);
  const Scale one(1), zero(0);
  FT_OK(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, one.ptr(t), zero.ptr(t), xd, x.data(), xd,
                                               y.data(), pd, scale.data(), bias.data(), 0.1, nullptr, nullptr, 1e-5,
                                               sm.data(), si.data()));
  double bytes = 0;
  int passes = -1;
  FT_OK(freednnGetLastCallBytesMoved(h, &bytes, &passes));
  const double e = static_cast<double>(x.count()) * 2, s = 64.0 * 4;
  if (ft::gpu_mode()) {
    EXPECT_TRUE(passes == 1 || passes == 2) << passes;
    EXPECT_DOUBLE_EQ(bytes, passes * e + e + 4 * s);  // x per pass, y, scale, bias, the saved pair
  } else {
    EXPECT_EQ(bytes, -1);
    EXPECT_EQ(passes, 0);
  }
  double again = 0;
  int passes2 = -1;
  FT_OK(freednnGetLastCallBytesMoved(h, &again, &passes2));
  EXPECT_EQ(again, bytes);
  EXPECT_EQ(passes2, passes);
  bnt::ActDesc act(CUDNN_ACTIVATION_RELU);
  FT_OK(cudnnActivationForward(h, act.d, one.ptr(t), xd, x.data(), zero.ptr(t), xd, y.data()));
  FT_OK(freednnGetLastCallBytesMoved(h, &bytes, &passes));
  EXPECT_EQ(bytes, -1);
  EXPECT_EQ(passes, 0);
  EXPECT_EQ(freednnGetLastCallBytesMoved(h, nullptr, &passes), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(freednnGetLastCallBytesMoved(h, &bytes, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(freednnGetLastCallBytesMoved(nullptr, &bytes, &passes), CUDNN_STATUS_BAD_PARAM);
}

// Shapes of the GPU's one-kernel cooperative path (bn_coop.cuh: the statistic the unit-stride index, every tensor
// in x's packed layout, small enough for its size limit): NHWC 16-bit with 8 channels per vector, C off the vector
// (scalar columns), float and double vectors, several row splits and channel chunks, more than 64 splits (the
// partials summed in finalize_wide's order), NCHW small planes (per-column sums folded per channel, a statistic's
// columns across two chunks), per activation on packed NCHW.
struct CoopShape {
  cudnnDataType_t t;
  cudnnBatchNormMode_t m;
  std::vector<int> dims;
  int layout;
};
const CoopShape kCoopShapes[] = {
    {CUDNN_DATA_HALF, CUDNN_BATCHNORM_SPATIAL, {4, 64, 8, 8}, 1},
    {CUDNN_DATA_BFLOAT16, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, {2, 256, 8, 8}, 1},
    {CUDNN_DATA_HALF, CUDNN_BATCHNORM_SPATIAL, {16, 512, 8, 8}, 1},   // 4 chunks x 4 splits
    {CUDNN_DATA_BFLOAT16, CUDNN_BATCHNORM_SPATIAL, {3, 2064, 1, 1}, 1},  // the last chunk partial
    {CUDNN_DATA_HALF, CUDNN_BATCHNORM_SPATIAL, {3, 12, 3, 5}, 1},     // C % 8 != 0: scalar columns
    {CUDNN_DATA_HALF, CUDNN_BATCHNORM_SPATIAL, {2, 24, 6, 6}, 1},
    {CUDNN_DATA_HALF, CUDNN_BATCHNORM_SPATIAL, {80, 8, 64, 64}, 1},   // 80 splits of one chunk
    {CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_SPATIAL, {3, 8, 4, 5}, 1},
    {CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_SPATIAL, {8, 96, 7, 7}, 1},
    {CUDNN_DATA_DOUBLE, CUDNN_BATCHNORM_SPATIAL, {3, 6, 3, 3}, 1},
    {CUDNN_DATA_DOUBLE, CUDNN_BATCHNORM_SPATIAL, {4, 16, 4, 4}, 1},
    {CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_SPATIAL, {2, 4, 6, 6}, 0},     // NCHW planes of 36: fold
    {CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_SPATIAL, {3, 5, 9, 9}, 0},     // fold 81: > 64 partials per channel
    {CUDNN_DATA_BFLOAT16, CUDNN_BATCHNORM_SPATIAL, {2, 3, 8, 8}, 0},
    {CUDNN_DATA_HALF, CUDNN_BATCHNORM_SPATIAL, {4, 24, 3, 3}, 0},     // fold 9: channels across chunks
    {CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_PER_ACTIVATION, {4, 8, 2, 2}, 0},
};

// Every byte a forward-training Ex call and the backward Ex call after it write (tensors as stored, the reserve
// space), for one set of inputs; variant picks running statistics (none, factor 1, factor 0.3), the saved
// statistics (given to both calls or neither) and the blends (beta != 0 included).
std::vector<std::pair<std::string, ft::Bytes>> bn_pair_bytes(cudnnHandle_t h, const CoopShape& sh,
                                                             cudnnBatchNormOps_t ops, cudnnActivationDescriptor_t act,
                                                             int variant, const HostTensor& x, const HostTensor& z,
                                                             const HostTensor& dy, const HostTensor& scale,
                                                             const HostTensor& bias, const HostTensor& prior) {
  std::vector<std::pair<std::string, ft::Bytes>> out;
  const cudnnDataType_t t = sh.t;
  const bool add = ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
  static const std::pair<double, double> kBlends[] = {{1, 0}, {1, 0.5}, {-0.75, 2}, {0.5, 0}};
  const auto [a, b] = kBlends[variant % 4];
  const auto [ap, bp] = kBlends[(variant + 1) % 4];
  const bool with_running = variant % 3 != 0, with_save = variant % 2 == 0;
  const double factor = variant % 3 == 1 ? 1.0 : 0.3;
  const Scale alpha(a), beta(b), alpha_p(ap), beta_p(bp);
  HostTensor y = prior, dx = prior, dz = prior, rm = bias, rv = scale, sm = scale, si = scale, ds = bias, db = scale;
  sm.poison();
  si.poison();
  TensorDesc xd(x), pd(scale);
  size_t rs = 0, ws = 0;
  EXPECT_EQ(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, sh.m, ops, act, xd, &rs), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(h, sh.m, ops, xd, add ? xd.d : nullptr, xd, pd,
                                                                      act, &ws),
            CUDNN_STATUS_SUCCESS);
  ft::Bytes reserve(rs + 1, 0xA5), workspace(ws + 1);
  EXPECT_EQ(cudnnBatchNormalizationForwardTrainingEx(
                h, sh.m, ops, alpha.ptr(t), beta.ptr(t), xd, x.data(), add ? xd.d : nullptr, add ? z.data() : nullptr,
                xd, y.data(), pd, scale.data(), bias.data(), factor, with_running ? rm.data() : nullptr,
                with_running ? rv.data() : nullptr, 1e-5, with_save ? sm.data() : nullptr,
                with_save ? si.data() : nullptr, act, workspace.data(), ws, rs ? reserve.data() : nullptr, rs),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetBatchNormalizationBackwardExWorkspaceSize(h, sh.m, ops, xd, xd, xd, add ? xd.d : nullptr, xd, pd,
                                                              act, &ws),
            CUDNN_STATUS_SUCCESS);
  workspace.assign(ws + 1, 0);
  EXPECT_EQ(cudnnBatchNormalizationBackwardEx(
                h, sh.m, ops, alpha.ptr(t), beta.ptr(t), alpha_p.ptr(t), beta_p.ptr(t), xd, x.data(), xd, y.data(),
                xd, dy.data(), add ? xd.d : nullptr, add ? dz.data() : nullptr, xd, dx.data(), pd, scale.data(),
                bias.data(), ds.data(), db.data(), 1e-5, with_save ? sm.data() : nullptr,
                with_save ? si.data() : nullptr, act, workspace.data(), ws, rs ? reserve.data() : nullptr, rs),
            CUDNN_STATUS_SUCCESS);
  // The calls only queue kernels, and copying a managed buffer does not wait for them: without this the copies
  // below can take outputs (or the reserve) half written, differently in each run.
  ft::sync_device();
  out.emplace_back("y", y.bytes);
  out.emplace_back("saveMean", sm.bytes);
  out.emplace_back("saveInvVariance", si.bytes);
  out.emplace_back("runningMean", rm.bytes);
  out.emplace_back("runningVariance", rv.bytes);
  out.emplace_back("reserve", reserve);
  out.emplace_back("dx", dx.bytes);
  out.emplace_back("dz", dz.bytes);
  out.emplace_back("dScale", ds.bytes);
  out.emplace_back("dBias", db.bytes);
  return out;
}

// Knob settings (name, value) for one run of bn_pair_bytes.
using Knobs = std::vector<std::pair<const char*, const char*>>;

// bn_pair_bytes over `shapes` and the three ops, once under `base` and once under `variant`: every output byte the
// same. The variants compared do the same arithmetic in the same order (another kernel schedule, another launch),
// so any difference is a defect.
void expect_same_bytes(const std::vector<CoopShape>& shapes, const Knobs& base, const Knobs& variant,
                       const char* label) {
  bnt::ActDesc act(CUDNN_ACTIVATION_RELU);
  BNT_REQUIRE_ACTIVATION(act);
  auto rng = ft::make_rng();
  ft::Handle h;
  int n = 0;
  for (const CoopShape& sh : shapes) {
    const cudnnDataType_t pt = bnt::param_type(sh.t);
    for (cudnnBatchNormOps_t ops :
         {CUDNN_BATCHNORM_OPS_BN, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION}) {
      ++n;
      if (!ft::take_case()) continue;
      HostTensor x = bnt::make_tensor(rng, sh.t, sh.dims, sh.layout), z = x, dy = x, prior = x;
      x.fill_uniform(rng, -2, 3);
      z.fill_uniform(rng, -1, 1);
      dy.fill_uniform(rng, -1, 1);
      prior.fill_uniform(rng, -1, 1);
      HostTensor scale(pt, bnt::param_dims(sh.dims, per_act(sh.m))), bias = scale;
      scale.fill_uniform(rng, 0.5, 1.5);
      bias.fill_uniform(rng, -1, 1);
      cudnnActivationDescriptor_t ad = ops == CUDNN_BATCHNORM_OPS_BN ? nullptr : act.d;
      auto run = [&](const Knobs& knobs) {
        std::vector<std::unique_ptr<ft::ScopedEnv>> set;
        for (const auto& [name, value] : knobs) set.push_back(std::make_unique<ft::ScopedEnv>(name, value));
        return bn_pair_bytes(h, sh, ops, ad, n, x, z, dy, scale, bias, prior);
      };
      const auto want = run(base), got = run(variant);
      ASSERT_EQ(want.size(), got.size());
      for (size_t i = 0; i < got.size(); ++i)
        EXPECT_TRUE(got[i].second == want[i].second)
            << label << ": " << got[i].first << " differs: " << x.str() << " ops=" << ops << " variant " << n;
    }
  }
}

// The cooperative path (FREEDNN_BN_COOP_MAX_MB=40; it is off by default) against the three-kernel path
// (FREEDNN_BN_COOP_MAX_MB=0; read at every call) on the same inputs: the same partial sums added in the same order,
// so every output bit for bit. The cluster kernel (its own sums) is off in both. On the CPU backend both runs take
// the same code (a determinism check).
void expect_coop_matches_three_kernels() {
  expect_same_bytes(std::vector<CoopShape>(std::begin(kCoopShapes), std::end(kCoopShapes)),
                    {{"FREEDNN_BN_COOP_MAX_MB", "0"}, {"FREEDNN_BN_CLUSTER", "0"}},
                    {{"FREEDNN_BN_COOP_MAX_MB", "40"}, {"FREEDNN_BN_CLUSTER", "0"}}, "coop");
}

TEST(BatchNorm, CoopMatchesThreeKernels) { expect_coop_matches_three_kernels(); }

// The same with each finalize mode forced (FREEDNN_BN_COOP_FINALIZE, read once per process: run alone, as ctest
// does, these reach the forced mode; after other batch norm calls in one process they check the default again).
TEST(BatchNorm, CoopGridFinalizeMatchesThreeKernels) {
  ft::ScopedEnv mode("FREEDNN_BN_COOP_FINALIZE", "grid");
  expect_coop_matches_three_kernels();
}
TEST(BatchNorm, CoopOwnFinalizeMatchesThreeKernels) {
  ft::ScopedEnv mode("FREEDNN_BN_COOP_FINALIZE", "own");
  expect_coop_matches_three_kernels();
}

// The three-kernel path with its finalize and apply pass launched as programmatic dependents (the default;
// FREEDNN_BN_PDL=0, read at every call, for plain launches; compute capability 9.0, elsewhere the same launches as
// without) against the plain launches, bit for bit: the cooperative path's shapes (stats_rows_w, finalize_kernel and
// finalize_wide, apply_fwd / apply_bwd), NCHW planes of 1024 and 640 (stats_planes), padded NCHW and NHWC
// (stats_kernel, fwd_apply / bwd_apply).
TEST(BatchNorm, PdlMatchesPlainLaunches) {
  std::vector<CoopShape> shapes(std::begin(kCoopShapes), std::end(kCoopShapes));
  shapes.push_back({CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_SPATIAL, {2, 3, 32, 32}, 0});
  shapes.push_back({CUDNN_DATA_HALF, CUDNN_BATCHNORM_SPATIAL, {3, 16, 16, 40}, 0});
  shapes.push_back({CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_SPATIAL, {2, 5, 6, 7}, 2});
  shapes.push_back({CUDNN_DATA_BFLOAT16, CUDNN_BATCHNORM_SPATIAL, {3, 16, 5, 4}, 3});
  expect_same_bytes(shapes, {{"FREEDNN_BN_COOP_MAX_MB", "0"}, {"FREEDNN_BN_CLUSTER", "0"}, {"FREEDNN_BN_PDL", "0"}},
                    {{"FREEDNN_BN_COOP_MAX_MB", "0"}, {"FREEDNN_BN_CLUSTER", "0"}, {"FREEDNN_BN_PDL", "1"}}, "pdl");
}

// The lean inference kernels (FREEDNN_BN_INFER=2|4|8, bn_infer.cuh; read at every call) against the reference and,
// bit for bit, against the default path (FREEDNN_BN_INFER=0: the same coefficient and output formulas), with z and
// the ReLU (cudnnNormalizationForwardInference) and blends with beta != 0. Shapes: NHWC with C / 8 groups dividing
// the block, cv = 3 (the grid a multiple of 3), cv = 257 (each block's table its threads' groups), C % 8 != 0
// (scalar); NCHW planes of 64, of 49 and 9 (vectors across two planes), of 6 < 8 (scalar), C = 1; two large ones
// whose threads loop (f16 NHWC, f32 NCHW with each block's run over several planes).
TEST(BatchNorm, InferLeanKernels) {
  bnt::ActDesc act(CUDNN_ACTIVATION_RELU);
  BNT_REQUIRE_ACTIVATION(act);
  auto rng = ft::make_rng();
  ft::Handle h;
  struct Shape {
    cudnnDataType_t t;
    std::vector<int> dims;
    int layout;
  };
  const Shape shapes[] = {
      {CUDNN_DATA_HALF, {2, 64, 5, 7}, 1},        {CUDNN_DATA_BFLOAT16, {3, 24, 5, 5}, 1},
      {CUDNN_DATA_HALF, {2, 2056, 3, 1}, 1},      {CUDNN_DATA_FLOAT, {3, 1028, 2, 1}, 1},
      {CUDNN_DATA_HALF, {3, 12, 3, 5}, 1},        {CUDNN_DATA_FLOAT, {2, 5, 3, 3}, 1},
      {CUDNN_DATA_HALF, {2, 3, 8, 8}, 0},         {CUDNN_DATA_FLOAT, {3, 5, 7, 7}, 0},
      {CUDNN_DATA_BFLOAT16, {5, 7, 3, 3}, 0},     {CUDNN_DATA_HALF, {3, 5, 2, 3}, 0},
      {CUDNN_DATA_FLOAT, {2, 1, 9, 9}, 0},        {CUDNN_DATA_DOUBLE, {2, 3, 4, 4}, 1},
      {CUDNN_DATA_HALF, {16, 64, 72, 72}, 1},     {CUDNN_DATA_FLOAT, {12, 20, 120, 120}, 0},
  };
  const cudnnNormOps_t kOps[] = {CUDNN_NORM_OPS_NORM, CUDNN_NORM_OPS_NORM_ACTIVATION,
                                 CUDNN_NORM_OPS_NORM_ADD_ACTIVATION};
  for (const Shape& sh : shapes) {
    if (!ft::take_case()) continue;
    const cudnnDataType_t t = sh.t, pt = bnt::param_type(t);
    HostTensor x = bnt::make_tensor(rng, t, sh.dims, sh.layout), z = x, prior = x;
    x.fill_uniform(rng, -2, 3);
    z.fill_uniform(rng, -1, 1);
    prior.fill_uniform(rng, -1, 1);
    HostTensor scale(pt, bnt::param_dims(sh.dims, false)), bias = scale, mean = scale, var = scale;
    scale.fill_uniform(rng, 0.5, 1.5);
    bias.fill_uniform(rng, -1, 1);
    mean.fill_uniform(rng, -0.5, 0.5);
    var.fill_uniform(rng, 0.5, 2);
    TensorDesc xd(x), pd(scale);
    const auto xr = bnt::to_ref(x), zr = bnt::to_ref(z);
    const bool large = x.count() > (1 << 20);  // the looping shapes: one ops mode keeps the test within its timeout
    for (cudnnNormOps_t ops : kOps) {
      if (large && ops != CUDNN_NORM_OPS_NORM_ADD_ACTIVATION) continue;
      const bool add = ops == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION;
      const auto [a, b] = bnt::random_blend(rng);
      const Scale alpha(a), beta(b);
      auto infer = [&](const char* variant) {
        ft::ScopedEnv knob("FREEDNN_BN_INFER", variant);
        HostTensor y = prior;
        if (b == 0) y.poison();
        EXPECT_EQ(cudnnNormalizationForwardInference(
                      h, CUDNN_NORM_PER_CHANNEL, ops, CUDNN_NORM_ALGO_STANDARD, alpha.ptr(t), beta.ptr(t), xd,
                      x.data(), pd, scale.data(), bias.data(), pd, mean.data(), var.data(), add ? xd.d : nullptr,
                      add ? z.data() : nullptr, ops == CUDNN_NORM_OPS_NORM ? nullptr : act.d, xd, y.data(), 1e-5, 1),
                  CUDNN_STATUS_SUCCESS);
        ft::sync_device();
        return y;
      };
      const HostTensor base = infer("0");
      ref::BnFusion fusion;
      fusion.relu = ops != CUDNN_NORM_OPS_NORM;
      fusion.z = add ? &zr : nullptr;
      const auto r =
          ref::bn_forward(xr, scale.values(), bias.values(), mean.values(), var.values(), 1e-5, false, fusion);
      const auto want = ref::blend(r.v, prior.values(), a, b);
      for (const char* variant : {"2", "4", "8"}) {
        const HostTensor y = infer(variant);
        const std::string what = std::string(ft::type_name(t)) + " " + x.str() + " ops=" + std::to_string(ops) +
                                 " alpha=" + std::to_string(a) + " beta=" + std::to_string(b) +
                                 " FREEDNN_BN_INFER=" + variant;
        EXPECT_TRUE(ft::near(y.values(), want, ft::tolerance(t), what));
        EXPECT_TRUE(y.bytes == base.bytes) << "differs from the default path: " << what;
      }
    }
  }
}

#ifdef FT_WITH_CUDA
// Forward training and backward captured from a user stream into a CUDA graph (the cooperative kernel becomes a
// cooperative kernel node), replayed: the same bytes as the direct calls. With `switch_streams` the direct calls run
// on another stream and the handle moves to the capturing stream without a sync: the graph then holds an external
// wait for the scratch's last use on the old stream.
void coop_graph_capture(bool switch_streams) {
  ft::ScopedEnv on("FREEDNN_BN_COOP_MAX_MB", "40");  // the cooperative kernel is off by default
  auto rng = ft::make_rng();
  ft::Handle h;
  const CoopShape sh{CUDNN_DATA_HALF, CUDNN_BATCHNORM_SPATIAL, {8, 128, 6, 6}, 1};
  HostTensor x = bnt::make_tensor(rng, sh.t, sh.dims, 1), dy = x, prior = x;
  x.fill_uniform(rng, -2, 3);
  dy.fill_uniform(rng, -1, 1);
  prior.fill_uniform(rng, -1, 1);
  HostTensor scale(CUDNN_DATA_FLOAT, bnt::param_dims(sh.dims, false)), bias = scale;
  scale.fill_uniform(rng, 0.5, 1.5);
  bias.fill_uniform(rng, -1, 1);
  cudaStream_t st = nullptr, direct = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&direct, cudaStreamNonBlocking), cudaSuccess);
  FT_OK(cudnnSetStream(h, switch_streams ? direct : st));
  HostTensor y = prior, dx = prior, sm = scale, si = scale, ds = bias, db = scale;
  TensorDesc xd(x), pd(scale);
  const Scale one(1), half(0.5), zero(0);
  auto calls = [&]() {
    EXPECT_EQ(cudnnBatchNormalizationForwardTraining(h, sh.m, one.ptr(sh.t), half.ptr(sh.t), xd, x.data(), xd,
                                                     y.data(), pd, scale.data(), bias.data(), 1.0, nullptr, nullptr,
                                                     1e-5, sm.data(), si.data()),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnBatchNormalizationBackward(h, sh.m, one.ptr(sh.t), zero.ptr(sh.t), one.ptr(sh.t), zero.ptr(sh.t),
                                              xd, x.data(), xd, dy.data(), xd, dx.data(), pd, scale.data(), ds.data(),
                                              db.data(), 1e-5, sm.data(), si.data()),
              CUDNN_STATUS_SUCCESS);
  };
  calls();  // direct on a user stream (also grows the handle's scratch before the capture)
  ASSERT_EQ(cudaStreamSynchronize(switch_streams ? direct : st), cudaSuccess);
  const ft::Bytes y1 = y.bytes, dx1 = dx.bytes, ds1 = ds.bytes, db1 = db.bytes, sm1 = sm.bytes;
  auto reset_outputs = [&] {
    y = prior;
    dx.poison();
    ds.poison();
    db.poison();
    sm.poison();
    ft::sync_device();
  };
  reset_outputs();
  if (switch_streams) {
    calls();  // the scratch in use on `direct` when the handle moves (its outputs are reset before the replay)
    FT_OK(cudnnSetStream(h, st));
  }
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal), cudaSuccess);
  calls();
  const cudaError_t ended = cudaStreamEndCapture(st, &graph);
  ASSERT_EQ(ended, cudaSuccess) << cudaGetErrorName(ended);
  if (switch_streams) {  // the scratch's wait for its use on `direct` is in the graph (a replay may run anywhere)
    size_t count = 0;
    ASSERT_EQ(cudaGraphGetNodes(graph, nullptr, &count), cudaSuccess);
    std::vector<cudaGraphNode_t> nodes(count);
    ASSERT_EQ(cudaGraphGetNodes(graph, nodes.data(), &count), cudaSuccess);
    int waits = 0;
    for (cudaGraphNode_t n : nodes) {
      cudaGraphNodeType type{};
      ASSERT_EQ(cudaGraphNodeGetType(n, &type), cudaSuccess);
      waits += type == cudaGraphNodeTypeWaitEvent;
    }
    EXPECT_GE(waits, 1) << "no event wait node among the graph's " << count << " nodes";
  }
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  if (switch_streams) {
    ASSERT_EQ(cudaStreamSynchronize(direct), cudaSuccess);
    reset_outputs();
  }
  ASSERT_EQ(cudaGraphLaunch(exec, st), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
  EXPECT_TRUE(y.bytes == y1) << "y";
  EXPECT_TRUE(sm.bytes == sm1) << "saveMean";
  EXPECT_TRUE(dx.bytes == dx1) << "dx";
  EXPECT_TRUE(ds.bytes == ds1) << "dScale";
  EXPECT_TRUE(db.bytes == db1) << "dBias";
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  FT_OK(cudnnSetStream(h, nullptr));
  cudaStreamDestroy(st);
  cudaStreamDestroy(direct);
}

TEST(BatchNorm, CoopGraphCapture) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "needs the GPU backend";
  coop_graph_capture(false);
}

TEST(BatchNorm, CoopGraphCaptureAfterStreamSwitch) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "needs the GPU backend";
  coop_graph_capture(true);
}
#endif

}  // namespace
