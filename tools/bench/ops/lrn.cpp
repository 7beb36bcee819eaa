// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// lrn fwd|bwd n= lrn_alpha= lrn_beta= lrn_k= alpha= beta= x= y= (bwd: y= dy= x= dx=)
// divnorm fwd|bwd n= lrn_alpha= lrn_beta= lrn_k= alpha= beta= means=<0|1> [dmeans=<0|1>] x= y= (bwd: x= dx=)
#include "op.h"
#include "ref/lrn.h"

namespace bench {
namespace {

class Lrn : public Op {
 public:
  Lrn(const Problem& p, const Options& o) {
    div_ = p.family == "divnorm";
    bwd_ = p.dir == "bwd";
    if (!bwd_ && p.dir != "fwd") throw ParseError(p.family + ": direction must be fwd or bwd");
    lp_.n = static_cast<int>(p.integer("n", 5));
    lp_.alpha = p.num("lrn_alpha", 1e-4);
    lp_.beta = p.num("lrn_beta", 0.75);
    lp_.k = p.num("lrn_k", 2.0);
    alpha = scale_opt(p, o, "alpha", false);
    beta = scale_opt(p, o, "beta", true);
    means_ = p.flag("means", false);
    dmeans_ = p.flag("dmeans", false);
    const TensorSpec x = tensor_arg(p, "x", nullptr);
    x_ = add("x", x, Io::in);
    if (!div_) {
      if (bwd_) {
        y_ = add("y", tensor_arg(p, "y", &x), Io::in);
        dy_ = add("dy", tensor_arg(p, "dy", &x), Io::in);
        dx_ = add("dx", tensor_arg(p, "dx", &x), Io::out);
      } else {
        y_ = add("y", tensor_arg(p, "y", &x), Io::out);
      }
    } else {
      if (means_) m_ = add("means", x, Io::in, -0.5, 0.5);
      if (bwd_) {
        dy_ = add("dy", x, Io::in);
        dx_ = add("dx", tensor_arg(p, "dx", &x), Io::out);
        if (dmeans_) dm_ = add("dmeans", args[dx_].spec, Io::out);
      } else {
        y_ = add("y", tensor_arg(p, "y", &x), Io::out);
      }
    }
    blend_outputs();
    // Passes of freednn's kernels: LRN forward one; LRN backward reads x and dy twice (y is recomputed from x, not
    // read) and writes then reads two scratch tensors in the compute type; divisive normalization: several passes
    // over scratch buffers, not modelled.
    if (div_) {
      pass_model_ = false;
    } else if (bwd_) {
      args[x_].reads = 2;
      args[dy_].reads = 2;
      args[y_].reads = 0;
      const double cs = x.dtype == CUDNN_DATA_DOUBLE ? 8 : 4;
      moved_extra_ = 4 * cs * static_cast<double>(x.count());
    }
  }

  std::string str() const override {
    std::string s = p_family() + (bwd_ ? " bwd" : " fwd") + " n=" + std::to_string(lp_.n) + " lrn_alpha=" +
                    fnum(lp_.alpha) + " lrn_beta=" + fnum(lp_.beta) + " lrn_k=" + fnum(lp_.k) + " alpha=" +
                    fnum(alpha) + " beta=" + fnum(beta);
    if (div_) s += std::string(" means=") + (means_ ? "1" : "0");
    if (div_ && bwd_) s += std::string(" dmeans=") + (dmeans_ ? "1" : "0");
    for (const Arg& a : args)
      if (!div_ || a.role == "x" || a.role == "y" || a.role == "dx") s += " " + a.role + "=" + a.spec.str();
    return s;
  }
  std::string p_family() const { return div_ ? "divnorm" : "lrn"; }

  void prepare_io(std::vector<int>* reads, std::vector<int>* writes) const override {
    if (!div_ && bwd_) *reads = {x_}, *writes = {y_};
  }
  void prepare(std::vector<ref::Tensor>& v) override {
    if (!div_ && bwd_) v[y_] = ref::lrn_forward(lp_, v[x_]);
  }

