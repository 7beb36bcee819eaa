// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// conv <fwd|bwd_d|bwd_w> <dt | xdt:wdt:ydt> <nchw|nhwc|any> <shape> [mode=xcorr|conv] [ct=] [math=] [x= w= y=]
//      [alg=] [alpha=] [beta=] [post=bias+<relu|identity> alpha2=]
// conv bwd_b dy= db= alpha= beta=
// <shape> is benchdnn's descriptor (g1mb64ic64ih56iw56oc64oh56ow56kh3kw3sh1sw1ph1pw1dh1dw1, id/od/kd/sd/pd/dd for
// 3-D); oh/ow may be left out, g, s, p, d default to 1, 1, 0, 1, iw = ih, kw = kh. Dilation is cuDNN's (1 = dense).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "dtype.h"
#include "op.h"
#include "ref/conv.h"

namespace bench {
namespace {

const char* const kFwd[] = {"implicit_gemm", "implicit_precomp_gemm", "gemm", "direct",
                            "fft", "fft_tiling", "winograd", "winograd_nonfused"};
const char* const kBwdD[] = {"algo_0", "algo_1", "fft", "fft_tiling", "winograd", "winograd_nonfused"};
const char* const kBwdW[] = {"algo_0", "algo_1", "fft", "algo_3", "winograd", "winograd_nonfused", "fft_tiling"};
const char* const kPrefix[] = {"cudnn_convolution_fwd_algo_", "cudnn_convolution_bwd_data_algo_",
                               "cudnn_convolution_bwd_filter_algo_"};

enum Dir { FWD = 0, BWD_D = 1, BWD_W = 2, BWD_B = 3 };

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// The short names of a direction's algorithms (the enum names without their prefix) and how many there are.
struct AlgoNames {
  const char* const* names;
  int count;
};
AlgoNames algo_names(Dir d) { return d == FWD ? AlgoNames{kFwd, 8} : d == BWD_D ? AlgoNames{kBwdD, 6} : AlgoNames{kBwdW, 7}; }

// Short name of algorithm a ("algo_1", "gemm"), or its number when out of range.
std::string algo_short(Dir d, int a) {
  const AlgoNames t = algo_names(d);
  return a >= 0 && a < t.count ? std::string(t.names[a]) : std::to_string(a);
}

// Algorithm by name (any case, with or without the enum prefix); -1 for "any" (Find, else _v7), -2 for "v7"
// (the _v7 heuristic's first choice alone: what a program that never calls Find gets).
constexpr int kAlgoAny = -1, kAlgoV7 = -2;
int algo_from(Dir d, const std::string& name) {
  std::string n = lower(name);
  if (n.empty() || n == "any") return kAlgoAny;
  if (n == "v7") return kAlgoV7;
  if (n.rfind(kPrefix[d], 0) == 0) n = n.substr(std::string(kPrefix[d]).size());
  const AlgoNames t = algo_names(d);
  for (int i = 0; i < t.count; ++i)
    if (n == t.names[i]) return i;
  if (!n.empty() && std::all_of(n.begin(), n.end(), ::isdigit)) return std::stoi(n);
  throw ParseError("conv: unknown algorithm " + name);
}

std::string algo_name(Dir d, int a) {
  if (a < 0 || a >= algo_names(d).count) return std::to_string(a);
  const std::string n = algo_short(d, a);  // the enum's own name: ..._BWD_DATA_ALGO_0, not ..._ALGO_ALGO_0
  return std::string(kPrefix[d]) + (n.rfind("algo_", 0) == 0 ? n.substr(5) : n);
}

std::map<std::string, int64_t> parse_shape(const std::string& s) {
  std::map<std::string, int64_t> m;
  size_t i = 0;
  while (i < s.size()) {
    std::string key;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) key += s[i++];
    std::string num;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '-')) num += s[i++];
    if (key.empty() || num.empty()) throw ParseError("conv: bad shape '" + s + "'");
    m[key] = std::stoll(num);
  }
  return m;
}

