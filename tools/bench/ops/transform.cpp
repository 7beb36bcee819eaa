// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// transform fwd alpha= beta= x= y=                     (cudnnTransformTensor)
// transform ex|filter fmt=<nchw|nhwc|nchw_vect_c> pad_before=.. pad_after=.. fold=..|- dir=<fold|unfold>
//   alpha= beta= x= y=                                  (cudnnTransformTensorEx, cudnnTransformFilter)
#include "op.h"
#include "ref/tensor_ops.h"

namespace bench {
namespace {

std::vector<int> ints(const std::string& s, size_t n) {
  std::vector<int> v;
  if (s.empty() || s == "-") return std::vector<int>(n, s == "-" ? 1 : 0);
  for (int64_t d : parse_dims(s)) v.push_back(static_cast<int>(d));
  return v;
}

class Transform : public Op {
 public:
  Transform(const Problem& p, const Options& o) : kind_(p.dir) {
    if (kind_ != "fwd" && kind_ != "ex" && kind_ != "filter") throw ParseError("transform: fwd, ex or filter");
    alpha = scale_opt(p, o, "alpha", false);
    beta = scale_opt(p, o, "beta", true);
    TensorSpec x = tensor_arg(p, "x", nullptr);
    const size_t n = x.dims.size();
    if (kind_ != "fwd") {
      fmt_ = p.get("fmt", "nchw");
      pb_ = ints(p.get("pad_before", ""), n);
      pa_ = ints(p.get("pad_after", ""), n);
      fold_ = ints(p.get("fold", "-"), n > 2 ? n - 2 : 0);
      if (fold_.empty() && n > 2) fold_.assign(n - 2, 1);
      unfold_ = p.get("dir", "fold") == "unfold";
      if (pb_.size() != n || pa_.size() != n) throw ParseError("transform: pad_before/pad_after need one value per dim");
    }
    if (kind_ == "filter") x.filter = true;
    TensorSpec y = x;
    if (!p.has("y") && kind_ != "fwd") {
      for (size_t d = 0; d < n; ++d) y.dims[d] += pb_[d] + pa_[d];
      y.repack(fmt_ == "nhwc" ? "nhwc" : "nchw");
    } else if (!p.has("y")) {
      y.repack(x.format == "nhwc" ? "nchw" : "nhwc");  // the usual use: a layout change
    }
    x_ = add("x", x, Io::in);
    TensorSpec ys = tensor_arg(p, "y", &y);
    if (kind_ == "filter") ys.filter = true;
    y_ = add("y", ys, Io::out);
    blend_outputs();
  }

  std::string str() const override {
    std::string s = "transform " + kind_;
    if (kind_ != "fwd") {
      auto j = [](const std::vector<int>& v) {
        std::string r;
        for (size_t i = 0; i < v.size(); ++i) r += (i ? "x" : "") + std::to_string(v[i]);
        return r.empty() ? std::string("-") : r;
      };
      s += " fmt=" + fmt_ + " pad_before=" + j(pb_) + " pad_after=" + j(pa_) + " fold=" + j(fold_) +
           " dir=" + (unfold_ ? "unfold" : "fold");
    }
    s += " alpha=" + fnum(alpha) + " beta=" + fnum(beta) + " x=" + args[x_].spec.str() + " y=" + args[y_].spec.str();
    return s;
  }

  std::string reference(const std::vector<ref::Tensor>& in, std::vector<ref::Tensor>* out) override {
    ref::Tensor r = kind_ == "fwd" ? in[x_] : ref::fold_transform(in[x_], pb_, pa_, fold_, unfold_);
    if (r.dims != in[y_].dims) return "the transform's result does not have y's dims";
    blend_into(r, in[y_], alpha, beta);
    (*out)[y_] = r;
    return "";
  }

  struct B : Bound {
    const Api* api;
    cudnnHandle_t h;
    std::string kind;
    Desc<cudnnTensorTransformDescriptor_t> td;
    Desc<cudnnTensorDescriptor_t> d[2];
    Desc<cudnnFilterDescriptor_t> f[2];
    Scale a, b;
    cudnnStatus_t run(void* const* p) override {
      if (kind == "fwd") return api->call(api->cudnnTransformTensor, h, a.ptr(), d[0].d, p[0], b.ptr(), d[1].d, p[1]);
      if (kind == "ex")
        return api->call(api->cudnnTransformTensorEx, h, td.d, a.ptr(), d[0].d, p[0], b.ptr(), d[1].d, p[1]);
      return api->call(api->cudnnTransformFilter, h, td.d, a.ptr(), f[0].d, p[0], b.ptr(), f[1].d, p[1]);
    }
  };

  cudnnStatus_t bind(Env& env, std::unique_ptr<Bound>* out, std::string* why) override {
    auto b = std::make_unique<B>();
    const Api& api = env.api;
    b->api = &api;
    b->h = env.handle;
    b->kind = kind_;
    for (int i = 0; i < 2; ++i) {
      if (kind_ == "filter") BENCH_TRY(make_filter(api, args[i].spec, &b->f[i]));
      else BENCH_TRY(make_tensor(api, args[i].spec, &b->d[i]));
    }
    if (kind_ != "fwd") {
      b->td.destroy = api.cudnnDestroyTensorTransformDescriptor;
      BENCH_TRY(api.call(api.cudnnCreateTensorTransformDescriptor, &b->td.d));
      std::vector<uint32_t> fold(fold_.begin(), fold_.end());
      const cudnnTensorFormat_t f = fmt_ == "nhwc" ? CUDNN_TENSOR_NHWC
                                    : fmt_ == "nchw_vect_c" ? CUDNN_TENSOR_NCHW_VECT_C : CUDNN_TENSOR_NCHW;
      BENCH_TRY(api.call(api.cudnnSetTensorTransformDescriptor, b->td.d, static_cast<uint32_t>(pb_.size()), f,
                         pb_.data(), pa_.data(), fold.data(), unfold_ ? CUDNN_TRANSFORM_UNFOLD : CUDNN_TRANSFORM_FOLD));
    }
    b->a = Scale(alpha, args[y_].spec.dtype);
    b->b = Scale(beta, args[y_].spec.dtype);
    *out = std::move(b);
    return CUDNN_STATUS_SUCCESS;
  }

 private:
  std::string kind_, fmt_ = "nchw";
  std::vector<int> pb_, pa_, fold_;
  bool unfold_ = false;
  int x_ = 0, y_ = 1;
};

std::unique_ptr<Op> make(const Problem& p, const Options& o) { return std::make_unique<Transform>(p, o); }

}  // namespace

BENCH_REGISTER("transform", make);

}  // namespace bench
