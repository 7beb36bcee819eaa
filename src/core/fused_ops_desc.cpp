// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/fused_ops_desc.h"

#include <algorithm>
#include <vector>

#include "core/api_context.h"
#include "core/dtype.h"
#include "core/status.h"
#include "dispatch/conv_calibration.h"
#include "dispatch/conv_registry.h"

namespace fd::fused {

bool const_kind(int label, ConstKind* kind) {
  switch (label) {
    case CUDNN_PARAM_XDESC: case CUDNN_PARAM_BN_EQSCALEBIAS_DESC: case CUDNN_PARAM_YDESC: case CUDNN_PARAM_DYDESC:
    case CUDNN_PARAM_YSTATS_DESC: case CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC: case CUDNN_PARAM_ZDESC:
    case CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC: case CUDNN_PARAM_ACTIVATION_BITMASK_DESC: case CUDNN_PARAM_DXDESC:
    case CUDNN_PARAM_DZDESC:
      *kind = ConstKind::tensor;
      return true;
    case CUDNN_PARAM_WDESC: case CUDNN_PARAM_DWDESC: *kind = ConstKind::filter; return true;
    case CUDNN_PARAM_CONV_DESC: *kind = ConstKind::conv; return true;
    case CUDNN_PARAM_ACTIVATION_DESC: *kind = ConstKind::activation; return true;
    case CUDNN_PARAM_BN_MODE: *kind = ConstKind::bn_mode; return true;
    default:
      if (label >= 0 && label < kConstLabels) {
        *kind = ConstKind::placeholder;
        return true;
      }
      return false;
  }
}

int placeholder_pointer(int label) {
  switch (label) {
    case CUDNN_PARAM_XDATA_PLACEHOLDER: return CUDNN_PTR_XDATA;
    case CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER: return CUDNN_PTR_BN_EQSCALE;
    case CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER: return CUDNN_PTR_BN_EQBIAS;
    case CUDNN_PARAM_WDATA_PLACEHOLDER: return CUDNN_PTR_WDATA;
    case CUDNN_PARAM_DWDATA_PLACEHOLDER: return CUDNN_PTR_DWDATA;
    case CUDNN_PARAM_YDATA_PLACEHOLDER: return CUDNN_PTR_YDATA;
    case CUDNN_PARAM_DYDATA_PLACEHOLDER: return CUDNN_PTR_DYDATA;
    case CUDNN_PARAM_YSUM_PLACEHOLDER: return CUDNN_PTR_YSUM;
    case CUDNN_PARAM_YSQSUM_PLACEHOLDER: return CUDNN_PTR_YSQSUM;
    case CUDNN_PARAM_BN_SCALE_PLACEHOLDER: return CUDNN_PTR_BN_SCALE;
    case CUDNN_PARAM_BN_BIAS_PLACEHOLDER: return CUDNN_PTR_BN_BIAS;
    case CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER: return CUDNN_PTR_BN_SAVED_MEAN;
    case CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER: return CUDNN_PTR_BN_SAVED_INVSTD;
    case CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER: return CUDNN_PTR_BN_RUNNING_MEAN;
    case CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER: return CUDNN_PTR_BN_RUNNING_VAR;
    case CUDNN_PARAM_ZDATA_PLACEHOLDER: return CUDNN_PTR_ZDATA;
    case CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER: return CUDNN_PTR_BN_Z_EQSCALE;
    case CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER: return CUDNN_PTR_BN_Z_EQBIAS;
    case CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER: return CUDNN_PTR_ACTIVATION_BITMASK;
    case CUDNN_PARAM_DXDATA_PLACEHOLDER: return CUDNN_PTR_DXDATA;
    case CUDNN_PARAM_DZDATA_PLACEHOLDER: return CUDNN_PTR_DZDATA;
    case CUDNN_PARAM_BN_DSCALE_PLACEHOLDER: return CUDNN_PTR_BN_DSCALE;
    case CUDNN_PARAM_BN_DBIAS_PLACEHOLDER: return CUDNN_PTR_BN_DBIAS;
    default: return -1;
  }
}

}  // namespace fd::fused

