// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "problem.h"

#include <cstdlib>
#include <sstream>

#include "dtype.h"

namespace bench {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::string join(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

std::vector<int64_t> parse_dims(const std::string& s, char sep) {
  std::vector<int64_t> out;
  for (const std::string& t : split(s, sep)) {
    char* end = nullptr;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (t.empty() || end == nullptr || *end != '\0') throw ParseError("bad number '" + t + "' in '" + s + "'");
    out.push_back(v);
  }
  return out;
}

bool is_tensor_value(const std::string& v) {
  const size_t c = v.find(':');
  cudnnDataType_t t;
  return c != std::string::npos && dtype_parse(v.substr(0, c), &t);
}

std::vector<int64_t> packed_strides(const std::vector<int64_t>& dims, const std::string& layout) {
  const size_t n = dims.size();
  std::vector<int64_t> s(n, 1);
  if (n == 0) return s;
  if (layout == "nhwc" && n >= 3) {
    // C innermost, then the spatial dims from the last, then N.
    int64_t acc = dims[1];
    s[1] = 1;
    for (size_t i = n - 1; i >= 2; --i) {
      s[i] = acc;
      acc *= dims[i];
    }
    s[0] = acc;
  } else {
    int64_t acc = 1;
    for (size_t i = n; i-- > 0;) {
      s[i] = acc;
      acc *= dims[i];
    }
  }
  return s;
}

int64_t TensorSpec::count() const {
  int64_t c = 1;
  for (int64_t d : dims) c *= d;
  return c;
}

int64_t TensorSpec::span() const {
  int64_t s = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0) return 0;
    s += (dims[i] - 1) * strides[i];
  }
  return s;
}

std::vector<int> TensorSpec::dims_int() const { return std::vector<int>(dims.begin(), dims.end()); }
std::vector<int> TensorSpec::strides_int() const { return std::vector<int>(strides.begin(), strides.end()); }

std::string TensorSpec::str() const {
  if (filter) return std::string(dtype_name(dtype)) + ":" + format + ":" + join(dims);
  return std::string(dtype_name(dtype)) + ":" + join(dims) + ":" + join(strides);
}

void TensorSpec::repack(const std::string& layout) {
  format = layout;
  strides = packed_strides(dims, layout);
}

TensorSpec parse_tensor(const std::string& text, bool filter) {
  const std::vector<std::string> f = split(text, ':');
  TensorSpec t;
  t.filter = filter;
  if (f.size() < 2 || f.size() > 3 || !dtype_parse(f[0], &t.dtype))
    throw ParseError("bad tensor '" + text + "' (want <dtype>:<dims>:<strides> or <dtype>:<format>:<dims>)");
  const bool has_format = f[1] == "nchw" || f[1] == "nhwc" || f[1] == "nchw_vect_c";
  if (has_format) {
    if (f.size() != 3) throw ParseError("bad tensor '" + text + "'");
    t.format = f[1];
    t.dims = parse_dims(f[2]);
    t.strides = packed_strides(t.dims, t.format);
  } else {
    t.dims = parse_dims(f[1]);
    if (f.size() == 3) {
      t.strides = parse_dims(f[2]);
      if (t.strides.size() != t.dims.size()) throw ParseError("tensor '" + text + "': dims and strides differ in rank");
      // A tensor's layout for filters made from it: NHWC when C is innermost.
      if (t.rank() >= 3 && t.strides[1] == 1 && t.dims[1] > 1) t.format = "nhwc";
    } else {
      t.strides = packed_strides(t.dims, "nchw");
    }
  }
  for (int64_t d : t.dims)
    if (d < 0) throw ParseError("tensor '" + text + "' has a negative dim");
  return t;
}

bool Problem::has(const std::string& k) const {
  for (const auto& [a, b] : kv)
    if (a == k) return true;
  return false;
}

std::string Problem::get(const std::string& k, const std::string& def) const {
  for (const auto& [a, b] : kv)
    if (a == k) return b;
  return def;
}

