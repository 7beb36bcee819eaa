// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// pool fwd|bwd mode=<max|avg_incl|avg_excl|max_det> nan=<0|1> win=RxS pad=PxQ stride=UxV alpha= beta= x= y=
//   (bwd: x= dy= dx=; y is the forward's output, computed from x)
#include <algorithm>
#include <cmath>

#include "op.h"
#include "ref/pooling.h"

namespace bench {
namespace {

constexpr const char* kModes[] = {"max", "avg_incl", "avg_excl", "max_det"};

std::string join(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
  return s;
}

class Pool : public Op {
 public:
  Pool(const Problem& p, const Options& o) {
    bwd_ = p.dir == "bwd";
    if (!bwd_ && p.dir != "fwd") throw ParseError("pool: direction must be fwd or bwd");
    const std::string m = p.get("mode", "max");
    pp_.mode = -1;
    for (int i = 0; i < 4; ++i)
      if (m == kModes[i]) pp_.mode = i;
    if (pp_.mode < 0) throw ParseError("pool: unknown mode " + m);
    pp_.propagate_nan = p.flag("nan", false);
    const TensorSpec x = tensor_arg(p, "x", nullptr);
    const int ns = x.rank() - 2;
    if (ns < 2 || ns > 3) throw ParseError("pool: x must be 4-D or 5-D");
    auto vec = [&](const char* k, int def) {
      std::vector<int> v;
      if (p.has(k)) {
        for (int64_t d : parse_dims(p.get(k))) v.push_back(static_cast<int>(d));
      } else {
        v.assign(ns, def);
      }
      if (static_cast<int>(v.size()) != ns) throw ParseError(std::string("pool: ") + k + " needs one value per spatial dim");
      return v;
    };
    pp_.window = vec("win", 2);
    pp_.pad = vec("pad", 0);
    pp_.stride = vec("stride", 2);
    alpha = scale_opt(p, o, "alpha", false);
    beta = scale_opt(p, o, "beta", true);
    TensorSpec y = x;
    for (int d = 0; d < ns; ++d) y.dims[2 + d] = ref::pool_out_dim(static_cast<int>(x.dims[2 + d]), pp_.window[d], pp_.pad[d], pp_.stride[d]);
    y.repack(x.format);
    x_ = add("x", x, Io::in);
    if (bwd_) {
      y_ = add("y", tensor_arg(p, "y", &y), Io::in);
      dy_ = add("dy", tensor_arg(p, "dy", &y), Io::in);
      dx_ = add("dx", tensor_arg(p, "dx", &x), Io::out);
      // Bytes: max modes need x (to find each window's maximum) and dy; the average modes dy alone. y is passed
      // but not needed.
      args[y_].counted = false;
      args[x_].counted = pp_.mode == 0 || pp_.mode == 3;
    } else {
      y_ = add("y", tensor_arg(p, "y", &y), Io::out);
    }
    blend_outputs();
  }

  std::string str() const override {
    std::string s = std::string("pool ") + (bwd_ ? "bwd" : "fwd") + " mode=" + kModes[pp_.mode] +
                    " nan=" + (pp_.propagate_nan ? "1" : "0") + " win=" + join(pp_.window) + " pad=" + join(pp_.pad) +
                    " stride=" + join(pp_.stride) + " alpha=" + fnum(alpha) + " beta=" + fnum(beta);
    for (const Arg& a : args)
      if (!(bwd_ && a.role == "y")) s += " " + a.role + "=" + a.spec.str();
    return s;
  }

  std::vector<int> out_spatial() const {
    std::vector<int> o;
    for (int d = 2; d < args[y_].spec.rank(); ++d) o.push_back(static_cast<int>(args[y_].spec.dims[d]));
    return o;
  }

  void prepare_io(std::vector<int>* reads, std::vector<int>* writes) const override {
    if (bwd_) *reads = {x_}, *writes = {y_};
  }
  // y: the forward's output for x (max modes: the backward finds each window's maximum by it).
  void prepare(std::vector<ref::Tensor>& v) override {
    if (!bwd_) return;
    const ref::Tensor& x = v[x_];
    bool finite = true;
    for (int64_t i = 0; i < x.count() && finite; ++i) finite = std::isfinite(x[i]);
    v[y_] = finite ? forward_finite(x) : ref::pooling_forward(pp_, x, out_spatial());
  }

