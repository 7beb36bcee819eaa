// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// softmax fwd|bwd algo=<fast|accurate|log> mode=<instance|channel> alpha= beta= x= y= (bwd: y= dy= dx=)
#include <cmath>

#include "op.h"
#include "ref/softmax.h"

namespace bench {
namespace {

constexpr const char* kAlgos[] = {"fast", "accurate", "log"};
constexpr const char* kModes[] = {"instance", "channel"};

class Softmax : public Op {
 public:
  Softmax(const Problem& p, const Options& o) {
    bwd_ = p.dir == "bwd";
    if (!bwd_ && p.dir != "fwd") throw ParseError("softmax: direction must be fwd or bwd");
    algo_ = pick(kAlgos, 3, p.get("algo", "accurate"), "algo");
    mode_ = pick(kModes, 2, p.get("mode", "channel"), "mode");
    alpha = scale_opt(p, o, "alpha", false);
    beta = scale_opt(p, o, "beta", true);
    const TensorSpec* first = nullptr;
    TensorSpec f;
    for (const char* r : {"x", "y", "dy", "dx"})
      if (p.has(r) && !first) {
        f = parse_tensor(p.get(r));
        first = &f;
      }
    if (!first) throw ParseError("softmax needs a tensor x= (or y=)");
    if (bwd_) {
      y_ = add("y", tensor_arg(p, "y", first), Io::in);
      dy_ = add("dy", tensor_arg(p, "dy", first), Io::in);
      dx_ = add("dx", tensor_arg(p, "dx", first), Io::out);
    } else {
      x_ = add("x", tensor_arg(p, "x", first), Io::in, -3, 3);
      y_ = add("y", tensor_arg(p, "y", first), Io::out);
    }
    blend_outputs();
  }

  static int pick(const char* const* names, int n, const std::string& v, const char* what) {
    for (int i = 0; i < n; ++i)
      if (v == names[i]) return i;
    throw ParseError(std::string("softmax: unknown ") + what + " " + v);
  }

  std::string str() const override {
    std::string s = std::string("softmax ") + (bwd_ ? "bwd" : "fwd") + " algo=" + kAlgos[algo_] + " mode=" +
                    kModes[mode_] + " alpha=" + fnum(alpha) + " beta=" + fnum(beta);
    for (const Arg& a : args) s += " " + a.role + "=" + a.spec.str();
    return s;
  }

  void prepare_io(std::vector<int>* reads, std::vector<int>* writes) const override {
    if (bwd_) *reads = {y_}, *writes = {y_};
  }
  void prepare(std::vector<ref::Tensor>& v) override {
    if (!bwd_) return;
    // y: a real softmax output (of random logits), so the backward sees consistent data.
    ref::Tensor logits = v[y_];
    for (int64_t i = 0; i < logits.count(); ++i) logits[i] *= 3;
    v[y_] = ref::softmax_forward(static_cast<cudnnSoftmaxAlgorithm_t>(algo_),
                                 static_cast<cudnnSoftmaxMode_t>(mode_), logits);
  }

  std::string reference(const std::vector<ref::Tensor>& in, std::vector<ref::Tensor>* out) override {
    const auto a = static_cast<cudnnSoftmaxAlgorithm_t>(algo_);
    const auto m = static_cast<cudnnSoftmaxMode_t>(mode_);
    const int o = bwd_ ? dx_ : y_;
    ref::Tensor r = bwd_ ? ref::softmax_backward(a, m, in[y_], in[dy_]) : ref::softmax_forward(a, m, in[x_]);
    blend_into(r, in[o], alpha, beta);
    (*out)[o] = r;
    return "";
  }

  struct B : Bound {
    const Api* api;
    cudnnHandle_t h;
    bool bwd;
    cudnnSoftmaxAlgorithm_t algo;
    cudnnSoftmaxMode_t mode;
    Desc<cudnnTensorDescriptor_t> d[3];
    Scale a, b;
    int x, y, dy, dx;
    cudnnStatus_t run(void* const* p) override {
      if (!bwd) return api->call(api->cudnnSoftmaxForward, h, algo, mode, a.ptr(), d[x].d, p[x], b.ptr(), d[y].d, p[y]);
      return api->call(api->cudnnSoftmaxBackward, h, algo, mode, a.ptr(), d[y].d, p[y], d[dy].d, p[dy], b.ptr(), d[dx].d,
                       p[dx]);
    }
  };

  cudnnStatus_t bind(Env& env, std::unique_ptr<Bound>* out, std::string* why) override {
    auto b = std::make_unique<B>();
    const Api& api = env.api;
    b->api = &api;
    b->h = env.handle;
    b->bwd = bwd_;
    b->algo = static_cast<cudnnSoftmaxAlgorithm_t>(algo_);
    b->mode = static_cast<cudnnSoftmaxMode_t>(mode_);
    b->x = x_;
    b->y = y_;
    b->dy = dy_;
    b->dx = dx_;
    for (size_t i = 0; i < args.size(); ++i) BENCH_TRY(make_tensor(api, args[i].spec, &b->d[i]));
    const cudnnDataType_t t = args[0].spec.dtype;
    b->a = Scale(alpha, t);
    b->b = Scale(beta, t);
    *out = std::move(b);
    return CUDNN_STATUS_SUCCESS;
  }

 private:
  bool bwd_ = false;
  int algo_ = 1, mode_ = 1;
  int x_ = 0, y_ = 0, dy_ = 0, dx_ = 0;
};

std::unique_ptr<Op> make_softmax(const Problem& p, const Options& o) { return std::make_unique<Softmax>(p, o); }

}  // namespace

BENCH_REGISTER("softmax", make_softmax);

}  // namespace bench