  std::string reference(const std::vector<ref::Tensor>& in, std::vector<ref::Tensor>* out) override {
    const ref::Tensor means = m_ >= 0 ? in[m_] : ref::Tensor(in[x_].dims, 0.0);
    if (!bwd_) {
      ref::Tensor r = div_ ? ref::divnorm_forward(lp_, in[x_], means) : ref::lrn_forward(lp_, in[x_]);
      blend_into(r, in[y_], alpha, beta);
      (*out)[y_] = r;
      return "";
    }
    ref::Tensor r = div_ ? ref::divnorm_backward(lp_, in[x_], means, in[dy_]) : ref::lrn_backward(lp_, in[x_], in[dy_]);
    if (dm_ >= 0) {  // d/dmeans of y(x - means) is minus d/dx
      ref::Tensor dm = r;
      for (int64_t i = 0; i < dm.count(); ++i) dm[i] = -dm[i];
      blend_into(dm, in[dm_], alpha, beta);
      (*out)[dm_] = dm;
    }
    blend_into(r, in[dx_], alpha, beta);
    (*out)[dx_] = r;
    return "";
  }

  double tol_scale() const override { return 4; }

  struct B : Bound {
    const Api* api;
    cudnnHandle_t h;
    bool div, bwd;
    Desc<cudnnLRNDescriptor_t> ld;
    Desc<cudnnTensorDescriptor_t> d[6];
    Scale a, b;
    int x, y, dy, dx, m, dm;
    void *temp = nullptr, *temp2 = nullptr;
    cudnnStatus_t run(void* const* p) override {
      void* mp = m >= 0 ? p[m] : nullptr;
      if (!div && !bwd)
        return api->call(api->cudnnLRNCrossChannelForward, h, ld.d, CUDNN_LRN_CROSS_CHANNEL_DIM1, a.ptr(), d[x].d, p[x],
                         b.ptr(), d[y].d, p[y]);
      if (!div)
        return api->call(api->cudnnLRNCrossChannelBackward, h, ld.d, CUDNN_LRN_CROSS_CHANNEL_DIM1, a.ptr(), d[y].d,
                         p[y], d[dy].d, p[dy], d[x].d, p[x], b.ptr(), d[dx].d, p[dx]);
      if (!bwd)
        return api->call(api->cudnnDivisiveNormalizationForward, h, ld.d, CUDNN_DIVNORM_PRECOMPUTED_MEANS, a.ptr(),
                         d[x].d, p[x], mp, temp, temp2, b.ptr(), d[y].d, p[y]);
      return api->call(api->cudnnDivisiveNormalizationBackward, h, ld.d, CUDNN_DIVNORM_PRECOMPUTED_MEANS, a.ptr(),
                       d[x].d, p[x], mp, p[dy], temp, temp2, b.ptr(), d[dx].d, p[dx], dm >= 0 ? p[dm] : nullptr);
    }
  };

  cudnnStatus_t bind(Env& env, std::unique_ptr<Bound>* out, std::string* why) override {
    auto b = std::make_unique<B>();
    const Api& api = env.api;
    b->api = &api;
    b->h = env.handle;
    b->div = div_;
    b->bwd = bwd_;
    b->x = x_;
    b->y = y_;
    b->dy = dy_;
    b->dx = dx_;
    b->m = m_;
    b->dm = dm_;
    for (size_t i = 0; i < args.size(); ++i) BENCH_TRY(make_tensor(api, args[i].spec, &b->d[i]));
    b->ld.destroy = api.cudnnDestroyLRNDescriptor;
    BENCH_TRY(api.call(api.cudnnCreateLRNDescriptor, &b->ld.d));
    BENCH_TRY(api.call(api.cudnnSetLRNDescriptor, b->ld.d, static_cast<unsigned>(lp_.n), lp_.alpha, lp_.beta, lp_.k));
    if (div_) {
      const size_t n = static_cast<size_t>(args[x_].spec.span()) * 8;
      b->temp = env.alloc(n);
      b->temp2 = env.alloc(n);
    }
    const cudnnDataType_t t = args[x_].spec.dtype;
    b->a = Scale(alpha, t);
    b->b = Scale(beta, t);
    *out = std::move(b);
    return CUDNN_STATUS_SUCCESS;
  }

 private:
  ref::Lrn lp_;
  bool div_ = false, bwd_ = false, means_ = false, dmeans_ = false;
  int x_ = 0, y_ = 0, dy_ = 0, dx_ = 0, m_ = -1, dm_ = -1;
};

std::unique_ptr<Op> make_lrn(const Problem& p, const Options& o) { return std::make_unique<Lrn>(p, o); }

}  // namespace

BENCH_REGISTER("lrn", make_lrn);
BENCH_REGISTER("divnorm", make_lrn);

}  // namespace bench
