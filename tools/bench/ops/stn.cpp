// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Spatial transformer (2-D, bilinear), as FREEDNN_LOG_CMD prints it:
//   stn grid_fwd st=<dt>:NxCxHxW                       theta (N,2,3) -> grid (N,H,W,2)
//   stn grid_bwd st=<dt>:NxCxHxW                       dgrid (N,H,W,2) -> dtheta (N,2,3)
//   stn sampler_fwd st= alpha= beta= x= y=             x, grid -> y (N,C,H,W)
//   stn sampler_bwd st= alpha= beta= alpha_dgrid= beta_dgrid= x= dx= dy=   x, grid, dy -> dx, dgrid
// st= is the transformer descriptor (its data type and the output dims N,C,H,W); x defaults to st's shape, y / dy /
// dx to the output / x shapes. theta and the grid are packed, as cuDNN wants them.
#include "dtype.h"
#include "op.h"
#include "ref/spatial_transformer.h"

namespace bench {
namespace {

enum Kind { GRID_FWD, GRID_BWD, SAMPLER_FWD, SAMPLER_BWD };
constexpr const char* kKinds[] = {"grid_fwd", "grid_bwd", "sampler_fwd", "sampler_bwd"};

TensorSpec packed(cudnnDataType_t t, std::vector<int64_t> dims) {
  TensorSpec s;
  s.dtype = t;
  s.dims = std::move(dims);
  s.repack("nchw");
  return s;
}

class Stn : public Op {
 public:
  Stn(const Problem& p, const Options& o) {
    kind_ = -1;
    for (int i = 0; i < 4; ++i)
      if (p.dir == kKinds[i]) kind_ = i;
    if (kind_ < 0) throw ParseError("stn: direction must be grid_fwd, grid_bwd, sampler_fwd or sampler_bwd");
    st_ = tensor_arg(p, "st", nullptr);
    if (st_.rank() != 4) throw ParseError("stn: st= must be 4-D (N,C,H,W of the output); 2-D transformers only");
    const cudnnDataType_t t = st_.dtype;
    const int64_t n = st_.dims[0], c = st_.dims[1], h = st_.dims[2], w = st_.dims[3];
    const TensorSpec theta = packed(t, {n, 2, 3}), grid = packed(t, {n, h, w, 2});
    alpha = scale_opt(p, o, "alpha", false);
    beta = scale_opt(p, o, "beta", true);
    alpha_dgrid_ = p.num("alpha_dgrid", 1);
    beta_dgrid_ = p.num("beta_dgrid", 0);
    switch (kind_) {
      case GRID_FWD:
        theta_ = add("theta", theta, Io::in);
        grid_ = add("grid", grid, Io::out);
        break;
      case GRID_BWD:
        grid_ = add("dgrid", grid, Io::in);
        theta_ = add("dtheta", theta, Io::out);
        break;
      case SAMPLER_FWD: {
        const TensorSpec x = tensor_arg(p, "x", &st_);
        x_ = add("x", x, Io::in);
        grid_ = add("grid", grid, Io::in, -1.1, 1.1);  // a little outside [-1, 1]: the zero-padded border too
        y_ = add("y", tensor_arg(p, "y", &st_), Io::out);
        blend_outputs();
        break;
      }
      case SAMPLER_BWD: {
        const TensorSpec x = tensor_arg(p, "x", &st_);
        x_ = add("x", x, Io::in);
        grid_ = add("grid", grid, Io::in, -1.1, 1.1);
        y_ = add("dy", tensor_arg(p, "dy", &st_), Io::in);
        dx_ = add("dx", tensor_arg(p, "dx", &x), beta != 0 ? Io::inout : Io::out);
        dgrid_ = add("dgrid", grid, beta_dgrid_ != 0 ? Io::inout : Io::out);
        // freednn: dx accumulates in a float scratch (zeroed, scattered into, read back by the blend), the dgrid pass
        // reads x, grid and dy again.
        args[grid_].reads = 2;
        args[y_].reads = 2;
        moved_extra_ = 3.0 * (t == CUDNN_DATA_DOUBLE ? 8 : 4) * static_cast<double>(x.count());
        break;
      }
    }
    if (x_ >= 0) {
      const TensorSpec& x = args[x_].spec;
      if (x.rank() != 4 || x.dims[0] != n || x.dims[1] != c) throw ParseError("stn: x must be N x C x H_in x W_in");
    }
    const int out = kind_ == SAMPLER_FWD || kind_ == SAMPLER_BWD ? y_ : -1;
    if (out >= 0 && args[out].spec.dims != st_.dims) throw ParseError("stn: y / dy must have st's dims");
  }

