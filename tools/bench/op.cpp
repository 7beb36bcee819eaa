// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "op.h"

#include <algorithm>
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

double Op::bytes_moved() const {
  if (!pass_model_) return -1;
  double b = moved_extra_;
  for (const Arg& a : args) {
    if (!a.counted) continue;
    const double n = static_cast<double>(a.spec.count()) * static_cast<double>(dtype_size(a.spec.dtype));
    if (a.io != Io::out) b += a.reads * n;
    if (a.io != Io::in) b += n;
  }
  return b;
}

int Op::passes() const {
  if (!pass_model_) return 0;
  int p = 1;
  for (const Arg& a : args)
    if (a.counted && a.io != Io::out) p = std::max(p, a.reads);
  return p;
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

namespace {

// Calls f(i, offset) for every logical index i of s (row-major over the dims) and its stored offset, split over
// the OpenMP threads in contiguous ranges (each range starts from its unravelled index, then steps).
template <class F>
void for_each_offset(const TensorSpec& s, int64_t count, F f) {
  const int r = s.rank();
  const int64_t grain = 1 << 16;
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>((count + grain - 1) / grain, 256));
#pragma omp parallel for schedule(dynamic, 1) if (parts > 1)
  for (int64_t part = 0; part < parts; ++part) {
    const int64_t b = count * part / parts, e = count * (part + 1) / parts;
    std::vector<int64_t> idx(r, 0);
    int64_t rest = b, off = 0;
    for (int k = r - 1; k >= 0; --k) {
      idx[k] = s.dims[k] ? rest % s.dims[k] : 0;
      rest = s.dims[k] ? rest / s.dims[k] : 0;
      off += idx[k] * s.strides[k];
    }
    for (int64_t i = b; i < e; ++i) {
      f(i, off);
      for (int k = r - 1; k >= 0; --k) {
        off += s.strides[k];
        if (++idx[k] < s.dims[k]) break;
        off -= idx[k] * s.strides[k];
        idx[k] = 0;
      }
    }
  }
}

}  // namespace

ref::Tensor to_logical(const TensorSpec& s, const void* data) {
  ref::Tensor t(s.dims_int());
  for_each_offset(s, t.count(), [&](int64_t i, int64_t off) { t[i] = load(s.dtype, data, off); });
  return t;
}

void from_logical(const TensorSpec& s, const ref::Tensor& t, void* data) {
  for_each_offset(s, t.count(), [&](int64_t i, int64_t off) { store(s.dtype, data, off, t[i]); });
}

ref::Tensor gather_logical(const TensorSpec& s, const void* data, const std::vector<int64_t>& idx) {
  ref::Tensor t({static_cast<int>(idx.size())});
  const int r = s.rank();
  const int64_t n = static_cast<int64_t>(idx.size());
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int64_t j = 0; j < n; ++j) {
    int64_t rest = idx[j], off = 0;
    for (int k = r - 1; k >= 0; --k) {
      off += (rest % s.dims[k]) * s.strides[k];
      rest /= s.dims[k];
    }
    t[j] = load(s.dtype, data, off);
  }
  return t;
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
