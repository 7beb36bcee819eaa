// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// bn infer|train|bwd api=bn mode=<spatial|per_activation|spatial_persistent> ops=<norm|act|add_act> [act=relu]
//    eps= [factor=] alpha= beta= [alpha_param= beta_param=] x= (y= [z=] | dy= dx=) sb= [running=0|1 save=0|1]
//    [saved=0|1]
// bn infer|train|bwd api=norm mode=<per_channel|per_activation> algo=<standard|persist> ... (same keys) [mv=]
// (also registered as "bnorm"; "norm" is api=norm). api=bn drives cudnnBatchNormalization*, ops=act/add_act through
// the Ex training call; api=norm the generic cudnnNormalization* calls (group count 1). Backward drives ops=norm.
#include <cmath>

#include "dtype.h"
#include "op.h"
#include "ref/batchnorm.h"

namespace bench {
namespace {

enum Dir { INFER, TRAIN, BWD };

class Bn : public Op {
 public:
  Bn(const Problem& p, const Options& o) {
    const std::string d = p.dir;
    dir_ = d == "infer" || d == "fwd_i" ? INFER : d == "train" || d == "fwd" ? TRAIN : d == "bwd" ? BWD
           : throw ParseError("bn: direction must be infer, train or bwd");
    const std::string api = p.get("api", p.family == "norm" ? "norm" : "bn");
    if (api != "bn" && api != "norm") throw ParseError("bn: api=" + api + " (want bn or norm)");
    generic_ = api == "norm";
    const std::string m = p.get("mode", generic_ ? "per_channel" : "spatial");
    if (generic_) {
      if (m != "per_channel" && m != "per_activation")
        throw ParseError("bn: api=norm takes mode=per_channel or per_activation, not " + m);
      nmode_ = m == "per_activation" ? CUDNN_NORM_PER_ACTIVATION : CUDNN_NORM_PER_CHANNEL;
      const std::string a = p.get("algo", "standard");
      if (a != "standard" && a != "persist") throw ParseError("bn: algo=" + a + " (want standard or persist)");
      nalgo_ = a == "persist" ? CUDNN_NORM_ALGO_PERSIST : CUDNN_NORM_ALGO_STANDARD;
    } else if (m != "spatial" && m != "per_activation" && m != "spatial_persistent") {
      throw ParseError("bn: unknown mode " + m);
    }
    mode_ = m == "per_activation" ? CUDNN_BATCHNORM_PER_ACTIVATION
            : m == "spatial_persistent" ? CUDNN_BATCHNORM_SPATIAL_PERSISTENT : CUDNN_BATCHNORM_SPATIAL;
    mode_s_ = m;
    ops_s_ = p.get("ops", "norm");
    ops_ = ops_s_ == "act" ? CUDNN_BATCHNORM_OPS_BN_ACTIVATION
           : ops_s_ == "add_act" ? CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION : CUDNN_BATCHNORM_OPS_BN;
    if (ops_ != CUDNN_BATCHNORM_OPS_BN && dir_ != TRAIN)
      throw ParseError("bn: ops=" + ops_s_ + " is driven for train only");
    eps_ = p.num("eps", 1e-5);
    factor_ = p.num("factor", 0.1);
    alpha = scale_opt(p, o, "alpha", false);
    beta = scale_opt(p, o, "beta", true);
    ap_ = p.num("alpha_param", 1);
    bp_ = p.num("beta_param", 0);
    running_ = p.flag("running", true);
    save_ = p.flag("save", true);
    saved_ = p.flag("saved", true);
    const TensorSpec x = tensor_arg(p, "x", nullptr);
    if (x.rank() != 4 && x.rank() != 5) throw ParseError("bn: x must be 4-D or 5-D");
    TensorSpec sb = x;
    sb.dtype = x.dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    sb.dims[0] = 1;
    if (!per_act())
      for (int k = 2; k < sb.rank(); ++k) sb.dims[k] = 1;
    sb.repack("nchw");
    if (p.has("sb")) sb = parse_tensor(p.get("sb"));
    mv_ = p.has("mv") ? parse_tensor(p.get("mv")) : sb;
    if (!generic_ && p.has("mv")) throw ParseError("bn: mv= is for api=norm");
    // The statistics use the mean/var descriptor (api=norm), scale and bias the scale/bias one.
    const TensorSpec& st = mv_;
    x_ = add("x", x, Io::in, -2, 2);
    switch (dir_) {
      case INFER:
        y_ = add("y", tensor_arg(p, "y", &x), Io::out);
        blend_outputs();
        s_ = add("scale", sb, Io::in, 0.5, 1.5);
        b_ = add("bias", sb, Io::in);
        m_ = add("est_mean", st, Io::in, -0.5, 0.5);
        v_ = add("est_var", st, Io::in, 0.5, 1.5);
        break;
      case TRAIN:
        if (ops_ == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION) z_ = add("z", tensor_arg(p, "z", &x), Io::in);
        y_ = add("y", tensor_arg(p, "y", &x), Io::out);
        blend_outputs();
        s_ = add("scale", sb, Io::in, 0.5, 1.5);
        b_ = add("bias", sb, Io::in);
        if (running_) {
          m_ = add("running_mean", st, Io::inout, -0.5, 0.5);
          v_ = add("running_var", st, Io::inout, 0.5, 1.5);
        }
        if (save_) {
          sm_ = add("save_mean", st, Io::out);
          sv_ = add("save_inv_var", st, Io::out);
        }
        args[x_].reads = 2;  // freednn: a statistics pass, then the apply pass
        break;
      case BWD:
        dy_ = add("dy", tensor_arg(p, "dy", &x), Io::in);
        y_ = add("dx", tensor_arg(p, "dx", &x), Io::out);
        blend_outputs();
        s_ = add("scale", sb, Io::in, 0.5, 1.5);
        if (generic_) {
          b_ = add("bias", sb, Io::in);  // normBiasData: passed, used by the activation backward only
          args[b_].counted = false;
        }
        ds_ = add("dscale", sb, bp_ != 0 ? Io::inout : Io::out);
        db_ = add("dbias", sb, bp_ != 0 ? Io::inout : Io::out);
        if (saved_) {
          sm_ = add("saved_mean", st, Io::in);
          sv_ = add("saved_inv_var", st, Io::in);
        }
        args[x_].reads = 2;  // freednn: a reduction pass over x and dy, then the dx pass
        args[dy_].reads = 2;
        break;
    }
  }

