// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// optensor fwd op=<add|mul|min|max|sqrt|not> comp=<f32|f64> nan=<prop|noprop> alpha1= alpha2= beta= a= [b=] c=
// addtensor fwd alpha= beta= a= c=
// scaletensor fwd alpha= y=
// settensor fwd value= y=
#include "op.h"
#include "ref/tensor_ops.h"

namespace bench {
namespace {

constexpr const char* kOps[] = {"add", "mul", "min", "max", "sqrt", "not"};

class OpTensor : public Op {
 public:
  OpTensor(const Problem& p, const Options& o) : fam_(p.family) {
    if (fam_ == "optensor") {
      op_ = -1;
      for (int i = 0; i < 6; ++i)
        if (p.get("op", "add") == kOps[i]) op_ = i;
      if (op_ < 0) throw ParseError("optensor: unknown op " + p.get("op"));
      nan_ = p.flag("nan", false);
      alpha = o.alpha_set ? o.alpha : p.num("alpha1", 1);
      alpha2_ = p.num("alpha2", 1);
      beta = scale_opt(p, o, "beta", true);
      const TensorSpec a = tensor_arg(p, "a", nullptr);
      a_ = add("a", a, op_ == 4 ? Io::in : Io::in, op_ == 4 ? 0.0 : -1.0, 1.0);
      if (op_ == 4) args[a_].positive = true;
      if (op_ < 4) b_ = add("b", tensor_arg(p, "b", &a), Io::in);
      c_ = add("c", tensor_arg(p, "c", &a), Io::out);
      comp_ = args[a_].spec.dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    } else if (fam_ == "addtensor") {
      alpha = scale_opt(p, o, "alpha", false);
      beta = p.num("beta", 1);
      if (o.beta_set) beta = o.beta;
      const TensorSpec c = tensor_arg(p, "c", nullptr);
      a_ = add("a", tensor_arg(p, "a", &c), Io::in);
      c_ = add("c", c, Io::out);
    } else if (fam_ == "scaletensor") {
      alpha = scale_opt(p, o, "alpha", false);
      c_ = add("y", tensor_arg(p, "y", nullptr), Io::inout);
    } else {
      value_ = p.num("value", 0.5);
      c_ = add("y", tensor_arg(p, "y", nullptr), Io::out);
    }
    blend_outputs();
  }

  std::string str() const override {
    std::string s = fam_ + " fwd";
    if (fam_ == "optensor")
      s += std::string(" op=") + kOps[op_] + " comp=" + (comp_ == CUDNN_DATA_DOUBLE ? "f64" : "f32") +
           " nan=" + (nan_ ? "prop" : "noprop") + " alpha1=" + fnum(alpha) + " alpha2=" + fnum(alpha2_) +
           " beta=" + fnum(beta);
    else if (fam_ == "addtensor")
      s += " alpha=" + fnum(alpha) + " beta=" + fnum(beta);
    else if (fam_ == "scaletensor")
      s += " alpha=" + fnum(alpha);
    else
      s += " value=" + fnum(value_);
    for (const Arg& a : args) s += " " + a.role + "=" + a.spec.str();
    return s;
  }

  std::string reference(const std::vector<ref::Tensor>& in, std::vector<ref::Tensor>* out) override {
    ref::Tensor r;
    if (fam_ == "optensor") {
      const ref::Tensor b = b_ >= 0 ? in[b_] : ref::Tensor(in[a_].dims, 0.0);
      r = ref::elementwise(static_cast<ref::Op>(op_), nan_, in[a_], alpha, b, alpha2_);
      blend_into(r, in[c_], 1.0, beta);
    } else if (fam_ == "addtensor") {
      r = ref::broadcast(in[a_], in[c_].dims);
      blend_into(r, in[c_], alpha, beta);
    } else if (fam_ == "scaletensor") {
      r = in[c_];
      for (int64_t i = 0; i < r.count(); ++i) r[i] *= alpha;
    } else {
      r = ref::Tensor(in[c_].dims, value_);
    }
    (*out)[c_] = r;
    return "";
  }

  struct B : Bound {
    const Api* api;
    cudnnHandle_t h;
    std::string fam;
    Desc<cudnnOpTensorDescriptor_t> od;
    Desc<cudnnTensorDescriptor_t> d[3];
    Scale a1, a2, b;
    double value_d = 0;
    float value_f = 0;
    bool dbl = false;
    int ai, bi, ci;
    cudnnStatus_t run(void* const* p) override {
      if (fam == "optensor")
        return api->call(api->cudnnOpTensor, h, od.d, a1.ptr(), d[ai].d, p[ai], a2.ptr(), d[bi >= 0 ? bi : ai].d,
                         p[bi >= 0 ? bi : ai], b.ptr(), d[ci].d, p[ci]);
      if (fam == "addtensor") return api->call(api->cudnnAddTensor, h, a1.ptr(), d[ai].d, p[ai], b.ptr(), d[ci].d, p[ci]);
      if (fam == "scaletensor") return api->call(api->cudnnScaleTensor, h, d[ci].d, p[ci], a1.ptr());
      return api->call(api->cudnnSetTensor, h, d[ci].d, p[ci], dbl ? static_cast<const void*>(&value_d) : &value_f);
    }
  };

  cudnnStatus_t bind(Env& env, std::unique_ptr<Bound>* out, std::string* why) override {
    auto b = std::make_unique<B>();
    const Api& api = env.api;
    b->api = &api;
    b->h = env.handle;
    b->fam = fam_;
    b->ai = a_;
    b->bi = b_;
    b->ci = c_;
    for (size_t i = 0; i < args.size(); ++i) BENCH_TRY(make_tensor(api, args[i].spec, &b->d[i]));
    const cudnnDataType_t t = args[c_].spec.dtype;
    if (fam_ == "optensor") {
      b->od.destroy = api.cudnnDestroyOpTensorDescriptor;
      BENCH_TRY(api.call(api.cudnnCreateOpTensorDescriptor, &b->od.d));
      BENCH_TRY(api.call(api.cudnnSetOpTensorDescriptor, b->od.d, static_cast<cudnnOpTensorOp_t>(op_), comp_,
                         nan_ ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN));
      b->a1 = Scale(alpha, comp_);
      b->a2 = Scale(alpha2_, comp_);
      b->b = Scale(beta, comp_);
    } else {
      b->a1 = Scale(alpha, t);
      b->b = Scale(beta, t);
    }
    // cudnnSetTensor reads the value in y's own data type; the bench keeps f32/f64 values (others: float).
    b->dbl = t == CUDNN_DATA_DOUBLE;
    b->value_d = value_;
    b->value_f = static_cast<float>(value_);
    if (fam_ == "settensor" && t != CUDNN_DATA_FLOAT && t != CUDNN_DATA_DOUBLE) {
      *why = "the bench runs settensor on f32 and f64 only";
      return CUDNN_STATUS_NOT_SUPPORTED;
    }
    *out = std::move(b);
    return CUDNN_STATUS_SUCCESS;
  }

 private:
  std::string fam_;
  int op_ = 0;
  bool nan_ = false;
  double alpha2_ = 1, value_ = 0;
  cudnnDataType_t comp_ = CUDNN_DATA_FLOAT;
  int a_ = -1, b_ = -1, c_ = -1;
};

std::unique_ptr<Op> make(const Problem& p, const Options& o) { return std::make_unique<OpTensor>(p, o); }

}  // namespace

BENCH_REGISTER("optensor", make);
BENCH_REGISTER("addtensor", make);
BENCH_REGISTER("scaletensor", make);
BENCH_REGISTER("settensor", make);

}  // namespace bench
