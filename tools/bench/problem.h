// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The problem syntax (docs/problem-syntax.md): `<family> <dir> [positional...] key=value ...`, exactly what
// FREEDNN_LOG_CMD prints (a leading `freednn-bench` is dropped), plus shorthands for batch files.
#pragma once
#include <cudnn.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bench {

struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A tensor `<dtype>:<dims>:<strides>`, a filter `<dtype>:<format>:<dims>`, or the shorthands
// `<dtype>:<dims>` (packed NCHW order) and `<dtype>:<nchw|nhwc>:<dims>` for tensors too.
struct TensorSpec {
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  std::vector<int64_t> dims, strides;
  std::string format = "nchw";  // filters (and how packed strides were made)
  bool filter = false;

  int rank() const { return static_cast<int>(dims.size()); }
  int64_t count() const;  // logical elements
  int64_t span() const;   // stored elements: 1 + sum (dim-1)*stride
  std::vector<int> dims_int() const;
  std::vector<int> strides_int() const;
  std::string str() const;  // in the syntax it came in (filters with format, tensors with strides)
  void repack(const std::string& layout);  // packed strides in "nchw" or "nhwc" order
};
TensorSpec parse_tensor(const std::string& text, bool filter = false);
std::vector<int64_t> packed_strides(const std::vector<int64_t>& dims, const std::string& layout);

struct Problem {
  std::string family, dir;
  std::vector<std::string> positional;                    // tokens without '=' after family and dir
  std::vector<std::pair<std::string, std::string>> kv;    // in order
  std::string text;                                       // the line as given (normalized spaces)

  bool has(const std::string& k) const;
  std::string get(const std::string& k, const std::string& def = "") const;
  void set(const std::string& k, const std::string& v);
  void erase(const std::string& k);
  double num(const std::string& k, double def) const;
  int64_t integer(const std::string& k, int64_t def) const;
  bool flag(const std::string& k, bool def) const;  // 1/0, true/false, prop/propagate ...
  std::string str() const;                           // rebuilt from the fields
};

// Parses one line; empty/comment lines give an empty family. Throws ParseError.
Problem parse_problem(const std::string& line);

// Command-line overrides: data type of every tensor whose type is the problem's main (first tensor's) type,
// layout of every 4-D/5-D tensor (repacked), and the direction.
void apply_overrides(Problem& p, const std::string& dt, const std::string& layout, const std::string& dir);

// Helpers shared by the families.
std::vector<int64_t> parse_dims(const std::string& s, char sep = 'x');
bool is_tensor_value(const std::string& v);  // looks like `<dtype>:...`

}  // namespace bench
