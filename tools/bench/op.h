// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// One operation family's driver: which tensors a problem uses, how to call it through a loaded library, and
// its reference. One file per family in ops/; the runner does data, memory, timing and comparison.
#pragma once
#include <cudnn.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api.h"
#include "memory.h"
#include "problem.h"
#include "ref/ref_tensor.h"

namespace bench {

enum class Io { in, out, inout };

// One buffer of a call, in the order the family's Bound::run receives the pointers.
struct Arg {
  std::string role;
  TensorSpec spec;
  Io io = Io::in;
  double lo = -1, hi = 1;  // uniform random fill of inputs
  bool positive = false;   // inputs: strictly positive (variances)
  bool compare = true;     // outputs: checked against the reference and between libraries
  bool counted = true;     // counted by Op::bytes (false: passed to the call, but the op need not touch it)
  int reads = 1;           // inputs: how many passes of freednn's kernels read it (Op::bytes_moved)
};

struct Options {
  std::string algo = "any";  // conv: enum name (any case, with or without the prefix) or "any"
  std::string impl;          // freednn implementation id (FREEDNN_ONLY_IMPL while it runs)
  std::string math;          // conv: math type override (default, tensor_op, tensor_op_allow_conversion, fma)
  bool alpha_set = false, beta_set = false;
  double alpha = 1, beta = 0;
};

// Descriptors and scratch made with one library for one problem; run() is one call, timed back to back.
struct Bound {
  virtual ~Bound() = default;
  virtual cudnnStatus_t run(void* const* ptrs) = 0;  // one pointer per Arg
  std::string impl;  // what ran (algorithm), for the output
};

// What a family needs from the runner when it binds: the library, its handle, scratch allocation.
struct Env {
  const Api& api;
  cudnnHandle_t handle;
  std::function<void*(size_t)> alloc;  // scratch in the library's memory kind, freed with the Bound's runner
};

class Op {
 public:
  virtual ~Op() = default;
  std::vector<Arg> args;
  double alpha = 1, beta = 0;

  virtual std::string str() const = 0;           // the problem line, normalized
  virtual double flops() const { return 0; }     // 2 x the direct algorithm's multiply-adds
  virtual double bytes() const;                  // every counted input read once, every output written once
  // The bytes freednn's kernels move: each counted input times its Arg::reads, outputs written once, plus scratch
  // traffic (moved_extra_); -1 where the family has no pass model (convolutions).
  virtual double bytes_moved() const;
  int passes() const;                            // the most passes over one input (0: no model)
  // Descriptors for one library. Returns a status (NOT_SUPPORTED, BAD_PARAM ...) and *why on failure.
  virtual cudnnStatus_t bind(Env& env, std::unique_ptr<Bound>* out, std::string* why) = 0;
  // Expected outputs (by Arg index) from the inputs (logical order, double). Returns "" or why it cannot.
  virtual std::string reference(const std::vector<ref::Tensor>& in, std::vector<ref::Tensor>* out) = 0;
  // Host inputs after the random fill (e.g. consistent saved statistics). Logical values, writable.
  // prepare_io() names the arguments prepare() reads and writes (inputs only); in performance mode only those are
  // converted (the others are empty tensors), and nothing at all when both lists are empty.
  virtual void prepare(std::vector<ref::Tensor>& /*values*/) {}
  virtual void prepare_io(std::vector<int>* /*reads*/, std::vector<int>* /*writes*/) const {}
  // Float results that may come from TF32 tensor cores on a GPU (convolutions with a math type other than FMA).
  virtual bool allows_tf32() const { return false; }
  // Tolerance multiplier for long reductions.
  virtual double tol_scale() const { return 1; }
  // Custom check instead of the reference (dropout's random mask). Empty: use reference().
  virtual std::string check(const std::vector<ref::Tensor>& /*in*/, const std::vector<ref::Tensor>& /*got*/,
                            double* /*err*/) {
    return "";
  }
  virtual bool has_check() const { return false; }

 protected:
  int add(const std::string& role, const TensorSpec& s, Io io, double lo = -1, double hi = 1);
  // beta != 0 turns outputs into in/out (y is read).
  void blend_outputs();
  bool pass_model_ = true;   // false: bytes_moved() is unknown
  double moved_extra_ = 0;   // scratch bytes written + read by freednn's kernels
};

// Families register a factory: family name -> Op from a parsed problem (throws ParseError).
using Factory = std::unique_ptr<Op> (*)(const Problem&, const Options&);
void register_family(const std::string& name, Factory f);
std::unique_ptr<Op> make_op(const Problem& p, const Options& o);
std::vector<std::string> families();

#define BENCH_CAT2(a, b) a##b
#define BENCH_CAT(a, b) BENCH_CAT2(a, b)
#define BENCH_REGISTER(name, fn) \
  static const bool BENCH_CAT(bench_registered_, __LINE__) = (::bench::register_family(name, fn), true)

// RAII descriptors through a loaded library.
template <class D>
struct Desc {
  D d = nullptr;
  cudnnStatus_t (*destroy)(D) = nullptr;
  Desc() = default;
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  ~Desc() {
    if (d && destroy) destroy(d);
  }
};
cudnnStatus_t make_tensor(const Api& api, const TensorSpec& s, Desc<cudnnTensorDescriptor_t>* out);
cudnnStatus_t make_filter(const Api& api, const TensorSpec& s, Desc<cudnnFilterDescriptor_t>* out);

// Reads a stored tensor into logical order (double) and back.
ref::Tensor to_logical(const TensorSpec& s, const void* data);
void from_logical(const TensorSpec& s, const ref::Tensor& t, void* data);
// The elements at the given logical indices (row-major over the dims), as a 1-D tensor.
ref::Tensor gather_logical(const TensorSpec& s, const void* data, const std::vector<int64_t>& idx);

// A number as the problem strings print it (%.9g).
std::string fnum(double v);

// Shared parsing helpers.
TensorSpec tensor_arg(const Problem& p, const std::string& role, const TensorSpec* fallback);
double scale_opt(const Problem& p, const Options& o, const char* key, bool beta);

// alpha/beta as the API wants them: double for DOUBLE data, float otherwise.
struct Scale {
  float f = 1;
  double d = 1;
  bool dbl = false;
  Scale() = default;
  Scale(double v, cudnnDataType_t t) : f(static_cast<float>(v)), d(v), dbl(t == CUDNN_DATA_DOUBLE) {}
  const void* ptr() const { return dbl ? static_cast<const void*>(&d) : static_cast<const void*>(&f); }
};

// out = alpha * result + beta * prior, in place on `result` (prior ignored when beta == 0).
void blend_into(ref::Tensor& result, const ref::Tensor& prior, double alpha, double beta);

#define BENCH_TRY(expr)                                      \
  do {                                                       \
    const cudnnStatus_t bench_st_ = (expr);                  \
    if (bench_st_ != CUDNN_STATUS_SUCCESS) {                 \
      *why = std::string(#expr).substr(0, 60) + " failed";   \
      return bench_st_;                                      \
    }                                                        \
  } while (0)

}  // namespace bench
