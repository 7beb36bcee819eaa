// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// dropout fwd p= seed= [counter=] x= y=;  dropout bwd p= dy= dx= (the mask: one forward on scratch data in bind)
// The mask is the library's own random stream, so the check is structural: every output is 0 or in / (1 - p).
#include <cmath>

#include "dtype.h"
#include "op.h"

namespace bench {
namespace {

class Dropout : public Op {
 public:
  Dropout(const Problem& p, const Options&) {
    bwd_ = p.dir == "bwd";
    if (!bwd_ && p.dir != "fwd") throw ParseError("dropout: direction must be fwd or bwd");
    p_ = p.num("p", 0.5);
    seed_ = static_cast<unsigned long long>(p.integer("seed", 1));
    const TensorSpec in = tensor_arg(p, bwd_ ? "dy" : "x", nullptr);
    add(bwd_ ? "dy" : "x", in, Io::in, 0.5, 1.5);
    add(bwd_ ? "dx" : "y", tensor_arg(p, bwd_ ? "dx" : "y", &in), Io::out);
  }

  std::string str() const override {
    std::string s = std::string("dropout ") + (bwd_ ? "bwd" : "fwd") + " p=" + fnum(p_);
    if (!bwd_) s += " seed=" + std::to_string(seed_);
    return s + " " + args[0].role + "=" + args[0].spec.str() + " " + args[1].role + "=" + args[1].spec.str();
  }

  std::string reference(const std::vector<ref::Tensor>&, std::vector<ref::Tensor>*) override { return "custom"; }
  bool has_check() const override { return true; }
  std::string check(const std::vector<ref::Tensor>& in, const std::vector<ref::Tensor>& got, double* err) override {
    const double scale = p_ < 1 ? 1 / (1 - p_) : 0, tol = tolerance(args[1].spec.dtype) * 2;
    int64_t dropped = 0;
    *err = 0;
    for (int64_t i = 0; i < in[0].count(); ++i) {
      const double g = got[1][i], kept = in[0][i] * scale;
      if (g == 0) {
        ++dropped;
        continue;
      }
      const double e = std::fabs(g - kept) / std::fabs(kept);
      *err = std::max(*err, std::isnan(e) ? 1e30 : e);
    }
    if (*err > tol) return "an output is neither 0 nor in / (1 - p)";
    const double n = static_cast<double>(in[0].count()), frac = n ? dropped / n : 0;
    // A loose bound on the dropped fraction (5 standard deviations, and at least 0.05).
    const double sd = n ? std::sqrt(p_ * (1 - p_) / n) : 0;
    if (n >= 100 && std::fabs(frac - p_) > std::max(5 * sd, 0.05))
      return "dropped fraction " + fnum(frac) + " is far from p";
    return "";
  }

  struct B : Bound {
    const Api* api;
    cudnnHandle_t h;
    bool bwd;
    Desc<cudnnDropoutDescriptor_t> dd;
    Desc<cudnnTensorDescriptor_t> d[2];
    void* reserve = nullptr;
    size_t reserve_bytes = 0;
    cudnnStatus_t run(void* const* p) override {
      if (!bwd) return api->call(api->cudnnDropoutForward, h, dd.d, d[0].d, p[0], d[1].d, p[1], reserve, reserve_bytes);
      return api->call(api->cudnnDropoutBackward, h, dd.d, d[0].d, p[0], d[1].d, p[1], reserve, reserve_bytes);
    }
  };

  cudnnStatus_t bind(Env& env, std::unique_ptr<Bound>* out, std::string* why) override {
    auto b = std::make_unique<B>();
    const Api& api = env.api;
    b->api = &api;
    b->h = env.handle;
    b->bwd = bwd_;
    for (int i = 0; i < 2; ++i) BENCH_TRY(make_tensor(api, args[i].spec, &b->d[i]));
    size_t states = 0;
    BENCH_TRY(api.call(api.cudnnDropoutGetStatesSize, env.handle, &states));
    void* st = env.alloc(states);
    b->dd.destroy = api.cudnnDestroyDropoutDescriptor;
    BENCH_TRY(api.call(api.cudnnCreateDropoutDescriptor, &b->dd.d));
    BENCH_TRY(api.call(api.cudnnSetDropoutDescriptor, b->dd.d, env.handle, static_cast<float>(p_), st, states, seed_));
    BENCH_TRY(api.call(api.cudnnDropoutGetReserveSpaceSize, b->d[0].d, &b->reserve_bytes));
    b->reserve = env.alloc(b->reserve_bytes);
    if (bwd_) {  // a forward on scratch data fills the reserve space with a mask
      const size_t n = static_cast<size_t>(args[0].spec.span()) * dtype_size(args[0].spec.dtype);
      void* sx = env.alloc(n);
      void* sy = env.alloc(n);
      BENCH_TRY(api.call(api.cudnnDropoutForward, env.handle, b->dd.d, b->d[0].d, sx, b->d[1].d, sy, b->reserve,
                         b->reserve_bytes));
    }
    *out = std::move(b);
    return CUDNN_STATUS_SUCCESS;
  }

 private:
  bool bwd_ = false;
  double p_ = 0.5;
  unsigned long long seed_ = 1;
};

std::unique_ptr<Op> make(const Problem& p, const Options& o) { return std::make_unique<Dropout>(p, o); }

}  // namespace

BENCH_REGISTER("dropout", make);

}  // namespace bench