  // The forward pooling of finite data (ref::pooling_forward's definition without the NaN rules), one thread per
  // block of planes: the prepare step of real-size problems.
  ref::Tensor forward_finite(const ref::Tensor& x) const {
    const std::vector<int> os = out_spatial();
    const int ns = static_cast<int>(os.size());
    int in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, win[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, str[3] = {1, 1, 1};
    for (int d = 0; d < ns; ++d) {
      const int k = 3 - ns + d;
      in[k] = x.dims[2 + d];
      out[k] = os[d];
      win[k] = pp_.window[d];
      pad[k] = pp_.pad[d];
      str[k] = pp_.stride[d];
    }
    std::vector<int> ydims = {x.dims[0], x.dims[1]};
    ydims.insert(ydims.end(), os.begin(), os.end());
    ref::Tensor y(ydims);
    const int64_t planes = int64_t{x.dims[0]} * x.dims[1], ip = int64_t{in[0]} * in[1] * in[2],
                  op = int64_t{out[0]} * out[1] * out[2];
    const bool is_max = pp_.mode == 0 || pp_.mode == 3, incl = pp_.mode == 1;
#pragma omp parallel for schedule(static) if (planes * op > 65536)
    for (int64_t pl = 0; pl < planes; ++pl) {
      const double* xp = x.v.data() + pl * ip;
      double* yp = y.v.data() + pl * op;
      for (int o0 = 0; o0 < out[0]; ++o0)
        for (int o1 = 0; o1 < out[1]; ++o1)
          for (int o2 = 0; o2 < out[2]; ++o2) {
            const int b0 = o0 * str[0] - pad[0], b1 = o1 * str[1] - pad[1], b2 = o2 * str[2] - pad[2];
            double best = -HUGE_VAL, sum = 0;
            int64_t read = 0, inside = 0;
            for (int i0 = b0; i0 < b0 + win[0]; ++i0)
              for (int i1 = b1; i1 < b1 + win[1]; ++i1)
                for (int i2 = b2; i2 < b2 + win[2]; ++i2) {
                  // Positions in [-pad, in + pad) count for avg_incl's divisor.
                  if (i0 < in[0] + pad[0] && i1 < in[1] + pad[1] && i2 < in[2] + pad[2]) ++inside;
                  if (i0 < 0 || i1 < 0 || i2 < 0 || i0 >= in[0] || i1 >= in[1] || i2 >= in[2]) continue;
                  const double e = xp[(int64_t{i0} * in[1] + i1) * in[2] + i2];
                  best = std::max(best, e);
                  sum += e;
                  ++read;
                }
            const int64_t div = incl ? inside : read;
            yp[(int64_t{o0} * out[1] + o1) * out[2] + o2] =
                is_max ? (read ? best : 0.0) : (div > 0 ? sum / static_cast<double>(div) : 0.0);
          }
    }
    return y;
  }

  std::string reference(const std::vector<ref::Tensor>& in, std::vector<ref::Tensor>* out) override {
    if (bwd_) {
      ref::Tensor r = ref::pooling_backward(pp_, in[x_], in[dy_]);
      blend_into(r, in[dx_], alpha, beta);
      (*out)[dx_] = r;
    } else {
      ref::Tensor r = ref::pooling_forward(pp_, in[x_], out_spatial());
      blend_into(r, in[y_], alpha, beta);
      (*out)[y_] = r;
    }
    return "";
  }

  struct B : Bound {
    const Api* api;
    cudnnHandle_t h;
    bool bwd;
    Desc<cudnnPoolingDescriptor_t> pd;
    Desc<cudnnTensorDescriptor_t> d[4];
    Scale a, b;
    int x, y, dy, dx;
    cudnnStatus_t run(void* const* p) override {
      if (!bwd) return api->call(api->cudnnPoolingForward, h, pd.d, a.ptr(), d[x].d, p[x], b.ptr(), d[y].d, p[y]);
      return api->call(api->cudnnPoolingBackward, h, pd.d, a.ptr(), d[y].d, p[y], d[dy].d, p[dy], d[x].d, p[x], b.ptr(),
                       d[dx].d, p[dx]);
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
    b->dy = dy_;
    b->dx = dx_;
    for (size_t i = 0; i < args.size(); ++i) BENCH_TRY(make_tensor(api, args[i].spec, &b->d[i]));
    b->pd.destroy = api.cudnnDestroyPoolingDescriptor;
    BENCH_TRY(api.call(api.cudnnCreatePoolingDescriptor, &b->pd.d));
    BENCH_TRY(api.call(api.cudnnSetPoolingNdDescriptor, b->pd.d, static_cast<cudnnPoolingMode_t>(pp_.mode),
                       pp_.propagate_nan ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                       static_cast<int>(pp_.window.size()), pp_.window.data(), pp_.pad.data(), pp_.stride.data()));
    const cudnnDataType_t t = args[x_].spec.dtype;
    b->a = Scale(alpha, t);
    b->b = Scale(beta, t);
    *out = std::move(b);
    return CUDNN_STATUS_SUCCESS;
  }

 private:
  ref::PoolParams pp_;
  bool bwd_ = false;
  int x_ = 0, y_ = 0, dy_ = 0, dx_ = 0;
};

std::unique_ptr<Op> make_pool(const Problem& p, const Options& o) { return std::make_unique<Pool>(p, o); }

}  // namespace

BENCH_REGISTER("pool", make_pool);

}  // namespace bench