class Conv : public Op {
 public:
  Conv(const Problem& p, const Options& o) {
    const std::string d = p.dir;
    dir_ = d == "fwd" ? FWD : d == "bwd_d" || d == "bwd_data" ? BWD_D : d == "bwd_w" || d == "bwd_filter" ? BWD_W
           : d == "bwd_b" || d == "bwd_bias" ? BWD_B : static_cast<Dir>(-1);
    if (dir_ < 0) throw ParseError("conv: direction must be fwd, bwd_d, bwd_w or bwd_b");
    alpha = scale_opt(p, o, "alpha", false);
    beta = scale_opt(p, o, "beta", true);
    pass_model_ = dir_ == BWD_B;  // a convolution's traffic depends on its algorithm: no pass model
    if (dir_ == BWD_B) {
      const TensorSpec dy = tensor_arg(p, "dy", nullptr);
      TensorSpec db = dy;
      for (int k = 0; k < db.rank(); ++k)
        if (k != 1) db.dims[k] = 1;
      db.repack("nchw");
      y_ = add("dy", dy, Io::in);
      b_ = add("db", tensor_arg(p, "db", &db), Io::out);
      blend_outputs();
      return;
    }
    if (p.positional.size() < 3) throw ParseError("conv: want <dtypes> <layout> <shape> after the direction");
    // Data types.
    std::vector<int64_t> unused;
    cudnnDataType_t xdt, wdt, ydt;
    {
      std::string t = p.positional[0];
      std::vector<std::string> f;
      size_t s = 0, c;
      while ((c = t.find(':', s)) != std::string::npos) {
        f.push_back(t.substr(s, c - s));
        s = c + 1;
      }
      f.push_back(t.substr(s));
      if (!(f.size() == 1 || f.size() == 3) || !dtype_parse(f[0], &xdt)) throw ParseError("conv: bad data types " + t);
      wdt = ydt = xdt;
      if (f.size() == 3 && (!dtype_parse(f[1], &wdt) || !dtype_parse(f[2], &ydt)))
        throw ParseError("conv: bad data types " + t);
    }
    layout_ = p.positional[1];
    auto m = parse_shape(p.positional[2]);
    auto get = [&](const char* k, int64_t def) { return m.count(k) ? m[k] : def; };
    nsp_ = m.count("id") || m.count("kd") || m.count("od") ? 3 : 2;
    g_ = get("g", 1);
    mb_ = get("mb", 2);
    ic_ = get("ic", 0);
    oc_ = get("oc", 0);
    if (ic_ <= 0 || oc_ <= 0 || ic_ % g_ || oc_ % g_) throw ParseError("conv: ic and oc must be positive multiples of g");
    const char* sp[3] = {"d", "h", "w"};
    for (int k = 0; k < 3; ++k) {
      const std::string s = sp[k];
      if (nsp_ == 2 && k == 0) {
        in_[k] = out_[k] = ker_[k] = str_[k] = dil_[k] = 1;
        pad_[k] = 0;
        continue;
      }
      in_[k] = get(("i" + s).c_str(), k == 2 ? in_[1] : 0);
      ker_[k] = get(("k" + s).c_str(), k == 2 ? ker_[1] : 3);
      str_[k] = get(("s" + s).c_str(), k == 2 ? str_[1] : 1);
      pad_[k] = get(("p" + s).c_str(), k == 2 ? pad_[1] : 0);
      dil_[k] = get(("d" + s).c_str(), k == 2 ? dil_[1] : 1);
      if (in_[k] <= 0) throw ParseError("conv: missing i" + s);
      const int64_t o_calc = (in_[k] + 2 * pad_[k] - ((ker_[k] - 1) * dil_[k] + 1)) / str_[k] + 1;
      out_[k] = get(("o" + s).c_str(), o_calc);
      if (out_[k] != o_calc) throw ParseError("conv: o" + s + "=" + std::to_string(out_[k]) + " but the shape gives " +
                                              std::to_string(o_calc));
    }
    convolution_ = p.get("mode", "xcorr") == "conv";
    const bool low = xdt == CUDNN_DATA_HALF || xdt == CUDNN_DATA_BFLOAT16;
    const bool int8 = xdt == CUDNN_DATA_INT8 || xdt == CUDNN_DATA_UINT8;
    ct_ = int8 ? CUDNN_DATA_INT32 : low ? CUDNN_DATA_FLOAT : xdt;
    if (p.has("ct") && !dtype_parse(p.get("ct"), &ct_)) throw ParseError("conv: bad ct=" + p.get("ct"));
    // math=default|tensor (= tensor_op)|tensor_op_allow_conversion (= allow_conversion)|fma; --math overrides.
    math_s_ = lower(o.math.empty() ? p.get("math", "default") : o.math);
    if (math_s_ == "tensor") math_s_ = "tensor_op";
    if (math_s_ == "allow_conversion") math_s_ = "tensor_op_allow_conversion";
    if (math_s_ == "default") math_ = CUDNN_DEFAULT_MATH;
    else if (math_s_ == "tensor_op") math_ = CUDNN_TENSOR_OP_MATH;
    else if (math_s_ == "tensor_op_allow_conversion") math_ = CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    else if (math_s_ == "fma") math_ = CUDNN_FMA_MATH;
    else throw ParseError("conv: math=" + math_s_ + " (want default, tensor_op, tensor_op_allow_conversion or fma)");
    algo_ = algo_from(dir_, o.algo != "any" ? o.algo : p.get("alg", "any"));
    post_ = p.get("post", "");
    if (!post_.empty() && (dir_ != FWD || (post_ != "bias+relu" && post_ != "bias+identity")))
      throw ParseError("conv: post= is bias+relu or bias+identity, forward only");
    alpha2_ = p.num("alpha2", 0);

    // Tensors: packed in the layout, or the explicit specs of an "any" layout.
    std::vector<int64_t> xd = {mb_, ic_}, wd = {oc_, ic_ / g_}, yd = {mb_, oc_};
    for (int k = 3 - nsp_; k < 3; ++k) {
      xd.push_back(in_[k]);
      wd.push_back(ker_[k]);
      yd.push_back(out_[k]);
    }
    const std::string lay = layout_ == "nhwc" ? "nhwc" : "nchw";
    TensorSpec x{xdt, xd, packed_strides(xd, lay), lay, false};
    TensorSpec w{wdt, wd, packed_strides(wd, lay), lay, true};
    TensorSpec y{ydt, yd, packed_strides(yd, lay), lay, false};
    if (layout_ == "any" || p.has("x")) x = tensor_arg(p, "x", &x);
    if (layout_ == "any" || p.has("w")) {
      w = p.has("w") ? parse_tensor(p.get("w"), true) : w;
      w.filter = true;
    }
    if (layout_ == "any" || p.has("y")) y = tensor_arg(p, "y", &y);
    if (x.dims != xd || w.dims != wd || y.dims != yd) throw ParseError("conv: the x/w/y specs do not match the shape");
    const double lo = int8 ? -2 : -1, hi = int8 ? 2 : 1;
    switch (dir_) {
      case FWD:
        x_ = add("x", x, Io::in, lo, hi);
        w_ = add("w", w, Io::in, lo, hi);
        if (!post_.empty()) {
          z_ = add("z", y, Io::in);
          TensorSpec b{ydt, std::vector<int64_t>(yd.size(), 1), {}, "nchw", false};
          b.dims[1] = oc_;
          b.repack("nchw");
          b_ = add("bias", b, Io::in);
        }
        y_ = add("y", y, Io::out);
        if (post_.empty()) blend_outputs();
        break;
      case BWD_D:
        w_ = add("w", w, Io::in);
        y_ = add("dy", y, Io::in);
        x_ = add("dx", x, Io::out);
        blend_outputs();
        break;
      default:
        x_ = add("x", x, Io::in);
        y_ = add("dy", y, Io::in);
        w_ = add("dw", w, Io::out);
        blend_outputs();
        break;
    }
  }