  void prepare_io(std::vector<int>* reads, std::vector<int>* writes) const override {
    if (dir_ == BWD && saved_) *reads = {x_}, *writes = {sm_, sv_};
  }

  bool per_act() const {
    return generic_ ? nmode_ == CUDNN_NORM_PER_ACTIVATION : mode_ == CUDNN_BATCHNORM_PER_ACTIVATION;
  }

  std::string str() const override {
    static const char* dn[] = {"infer", "train", "bwd"};
    std::string s = std::string("bn ") + dn[dir_] + (generic_ ? " api=norm" : " api=bn") + " mode=" + mode_s_;
    if (generic_) s += nalgo_ == CUDNN_NORM_ALGO_PERSIST ? " algo=persist" : " algo=standard";
    s += " ops=" + ops_s_;
    if (ops_ != CUDNN_BATCHNORM_OPS_BN) s += " act=relu nan=not_propagate";
    s += " eps=" + fnum(eps_);
    if (dir_ == TRAIN) s += " factor=" + fnum(factor_);
    s += " alpha=" + fnum(alpha) + " beta=" + fnum(beta);
    if (dir_ == BWD) s += " alpha_param=" + fnum(ap_) + " beta_param=" + fnum(bp_);
    s += " x=" + args[x_].spec.str();
    if (dir_ == BWD) s += " dy=" + args[dy_].spec.str() + " dx=" + args[y_].spec.str();
    else s += " y=" + args[y_].spec.str();
    if (z_ >= 0) s += " z=" + args[z_].spec.str();
    s += " sb=" + args[s_].spec.str();
    if (generic_) s += " mv=" + mv_.str();
    if (dir_ == TRAIN) s += std::string(" running=") + (running_ ? "1" : "0") + " save=" + (save_ ? "1" : "0");
    if (dir_ == BWD) s += std::string(" saved=") + (saved_ ? "1" : "0");
    return s;
  }

