// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The fused-ops API: the four computed patterns against composed references, the packs, and error paths.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/test_util.h"
#include "ref/activation.h"
#include "ref/conv.h"
#include "ref/fused.h"
#include "unit/conv_fixture.h"

namespace {

using ft_conv::Problem;
using ft_conv::Shape;

struct Packs {
  cudnnFusedOpsConstParamPack_t c = nullptr;
  cudnnFusedOpsVariantParamPack_t v = nullptr;
  cudnnFusedOpsPlan_t p = nullptr;
  explicit Packs(cudnnFusedOps_t ops) {
    EXPECT_EQ(cudnnCreateFusedOpsConstParamPack(&c, ops), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateFusedOpsVariantParamPack(&v, ops), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateFusedOpsPlan(&p, ops), CUDNN_STATUS_SUCCESS);
  }
  ~Packs() {
    cudnnDestroyFusedOpsPlan(p);
    cudnnDestroyFusedOpsVariantParamPack(v);
    cudnnDestroyFusedOpsConstParamPack(c);
  }
  void desc(cudnnFusedOpsConstParamLabel_t l, const void* d) {
    EXPECT_EQ(cudnnSetFusedOpsConstParamPackAttribute(c, l, d), CUDNN_STATUS_SUCCESS) << l;
  }
  void ph(cudnnFusedOpsConstParamLabel_t l, bool on = true) {
    const cudnnFusedOpsPointerPlaceHolder_t v2 = on ? CUDNN_PTR_16B_ALIGNED : CUDNN_PTR_NULL;
    EXPECT_EQ(cudnnSetFusedOpsConstParamPackAttribute(c, l, &v2), CUDNN_STATUS_SUCCESS) << l;
  }
  void ptr(cudnnFusedOpsVariantParamLabel_t l, void* p2) {
    EXPECT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(v, l, p2), CUDNN_STATUS_SUCCESS) << l;
  }
  // Makes the plan, gives it a workspace of the size it asks for (device-visible in GPU mode), and executes.
  cudnnStatus_t run(cudnnHandle_t h, ft::Bytes& ws) {
    size_t need = 0;
    const cudnnStatus_t s = cudnnMakeFusedOpsPlan(h, p, c, &need);
    if (s != CUDNN_STATUS_SUCCESS) return s;
    ws.assign(need, 0);  // exactly what it asked for: an overrun of its layout is memcheck's to see
    ptr(CUDNN_PTR_WORKSPACE, ws.data());
    ptr(static_cast<cudnnFusedOpsVariantParamLabel_t>(CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES), &need);
    return cudnnFusedOpsExecute(h, p, v);
  }
};