  bool allows_tf32() const override {
    return dir_ != BWD_B && args[x_].spec.dtype == CUDNN_DATA_FLOAT && ct_ == CUDNN_DATA_FLOAT &&
           math_ != CUDNN_FMA_MATH;
  }

  int64_t ksp() const { return ker_[0] * ker_[1] * ker_[2]; }
  int64_t osp() const { return out_[0] * out_[1] * out_[2]; }
  double flops() const override {
    if (dir_ == BWD_B) return 0;
    return 2.0 * mb_ * oc_ * osp() * (ic_ / g_) * ksp();
  }
  double tol_scale() const override {
    if (dir_ == BWD_B) return 4;
    // Long sums: the reduction of one output (bwd_w sums over the batch and the image).
    const double k = dir_ == BWD_W ? double(mb_) * osp() : double(ic_ / g_) * ksp();
    return std::max(1.0, std::sqrt(k) / 8);
  }

  std::string shape() const {
    auto f = [](const char* n, int64_t v) { return std::string(n) + std::to_string(v); };
    const bool d3 = nsp_ == 3;
    std::string s = f("g", g_) + f("mb", mb_) + f("ic", ic_);
    if (d3) s += f("id", in_[0]);
    s += f("ih", in_[1]) + f("iw", in_[2]) + f("oc", oc_);
    if (d3) s += f("od", out_[0]);
    s += f("oh", out_[1]) + f("ow", out_[2]);
    if (d3) s += f("kd", ker_[0]);
    s += f("kh", ker_[1]) + f("kw", ker_[2]);
    if (d3) s += f("sd", str_[0]);
    s += f("sh", str_[1]) + f("sw", str_[2]);
    if (d3) s += f("pd", pad_[0]);
    s += f("ph", pad_[1]) + f("pw", pad_[2]);
    if (d3) s += f("dd", dil_[0]);
    return s + f("dh", dil_[1]) + f("dw", dil_[2]);
  }

