// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// reduce fwd op=<add|mul|min|max|amax|avg|norm1|norm2|mul_no_zeros> comp=<f32|f64> nan=<prop|noprop>
//   indices=<flat|none> alpha= beta= a= c=
#include "op.h"
#include "ref/tensor_ops.h"

namespace bench {
namespace {

constexpr const char* kOps[] = {"add", "mul", "min", "max", "amax", "avg", "norm1", "norm2", "mul_no_zeros"};

class Reduce : public Op {
 public:
  Reduce(const Problem& p, const Options& o) {
    op_ = -1;
    for (int i = 0; i < 9; ++i)
      if (p.get("op", "add") == kOps[i]) op_ = i;
    if (op_ < 0) throw ParseError("reduce: unknown op " + p.get("op"));
    nan_ = p.flag("nan", false);
    indices_ = p.get("indices", "none") == "flat";
    alpha = scale_opt(p, o, "alpha", false);
    beta = scale_opt(p, o, "beta", true);
    const TensorSpec a = tensor_arg(p, "a", nullptr);
    TensorSpec c = a;
    if (!p.has("c")) {  // default: reduce over everything but C
      for (int d = 0; d < c.rank(); ++d)
        if (d != 1) c.dims[d] = 1;
      c.repack("nchw");
    }
    a_ = add("a", tensor_arg(p, "a", nullptr), Io::in, op_ == 1 || op_ == 8 ? 0.5 : -1.0, op_ == 1 || op_ == 8 ? 1.5 : 1.0);
    c_ = add("c", tensor_arg(p, "c", &c), Io::out);
    comp_ = p.get("comp", args[a_].spec.dtype == CUDNN_DATA_DOUBLE ? "f64" : "f32") == "f64" ? CUDNN_DATA_DOUBLE
                                                                                           : CUDNN_DATA_FLOAT;
    blend_outputs();
    if (indices_) {
      TensorSpec is = args[c_].spec;
      is.dtype = CUDNN_DATA_INT32;
      is.repack("nchw");
      i_ = add("indices", is, Io::out);
    }
  }

  std::string str() const override {
    std::string s = std::string("reduce fwd op=") + kOps[op_] + " comp=" + (comp_ == CUDNN_DATA_DOUBLE ? "f64" : "f32") +
                    " nan=" + (nan_ ? "prop" : "noprop") + " indices=" + (indices_ ? "flat" : "none") +
                    " alpha=" + fnum(alpha) + " beta=" + fnum(beta);
    s += " a=" + args[a_].spec.str() + " c=" + args[c_].spec.str();
    return s;
  }

  double tol_scale() const override { return op_ == 1 || op_ == 8 ? 20 : 4; }

  std::string reference(const std::vector<ref::Tensor>& in, std::vector<ref::Tensor>* out) override {
    std::vector<int64_t> idx;
    ref::Tensor r = ref::reduce(static_cast<ref::Reduce>(op_), nan_, in[a_], args[c_].spec.dims_int(),
                                indices_ ? &idx : nullptr);
    blend_into(r, in[c_], alpha, beta);
    (*out)[c_] = r;
    if (indices_) {
      ref::Tensor it(args[i_].spec.dims_int());
      for (size_t k = 0; k < idx.size(); ++k) it[static_cast<int64_t>(k)] = static_cast<double>(idx[k]);
      (*out)[i_] = it;
    }
    return "";
  }

  struct B : Bound {
    const Api* api;
    cudnnHandle_t h;
    Desc<cudnnReduceTensorDescriptor_t> rd;
    Desc<cudnnTensorDescriptor_t> d[3];
    Scale a, b;
    int ai, ci, ii;
    void* ws = nullptr;
    size_t ws_bytes = 0, idx_bytes = 0;
    cudnnStatus_t run(void* const* p) override {
      return api->call(api->cudnnReduceTensor, h, rd.d, ii >= 0 ? p[ii] : nullptr, idx_bytes, ws, ws_bytes, a.ptr(),
                       d[ai].d, p[ai], b.ptr(), d[ci].d, p[ci]);
    }
  };

  cudnnStatus_t bind(Env& env, std::unique_ptr<Bound>* out, std::string* why) override {
    auto b = std::make_unique<B>();
    const Api& api = env.api;
    b->api = &api;
    b->h = env.handle;
    b->ai = a_;
    b->ci = c_;
    b->ii = i_;
    BENCH_TRY(make_tensor(api, args[a_].spec, &b->d[a_]));
    BENCH_TRY(make_tensor(api, args[c_].spec, &b->d[c_]));
    b->rd.destroy = api.cudnnDestroyReduceTensorDescriptor;
    BENCH_TRY(api.call(api.cudnnCreateReduceTensorDescriptor, &b->rd.d));
    BENCH_TRY(api.call(api.cudnnSetReduceTensorDescriptor, b->rd.d, static_cast<cudnnReduceTensorOp_t>(op_), comp_,
                       nan_ ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                       indices_ ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES : CUDNN_REDUCE_TENSOR_NO_INDICES,
                       CUDNN_32BIT_INDICES));
    BENCH_TRY(api.call(api.cudnnGetReductionWorkspaceSize, env.handle, b->rd.d, b->d[a_].d, b->d[c_].d, &b->ws_bytes));
    if (b->ws_bytes) b->ws = env.alloc(b->ws_bytes);
    if (indices_) BENCH_TRY(api.call(api.cudnnGetReductionIndicesSize, env.handle, b->rd.d, b->d[a_].d, b->d[c_].d, &b->idx_bytes));
    b->a = Scale(alpha, comp_);
    b->b = Scale(beta, comp_);
    *out = std::move(b);
    return CUDNN_STATUS_SUCCESS;
  }

 private:
  int op_ = 0;
  bool nan_ = false, indices_ = false;
  cudnnDataType_t comp_ = CUDNN_DATA_FLOAT;
  int a_ = -1, c_ = -1, i_ = -1;
};

std::unique_ptr<Op> make(const Problem& p, const Options& o) { return std::make_unique<Reduce>(p, o); }

}  // namespace

BENCH_REGISTER("reduce", make);

}  // namespace bench