void Problem::set(const std::string& k, const std::string& v) {
  for (auto& [a, b] : kv)
    if (a == k) {
      b = v;
      return;
    }
  kv.emplace_back(k, v);
}

void Problem::erase(const std::string& k) {
  for (auto it = kv.begin(); it != kv.end(); ++it)
    if (it->first == k) {
      kv.erase(it);
      return;
    }
}

double Problem::num(const std::string& k, double def) const {
  if (!has(k)) return def;
  const std::string v = get(k);
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0') throw ParseError(k + "=" + v + " is not a number");
  return d;
}

int64_t Problem::integer(const std::string& k, int64_t def) const {
  if (!has(k)) return def;
  const std::string v = get(k);
  char* end = nullptr;
  const long long d = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') throw ParseError(k + "=" + v + " is not an integer");
  return d;
}

bool Problem::flag(const std::string& k, bool def) const {
  if (!has(k)) return def;
  const std::string v = get(k);
  if (v == "1" || v == "true" || v == "prop" || v == "propagate" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "noprop" || v == "not_propagate" || v == "no") return false;
  throw ParseError(k + "=" + v + " is not a flag");
}

std::string Problem::str() const {
  std::string s = family + " " + dir;
  for (const auto& p : positional) s += " " + p;
  for (const auto& [a, b] : kv) s += " " + a + "=" + b;
  return s;
}

Problem parse_problem(const std::string& line) {
  Problem p;
  std::string l = line;
  const size_t hash = l.find('#');
  if (hash != std::string::npos) l = l.substr(0, hash);
  std::istringstream in(l);
  std::vector<std::string> tok;
  std::string t;
  while (in >> t) tok.push_back(t);
  if (!tok.empty() && tok[0] == "freednn-bench") tok.erase(tok.begin());
  if (tok.empty()) return p;
  p.family = tok[0];
  size_t i = 1;
  if (i < tok.size() && tok[i].find('=') == std::string::npos) p.dir = tok[i++];
  for (; i < tok.size(); ++i) {
    const size_t eq = tok[i].find('=');
    if (eq == std::string::npos) {
      p.positional.push_back(tok[i]);
    } else {
      if (eq == 0) throw ParseError("token '" + tok[i] + "' has no key");
      p.kv.emplace_back(tok[i].substr(0, eq), tok[i].substr(eq + 1));
    }
  }
  p.text = p.str();
  return p;
}

void apply_overrides(Problem& p, const std::string& dt, const std::string& layout, const std::string& dir) {
  if (!dir.empty()) p.dir = dir;
  cudnnDataType_t want = CUDNN_DATA_FLOAT;
  if (!dt.empty() && !dtype_parse(dt, &want)) throw ParseError("--dt=" + dt + " is not a data type");
  if (!layout.empty() && layout != "nchw" && layout != "nhwc") throw ParseError("--layout must be nchw or nhwc");
  // Positional data type / layout (the conv shorthand).
  for (auto& tok : p.positional) {
    cudnnDataType_t t;
    if (!dt.empty() && dtype_parse(tok, &t)) tok = dtype_name(want);
    if (!layout.empty() && (tok == "nchw" || tok == "nhwc")) tok = layout;
  }
  bool have_main = false;
  cudnnDataType_t main = CUDNN_DATA_FLOAT;
  for (auto& [k, v] : p.kv) {
    if (!is_tensor_value(v)) continue;
    const bool filter = v.find(":nchw:") != std::string::npos || v.find(":nhwc:") != std::string::npos;
    TensorSpec s = parse_tensor(v, filter && (k == "w" || k == "dw"));
    if (!have_main) {
      main = s.dtype;
      have_main = true;
    }
    if (!dt.empty() && s.dtype == main) s.dtype = want;
    if (!layout.empty() && s.rank() >= 4) s.repack(layout);
    v = s.str();
  }
}

}  // namespace bench