  // Saved statistics consistent with x: its mean and 1 / sqrt(var + eps) per statistic (two passes in double,
  // statistics split over the OpenMP threads; the input data of the call, not the reference).
  void prepare(std::vector<ref::Tensor>& v) override {
    if (!(dir_ == BWD && saved_)) return;
    const ref::Tensor& x = v[x_];
    const int64_t n = x.dims[0], c = x.dims[1], sp = x.count() / std::max<int64_t>(1, n * c);
    const bool pa = per_act();
    const int64_t stats = pa ? c * sp : c, per = x.count() / std::max<int64_t>(1, stats);
    std::vector<double> mean(stats), inv(stats);
#pragma omp parallel for schedule(dynamic, 1) if (x.count() > 65536)
    for (int64_t k = 0; k < stats; ++k) {
      // Statistic k: spatial: channel k, elements (b, k, s); per activation: position k of each sample b.
      auto at = [&](int64_t j) -> double {
        if (pa) return x[j * stats + k];
        return x[((j / sp) * c + k) * sp + j % sp];
      };
      double sum = 0;
      for (int64_t j = 0; j < per; ++j) sum += at(j);
      const double m = per ? sum / per : 0;
      double sq = 0;
      for (int64_t j = 0; j < per; ++j) sq += (at(j) - m) * (at(j) - m);
      mean[k] = m;
      inv[k] = 1.0 / std::sqrt((per ? sq / per : 0) + eps_);
    }
    v[sm_] = ref::Tensor(args[sm_].spec.dims_int(), mean);
    v[sv_] = ref::Tensor(args[sv_].spec.dims_int(), inv);
  }

  double tol_scale() const override { return 8; }

  std::string reference(const std::vector<ref::Tensor>& in, std::vector<ref::Tensor>* out) override {
    const std::vector<double>& scale = in[s_].v;
    if (dir_ == INFER) {
      ref::Tensor r = ref::bn_forward(in[x_], scale, in[b_].v, in[m_].v, in[v_].v, eps_, per_act());
      blend_into(r, in[y_], alpha, beta);
      (*out)[y_] = r;
      return "";
    }
    const ref::BnBatchStats st = ref::bn_batch_stats(in[x_], per_act(), eps_);
    if (dir_ == TRAIN) {
      ref::BnFusion f;
      if (z_ >= 0) f.z = &in[z_];
      f.relu = ops_ != CUDNN_BATCHNORM_OPS_BN;
      ref::Tensor r = ref::bn_forward(in[x_], scale, in[b_].v, st.mean, st.var, eps_, per_act(), f);
      blend_into(r, in[y_], alpha, beta);
      (*out)[y_] = r;
      if (running_) {
        ref::Tensor rm = in[m_], rv = in[v_];
        for (size_t i = 0; i < rm.v.size(); ++i) {
          rm.v[i] = (1 - factor_) * rm.v[i] + factor_ * st.mean[i];
          rv.v[i] = (1 - factor_) * rv.v[i] + factor_ * st.unbiased_var[i];
        }
        (*out)[m_] = rm;
        (*out)[v_] = rv;
      }
      if (save_) {
        (*out)[sm_] = ref::Tensor(in[sm_].dims, st.mean);
        (*out)[sv_] = ref::Tensor(in[sv_].dims, st.inv_std);
      }
      return "";
    }
    const ref::BnGrads g = ref::bn_backward(in[x_], in[dy_], scale, std::vector<double>(scale.size(), 0.0), eps_,
                                            per_act());
    ref::Tensor dx = g.dx;
    blend_into(dx, in[y_], alpha, beta);
    (*out)[y_] = dx;
    ref::Tensor ds(in[ds_].dims, g.dscale), db(in[db_].dims, g.dbias);
    blend_into(ds, in[ds_], ap_, bp_);
    blend_into(db, in[db_], ap_, bp_);
    (*out)[ds_] = ds;
    (*out)[db_] = db;
    return "";
  }