struct ActDesc {
  cudnnActivationDescriptor_t d = nullptr;
  explicit ActDesc(cudnnActivationMode_t m, double coef = 0.0) {
    EXPECT_EQ(cudnnCreateActivationDescriptor(&d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetActivationDescriptor(d, m, CUDNN_NOT_PROPAGATE_NAN, coef), CUDNN_STATUS_SUCCESS);
  }
  ~ActDesc() { cudnnDestroyActivationDescriptor(d); }
};

// A 1 x C x 1 x 1 tensor with random values and its descriptor.
struct Channel {
  ft::HostTensor t;
  ft::TensorDesc d;
  Channel(cudnnDataType_t dt, int c, std::mt19937_64& rng, double lo, double hi)
      : t(dt, {1, c, 1, 1}), d(t) {
    t.fill_uniform(rng, lo, hi);
  }
};

double loosened(cudnnDataType_t t) {
  // The scaled/activated x is stored in x's type before the convolution (as cuDNN's partially fused path does),
  // one more rounding than the reference has.
  return ft::tolerance(t) * (t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16 ? 4 : 1);
}

cudnnDataType_t stats_type(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? t : CUDNN_DATA_FLOAT; }

Shape random_shape(std::mt19937_64& rng) {
  const int s = ft::uniform_int(rng, 1, 2);
  return Shape{"r", ft::uniform_int(rng, 1, 2), ft::uniform_int(rng, 2, 5), ft::uniform_int(rng, 2, 5), 1,
               {ft::uniform_int(rng, 4, 7), ft::uniform_int(rng, 4, 7)}, {3, 3}, {1, 1}, {s, s}, {1, 1}};
}

struct Prologue {
  bool scale, bias;
  cudnnActivationMode_t act;  // IDENTITY: no activation descriptor
};

TEST(FusedOps, ScaleBiasActivationConvBnStats) {
  ft::Handle h;
  auto rng = ft::make_rng();
  const Prologue pros[] = {{true, true, CUDNN_ACTIVATION_RELU}, {false, false, CUDNN_ACTIVATION_IDENTITY},
                           {true, false, CUDNN_ACTIVATION_TANH}, {false, true, CUDNN_ACTIVATION_RELU}};
  for (cudnnDataType_t dt : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
    // Cases 4 and 5: 2048 outputs per channel, so the statistics take the GPU's long-slice reductions (planes
    // for NCHW, columns for NHWC) with their workspace after the prologue's buffer.
    const Shape big{"big", 2, 4, 8, 1, {32, 32}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
    for (int it = 0; it < 6; ++it) {
      const Prologue pro = pros[it < 4 ? it : 3 * (it - 4)];  // the big ones: scale + bias + relu, bias + relu
      const bool nhwc = it % 2 == 1;
      Problem p(it < 4 ? random_shape(rng) : big, dt, nhwc, it == 2, false, rng);
      p.x.fill_uniform(rng, -1, 1);
      p.w.fill_uniform(rng, -1, 1);
      p.y.poison();
      Channel scale(dt, p.s.c, rng, 0.5, 1.5), bias(dt, p.s.c, rng, -0.5, 0.5);
      Channel ysum(stats_type(dt), p.s.k, rng, 0, 1), ysq(stats_type(dt), p.s.k, rng, 0, 1);
      ysum.t.poison();
      ysq.t.poison();
      ActDesc act(pro.act == CUDNN_ACTIVATION_IDENTITY ? CUDNN_ACTIVATION_RELU : pro.act);
      Packs k(CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
      k.desc(CUDNN_PARAM_XDESC, p.xd.d);
      k.ph(CUDNN_PARAM_XDATA_PLACEHOLDER);
      k.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, scale.d.d);
      k.ph(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, pro.scale);
      k.ph(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, pro.bias);
      if (pro.act != CUDNN_ACTIVATION_IDENTITY) k.desc(CUDNN_PARAM_ACTIVATION_DESC, act.d);
      k.desc(CUDNN_PARAM_CONV_DESC, p.cd.d);
      k.desc(CUDNN_PARAM_WDESC, p.wd.d);
      k.ph(CUDNN_PARAM_WDATA_PLACEHOLDER);
      k.desc(CUDNN_PARAM_YDESC, p.yd.d);
      k.ph(CUDNN_PARAM_YDATA_PLACEHOLDER);
      k.desc(CUDNN_PARAM_YSTATS_DESC, ysum.d.d);
      k.ph(CUDNN_PARAM_YSUM_PLACEHOLDER);
      k.ph(CUDNN_PARAM_YSQSUM_PLACEHOLDER);
      k.ptr(CUDNN_PTR_XDATA, p.x.data());
      if (pro.scale) k.ptr(CUDNN_PTR_BN_EQSCALE, scale.t.data());
      if (pro.bias) k.ptr(CUDNN_PTR_BN_EQBIAS, bias.t.data());
      k.ptr(CUDNN_PTR_WDATA, p.w.data());
      k.ptr(CUDNN_PTR_YDATA, p.y.data());
      k.ptr(CUDNN_PTR_YSUM, ysum.t.data());
      k.ptr(CUDNN_PTR_YSQSUM, ysq.t.data());
      ft::Bytes ws;
      ASSERT_EQ(k.run(h, ws), CUDNN_STATUS_SUCCESS) << p.str();

      const std::vector<double> sv = scale.t.values(), bv = bias.t.values();
      ref::Activation ra;
      ra.mode = pro.act;
      const ref::Tensor xact = ref::scale_bias_activation(ref::Tensor(p.xdims, p.x.values()), pro.scale ? &sv : nullptr,
                                                          pro.bias ? &bv : nullptr,
                                                          pro.act == CUDNN_ACTIVATION_IDENTITY ? nullptr : &ra);
      const ref::Tensor y = ref::conv_forward(xact, ref::Tensor(p.wdims, p.w.values()), p.params);
      std::vector<double> s, sq;
      ref::channel_sums(y, s, sq);
      const std::string what = p.str();
      EXPECT_TRUE(ft::near(p.y.values(), y.v, loosened(dt), "y " + what));
      // A channel's sum cancels: its rounding follows the size of its terms (the largest channel sum of |y|).
      ref::Tensor yabs = y;
      for (double& v : yabs.v) v = std::fabs(v);
      std::vector<double> l1, l1sq;
      ref::channel_sums(yabs, l1, l1sq);
      EXPECT_TRUE(ft::near(ysum.t.values(), s, loosened(dt), "ysum " + what, ft::max_abs(l1)));
      EXPECT_TRUE(ft::near(ysq.t.values(), sq, loosened(dt), "ysqsum " + what));
    }
  }
}

TEST(FusedOps, ScaleBiasActivationWgrad) {
  ft::Handle h;
  auto rng = ft::make_rng();
  for (cudnnDataType_t dt : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF}) {
    for (int it = 0; it < 3; ++it) {
      const bool with = it != 1;
      Problem p(random_shape(rng), dt, it == 2, it == 1, false, rng);
      p.x.fill_uniform(rng, -1, 1);
      p.y.fill_uniform(rng, -1, 1);  // dy
      p.w.poison();                  // dw
      Channel scale(dt, p.s.c, rng, 0.5, 1.5), bias(dt, p.s.c, rng, -0.5, 0.5);
      ActDesc act(CUDNN_ACTIVATION_RELU);
      Packs k(CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD);
      k.desc(CUDNN_PARAM_XDESC, p.xd.d);
      k.ph(CUDNN_PARAM_XDATA_PLACEHOLDER);
      if (with) {
        k.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, scale.d.d);
        k.ph(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER);
        k.ph(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER);
        k.desc(CUDNN_PARAM_ACTIVATION_DESC, act.d);
      }
      k.desc(CUDNN_PARAM_CONV_DESC, p.cd.d);
      k.desc(CUDNN_PARAM_DWDESC, p.wd.d);
      k.ph(CUDNN_PARAM_DWDATA_PLACEHOLDER);
      k.desc(CUDNN_PARAM_DYDESC, p.yd.d);
      k.ph(CUDNN_PARAM_DYDATA_PLACEHOLDER);
      k.ptr(CUDNN_PTR_XDATA, p.x.data());
      k.ptr(CUDNN_PTR_BN_EQSCALE, scale.t.data());
      k.ptr(CUDNN_PTR_BN_EQBIAS, bias.t.data());
      k.ptr(CUDNN_PTR_DWDATA, p.w.data());
      k.ptr(CUDNN_PTR_DYDATA, p.y.data());
      ft::Bytes ws;
      ASSERT_EQ(k.run(h, ws), CUDNN_STATUS_SUCCESS) << p.str();
      const std::vector<double> sv = scale.t.values(), bv = bias.t.values();
      ref::Activation ra;
      ra.mode = CUDNN_ACTIVATION_RELU;
      const ref::Tensor xact = ref::scale_bias_activation(ref::Tensor(p.xdims, p.x.values()), with ? &sv : nullptr,
                                                          with ? &bv : nullptr, with ? &ra : nullptr);
      const ref::Tensor dw = ref::conv_backward_filter(xact, ref::Tensor(p.ydims, p.y.values()), p.wdims, p.params);
      EXPECT_TRUE(ft::near(p.w.values(), dw.v, loosened(dt), "dw " + p.str()));
    }
  }
}