  std::string str() const override {
    static const char* dn[] = {"fwd", "bwd_d", "bwd_w", "bwd_b"};
    if (dir_ == BWD_B)
      return "conv bwd_b dy=" + args[y_].spec.str() + " db=" + args[b_].spec.str() + " alpha=" + fnum(alpha) +
             " beta=" + fnum(beta);
    const TensorSpec &x = args[x_].spec, &w = args[w_].spec, &y = args[y_].spec;
    std::string s = std::string("conv ") + dn[dir_] + " ";
    s += x.dtype == w.dtype && x.dtype == y.dtype
             ? std::string(dtype_name(x.dtype))
             : std::string(dtype_name(x.dtype)) + ":" + dtype_name(w.dtype) + ":" + dtype_name(y.dtype);
    s += " " + layout_ + " " + shape() + (convolution_ ? " mode=conv" : " mode=xcorr");
    if (ct_ != x.dtype) s += std::string(" ct=") + dtype_name(ct_);
    if (math_ != CUDNN_DEFAULT_MATH) s += " math=" + math_s_;
    if (layout_ == "any") s += " x=" + x.str() + " w=" + w.str() + " y=" + y.str();
    if (algo_ >= 0) s += " alg=" + algo_name(dir_, algo_);
    s += " alpha=" + fnum(alpha) + " beta=" + fnum(beta);
    if (!post_.empty()) s += " post=" + post_ + " alpha2=" + fnum(alpha2_);
    return s;
  }

  ref::ConvParams params() const {
    ref::ConvParams cp;
    cp.groups = static_cast<int>(g_);
    for (int k = 3 - nsp_; k < 3; ++k) {
      cp.pad.push_back(static_cast<int>(pad_[k]));
      cp.stride.push_back(static_cast<int>(str_[k]));
      cp.dilation.push_back(static_cast<int>(dil_[k]));
    }
    cp.convolution = convolution_;
    return cp;
  }

  std::string reference(const std::vector<ref::Tensor>& in, std::vector<ref::Tensor>* out) override {
    const ref::ConvParams cp = params();
    ref::Tensor r;
    int o = 0;
    switch (dir_) {
      case FWD:
        r = ref::conv_forward(in[x_], in[w_], cp);
        o = y_;
        if (!post_.empty()) {
          const int64_t plane = osp();
          for (int64_t i = 0; i < r.count(); ++i) {
            const int64_t c = (i / plane) % oc_;
            double v = alpha * r[i] + alpha2_ * in[z_][i] + in[b_][c];
            if (post_ == "bias+relu") v = std::max(v, 0.0);
            r[i] = v;
          }
          (*out)[o] = r;
          return "";
        }
        break;
      case BWD_D: r = ref::conv_backward_data(in[y_], in[w_], args[x_].spec.dims_int(), cp); o = x_; break;
      case BWD_W: r = ref::conv_backward_filter(in[x_], in[y_], args[w_].spec.dims_int(), cp); o = w_; break;
      case BWD_B:
        r = ref::conv_backward_bias(in[y_]);
        r.dims = args[b_].spec.dims_int();
        o = b_;
        break;
    }
    blend_into(r, in[o], alpha, beta);
    (*out)[o] = r;
    return "";
  }