  struct B : Bound {
    const Api* api;
    cudnnHandle_t h;
    const Bn* op;
    Desc<cudnnTensorDescriptor_t> x, y, z, dy, sb, mv;
    Desc<cudnnActivationDescriptor_t> act;
    Scale a, b, ap, bp;
    void *ws = nullptr, *reserve = nullptr;
    size_t ws_bytes = 0, reserve_bytes = 0;
    cudnnStatus_t run_generic(void* const* p) {
      const Bn& o = *op;
      auto P = [&](int i) -> void* { return i >= 0 ? p[i] : nullptr; };
      const auto ops = static_cast<cudnnNormOps_t>(o.ops_);
      const cudnnTensorDescriptor_t none = nullptr;
      if (o.dir_ == INFER)
        return api->call(api->cudnnNormalizationForwardInference, h, o.nmode_, ops, o.nalgo_, a.ptr(), b.ptr(), x.d,
                         p[o.x_], sb.d, p[o.s_], p[o.b_], mv.d, p[o.m_], p[o.v_], none, static_cast<const void*>(nullptr),
                         act.d, y.d, p[o.y_], o.eps_, 1);
      if (o.dir_ == TRAIN)
        return api->call(api->cudnnNormalizationForwardTraining, h, o.nmode_, ops, o.nalgo_, a.ptr(), b.ptr(), x.d,
                         p[o.x_], sb.d, p[o.s_], p[o.b_], o.factor_, mv.d, P(o.m_), P(o.v_), o.eps_, P(o.sm_),
                         P(o.sv_), act.d, o.z_ >= 0 ? z.d : none, static_cast<const void*>(P(o.z_)), y.d, p[o.y_], ws,
                         ws_bytes, reserve, reserve_bytes, 1);
      return api->call(api->cudnnNormalizationBackward, h, o.nmode_, ops, o.nalgo_, a.ptr(), b.ptr(), ap.ptr(),
                       bp.ptr(), x.d, p[o.x_], none, static_cast<const void*>(nullptr), dy.d, p[o.dy_], none,
                       static_cast<void*>(nullptr), y.d, p[o.y_], sb.d, p[o.s_], p[o.b_], p[o.ds_], p[o.db_], o.eps_,
                       mv.d, P(o.sm_), P(o.sv_), act.d, ws, ws_bytes, static_cast<void*>(nullptr), size_t{0}, 1);
    }
    cudnnStatus_t run(void* const* p) override {
      const Bn& o = *op;
      auto P = [&](int i) -> void* { return i >= 0 ? p[i] : nullptr; };
      if (o.generic_) return run_generic(p);
      if (o.dir_ == INFER)
        return api->call(api->cudnnBatchNormalizationForwardInference, h, o.mode_, a.ptr(), b.ptr(), x.d, p[o.x_], y.d,
                         p[o.y_], sb.d, p[o.s_], p[o.b_], p[o.m_], p[o.v_], o.eps_);
      if (o.dir_ == TRAIN && o.ops_ == CUDNN_BATCHNORM_OPS_BN)
        return api->call(api->cudnnBatchNormalizationForwardTraining, h, o.mode_, a.ptr(), b.ptr(), x.d, p[o.x_], y.d,
                         p[o.y_], sb.d, p[o.s_], p[o.b_], o.factor_, P(o.m_), P(o.v_), o.eps_, P(o.sm_), P(o.sv_));
      if (o.dir_ == TRAIN)
        return api->call(api->cudnnBatchNormalizationForwardTrainingEx, h, o.mode_, o.ops_, a.ptr(), b.ptr(), x.d,
                         p[o.x_], o.z_ >= 0 ? z.d : nullptr, P(o.z_), y.d, p[o.y_], sb.d, p[o.s_], p[o.b_], o.factor_,
                         P(o.m_), P(o.v_), o.eps_, P(o.sm_), P(o.sv_), act.d, ws, ws_bytes, reserve, reserve_bytes);
      return api->call(api->cudnnBatchNormalizationBackward, h, o.mode_, a.ptr(), b.ptr(), ap.ptr(), bp.ptr(), x.d,
                       p[o.x_], dy.d, p[o.dy_], y.d, p[o.y_], sb.d, p[o.s_], p[o.ds_], p[o.db_], o.eps_, P(o.sm_),
                       P(o.sv_));
    }
  };

  cudnnStatus_t bind(Env& env, std::unique_ptr<Bound>* out, std::string* why) override {
    if (generic_) return bind_generic(env, out, why);
    auto b = std::make_unique<B>();
    const bool ex = dir_ == TRAIN && ops_ != CUDNN_BATCHNORM_OPS_BN;
    BENCH_TRY(bind_common(env, b.get(), ex, why));
    const Api& api = env.api;
    if (ex) {
      BENCH_TRY(api.call(api.cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize, env.handle, mode_, ops_, b->x.d,
                         z_ >= 0 ? b->z.d : nullptr, b->y.d, b->sb.d, b->act.d, &b->ws_bytes));
      BENCH_TRY(api.call(api.cudnnGetBatchNormalizationTrainingExReserveSpaceSize, env.handle, mode_, ops_, b->act.d,
                         b->x.d, &b->reserve_bytes));
      if (b->ws_bytes) b->ws = env.alloc(b->ws_bytes);
      if (b->reserve_bytes) b->reserve = env.alloc(b->reserve_bytes);
    }
    *out = std::move(b);
    return CUDNN_STATUS_SUCCESS;
  }