  std::string str() const override {
    std::string s = std::string("stn ") + kKinds[kind_] + " st=" + dtype_name(st_.dtype) + ":";
    for (int i = 0; i < st_.rank(); ++i) s += (i ? "x" : "") + std::to_string(st_.dims[i]);
    if (kind_ == SAMPLER_FWD || kind_ == SAMPLER_BWD) s += " alpha=" + fnum(alpha) + " beta=" + fnum(beta);
    if (kind_ == SAMPLER_BWD) s += " alpha_dgrid=" + fnum(alpha_dgrid_) + " beta_dgrid=" + fnum(beta_dgrid_);
    if (x_ >= 0) s += " x=" + args[x_].spec.str();
    if (dx_ >= 0) s += " dx=" + args[dx_].spec.str();
    if (kind_ == SAMPLER_FWD) s += " y=" + args[y_].spec.str();
    if (kind_ == SAMPLER_BWD) s += " dy=" + args[y_].spec.str();
    return s;
  }

  double tol_scale() const override { return 4; }

  std::string reference(const std::vector<ref::Tensor>& in, std::vector<ref::Tensor>* out) override {
    const int h = static_cast<int>(st_.dims[2]), w = static_cast<int>(st_.dims[3]);
    switch (kind_) {
      case GRID_FWD: (*out)[grid_] = ref::st_grid_forward(in[theta_], h, w); break;
      case GRID_BWD: (*out)[theta_] = ref::st_grid_backward(in[grid_]); break;
      case SAMPLER_FWD: {
        ref::Tensor r = ref::st_sampler_forward(in[x_], in[grid_]);
        blend_into(r, in[y_], alpha, beta);
        (*out)[y_] = r;
        break;
      }
      case SAMPLER_BWD: {
        ref::Tensor dx, dg;
        ref::st_sampler_backward(in[x_], in[grid_], in[y_], &dx, &dg);
        blend_into(dx, in[dx_], alpha, beta);
        blend_into(dg, in[dgrid_], alpha_dgrid_, beta_dgrid_);
        (*out)[dx_] = dx;
        (*out)[dgrid_] = dg;
        break;
      }
    }
    return "";
  }

  struct B : Bound {
    const Api* api;
    cudnnHandle_t h;
    const Stn* op;
    Desc<cudnnSpatialTransformerDescriptor_t> st;
    Desc<cudnnTensorDescriptor_t> x, y, dx;
    Scale a, b, ag, bg;
    cudnnStatus_t run(void* const* p) override {
      const Stn& o = *op;
      switch (o.kind_) {
        case GRID_FWD: return api->call(api->cudnnSpatialTfGridGeneratorForward, h, st.d, p[o.theta_], p[o.grid_]);
        case GRID_BWD: return api->call(api->cudnnSpatialTfGridGeneratorBackward, h, st.d, p[o.grid_], p[o.theta_]);
        case SAMPLER_FWD:
          return api->call(api->cudnnSpatialTfSamplerForward, h, st.d, a.ptr(), x.d, p[o.x_], p[o.grid_], b.ptr(), y.d,
                           p[o.y_]);
        default:
          return api->call(api->cudnnSpatialTfSamplerBackward, h, st.d, a.ptr(), x.d, p[o.x_], b.ptr(), dx.d, p[o.dx_],
                           ag.ptr(), y.d, p[o.y_], p[o.grid_], bg.ptr(), p[o.dgrid_]);
      }
    }
  };

  cudnnStatus_t bind(Env& env, std::unique_ptr<Bound>* out, std::string* why) override {
    auto b = std::make_unique<B>();
    const Api& api = env.api;
    b->api = &api;
    b->h = env.handle;
    b->op = this;
    b->st.destroy = api.cudnnDestroySpatialTransformerDescriptor;
    BENCH_TRY(api.call(api.cudnnCreateSpatialTransformerDescriptor, &b->st.d));
    const std::vector<int> dims = st_.dims_int();
    BENCH_TRY(api.call(api.cudnnSetSpatialTransformerNdDescriptor, b->st.d, CUDNN_SAMPLER_BILINEAR, st_.dtype, 4,
                       dims.data()));
    if (x_ >= 0) BENCH_TRY(make_tensor(api, args[x_].spec, &b->x));
    if (y_ >= 0) BENCH_TRY(make_tensor(api, args[y_].spec, &b->y));
    if (dx_ >= 0) BENCH_TRY(make_tensor(api, args[dx_].spec, &b->dx));
    b->a = Scale(alpha, st_.dtype);
    b->b = Scale(beta, st_.dtype);
    b->ag = Scale(alpha_dgrid_, st_.dtype);
    b->bg = Scale(beta_dgrid_, st_.dtype);
    *out = std::move(b);
    return CUDNN_STATUS_SUCCESS;
  }

 private:
  int kind_ = 0;
  TensorSpec st_;
  double alpha_dgrid_ = 1, beta_dgrid_ = 0;
  int theta_ = -1, grid_ = -1, x_ = -1, y_ = -1, dx_ = -1, dgrid_ = -1;
};

std::unique_ptr<Op> make_stn(const Problem& p, const Options& o) { return std::make_unique<Stn>(p, o); }

}  // namespace

BENCH_REGISTER("stn", make_stn);

}  // namespace bench