TEST(FusedOps, BnFinalizeTrainingAndInference) {
  ft::Handle h;
  auto rng = ft::make_rng();
  for (cudnnDataType_t dt : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE}) {
    for (cudnnDataType_t eqt : {dt, dt == CUDNN_DATA_FLOAT ? CUDNN_DATA_HALF : dt}) {
      for (bool optional : {true, false}) {
        const int c = ft::uniform_int(rng, 1, 9);
        // Consistent sums: those of a random y.
        ref::Tensor y({3, c, 2, 5});
        for (auto& v : y.v) v = ft::uniform(rng, -2, 3);
        std::vector<double> s, sq;
        ref::channel_sums(y, s, sq);
        const int64_t m = 3 * 2 * 5;
        Channel ysum(dt, c, rng, 0, 1), ysq(dt, c, rng, 0, 1);
        for (int i = 0; i < c; ++i) {
          ysum.t.set(i, s[static_cast<size_t>(i)]);
          ysq.t.set(i, sq[static_cast<size_t>(i)]);
        }
        Channel scale(dt, c, rng, 0.5, 1.5), bias(dt, c, rng, -1, 1), rm(dt, c, rng, -1, 1), rv(dt, c, rng, 0.5, 2);
        Channel smean(dt, c, rng, 0, 1), sinv(dt, c, rng, 0, 1), eqs(eqt, c, rng, 0, 1), eqb(eqt, c, rng, 0, 1);
        smean.t.poison();
        sinv.t.poison();
        eqs.t.poison();
        eqb.t.poison();
        const std::vector<double> rm0 = rm.t.values(), rv0 = rv.t.values();
        double eps = ft::uniform(rng, 1e-5, 1e-2), factor = ft::uniform(rng, 0.05, 0.9);
        int64_t count = m;
        Packs k(CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING);
        k.desc(CUDNN_PARAM_YSTATS_DESC, ysum.d.d);
        k.desc(CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, scale.d.d);
        k.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqs.d.d);
        for (auto l : {CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PARAM_YSQSUM_PLACEHOLDER, CUDNN_PARAM_BN_SCALE_PLACEHOLDER,
                       CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER,
                       CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER})
          k.ph(l);
        for (auto l : {CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER,
                       CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER})
          k.ph(l, optional);
        k.ptr(CUDNN_PTR_YSUM, ysum.t.data());
        k.ptr(CUDNN_PTR_YSQSUM, ysq.t.data());
        k.ptr(CUDNN_PTR_BN_SCALE, scale.t.data());
        k.ptr(CUDNN_PTR_BN_BIAS, bias.t.data());
        k.ptr(CUDNN_PTR_BN_SAVED_MEAN, smean.t.data());
        k.ptr(CUDNN_PTR_BN_SAVED_INVSTD, sinv.t.data());
        k.ptr(CUDNN_PTR_BN_RUNNING_MEAN, rm.t.data());
        k.ptr(CUDNN_PTR_BN_RUNNING_VAR, rv.t.data());
        k.ptr(CUDNN_PTR_BN_EQSCALE, eqs.t.data());
        k.ptr(CUDNN_PTR_BN_EQBIAS, eqb.t.data());
        k.ptr(static_cast<cudnnFusedOpsVariantParamLabel_t>(CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT), &count);
        k.ptr(static_cast<cudnnFusedOpsVariantParamLabel_t>(CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR), &factor);
        k.ptr(static_cast<cudnnFusedOpsVariantParamLabel_t>(CUDNN_SCALAR_DOUBLE_BN_EPSILON), &eps);
        ft::Bytes ws;
        ASSERT_EQ(k.run(h, ws), CUDNN_STATUS_SUCCESS);
        const auto r = ref::bn_finalize_training(s, sq, m, scale.t.values(), bias.t.values(), rm0, rv0, factor, eps);
        const double tol = ft::tolerance(eqt) * 10;  // E[y^2] - E[y]^2 cancels some digits
        EXPECT_TRUE(ft::near(eqs.t.values(), r.eq_scale, tol, "eq scale"));
        // eq bias = bias - mean * eq scale: terms of either sign that can cancel to near zero, rounded at the
        // terms' size (seed 2286897779: an inference eq bias of -4.5e-4 off by 1.3e-8 in float)
        const double eqb_terms = ft::max_abs(bias.t.values()) + ft::max_abs(r.mean) * ft::max_abs(r.eq_scale);
        EXPECT_TRUE(ft::near(eqb.t.values(), r.eq_bias, tol, "eq bias", eqb_terms));
        if (optional) {
          EXPECT_TRUE(ft::near(smean.t.values(), r.mean, ft::tolerance(dt) * 10, "saved mean"));
          EXPECT_TRUE(ft::near(sinv.t.values(), r.inv_std, ft::tolerance(dt) * 10, "saved inv std"));
          EXPECT_TRUE(ft::near(rm.t.values(), r.running_mean, ft::tolerance(dt) * 10, "running mean"));
          EXPECT_TRUE(ft::near(rv.t.values(), r.running_var, ft::tolerance(dt) * 10, "running var"));
        } else {
          EXPECT_EQ(rm.t.values(), rm0) << "running mean written without its placeholder";
        }

        // Inference, from the running statistics.
        eqs.t.poison();
        eqb.t.poison();
        Packs q(CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE);
        q.desc(CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, scale.d.d);
        q.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqs.d.d);
        for (auto l : {CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PARAM_BN_BIAS_PLACEHOLDER,
                       CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER,
                       CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER})
          q.ph(l);
        q.ptr(CUDNN_PTR_BN_SCALE, scale.t.data());
        q.ptr(CUDNN_PTR_BN_BIAS, bias.t.data());
        q.ptr(CUDNN_PTR_BN_RUNNING_MEAN, rm.t.data());
        q.ptr(CUDNN_PTR_BN_RUNNING_VAR, rv.t.data());
        q.ptr(CUDNN_PTR_BN_EQSCALE, eqs.t.data());
        q.ptr(CUDNN_PTR_BN_EQBIAS, eqb.t.data());
        q.ptr(static_cast<cudnnFusedOpsVariantParamLabel_t>(CUDNN_SCALAR_DOUBLE_BN_EPSILON), &eps);
        ASSERT_EQ(q.run(h, ws), CUDNN_STATUS_SUCCESS);
        const auto ri = ref::bn_finalize_inference(scale.t.values(), bias.t.values(), rm.t.values(), rv.t.values(), eps);
        EXPECT_TRUE(ft::near(eqs.t.values(), ri.eq_scale, ft::tolerance(eqt), "inference eq scale"));
        const double eqbi_terms =
            ft::max_abs(bias.t.values()) + ft::max_abs(rm.t.values()) * ft::max_abs(ri.eq_scale);
        EXPECT_TRUE(ft::near(eqb.t.values(), ri.eq_bias, ft::tolerance(eqt), "inference eq bias", eqbi_terms));
      }
    }
  }
}