  struct B : Bound {
    const Api* api;
    cudnnHandle_t h;
    Dir dir;
    int algo = 0;
    Desc<cudnnTensorDescriptor_t> x, y, z, bias;
    Desc<cudnnFilterDescriptor_t> w;
    Desc<cudnnConvolutionDescriptor_t> cd;
    Desc<cudnnActivationDescriptor_t> act;
    Scale a, b, a2;
    bool fused = false;
    int xi = 0, wi = 0, yi = 0, zi = 0, bi = 0;
    void* ws = nullptr;
    size_t ws_bytes = 0;
    cudnnStatus_t run(void* const* p) override {
      switch (dir) {
        case FWD:
          if (fused)
            return api->call(api->cudnnConvolutionBiasActivationForward, h, a.ptr(), x.d, p[xi], w.d, p[wi], cd.d,
                             static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws, ws_bytes, a2.ptr(), z.d, p[zi], bias.d,
                             p[bi], act.d, y.d, p[yi]);
          return api->call(api->cudnnConvolutionForward, h, a.ptr(), x.d, p[xi], w.d, p[wi], cd.d,
                           static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws, ws_bytes, b.ptr(), y.d, p[yi]);
        case BWD_D:
          return api->call(api->cudnnConvolutionBackwardData, h, a.ptr(), w.d, p[wi], y.d, p[yi], cd.d,
                           static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), ws, ws_bytes, b.ptr(), x.d, p[xi]);
        case BWD_W:
          return api->call(api->cudnnConvolutionBackwardFilter, h, a.ptr(), x.d, p[xi], y.d, p[yi], cd.d,
                           static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), ws, ws_bytes, b.ptr(), w.d, p[wi]);
        case BWD_B:
          return api->call(api->cudnnConvolutionBackwardBias, h, a.ptr(), y.d, p[yi], b.ptr(), bias.d, p[bi]);
      }
      return CUDNN_STATUS_BAD_PARAM;
    }
  };

  // --algo=any: the library's own best choice: Find (it runs the candidates), else the _v7 heuristic;
  // --algo=v7: the heuristic alone.
  template <class Perf, class FindFn, class GetFn, class... A>
  static int choose(const Api& api, bool use_find, FindFn find, GetFn get, A... a) {
    Perf perf[16];
    int n = 0;
    if (use_find && api.call(find, a..., 16, &n, perf) == CUDNN_STATUS_SUCCESS)
      for (int i = 0; i < n; ++i)
        if (api.map(perf[i].status) == CUDNN_STATUS_SUCCESS) return static_cast<int>(perf[i].algo);
    n = 0;
    if (api.call(get, a..., 16, &n, perf) == CUDNN_STATUS_SUCCESS)
      for (int i = 0; i < n; ++i)
        if (api.map(perf[i].status) == CUDNN_STATUS_SUCCESS) return static_cast<int>(perf[i].algo);
    return -1;
  }

  cudnnStatus_t bind(Env& env, std::unique_ptr<Bound>* out, std::string* why) override {
    auto b = std::make_unique<B>();
    const Api& api = env.api;
    b->api = &api;
    b->h = env.handle;
    b->dir = dir_;
    const cudnnDataType_t sdt = dir_ == BWD_B ? args[y_].spec.dtype : ct_ == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE
                                                                                               : CUDNN_DATA_FLOAT;
    b->a = Scale(alpha, sdt);
    b->b = Scale(beta, sdt);
    b->a2 = Scale(alpha2_, sdt);
    if (dir_ == BWD_B) {
      b->yi = y_;
      b->bi = b_;
      BENCH_TRY(make_tensor(api, args[y_].spec, &b->y));
      BENCH_TRY(make_tensor(api, args[b_].spec, &b->bias));
      b->impl = "bias";
      *out = std::move(b);
      return CUDNN_STATUS_SUCCESS;
    }
    b->xi = x_;
    b->wi = w_;
    b->yi = y_;
    BENCH_TRY(make_tensor(api, args[x_].spec, &b->x));
    BENCH_TRY(make_filter(api, args[w_].spec, &b->w));
    BENCH_TRY(make_tensor(api, args[y_].spec, &b->y));
    b->cd.destroy = api.cudnnDestroyConvolutionDescriptor;
    BENCH_TRY(api.call(api.cudnnCreateConvolutionDescriptor, &b->cd.d));
    const ref::ConvParams cp = params();
    BENCH_TRY(api.call(api.cudnnSetConvolutionNdDescriptor, b->cd.d, nsp_, cp.pad.data(), cp.stride.data(),
                       cp.dilation.data(), convolution_ ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION, ct_));
    if (g_ > 1) BENCH_TRY(api.call(api.cudnnSetConvolutionGroupCount, b->cd.d, static_cast<int>(g_)));
    BENCH_TRY(api.call(api.cudnnSetConvolutionMathType, b->cd.d, math_));
    if (!post_.empty()) {
      b->fused = true;
      b->zi = z_;
      b->bi = b_;
      BENCH_TRY(make_tensor(api, args[z_].spec, &b->z));
      BENCH_TRY(make_tensor(api, args[b_].spec, &b->bias));
      b->act.destroy = api.cudnnDestroyActivationDescriptor;
      BENCH_TRY(api.call(api.cudnnCreateActivationDescriptor, &b->act.d));
      BENCH_TRY(api.call(api.cudnnSetActivationDescriptor, b->act.d,
                         post_ == "bias+relu" ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY,
                         CUDNN_NOT_PROPAGATE_NAN, 0.0));
    }
    int algo = algo_;
    if (algo < 0) {
      const bool use_find = algo == kAlgoAny;
      if (dir_ == FWD)
        algo = choose<cudnnConvolutionFwdAlgoPerf_t>(api, use_find, api.cudnnFindConvolutionForwardAlgorithm,
                                                     api.cudnnGetConvolutionForwardAlgorithm_v7, env.handle, b->x.d,
                                                     b->w.d, b->cd.d, b->y.d);
      else if (dir_ == BWD_D)
        algo = choose<cudnnConvolutionBwdDataAlgoPerf_t>(api, use_find, api.cudnnFindConvolutionBackwardDataAlgorithm,
                                                         api.cudnnGetConvolutionBackwardDataAlgorithm_v7, env.handle,
                                                         b->w.d, b->y.d, b->cd.d, b->x.d);
      else
        algo = choose<cudnnConvolutionBwdFilterAlgoPerf_t>(api, use_find, api.cudnnFindConvolutionBackwardFilterAlgorithm,
                                                           api.cudnnGetConvolutionBackwardFilterAlgorithm_v7,
                                                           env.handle, b->x.d, b->y.d, b->cd.d, b->w.d);
      if (algo < 0) {
        *why = "no algorithm from Find or _v7 supports the problem";
        return CUDNN_STATUS_NOT_SUPPORTED;
      }
      // The fused call supports only IMPLICIT_PRECOMP_GEMM with the identity activation.
      if (!post_.empty() && post_ == "bias+identity") algo = 1;
    }
    b->algo = algo;
    b->impl = algo_short(dir_, algo);
    if (api.freednnGetConvolutionImplementation != nullptr) {  // freednn says which implementation the enum runs
      char id[128] = {0};
      if (api.freednnGetConvolutionImplementation(env.handle, static_cast<int>(dir_), b->x.d, b->w.d, b->cd.d, b->y.d,
                                                  algo, id, sizeof id) == CUDNN_STATUS_SUCCESS)
        b->impl += std::string("/") + id;
    }
    if (dir_ == FWD)
      BENCH_TRY(api.call(api.cudnnGetConvolutionForwardWorkspaceSize, env.handle, b->x.d, b->w.d, b->cd.d, b->y.d,
                         static_cast<cudnnConvolutionFwdAlgo_t>(algo), &b->ws_bytes));
    else if (dir_ == BWD_D)
      BENCH_TRY(api.call(api.cudnnGetConvolutionBackwardDataWorkspaceSize, env.handle, b->w.d, b->y.d, b->cd.d, b->x.d,
                         static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &b->ws_bytes));
    else
      BENCH_TRY(api.call(api.cudnnGetConvolutionBackwardFilterWorkspaceSize, env.handle, b->x.d, b->y.d, b->cd.d,
                         b->w.d, static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), &b->ws_bytes));
    if (b->ws_bytes) b->ws = env.alloc(b->ws_bytes);
    *out = std::move(b);
    return CUDNN_STATUS_SUCCESS;
  }

 private:
  Dir dir_ = FWD;
  std::string layout_ = "nchw", post_, math_s_ = "default";
  int nsp_ = 2, algo_ = -1;
  int64_t g_ = 1, mb_ = 1, ic_ = 1, oc_ = 1;
  int64_t in_[3] = {1, 1, 1}, out_[3] = {1, 1, 1}, ker_[3] = {1, 1, 1}, str_[3] = {1, 1, 1}, pad_[3] = {0, 0, 0},
          dil_[3] = {1, 1, 1};
  bool convolution_ = false;
  cudnnDataType_t ct_ = CUDNN_DATA_FLOAT;
  cudnnMathType_t math_ = CUDNN_DEFAULT_MATH;
  double alpha2_ = 0;
  int x_ = 0, w_ = 0, y_ = 0, z_ = -1, b_ = -1;
};

std::unique_ptr<Op> make(const Problem& p, const Options& o) { return std::make_unique<Conv>(p, o); }

}  // namespace

BENCH_REGISTER("conv", make);

}  // namespace bench
