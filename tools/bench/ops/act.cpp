// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// act fwd|bwd mode=<m> nan=<propagate|not_propagate> coef=<c> [swish_beta=<b>] alpha= beta= x= y= [dy= dx=]
#include <cmath>

#include "op.h"
#include "ref/activation.h"

namespace bench {
namespace {

struct ModeName {
  const char* name;
  cudnnActivationMode_t mode;
};
constexpr ModeName kModes[] = {{"sigmoid", CUDNN_ACTIVATION_SIGMOID}, {"relu", CUDNN_ACTIVATION_RELU},
                               {"tanh", CUDNN_ACTIVATION_TANH},       {"clipped_relu", CUDNN_ACTIVATION_CLIPPED_RELU},
                               {"elu", CUDNN_ACTIVATION_ELU},         {"identity", CUDNN_ACTIVATION_IDENTITY},
                               {"swish", CUDNN_ACTIVATION_SWISH}};

class Act : public Op {
 public:
  Act(const Problem& p, const Options& o) : p_(p) {
    bwd_ = p.dir == "bwd";
    if (!bwd_ && p.dir != "fwd") throw ParseError("act: direction must be fwd or bwd");
    const std::string m = p.get("mode", "relu");
    bool found = false;
    for (const auto& k : kModes)
      if (m == k.name) {
        a_.mode = k.mode;
        found = true;
      }
    if (!found) throw ParseError("act: unknown mode " + m);
    a_.propagate_nan = p.flag("nan", false);
    a_.coef = p.num("coef", a_.mode == CUDNN_ACTIVATION_CLIPPED_RELU ? 6.0 : 1.0);
    a_.swish_beta = p.num("swish_beta", 1.0);
    alpha = scale_opt(p, o, "alpha", false);
    beta = scale_opt(p, o, "beta", true);
    const TensorSpec x = tensor_arg(p, "x", nullptr);
    if (bwd_) {
      y_ = add("y", tensor_arg(p, "y", &x), Io::in);
      dy_ = add("dy", tensor_arg(p, "dy", &x), Io::in);
      x_ = add("x", x, Io::in, -2, 2);
      dx_ = add("dx", tensor_arg(p, "dx", &x), Io::out);
      // Bytes: SIGMOID / TANH need y and dy, IDENTITY dy alone, the others x and dy.
      const bool from_y = a_.mode == CUDNN_ACTIVATION_SIGMOID || a_.mode == CUDNN_ACTIVATION_TANH;
      args[y_].counted = from_y;
      args[x_].counted = !from_y && a_.mode != CUDNN_ACTIVATION_IDENTITY;
    } else {
      x_ = add("x", x, Io::in, -2, 2);
      y_ = add("y", tensor_arg(p, "y", &x), Io::out);
    }
    blend_outputs();
  }

  std::string str() const override {
    std::string s = std::string("act ") + (bwd_ ? "bwd" : "fwd") + " mode=" + p_.get("mode", "relu") +
                    " nan=" + (a_.propagate_nan ? "propagate" : "not_propagate") + " coef=" + fnum(a_.coef);
    if (a_.mode == CUDNN_ACTIVATION_SWISH) s += " swish_beta=" + fnum(a_.swish_beta);
    s += " alpha=" + fnum(alpha) + " beta=" + fnum(beta);
    for (const Arg& a : args) s += " " + a.role + "=" + a.spec.str();
    return s;
  }

  void prepare_io(std::vector<int>* reads, std::vector<int>* writes) const override {
    if (bwd_) *reads = {x_}, *writes = {y_};
  }
  void prepare(std::vector<ref::Tensor>& v) override {
    if (!bwd_) return;
    v[y_] = ref::Tensor(v[x_].dims);
    const int64_t n = v[x_].count();
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t i = 0; i < n; ++i) v[y_][i] = ref::activation(a_, v[x_][i]);
  }

  std::string reference(const std::vector<ref::Tensor>& in, std::vector<ref::Tensor>* out) override {
    if (bwd_) {
      ref::Tensor r = ref::activation_backward(a_, in[x_], in[dy_]);
      blend_into(r, in[dx_], alpha, beta);
      (*out)[dx_] = r;
    } else {
      ref::Tensor r = ref::activation_forward(a_, in[x_]);
      blend_into(r, in[y_], alpha, beta);
      (*out)[y_] = r;
    }
    return "";
  }

  struct B : Bound {
    const Api* api;
    cudnnHandle_t h;
    bool bwd;
    Desc<cudnnActivationDescriptor_t> act;
    Desc<cudnnTensorDescriptor_t> d[4];
    Scale a, b;
    int x, y, dy, dx;
    cudnnStatus_t run(void* const* p) override {
      if (!bwd) return api->call(api->cudnnActivationForward, h, act.d, a.ptr(), d[x].d, p[x], b.ptr(), d[y].d, p[y]);
      return api->call(api->cudnnActivationBackward, h, act.d, a.ptr(), d[y].d, p[y], d[dy].d, p[dy], d[x].d, p[x],
                       b.ptr(), d[dx].d, p[dx]);
    }
  };

  cudnnStatus_t bind(Env& env, std::unique_ptr<Bound>* out, std::string* why) override {
    auto b = std::make_unique<B>();
    const Api& api = env.api;
    b->api = &api;
    b->h = env.handle;
    b->bwd = bwd_;
    b->x = x_;
    b->y = y_;
    b->dy = bwd_ ? dy_ : 0;
    b->dx = bwd_ ? dx_ : 0;
    for (size_t i = 0; i < args.size(); ++i) BENCH_TRY(make_tensor(api, args[i].spec, &b->d[i]));
    b->act.destroy = api.cudnnDestroyActivationDescriptor;
    BENCH_TRY(api.call(api.cudnnCreateActivationDescriptor, &b->act.d));
    BENCH_TRY(api.call(api.cudnnSetActivationDescriptor, b->act.d, a_.mode,
                       a_.propagate_nan ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN, a_.coef));
    if (a_.mode == CUDNN_ACTIVATION_SWISH)
      BENCH_TRY(api.call(api.cudnnSetActivationDescriptorSwishBeta, b->act.d, a_.swish_beta));
    const cudnnDataType_t t = args[bwd_ ? dx_ : y_].spec.dtype;
    b->a = Scale(alpha, t);
    b->b = Scale(beta, t);
    *out = std::move(b);
    return CUDNN_STATUS_SUCCESS;
  }

 private:
  Problem p_;
  ref::Activation a_;
  bool bwd_ = false;
  int x_ = 0, y_ = 0, dy_ = 0, dx_ = 0;
};

std::unique_ptr<Op> make_act(const Problem& p, const Options& o) { return std::make_unique<Act>(p, o); }

}  // namespace

BENCH_REGISTER("act", make_act);

}  // namespace bench