TEST(FusedOps, PacksRoundTrip) {
  auto rng = ft::make_rng();
  Problem p(random_shape(rng), CUDNN_DATA_FLOAT, false, false, false, rng);
  Packs k(CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
  k.desc(CUDNN_PARAM_XDESC, p.xd.d);
  k.ph(CUDNN_PARAM_XDATA_PLACEHOLDER);
  const cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
  k.desc(CUDNN_PARAM_BN_MODE, &mode);
  ft::TensorDesc got;
  int is_null = -1;
  FT_OK(cudnnGetFusedOpsConstParamPackAttribute(k.c, CUDNN_PARAM_XDESC, got.d, &is_null));
  EXPECT_EQ(is_null, 0);
  cudnnDataType_t dt;
  int n = 0, dims[8], strides[8];
  FT_OK(cudnnGetTensorNdDescriptor(got.d, 8, &dt, &n, dims, strides));
  EXPECT_EQ(n, 4);
  EXPECT_EQ(dims[1], p.s.c);
  FT_OK(cudnnGetFusedOpsConstParamPackAttribute(k.c, CUDNN_PARAM_YDESC, got.d, &is_null));
  EXPECT_EQ(is_null, 1);
  cudnnFusedOpsPointerPlaceHolder_t ph;
  FT_OK(cudnnGetFusedOpsConstParamPackAttribute(k.c, CUDNN_PARAM_XDATA_PLACEHOLDER, &ph, &is_null));
  EXPECT_EQ(ph, CUDNN_PTR_16B_ALIGNED);
  EXPECT_EQ(is_null, 0);
  FT_OK(cudnnGetFusedOpsConstParamPackAttribute(k.c, CUDNN_PARAM_YSUM_PLACEHOLDER, &ph, &is_null));
  EXPECT_EQ(is_null, 1);
  cudnnBatchNormMode_t m2;
  FT_OK(cudnnGetFusedOpsConstParamPackAttribute(k.c, CUDNN_PARAM_BN_MODE, &m2, &is_null));
  EXPECT_EQ(m2, mode);
  void* ptr = nullptr;
  k.ptr(CUDNN_PTR_YDATA, p.y.data());
  FT_OK(cudnnGetFusedOpsVariantParamPackAttribute(k.v, CUDNN_PTR_YDATA, &ptr));
  EXPECT_EQ(ptr, p.y.data());
  double eps = 3e-4, e2 = 0;
  k.ptr(static_cast<cudnnFusedOpsVariantParamLabel_t>(CUDNN_SCALAR_DOUBLE_BN_EPSILON), &eps);
  FT_OK(cudnnGetFusedOpsVariantParamPackAttribute(
      k.v, static_cast<cudnnFusedOpsVariantParamLabel_t>(CUDNN_SCALAR_DOUBLE_BN_EPSILON), &e2));
  EXPECT_EQ(e2, eps);
}

TEST(FusedOps, BadArgumentsAndUnsupportedPatterns) {
  ft::Handle h;
  auto rng = ft::make_rng();
  cudnnFusedOpsConstParamPack_t c = nullptr;
  cudnnFusedOpsPlan_t plan = nullptr;
  EXPECT_EQ(cudnnCreateFusedOpsConstParamPack(nullptr, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnCreateFusedOpsConstParamPack(&c, static_cast<cudnnFusedOps_t>(99)), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnCreateFusedOpsPlan(&plan, static_cast<cudnnFusedOps_t>(-1)), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyFusedOpsConstParamPack(nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyFusedOpsPlan(nullptr), CUDNN_STATUS_SUCCESS);

  Problem p(random_shape(rng), CUDNN_DATA_FLOAT, false, false, false, rng);
  Packs k(CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
  const auto bad_label = static_cast<cudnnFusedOpsConstParamLabel_t>(77);
  EXPECT_EQ(cudnnSetFusedOpsConstParamPackAttribute(k.c, bad_label, p.xd.d), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetFusedOpsConstParamPackAttribute(nullptr, CUDNN_PARAM_XDESC, p.xd.d), CUDNN_STATUS_BAD_PARAM);
  // A filter where a tensor belongs, a bad placeholder value, a NULL placeholder pointer.
  EXPECT_EQ(cudnnSetFusedOpsConstParamPackAttribute(k.c, CUDNN_PARAM_XDESC, p.wd.d), CUDNN_STATUS_BAD_PARAM);
  const auto bad_ph = static_cast<cudnnFusedOpsPointerPlaceHolder_t>(9);
  EXPECT_EQ(cudnnSetFusedOpsConstParamPackAttribute(k.c, CUDNN_PARAM_XDATA_PLACEHOLDER, &bad_ph), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetFusedOpsConstParamPackAttribute(k.c, CUDNN_PARAM_XDATA_PLACEHOLDER, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(k.v, static_cast<cudnnFusedOpsVariantParamLabel_t>(50), nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(
                k.v, static_cast<cudnnFusedOpsVariantParamLabel_t>(CUDNN_SCALAR_DOUBLE_BN_EPSILON), nullptr),
            CUDNN_STATUS_BAD_PARAM);
  int is_null = 0;
  EXPECT_EQ(cudnnGetFusedOpsConstParamPackAttribute(k.c, CUDNN_PARAM_XDESC, nullptr, &is_null), CUDNN_STATUS_BAD_PARAM);

  size_t ws = 0;
  // Missing descriptors: BAD_PARAM at make time; executing an unmade plan: BAD_PARAM.
  EXPECT_EQ(cudnnMakeFusedOpsPlan(h, k.p, k.c, &ws), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFusedOpsExecute(h, k.p, k.v), CUDNN_STATUS_BAD_PARAM);
  k.desc(CUDNN_PARAM_XDESC, p.xd.d);
  k.ph(CUDNN_PARAM_XDATA_PLACEHOLDER);
  k.desc(CUDNN_PARAM_CONV_DESC, p.cd.d);
  k.desc(CUDNN_PARAM_WDESC, p.wd.d);
  k.ph(CUDNN_PARAM_WDATA_PLACEHOLDER);
  // y one column wider than the convolution's output: always the wrong shape (x's own shape can match y's).
  std::vector<int> bad_dims = p.y.dims;
  bad_dims.back() += 1;
  const ft::HostTensor bad_y(p.y.dtype, bad_dims);
  const ft::TensorDesc bad_yd(bad_y);
  k.desc(CUDNN_PARAM_YDESC, bad_yd.d);
  k.ph(CUDNN_PARAM_YDATA_PLACEHOLDER);
  EXPECT_EQ(cudnnMakeFusedOpsPlan(h, k.p, k.c, &ws), CUDNN_STATUS_BAD_PARAM);
  k.desc(CUDNN_PARAM_YDESC, p.yd.d);
  // Per-activation BN mode: not a per-channel pattern.
  const cudnnBatchNormMode_t per_act = CUDNN_BATCHNORM_PER_ACTIVATION;
  k.desc(CUDNN_PARAM_BN_MODE, &per_act);
  EXPECT_EQ(cudnnMakeFusedOpsPlan(h, k.p, k.c, &ws), CUDNN_STATUS_NOT_SUPPORTED);
  const cudnnBatchNormMode_t spatial = CUDNN_BATCHNORM_SPATIAL;
  k.desc(CUDNN_PARAM_BN_MODE, &spatial);
  // Scale placeholder without the eq scale/bias descriptor.
  k.ph(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER);
  EXPECT_EQ(cudnnMakeFusedOpsPlan(h, k.p, k.c, &ws), CUDNN_STATUS_BAD_PARAM);
  k.ph(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, false);
  EXPECT_EQ(cudnnMakeFusedOpsPlan(nullptr, k.p, k.c, &ws), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnMakeFusedOpsPlan(h, k.p, k.c, nullptr), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnMakeFusedOpsPlan(h, k.p, k.c, &ws));
  // Data pointers missing for placeholders that are set.
  k.ptr(CUDNN_PTR_XDATA, p.x.data());
  k.ptr(CUDNN_PTR_WDATA, p.w.data());
  ft::Bytes buf(ws + 1);
  k.ptr(CUDNN_PTR_WORKSPACE, buf.data());
  k.ptr(static_cast<cudnnFusedOpsVariantParamLabel_t>(CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES), &ws);
  EXPECT_EQ(cudnnFusedOpsExecute(h, k.p, k.v), CUDNN_STATUS_BAD_PARAM);
  k.ptr(CUDNN_PTR_YDATA, p.y.data());
  if (ws > 0) {
    size_t small = ws - 1;
    k.ptr(static_cast<cudnnFusedOpsVariantParamLabel_t>(CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES), &small);
    EXPECT_EQ(cudnnFusedOpsExecute(h, k.p, k.v), CUDNN_STATUS_BAD_PARAM);
    k.ptr(static_cast<cudnnFusedOpsVariantParamLabel_t>(CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES), &ws);
  }
  EXPECT_EQ(cudnnFusedOpsExecute(nullptr, k.p, k.v), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFusedOpsExecute(h, k.p, nullptr), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnFusedOpsExecute(h, k.p, k.v));
  {
    // The plan executed on a handle of the other backend, where this machine has both: refused.
    ft::ScopedEnv other("FREEDNN_BACKEND", ft::gpu_mode() ? "cpu" : "cuda");
    cudnnHandle_t o = nullptr;
    if (cudnnCreate(&o) == CUDNN_STATUS_SUCCESS) {
      EXPECT_EQ(cudnnFusedOpsExecute(o, k.p, k.v), CUDNN_STATUS_BAD_PARAM);
      cudnnDestroy(o);
    }
  }
  // A variant pack of another pattern.
  Packs other(CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD);
  EXPECT_EQ(cudnnFusedOpsExecute(h, k.p, other.v), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnMakeFusedOpsPlan(h, other.p, k.c, &ws), CUDNN_STATUS_BAD_PARAM);

  // The patterns freednn does not compute: NOT_SUPPORTED at make time.
  for (cudnnFusedOps_t ops : {CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION,
                              CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM}) {
    Packs u(ops);
    u.desc(CUDNN_PARAM_XDESC, p.xd.d);
    EXPECT_EQ(cudnnMakeFusedOpsPlan(h, u.p, u.c, &ws), CUDNN_STATUS_NOT_SUPPORTED) << ops;
  }

  // BN finalize: an accumulation count of 0 and a shape mismatch.
  Channel a(CUDNN_DATA_FLOAT, 3, rng, 0, 1), b(CUDNN_DATA_FLOAT, 4, rng, 0, 1);
  Packs f(CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING);
  f.desc(CUDNN_PARAM_YSTATS_DESC, a.d.d);
  f.desc(CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, a.d.d);
  f.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, b.d.d);
  for (auto l : {CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PARAM_YSQSUM_PLACEHOLDER, CUDNN_PARAM_BN_SCALE_PLACEHOLDER,
                 CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER})
    f.ph(l);
  EXPECT_EQ(cudnnMakeFusedOpsPlan(h, f.p, f.c, &ws), CUDNN_STATUS_BAD_PARAM);
  f.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, a.d.d);
  FT_OK(cudnnMakeFusedOpsPlan(h, f.p, f.c, &ws));
  for (auto l : {CUDNN_PTR_YSUM, CUDNN_PTR_YSQSUM, CUDNN_PTR_BN_SCALE, CUDNN_PTR_BN_BIAS, CUDNN_PTR_BN_EQSCALE,
                 CUDNN_PTR_BN_EQBIAS})
    f.ptr(l, a.t.data() == nullptr ? nullptr : b.t.data());
  EXPECT_EQ(cudnnFusedOpsExecute(h, f.p, f.v), CUDNN_STATUS_BAD_PARAM);  // accumulation count 0
  int64_t count = 10;
  f.ptr(static_cast<cudnnFusedOpsVariantParamLabel_t>(CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT), &count);
  double eps = -1;
  f.ptr(static_cast<cudnnFusedOpsVariantParamLabel_t>(CUDNN_SCALAR_DOUBLE_BN_EPSILON), &eps);
  EXPECT_EQ(cudnnFusedOpsExecute(h, f.p, f.v), CUDNN_STATUS_BAD_PARAM);  // negative epsilon
}

}  // namespace