namespace {

using fd::fused::ConstKind;

const char* ops_name(cudnnFusedOps_t o) {
  const char* n = fd::enum_name(o);
  return n ? n : "<invalid>";
}

void describe_placeholders(fd::log::Writer& w, const cudnnFusedOpsPointerPlaceHolder_t* ph) {
  std::string set;
  for (int l = 0; l < fd::fused::kConstLabels; ++l) {
    if (ph[l] == CUDNN_PTR_NULL) continue;
    const char* n = fd::enum_name(static_cast<cudnnFusedOpsConstParamLabel_t>(l));
    set += std::string(set.empty() ? "" : ",") + (n ? n : "?");
  }
  w.field("placeholders", "set", set.empty() ? "none" : set);
}

// A per-channel tensor of x's rank: 1 x C x 1 x ... .
bool per_channel(const cudnnTensorStruct& t, int nb_dims, int64_t c) {
  if (t.nb_dims != nb_dims || t.dims[1] != c) return false;
  for (int i = 0; i < t.nb_dims; ++i)
    if (i != 1 && t.dims[i] != 1) return false;
  return true;
}

cudnnStatus_t require_desc(const cudnnFusedOpsConstParamStruct& c, cudnnFusedOpsConstParamLabel_t l) {
  FD_CHECK_PARAM(c.desc[l] != nullptr, "%s pattern needs %s", ops_name(c.ops), fd::enum_name(l));
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t require_ptr(const cudnnFusedOpsConstParamStruct& c, cudnnFusedOpsConstParamLabel_t l) {
  FD_CHECK_PARAM(c.has(l), "%s pattern needs %s (it is CUDNN_PTR_NULL)", ops_name(c.ops), fd::enum_name(l));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t copy_tensor(const cudnnFusedOpsConstParamStruct& c, cudnnFusedOpsConstParamLabel_t l,
                          std::optional<cudnnTensorStruct>* out) {
  FD_TRY(require_desc(c, l));
  FD_TRY(fd::check_tensor(c.tensor(l), fd::enum_name(l)));
  *out = *c.tensor(l);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_float(const cudnnTensorStruct& t, const char* role) {
  FD_CHECK_SUPPORTED(fd::dtype_is_float(t.dtype), "%s is %s: fused ops compute f32, f64, f16 and bf16 data", role,
                     fd::dtype_short_name(t.dtype));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_bn_mode(const cudnnFusedOpsConstParamStruct& c) {
  FD_CHECK_SUPPORTED(c.bn_mode == CUDNN_BATCHNORM_SPATIAL || c.bn_mode == CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                     "CUDNN_PARAM_BN_MODE %s: the fused patterns work per channel (SPATIAL or SPATIAL_PERSISTENT)",
                     fd::enum_name(c.bn_mode) ? fd::enum_name(c.bn_mode) : "<invalid>");
  return CUDNN_STATUS_SUCCESS;
}

// The x prologue (x * eqScale + eqBias, activation) of the two convolution patterns.
cudnnStatus_t make_prologue(const cudnnFusedOpsConstParamStruct& c, cudnnFusedOpsPlanStruct* p) {
  FD_TRY(copy_tensor(c, CUDNN_PARAM_XDESC, &p->x));
  FD_TRY(require_ptr(c, CUDNN_PARAM_XDATA_PLACEHOLDER));
  FD_TRY(check_float(*p->x, "x"));
  FD_TRY(check_bn_mode(c));
  const bool scale = c.has(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER), bias = c.has(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER);
  if (scale || bias) {
    FD_TRY(copy_tensor(c, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, &p->eq));
    FD_CHECK_PARAM(per_channel(*p->eq, p->x->nb_dims, p->x->dims[1]),
                   "CUDNN_PARAM_BN_EQSCALEBIAS_DESC %s must be 1x%lldx1x... for x %s", p->eq->spec().c_str(),
                   static_cast<long long>(p->x->dims[1]), p->x->spec().c_str());
    FD_TRY(check_float(*p->eq, "the equivalent scale/bias"));
  }
  if (c.desc[CUDNN_PARAM_ACTIVATION_DESC] != nullptr) {
    const auto* a = static_cast<const cudnnActivationStruct*>(c.desc[CUDNN_PARAM_ACTIVATION_DESC]);
    FD_TRY(fd::check_activation(a, "CUDNN_PARAM_ACTIVATION_DESC"));
    if (a->mode != CUDNN_ACTIVATION_IDENTITY) p->act = *a;
  }
  p->prologue = scale || bias || p->act.has_value();
  if (p->prologue) {
    int dims[CUDNN_DIM_MAX];
    for (int i = 0; i < p->x->nb_dims; ++i) dims[i] = static_cast<int>(p->x->dims[i]);
    // Packed in x's channel order (NHWC when x's channels are innermost), so that the channels-last
    // implementations still take the problem.
    const bool channels_last = p->x->nb_dims > 2 && p->x->strides[1] < p->x->strides[p->x->nb_dims - 1];
    FD_TRY(fd::set_tensor_format(p->xact, channels_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, p->x->dtype,
                                 p->x->nb_dims, dims));
  }
  FD_TRY(require_desc(c, CUDNN_PARAM_CONV_DESC));
  FD_TRY(fd::check_convolution(static_cast<const cudnnConvolutionStruct*>(c.desc[CUDNN_PARAM_CONV_DESC]),
                               "CUDNN_PARAM_CONV_DESC"));
  p->conv = *static_cast<const cudnnConvolutionStruct*>(c.desc[CUDNN_PARAM_CONV_DESC]);
  return CUDNN_STATUS_SUCCESS;
}

// The fastest algorithm by the calibrated estimate (for the CPU implementations, which have no measured factors,
// their own cost_estimate) among those with an implementation on the handle's backend; ties go to the lower
// algorithm. The chosen implementation is prepared on the handle here (cuFFT plans), so Execute allocates nothing;
// one that cannot prepare gives way to the next.
cudnnStatus_t choose_algo(cudnnContext* h, cudnnFusedOpsPlanStruct* p) {
  struct Candidate {
    double cost;
    int algo;
    const fd::conv::ConvImpl* impl;
  };
  std::vector<Candidate> ranked;
  std::string why;
  for (int a = 0; a < fd::conv::algo_count(p->problem.dir); ++a) {
    const fd::conv::ConvImpl* impl = nullptr;
    const fd::conv::Verdict v = fd::conv::try_select(p->problem, h->backend, a, &impl, h);
    if (!v.ok()) {
      why += std::string(why.empty() ? "" : "; ") + fd::conv::algo_name(p->problem.dir, a) + ": " + v.reason;
      continue;
    }
    ranked.push_back({fd::conv::calibrated_estimate(*impl, p->problem), a, impl});
  }
  FD_CHECK_SUPPORTED(!ranked.empty(), "no convolution algorithm runs %s on the %s backend: %s",
                     p->problem.to_string().c_str(), fd::backend_name(h->backend), why.c_str());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Candidate& x, const Candidate& y) { return x.cost < y.cost; });
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  for (const Candidate& c : ranked) {
    st = c.impl->prepare(h, p->problem);
    if (st != CUDNN_STATUS_SUCCESS) continue;  // its reason is logged; try the next
    p->algo = c.algo;
    p->impl = c.impl;
    p->conv_workspace = c.impl->workspace_size(p->problem);
    p->workspace = p->conv_workspace;
    if (fd::log::enabled(CUDNN_SEV_INFO))
      fd::log::emit(CUDNN_SEV_INFO, fd::current_api_context().function,
                    std::string("    dispatch: ") + fd::conv::algo_name(p->problem.dir, c.algo) + " runs " +
                        c.impl->id() + " for " + p->problem.to_string(),
                    CUDNN_STATUS_SUCCESS);
    return CUDNN_STATUS_SUCCESS;
  }
  return st;
}

cudnnStatus_t make_conv_bnstats(cudnnContext* h, const cudnnFusedOpsConstParamStruct& c,
                                cudnnFusedOpsPlanStruct* p) {
  FD_TRY(make_prologue(c, p));
  FD_TRY(require_desc(c, CUDNN_PARAM_WDESC));
  FD_TRY(fd::check_filter(static_cast<const cudnnFilterStruct*>(c.desc[CUDNN_PARAM_WDESC]), "CUDNN_PARAM_WDESC"));
  p->w = *static_cast<const cudnnFilterStruct*>(c.desc[CUDNN_PARAM_WDESC]);
  FD_TRY(require_ptr(c, CUDNN_PARAM_WDATA_PLACEHOLDER));
  FD_TRY(copy_tensor(c, CUDNN_PARAM_YDESC, &p->y));
  FD_TRY(require_ptr(c, CUDNN_PARAM_YDATA_PLACEHOLDER));
  FD_TRY(fd::ConvProblem::make(fd::ConvDir::fwd, p->prologue ? &p->xact : &*p->x, &*p->w, &*p->conv, &*p->y,
                               &p->problem));
  if (c.has(CUDNN_PARAM_YSUM_PLACEHOLDER) || c.has(CUDNN_PARAM_YSQSUM_PLACEHOLDER)) {
    FD_TRY(copy_tensor(c, CUDNN_PARAM_YSTATS_DESC, &p->stats));
    FD_CHECK_PARAM(per_channel(*p->stats, p->y->nb_dims, p->y->dims[1]),
                   "CUDNN_PARAM_YSTATS_DESC %s must be 1x%lldx1x... for y %s", p->stats->spec().c_str(),
                   static_cast<long long>(p->y->dims[1]), p->y->spec().c_str());
    FD_TRY(check_float(*p->stats, "ysum/ysqsum"));
  }
  return choose_algo(h, p);
}

cudnnStatus_t make_wgrad(cudnnContext* h, const cudnnFusedOpsConstParamStruct& c, cudnnFusedOpsPlanStruct* p) {
  FD_TRY(make_prologue(c, p));
  FD_TRY(require_desc(c, CUDNN_PARAM_DWDESC));
  FD_TRY(fd::check_filter(static_cast<const cudnnFilterStruct*>(c.desc[CUDNN_PARAM_DWDESC]), "CUDNN_PARAM_DWDESC"));
  p->w = *static_cast<const cudnnFilterStruct*>(c.desc[CUDNN_PARAM_DWDESC]);
  FD_TRY(require_ptr(c, CUDNN_PARAM_DWDATA_PLACEHOLDER));
  FD_TRY(copy_tensor(c, CUDNN_PARAM_DYDESC, &p->dy));
  FD_TRY(require_ptr(c, CUDNN_PARAM_DYDATA_PLACEHOLDER));
  FD_TRY(fd::ConvProblem::make(fd::ConvDir::bwd_filter, p->prologue ? &p->xact : &*p->x, &*p->w, &*p->conv,
                               &*p->dy, &p->problem));
  return choose_algo(h, p);
}

cudnnStatus_t make_finalize(const cudnnFusedOpsConstParamStruct& c, cudnnFusedOpsPlanStruct* p, bool training) {
  FD_TRY(check_bn_mode(c));
  FD_TRY(copy_tensor(c, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, &p->bn));
  FD_TRY(copy_tensor(c, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, &p->eq));
  const int nd = p->bn->nb_dims;
  const int64_t ch = p->bn->dims[1];
  FD_CHECK_PARAM(nd >= 4 && per_channel(*p->bn, nd, ch), "CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC %s must be 1xCx1x1(x1)",
                 p->bn->spec().c_str());
  FD_CHECK_PARAM(per_channel(*p->eq, nd, ch), "CUDNN_PARAM_BN_EQSCALEBIAS_DESC %s must match %s in shape",
                 p->eq->spec().c_str(), p->bn->spec().c_str());
  FD_TRY(check_float(*p->bn, "scale/bias/mean/var"));
  FD_TRY(check_float(*p->eq, "the equivalent scale/bias"));
  FD_TRY(require_ptr(c, CUDNN_PARAM_BN_SCALE_PLACEHOLDER));
  FD_TRY(require_ptr(c, CUDNN_PARAM_BN_BIAS_PLACEHOLDER));
  FD_TRY(require_ptr(c, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER));
  FD_TRY(require_ptr(c, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER));
  if (!training) {
    FD_TRY(require_ptr(c, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER));
    FD_TRY(require_ptr(c, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER));
    return CUDNN_STATUS_SUCCESS;
  }
  FD_TRY(copy_tensor(c, CUDNN_PARAM_YSTATS_DESC, &p->stats));
  FD_CHECK_PARAM(per_channel(*p->stats, nd, ch), "CUDNN_PARAM_YSTATS_DESC %s must match %s in shape",
                 p->stats->spec().c_str(), p->bn->spec().c_str());
  FD_TRY(check_float(*p->stats, "ysum/ysqsum"));
  FD_TRY(require_ptr(c, CUDNN_PARAM_YSUM_PLACEHOLDER));
  FD_TRY(require_ptr(c, CUDNN_PARAM_YSQSUM_PLACEHOLDER));
  FD_CHECK_PARAM(c.has(CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER) == c.has(CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER),
                 "the saved mean and saved inverse stddev placeholders must be both set or both CUDNN_PTR_NULL");
  FD_CHECK_PARAM(c.has(CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER) == c.has(CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER),
                 "the running mean and running variance placeholders must be both set or both CUDNN_PTR_NULL");
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

void cudnnFusedOpsConstParamStruct::describe(fd::log::Writer& w) const {
  w.arg("ops", ops);
  w.arg("bnMode", bn_mode);
  for (int l = 0; l < fd::fused::kConstLabels; ++l) {
    ConstKind k;
    if (desc[l] == nullptr || !fd::fused::const_kind(l, &k) || k == ConstKind::placeholder) continue;
    const char* n = fd::enum_name(static_cast<cudnnFusedOpsConstParamLabel_t>(l));
    w.field(n ? n : "?", "descriptor", fd::log::format_pointer(desc[l]));
  }
  describe_placeholders(w, placeholder);
}

void cudnnFusedOpsVariantParamStruct::describe(fd::log::Writer& w) const {
  w.arg("ops", ops);
  for (int l = 0; l < fd::fused::kPtrLabels; ++l) {
    if (ptr[l] == nullptr) continue;
    const char* n = fd::enum_name(static_cast<cudnnFusedOpsVariantParamLabel_t>(l));
    w.field(n ? n : "?", "pointer", fd::log::format_pointer(ptr[l]));
  }
  w.arg("workspaceSizeInBytes", workspace_size);
  w.arg("accumulationCount", accumulation_count);
  w.arg("expAvgFactor", exp_avg_factor);
  w.arg("epsilon", epsilon);
}

std::string cudnnFusedOpsPlanStruct::to_string() const {
  std::string s = "fused ";
  switch (ops) {
    case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS: s += "conv_bnstats"; break;
    case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD: s += "wgrad"; break;
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING: s += "bn_finalize_train"; break;
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE: s += "bn_finalize_infer"; break;
    default: s += "unsupported"; break;
  }
  if (x) {
    s += std::string(" scale=") + (has(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER) ? "1" : "0") +
         " bias=" + (has(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER) ? "1" : "0");
    s += std::string(" act=") + (act ? fd::activation_mode_short_name(act->mode) : "none");
    s += " " + problem.to_string();
  }
  if (stats) s += " stats=" + stats->spec();
  if (bn) s += " bn=" + bn->spec() + " eq=" + eq->spec();
  return s;
}

void cudnnFusedOpsPlanStruct::describe(fd::log::Writer& w) const {
  w.arg("ops", ops);
  w.arg("made", made);
  if (made) {
    w.field("problem", "string", to_string());
    w.field("backend", "string", fd::backend_name(backend));
    w.arg("workspace", workspace);
  }
}

namespace fd {

cudnnStatus_t check_fused_const(const cudnnFusedOpsConstParamStruct* p, const char* role) {
  FD_CHECK_PARAM(p != nullptr, "%s is NULL", role);
  FD_CHECK_PARAM(p->alive(), "%s is not a live cudnnFusedOpsConstParamPack_t", role);
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t check_fused_variant(const cudnnFusedOpsVariantParamStruct* p, const char* role) {
  FD_CHECK_PARAM(p != nullptr, "%s is NULL", role);
  FD_CHECK_PARAM(p->alive(), "%s is not a live cudnnFusedOpsVariantParamPack_t", role);
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t check_fused_plan(const cudnnFusedOpsPlanStruct* p, const char* role) {
  FD_CHECK_PARAM(p != nullptr, "%s is NULL", role);
  FD_CHECK_PARAM(p->alive(), "%s is not a live cudnnFusedOpsPlan_t", role);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t make_fused_plan(cudnnContext* handle, const cudnnFusedOpsConstParamStruct& c,
                              cudnnFusedOpsPlanStruct* plan) {
  cudnnFusedOpsPlanStruct& p = *plan;
  p.made = false;
  p.x.reset(); p.y.reset(); p.dy.reset(); p.eq.reset(); p.stats.reset(); p.bn.reset();
  p.w.reset(); p.conv.reset(); p.act.reset();
  p.prologue = false;
  p.workspace = p.conv_workspace = p.xact_offset = p.reduce_offset = p.reduce_workspace = 0;
  p.algo = 0;
  p.impl = nullptr;
  p.backend = handle->backend;
  p.device = handle->device;
  p.bn_mode = c.bn_mode;
  for (int l = 0; l < fused::kConstLabels; ++l) p.placeholder[l] = c.placeholder[l];
  switch (c.ops) {
    case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS: FD_TRY(make_conv_bnstats(handle, c, &p)); break;
    case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD: FD_TRY(make_wgrad(handle, c, &p)); break;
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING: FD_TRY(make_finalize(c, &p, true)); break;
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE: FD_TRY(make_finalize(c, &p, false)); break;
    default:
      FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "fused pattern %s is not computed by freednn (supported: "
              "SCALE_BIAS_ACTIVATION_CONV_BNSTATS, SCALE_BIAS_ACTIVATION_WGRAD, BN_FINALIZE_STATISTICS_TRAINING "
              "and _INFERENCE)", ops_name(c.ops));
  }
  p.made = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnReduceTensorStruct fused_stats_reduction(const cudnnFusedOpsPlanStruct& p, bool squares) {
  cudnnReduceTensorStruct r;
  r.is_set = true;
  r.op = squares ? CUDNN_REDUCE_TENSOR_NORM2 : CUDNN_REDUCE_TENSOR_ADD;
  r.sum_of_squares = squares;
  r.comp_type = fused_double_compute(*p.y) ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  return r;
}

}  // namespace fd
