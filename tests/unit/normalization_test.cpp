// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The generic normalization API (cudnnDeriveNormTensorDescriptor, cudnnNormalization*) against the reference
// in tests/ref/batchnorm, a finite-difference check of the backward, groupCnt and bad arguments.
#include <cmath>

#include "unit/batchnorm_fixture.h"

namespace {

using bnt::Scale;
using ft::HostTensor;
using ft::TensorDesc;

const cudnnNormMode_t kModes[] = {CUDNN_NORM_PER_ACTIVATION, CUDNN_NORM_PER_CHANNEL};
const cudnnNormAlgo_t kAlgos[] = {CUDNN_NORM_ALGO_STANDARD, CUDNN_NORM_ALGO_PERSIST};

bool per_act(cudnnNormMode_t m) { return m == CUDNN_NORM_PER_ACTIVATION; }

TEST(Normalization, DeriveDescriptors) {
  for (cudnnDataType_t t : bnt::kTypes) {
    for (cudnnNormMode_t m : kModes) {
      const std::vector<int> dims{3, 4, 2, 5, 2};
      HostTensor xt(t, dims);
      TensorDesc xd(xt), sb, mv;
      FT_OK(cudnnDeriveNormTensorDescriptor(sb, mv, xd, m, 1));
      for (cudnnTensorDescriptor_t d : {sb.d, mv.d}) {
        cudnnDataType_t got;
        int nb = 0, gd[8], gs[8];
        FT_OK(cudnnGetTensorNdDescriptor(d, 8, &got, &nb, gd, gs));
        EXPECT_EQ(got, bnt::param_type(t));
        EXPECT_EQ(std::vector<int>(gd, gd + nb), bnt::param_dims(dims, per_act(m)));
      }
    }
  }
  HostTensor xt(CUDNN_DATA_FLOAT, {2, 3, 4, 5});
  TensorDesc xd(xt), sb, mv;
  EXPECT_EQ(cudnnDeriveNormTensorDescriptor(sb, mv, xd, CUDNN_NORM_PER_CHANNEL, 2), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnDeriveNormTensorDescriptor(sb, mv, xd, CUDNN_NORM_PER_CHANNEL, 0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDeriveNormTensorDescriptor(sb, nullptr, xd, CUDNN_NORM_PER_CHANNEL, 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDeriveNormTensorDescriptor(sb, mv, nullptr, CUDNN_NORM_PER_CHANNEL, 1), CUDNN_STATUS_BAD_PARAM);
}

// Inference, training and backward on random problems, for one normOps value. Scale/bias and mean/var have
// their own descriptors (and strides).
void run_random(cudnnNormOps_t ops, cudnnActivationDescriptor_t act) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const bool add = ops == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION;
  for (cudnnDataType_t t : bnt::kTypes) {
    const cudnnDataType_t pt = bnt::param_type(t);
    for (cudnnNormMode_t m : kModes) {
      for (cudnnNormAlgo_t algo : kAlgos) {
        const bnt::Shape s = bnt::random_shape(rng);
        const double eps = bnt::random_epsilon(rng);
        const std::string what = std::string(ft::type_name(t)) + " mode=" + std::to_string(m) +
                                 " algo=" + std::to_string(algo) + " ops=" + std::to_string(ops) + " " + s.str();
        HostTensor x = bnt::make_tensor(rng, t, s.dims, s.x_layout), y = bnt::make_tensor(rng, t, s.dims, s.y_layout);
        HostTensor z = bnt::make_tensor(rng, t, s.dims, ft::uniform_int(rng, 0, 3));
        x.fill_uniform(rng, -2, 3);
        z.fill_uniform(rng, -1, 1);
        const auto pd = bnt::param_dims(s.dims, per_act(m));
        HostTensor scale = bnt::make_tensor(rng, pt, pd, s.param_layout), bias = scale;
        HostTensor mean = bnt::make_tensor(rng, pt, pd, 2), var = mean;  // padded, unlike scale/bias
        scale.fill_uniform(rng, 0.5, 1.5);
        bias.fill_uniform(rng, -1, 1);
        mean.fill_uniform(rng, -0.5, 0.5);
        var.fill_uniform(rng, 0.5, 2);
        TensorDesc xd(x), yd(y), zd(z), sbd(scale), mvd(mean);
        const auto xr = bnt::to_ref(x), zr = bnt::to_ref(z);
        ref::BnFusion fusion;
        fusion.relu = ops != CUDNN_NORM_OPS_NORM;
        fusion.z = add ? &zr : nullptr;

        // inference
        auto [a, b] = bnt::random_blend(rng);
        Scale alpha(a), beta(b);
        auto prior = bnt::prepare_output(rng, y, b);
        FT_OK(cudnnNormalizationForwardInference(h, m, ops, algo, alpha.ptr(t), beta.ptr(t), xd, x.data(), sbd,
                                                 scale.data(), bias.data(), mvd, mean.data(), var.data(),
                                                 add ? zd.d : nullptr, add ? z.data() : nullptr, act, yd, y.data(),
                                                 eps, 1));
        auto r = ref::bn_forward(xr, scale.values(), bias.values(), mean.values(), var.values(), eps, per_act(m),
                                 fusion);
        EXPECT_TRUE(ft::near(y.values(), ref::blend(r.v, prior, a, b), ft::tolerance(t), "inference y " + what));

        // training
        std::tie(a, b) = bnt::random_blend(rng);
        alpha = Scale(a);
        beta = Scale(b);
        prior = bnt::prepare_output(rng, y, b);
        size_t ws = 0, rs = 0;
        FT_OK(cudnnGetNormalizationForwardTrainingWorkspaceSize(h, m, ops, algo, xd, add ? zd.d : nullptr, yd, sbd, act,
                                                                mvd, &ws, 1));
        FT_OK(cudnnGetNormalizationTrainingReserveSpaceSize(h, m, ops, algo, act, xd, &rs, 1));
        ft::Buffer<unsigned char> workspace(ws + 1), reserve(rs + 1);
        HostTensor run_m = mean, run_v = var, save_m = mean, save_i = mean;
        save_m.poison();
        save_i.poison();
        const double factor = ft::uniform(rng, 0.1, 0.9);
        FT_OK(cudnnNormalizationForwardTraining(h, m, ops, algo, alpha.ptr(t), beta.ptr(t), xd, x.data(), sbd,
                                                scale.data(), bias.data(), factor, mvd, run_m.data(), run_v.data(),
                                                eps, save_m.data(), save_i.data(), act, add ? zd.d : nullptr,
                                                add ? z.data() : nullptr, yd, y.data(), workspace.data(), ws,
                                                reserve.data(), rs, 1));
        const auto st = ref::bn_batch_stats(xr, per_act(m), eps);
        r = ref::bn_forward(xr, scale.values(), bias.values(), st.mean, st.var, eps, per_act(m), fusion);
        EXPECT_TRUE(ft::near(y.values(), ref::blend(r.v, prior, a, b), ft::tolerance(t), "training y " + what));
        EXPECT_TRUE(ft::near(save_m.values(), st.mean, ft::tolerance(pt), "saveMean " + what, ft::max_abs(xr.v)));
        EXPECT_TRUE(ft::near(save_i.values(), st.inv_std, ft::tolerance(pt), "saveInvVariance " + what));
        std::vector<double> em = mean.values(), ev = var.values();
        for (size_t k = 0; k < em.size(); ++k) {
          em[k] = (1 - factor) * em[k] + factor * st.mean[k];
          ev[k] = (1 - factor) * ev[k] + factor * st.unbiased_var[k];
        }
        EXPECT_TRUE(ft::near(run_m.values(), em, ft::tolerance(pt), "runningMean " + what, ft::max_abs(xr.v)));
        EXPECT_TRUE(ft::near(run_v.values(), ev, ft::tolerance(pt), "runningVariance " + what));

        // backward, from the saved statistics (or recomputed) and the reserve space of the training call
        HostTensor dy = bnt::make_tensor(rng, t, s.dims, ft::uniform_int(rng, 0, 3));
        HostTensor dx = bnt::make_tensor(rng, t, s.dims, ft::uniform_int(rng, 0, 3)), dz = dy;
        dy.fill_uniform(rng, -1, 1);
        HostTensor ds = scale, db = scale;
        const auto [ad, bd] = bnt::random_blend(rng);
        const auto [ap, bp] = bnt::random_blend(rng);
        const Scale alpha_d(ad), beta_d(bd), alpha_p(ap), beta_p(bp);
        const auto prior_dx = bnt::prepare_output(rng, dx, bd);
        const auto prior_dz = bnt::prepare_output(rng, dz, bd);
        const auto prior_ds = bnt::prepare_output(rng, ds, bp);
        const auto prior_db = bnt::prepare_output(rng, db, bp);
        TensorDesc dyd(dy), dxd(dx), dzd(dz);
        FT_OK(cudnnGetNormalizationBackwardWorkspaceSize(h, m, ops, algo, xd, yd, dyd, add ? dzd.d : nullptr, dxd, sbd,
                                                         act, mvd, &ws, 1));
        workspace.assign(ws + 1, 0);
        const bool saved = ft::uniform_int(rng, 0, 1) == 1;
        FT_OK(cudnnNormalizationBackward(h, m, ops, algo, alpha_d.ptr(t), beta_d.ptr(t), alpha_p.ptr(t),
                                         beta_p.ptr(t), xd, x.data(), yd, y.data(), dyd, dy.data(),
                                         add ? dzd.d : nullptr, add ? dz.data() : nullptr, dxd, dx.data(), sbd,
                                         scale.data(), bias.data(), ds.data(), db.data(), eps, mvd,
                                         saved ? save_m.data() : nullptr, saved ? save_i.data() : nullptr, act,
                                         workspace.data(), ws, reserve.data(), rs, 1));
        const auto g = ref::bn_backward(xr, bnt::to_ref(dy), scale.values(), bias.values(), eps, per_act(m), fusion);
        EXPECT_TRUE(ft::near(dx.values(), ref::blend(g.dx.v, prior_dx, ad, bd), ft::tolerance(t) * 4, "dx " + what,
                             bnt::dx_terms(dy, scale, st.inv_std)));
        // dScale and dBias are sums of terms of either sign, rounded at the terms' size (max |dy|, |x_hat| of order
        // 1), not the sum's, which can cancel to near zero (seed 3370255190: a 12-element channel, dScale -3.65e-4
        // off by 3.4e-8 in float), as batchnorm_test.cpp compares them.
        const double dy_scale = ft::max_abs(dy.values());
        EXPECT_TRUE(ft::near(ds.values(), ref::blend(g.dscale, prior_ds, ap, bp), ft::tolerance(pt) * 4,
                             "dScale " + what, dy_scale));
        EXPECT_TRUE(ft::near(db.values(), ref::blend(g.dbias, prior_db, ap, bp), ft::tolerance(pt) * 4,
                             "dBias " + what, dy_scale));
        if (add)
          EXPECT_TRUE(ft::near(dz.values(), ref::blend(g.dz.v, prior_dz, ad, bd), ft::tolerance(t), "dz " + what));
      }
    }
  }
}

TEST(Normalization, RandomNorm) { run_random(CUDNN_NORM_OPS_NORM, nullptr); }

TEST(Normalization, RandomFusedActivation) {
  bnt::ActDesc act(CUDNN_ACTIVATION_RELU);
  BNT_REQUIRE_ACTIVATION(act);
  run_random(CUDNN_NORM_OPS_NORM_ACTIVATION, act.d);
  run_random(CUDNN_NORM_OPS_NORM_ADD_ACTIVATION, act.d);
}

// Regression (GPU): inference with a fused ReLU on a packed x whose y (or z) has another layout takes the generic
// elementwise kernel; it must not touch a ReLU mask (inference has no reserve space).
TEST(Normalization, FusedInferenceMixedLayouts) {
  bnt::ActDesc act(CUDNN_ACTIVATION_RELU);
  BNT_REQUIRE_ACTIVATION(act);
  auto rng = ft::make_rng();
  ft::Handle h;
  const std::vector<int> dims{3, 16, 5, 7};
  for (cudnnNormOps_t ops : {CUDNN_NORM_OPS_NORM_ACTIVATION, CUDNN_NORM_OPS_NORM_ADD_ACTIVATION}) {
    for (cudnnDataType_t t : bnt::kTypes) {
      for (cudnnNormMode_t m : kModes) {
        const bool add = ops == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION;
        const cudnnDataType_t pt = bnt::param_type(t);
        HostTensor x = bnt::make_tensor(rng, t, dims, 0), y = bnt::make_tensor(rng, t, dims, 1);
        HostTensor z = bnt::make_tensor(rng, t, dims, 0);
        x.fill_uniform(rng, -2, 3);
        z.fill_uniform(rng, -1, 1);
        const auto pd = bnt::param_dims(dims, per_act(m));
        HostTensor scale = bnt::make_tensor(rng, pt, pd, 0), bias = scale, mean = scale, var = scale;
        scale.fill_uniform(rng, 0.5, 1.5);
        bias.fill_uniform(rng, -1, 1);
        mean.fill_uniform(rng, -0.5, 0.5);
        var.fill_uniform(rng, 0.5, 2);
        TensorDesc xd(x), yd(y), zd(z), sbd(scale), mvd(mean);
        const Scale alpha(1), beta(0);
        y.poison();
        FT_OK(cudnnNormalizationForwardInference(h, m, ops, CUDNN_NORM_ALGO_STANDARD, alpha.ptr(t), beta.ptr(t), xd,
                                                 x.data(), sbd, scale.data(), bias.data(), mvd, mean.data(),
                                                 var.data(), add ? zd.d : nullptr, add ? z.data() : nullptr, act.d, yd,
                                                 y.data(), 1e-5, 1));
        const auto zr = bnt::to_ref(z);
        ref::BnFusion fusion;
        fusion.relu = true;
        fusion.z = add ? &zr : nullptr;
        const auto r = ref::bn_forward(bnt::to_ref(x), scale.values(), bias.values(), mean.values(), var.values(),
                                       1e-5, per_act(m), fusion);
        EXPECT_TRUE(ft::near(y.values(), r.v, ft::tolerance(t),
                             std::string("inference ") + ft::type_name(t) + " ops=" + std::to_string(ops)));
      }
    }
  }
}

// Finite differences of the library's own training forward, loss = sum(dy * y), in double.
TEST(Normalization, BackwardFiniteDifference) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t t = CUDNN_DATA_DOUBLE;
  for (cudnnNormMode_t m : kModes) {
    const std::vector<int> dims{3, 2, 2, 1, 2};
    HostTensor x(t, dims, true), y(t, dims, true), dy(t, dims, true), dx(t, dims, true);
    const auto pdims = bnt::param_dims(dims, per_act(m));
    HostTensor scale(t, pdims), bias(t, pdims), ds(t, pdims), db(t, pdims);
    x.fill_uniform(rng, -2, 2);
    dy.fill_uniform(rng, -1, 1);
    scale.fill_uniform(rng, 0.5, 1.5);
    bias.fill_uniform(rng, -1, 1);
    TensorDesc xd(x), pd(scale);
    const Scale one(1), zero(0);
    const double eps = 1e-4;
    auto loss = [&]() {
      EXPECT_EQ(cudnnNormalizationForwardTraining(h, m, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, one.ptr(t),
                                                  zero.ptr(t), xd, x.data(), pd, scale.data(), bias.data(), 0.0, pd,
                                                  nullptr, nullptr, eps, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                  xd, y.data(), nullptr, 0, nullptr, 0, 1),
                CUDNN_STATUS_SUCCESS);
      double l = 0;
      for (int64_t i = 0; i < y.count(); ++i) l += y.get(i) * dy.get(i);
      return l;
    };
    auto numeric = [&](HostTensor& v) {
      std::vector<double> g(static_cast<size_t>(v.count()));
      for (int64_t i = 0; i < v.count(); ++i) {
        const double orig = v.get(i), step = 1e-5;
        v.set(i, orig + step);
        const double lp = loss();
        v.set(i, orig - step);
        const double lm = loss();
        v.set(i, orig);
        g[i] = (lp - lm) / (2 * step);
      }
      return g;
    };
    FT_OK(cudnnNormalizationBackward(h, m, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, one.ptr(t), zero.ptr(t),
                                     one.ptr(t), zero.ptr(t), xd, x.data(), nullptr, nullptr, xd, dy.data(), nullptr,
                                     nullptr, xd, dx.data(), pd, scale.data(), bias.data(), ds.data(), db.data(), eps,
                                     pd, nullptr, nullptr, nullptr, nullptr, 0, nullptr, 0, 1));
    EXPECT_TRUE(ft::near(dx.values(), numeric(x), 1e-6, "dx (finite differences)"));
    EXPECT_TRUE(ft::near(ds.values(), numeric(scale), 1e-6, "dScale (finite differences)"));
    EXPECT_TRUE(ft::near(db.values(), numeric(bias), 1e-6, "dBias (finite differences)"));
  }
}

TEST(Normalization, BadArguments) {
  ft::Handle h;
  const auto t = CUDNN_DATA_FLOAT;
  const auto m = CUDNN_NORM_PER_CHANNEL;
  const auto algo = CUDNN_NORM_ALGO_STANDARD;
  const auto ops = CUDNN_NORM_OPS_NORM;
  HostTensor x(t, {2, 3, 4, 4}), y = x, p(t, {1, 3, 1, 1}), pa(t, {1, 3, 4, 4}), pd_dbl(CUDNN_DATA_DOUBLE, {1, 3, 1, 1});
  TensorDesc xd(x), yd(y), pd(p), pad(pa), pdd(pd_dbl);
  const Scale one(1), zero(0);
  auto infer = [&](cudnnNormMode_t mm, cudnnNormAlgo_t al, cudnnNormOps_t op, cudnnTensorDescriptor_t mv, int groups) {
    return cudnnNormalizationForwardInference(h, mm, op, al, one.ptr(t), zero.ptr(t), xd, x.data(), pd, p.data(),
                                              p.data(), mv, p.data(), p.data(), nullptr, nullptr, nullptr, yd,
                                              y.data(), 1e-5, groups);
  };
  FT_OK(infer(m, algo, ops, pd, 1));
  EXPECT_EQ(infer(m, algo, ops, pd, 2), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(infer(m, algo, ops, pd, 0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(infer(m, algo, static_cast<cudnnNormOps_t>(3), pd, 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(infer(m, algo, CUDNN_NORM_OPS_NORM_ACTIVATION, pd, 1), CUDNN_STATUS_BAD_PARAM);  // no activationDesc
  EXPECT_EQ(infer(m, algo, ops, pad, 1), CUDNN_STATUS_BAD_PARAM);   // mean/var in the per-activation shape
  EXPECT_EQ(infer(m, algo, ops, pdd, 1), CUDNN_STATUS_BAD_PARAM);   // mean/var type
  EXPECT_EQ(infer(m, algo, ops, nullptr, 1), CUDNN_STATUS_BAD_PARAM);

  size_t sz = 0;
  EXPECT_EQ(cudnnGetNormalizationTrainingReserveSpaceSize(h, m, ops, algo, nullptr, xd, &sz, 2),
            CUDNN_STATUS_NOT_SUPPORTED);
  FT_OK(cudnnGetNormalizationTrainingReserveSpaceSize(h, m, ops, algo, nullptr, xd, &sz, 1));
  EXPECT_EQ(sz, 0u);
  EXPECT_EQ(cudnnGetNormalizationForwardTrainingWorkspaceSize(h, m, ops, algo, xd, nullptr, yd, pd, nullptr, pd, &sz, 3),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnGetNormalizationForwardTrainingWorkspaceSize(h, m, ops, algo, xd, nullptr, yd, pd, nullptr, pd,
                                                              nullptr, 1),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetNormalizationBackwardWorkspaceSize(h, m, ops, algo, xd, yd, yd, nullptr, xd, pd, nullptr, pad, &sz,
                                                       1),
            CUDNN_STATUS_BAD_PARAM);

  HostTensor dx = x, ds = p, db = p;
  auto bwd = [&](const void* sm, const void* si, int groups) {
    return cudnnNormalizationBackward(h, m, ops, algo, one.ptr(t), zero.ptr(t), one.ptr(t), zero.ptr(t), xd, x.data(),
                                      yd, y.data(), yd, y.data(), nullptr, nullptr, xd, dx.data(), pd, p.data(),
                                      p.data(), ds.data(), db.data(), 1e-5, pd, sm, si, nullptr, nullptr, 0, nullptr, 0,
                                      groups);
  };
  FT_OK(bwd(nullptr, nullptr, 1));
  EXPECT_EQ(bwd(p.data(), nullptr, 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(bwd(nullptr, nullptr, 4), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnNormalizationForwardTraining(h, m, ops, algo, one.ptr(t), zero.ptr(t), xd, x.data(), pd, p.data(),
                                              p.data(), 0.1, pd, nullptr, nullptr, 1e-5, nullptr, nullptr, nullptr,
                                              nullptr, nullptr, yd, y.data(), nullptr, 0, nullptr, 0, 2),
            CUDNN_STATUS_NOT_SUPPORTED);
}

// Out-of-range cudnnNormMode_t / cudnnNormAlgo_t values (a C caller can pass them). Kept apart: the argument
// logging loads them as enums, which UBSan (FREEDNN_SANITIZE) reports, as for every API taking enums.
TEST(Normalization, InvalidEnums) {
  ft::Handle h;
  const auto t = CUDNN_DATA_FLOAT;
  HostTensor x(t, {2, 3, 4, 4}), y = x, p(t, {1, 3, 1, 1});
  TensorDesc xd(x), yd(y), pd(p), sb, mv;
  const Scale one(1), zero(0);
  EXPECT_EQ(cudnnDeriveNormTensorDescriptor(sb, mv, xd, static_cast<cudnnNormMode_t>(2), 1), CUDNN_STATUS_BAD_PARAM);
  auto infer = [&](cudnnNormMode_t mm, cudnnNormAlgo_t al) {
    return cudnnNormalizationForwardInference(h, mm, CUDNN_NORM_OPS_NORM, al, one.ptr(t), zero.ptr(t), xd, x.data(),
                                              pd, p.data(), p.data(), pd, p.data(), p.data(), nullptr, nullptr,
                                              nullptr, yd, y.data(), 1e-5, 1);
  };
  EXPECT_EQ(infer(static_cast<cudnnNormMode_t>(5), CUDNN_NORM_ALGO_STANDARD), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(infer(CUDNN_NORM_PER_CHANNEL, static_cast<cudnnNormAlgo_t>(2)), CUDNN_STATUS_BAD_PARAM);
}

}  // namespace