  cudnnStatus_t bind_generic(Env& env, std::unique_ptr<Bound>* out, std::string* why) {
    auto b = std::make_unique<B>();
    BENCH_TRY(bind_common(env, b.get(), ops_ != CUDNN_BATCHNORM_OPS_BN, why));
    const Api& api = env.api;
    BENCH_TRY(make_tensor(api, mv_, &b->mv));
    const auto ops = static_cast<cudnnNormOps_t>(ops_);
    const cudnnTensorDescriptor_t none = nullptr;
    if (dir_ == TRAIN) {
      BENCH_TRY(api.call(api.cudnnGetNormalizationForwardTrainingWorkspaceSize, env.handle, nmode_, ops, nalgo_, b->x.d,
                         z_ >= 0 ? b->z.d : none, b->y.d, b->sb.d, b->act.d, b->mv.d, &b->ws_bytes, 1));
      BENCH_TRY(api.call(api.cudnnGetNormalizationTrainingReserveSpaceSize, env.handle, nmode_, ops, nalgo_, b->act.d,
                         b->x.d, &b->reserve_bytes, 1));
    } else if (dir_ == BWD) {
      BENCH_TRY(api.call(api.cudnnGetNormalizationBackwardWorkspaceSize, env.handle, nmode_, ops, nalgo_, b->x.d, none,
                         b->dy.d, none, b->y.d, b->sb.d, b->act.d, b->mv.d, &b->ws_bytes, 1));
    }
    if (b->ws_bytes) b->ws = env.alloc(b->ws_bytes);
    if (b->reserve_bytes) b->reserve = env.alloc(b->reserve_bytes);
    *out = std::move(b);
    return CUDNN_STATUS_SUCCESS;
  }

  // What both APIs bind: the tensors, the scales and, with `relu`, the ReLU activation descriptor.
  cudnnStatus_t bind_common(Env& env, B* b, bool relu, std::string* why) {
    const Api& api = env.api;
    b->api = &api;
    b->h = env.handle;
    b->op = this;
    BENCH_TRY(make_tensor(api, args[x_].spec, &b->x));
    BENCH_TRY(make_tensor(api, args[y_].spec, &b->y));
    BENCH_TRY(make_tensor(api, args[s_].spec, &b->sb));
    if (z_ >= 0) BENCH_TRY(make_tensor(api, args[z_].spec, &b->z));
    if (dy_ >= 0) BENCH_TRY(make_tensor(api, args[dy_].spec, &b->dy));
    const cudnnDataType_t t = args[x_].spec.dtype;
    b->a = Scale(alpha, t);
    b->b = Scale(beta, t);
    b->ap = Scale(ap_, t);
    b->bp = Scale(bp_, t);
    if (relu) {
      b->act.destroy = api.cudnnDestroyActivationDescriptor;
      BENCH_TRY(api.call(api.cudnnCreateActivationDescriptor, &b->act.d));
      BENCH_TRY(api.call(api.cudnnSetActivationDescriptor, b->act.d, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    }
    return CUDNN_STATUS_SUCCESS;
  }

 private:
  bool generic_ = false;
  cudnnNormMode_t nmode_ = CUDNN_NORM_PER_CHANNEL;
  cudnnNormAlgo_t nalgo_ = CUDNN_NORM_ALGO_STANDARD;
  TensorSpec mv_;
  Dir dir_ = INFER;
  cudnnBatchNormMode_t mode_ = CUDNN_BATCHNORM_SPATIAL;
  cudnnBatchNormOps_t ops_ = CUDNN_BATCHNORM_OPS_BN;
  std::string mode_s_, ops_s_;
  double eps_ = 1e-5, factor_ = 0.1, ap_ = 1, bp_ = 0;
  bool running_ = true, save_ = true, saved_ = true;
  int x_ = -1, y_ = -1, z_ = -1, dy_ = -1, s_ = -1, b_ = -1, m_ = -1, v_ = -1, sm_ = -1, sv_ = -1, ds_ = -1, db_ = -1;
};

std::unique_ptr<Op> make(const Problem& p, const Options& o) { return std::make_unique<Bn>(p, o); }

}  // namespace

BENCH_REGISTER("bn", make);
BENCH_REGISTER("bnorm", make);
BENCH_REGISTER("norm", make);

}  // namespace bench
