// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "op.h"

#include <cstdio>
#include <map>

#include "dtype.h"

namespace bench {
namespace {
std::map<std::string, Factory>& registry() {
  static std::map<std::string, Factory> r;
  return r;
}
}  // namespace

void register_family(const std::string& name, Factory f) { registry()[name] = f; }

std::unique_ptr<Op> make_op(const Problem& p, const Options& o) {
  auto it = registry().find(p.family);
  if (it == registry().end()) throw ParseError("unknown family '" + p.family + "'");
  return it->second(p, o);
}

std::vector<std::string> families() {
  std::vector<std::string> out;
  for (const auto& [k, v] : registry()) out.push_back(k);
  return out;
}

double Op::bytes() const {
  double b = 0;
  for (const Arg& a : args) {
    if (!a.counted) continue;
    const double n = static_cast<double>(a.spec.count()) * static_cast<double>(dtype_size(a.spec.dtype));
    b += a.io == Io::inout ? 2 * n : n;
  }
  return b;
}

int Op::add(const std::string& role, const TensorSpec& s, Io io, double lo, double hi) {
  Arg a;
  a.role = role;
  a.spec = s;
  a.io = io;
  a.lo = lo;
  a.hi = hi;
  args.push_back(a);
  return static_cast<int>(args.size()) - 1;
}

void Op::blend_outputs() {
  if (beta == 0) return;
  for (Arg& a : args)
    if (a.io == Io::out) a.io = Io::inout;
}

cudnnStatus_t make_tensor(const Api& api, const TensorSpec& s, Desc<cudnnTensorDescriptor_t>* out) {
  out->destroy = api.cudnnDestroyTensorDescriptor;
  cudnnStatus_t st = api.call(api.cudnnCreateTensorDescriptor, &out->d);
  if (st != CUDNN_STATUS_SUCCESS) return st;
  const std::vector<int> d = s.dims_int(), str = s.strides_int();
  return api.call(api.cudnnSetTensorNdDescriptor, out->d, s.dtype, s.rank(), d.data(), str.data());
}

cudnnStatus_t make_filter(const Api& api, const TensorSpec& s, Desc<cudnnFilterDescriptor_t>* out) {
  out->destroy = api.cudnnDestroyFilterDescriptor;
  cudnnStatus_t st = api.call(api.cudnnCreateFilterDescriptor, &out->d);
  if (st != CUDNN_STATUS_SUCCESS) return st;
  const std::vector<int> d = s.dims_int();
  const cudnnTensorFormat_t f = s.format == "nhwc" ? CUDNN_TENSOR_NHWC
                                : s.format == "nchw_vect_c" ? CUDNN_TENSOR_NCHW_VECT_C
                                                            : CUDNN_TENSOR_NCHW;
  return api.call(api.cudnnSetFilterNdDescriptor, out->d, s.dtype, f, s.rank(), d.data());
}

ref::Tensor to_logical(const TensorSpec& s, const void* data) {
  ref::Tensor t(s.dims_int());
  const int r = s.rank();
  std::vector<int64_t> idx(r, 0);
  for (int64_t i = 0; i < t.count(); ++i) {
    int64_t off = 0;
    for (int k = 0; k < r; ++k) off += idx[k] * s.strides[k];
    t[i] = load(s.dtype, data, off);
    for (int k = r - 1; k >= 0; --k) {
      if (++idx[k] < s.dims[k]) break;
      idx[k] = 0;
    }
  }
  return t;
}

void from_logical(const TensorSpec& s, const ref::Tensor& t, void* data) {
  const int r = s.rank();
  std::vector<int64_t> idx(r, 0);
  for (int64_t i = 0; i < t.count(); ++i) {
    int64_t off = 0;
    for (int k = 0; k < r; ++k) off += idx[k] * s.strides[k];
    store(s.dtype, data, off, t[i]);
    for (int k = r - 1; k >= 0; --k) {
      if (++idx[k] < s.dims[k]) break;
      idx[k] = 0;
    }
  }
}

TensorSpec tensor_arg(const Problem& p, const std::string& role, const TensorSpec* fallback) {
  if (p.has(role)) return parse_tensor(p.get(role));
  if (fallback == nullptr) throw ParseError(p.family + " " + p.dir + " needs a tensor " + role + "=");
  return *fallback;
}

double scale_opt(const Problem& p, const Options& o, const char* key, bool beta) {
  if (beta && o.beta_set) return o.beta;
  if (!beta && o.alpha_set) return o.alpha;
  return p.num(key, beta ? 0.0 : 1.0);
}

std::string fnum(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

void blend_into(ref::Tensor& result, const ref::Tensor& prior, double alpha, double beta) {
  result.v = ref::blend(result.v, prior.v, alpha, beta);
}

}  // namespace bench
