// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "runner.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>

#include "dtype.h"
#include "memory.h"

namespace bench {

// A loaded library with its handle. `cpu` creates the handle with FREEDNN_BACKEND=cpu (the fast reference).
class Library {
 public:
  Library(Api* api, bool cpu) : api_(api) {
    host_ = api->host_memory || cpu;
    const char* old = std::getenv("FREEDNN_BACKEND");
    const std::string saved = old ? old : "";
    if (cpu) setenv("FREEDNN_BACKEND", "cpu", 1);
    status_ = api->call(api->cudnnCreate, &handle_);
    if (cpu) {
      if (old) setenv("FREEDNN_BACKEND", saved.c_str(), 1);
      else unsetenv("FREEDNN_BACKEND");
    }
  }
  ~Library() {
    if (handle_) api_->cudnnDestroy(handle_);
  }
  const Api& api() const { return *api_; }
  cudnnHandle_t handle() const { return handle_; }
  bool host() const { return host_; }
  cudnnStatus_t status() const { return status_; }

 private:
  Api* api_;
  cudnnHandle_t handle_ = nullptr;
  bool host_ = true;
  cudnnStatus_t status_;
};

namespace {

// Sets FREEDNN_ONLY_IMPL while a freednn library runs with --impl.
struct ImplScope {
  bool set = false;
  ImplScope(const Api& api, const std::string& impl) {
    if (impl.empty() || !api.is_freednn) return;
    setenv("FREEDNN_ONLY_IMPL", impl.c_str(), 1);
    set = true;
  }
  ~ImplScope() {
    if (set) unsetenv("FREEDNN_ONLY_IMPL");
  }
};

size_t arg_bytes(const Arg& a) { return static_cast<size_t>(a.spec.span()) * dtype_size(a.spec.dtype); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

double compare(const ref::Tensor& got, const ref::Tensor& r, cudnnDataType_t t) {
  if (got.count() != r.count()) return std::numeric_limits<double>::infinity();
  const bool integer = !dtype_is_float(t);
  double scale = 0, worst = 0;
  for (int64_t i = 0; i < r.count(); ++i)
    if (std::isfinite(r[i])) scale = std::max(scale, std::fabs(r[i]));
  scale = integer ? 1.0 : std::max(scale, 1e-30);
  for (int64_t i = 0; i < r.count(); ++i) {
    const double g = got[i], e = r[i];
    if (std::isnan(e) || std::isnan(g)) {
      if (std::isnan(e) != std::isnan(g)) return std::numeric_limits<double>::infinity();
      continue;
    }
    if (std::isinf(e) || std::isinf(g)) {
      if (g != e) return std::numeric_limits<double>::infinity();
      continue;
    }
    worst = std::max(worst, std::fabs(g - e) / scale);
  }
  return worst;
}

Runner::Runner(Api* lib, Api* vs, const Config& cfg) : cfg_(cfg) {
  lib_ = std::make_unique<Library>(lib, false);
  if (vs) vs_ = std::make_unique<Library>(vs, false);
  if (cfg.fast_ref) cpu_ref_ = std::make_unique<Library>(lib, true);
}

Runner::~Runner() = default;

bool Runner::device_timing() const { return !lib_->host(); }

LibResult Runner::run_lib(Library& L, Op& op, const std::vector<std::vector<unsigned char>>& host, bool perf) {
  LibResult r;
  r.ran = true;
  if (L.status() != CUDNN_STATUS_SUCCESS) {
    r.status = L.status();
    r.why = "cudnnCreate failed";
    return r;
  }
  const bool device = !L.host();
  ImplScope impl_scope(L.api(), cfg_.opt.impl);
  std::vector<Buffer> scratch;  // outlives the Bound
  std::unique_ptr<Bound> bound;
  {
    Env env{L.api(), L.handle(), [&](size_t n) -> void* {
              scratch.emplace_back(n, device);
              scratch.back().fill_zero();
              return scratch.back().get();
            }};
    r.status = op.bind(env, &bound, &r.why);
    if (r.status != CUDNN_STATUS_SUCCESS) return r;
  }
  r.impl = bound->impl;
  // One buffer set, or several (rotated) for timing so that nothing stays in the cache between calls.
  size_t total = 0;
  for (const Arg& a : op.args) total += arg_bytes(a);
  int sets = 1;
  if (perf) {
    const size_t cache = device ? size_t{128} << 20 : size_t{64} << 20;
    sets = static_cast<int>(std::clamp<size_t>((cache + total - 1) / std::max<size_t>(total, 1), 1, 16));
    if (static_cast<double>(total) * sets > 8e9) sets = 1;
  }
  std::vector<std::vector<Buffer>> bufs(sets);
  std::vector<std::vector<void*>> ptrs(sets);
  for (int s = 0; s < sets; ++s) {
    for (size_t i = 0; i < op.args.size(); ++i) {
      bufs[s].emplace_back(arg_bytes(op.args[i]), device);
      bufs[s].back().upload(host[i].data(), host[i].size());
      ptrs[s].push_back(bufs[s].back().get());
    }
  }
  r.status = bound->run(ptrs[0].data());
  device_synchronize();
  if (r.status != CUDNN_STATUS_SUCCESS) {
    r.why = "the call returned " + std::string(status_name(r.status));
    return r;
  }
  r.out.resize(op.args.size());
  for (size_t i = 0; i < op.args.size(); ++i) {
    if (op.args[i].io == Io::in) continue;
    std::vector<unsigned char> b(host[i].size());
    bufs[0][i].download(b.data(), b.size());
    r.out[i] = to_logical(op.args[i].spec, b.data());
  }
  if (!perf) return r;

  // Warm-up, then samples of back-to-back calls between two device events (the wall clock on the CPU).
  Timer timer(device);
  for (int w = 0; w < 2; ++w) bound->run(ptrs[w % sets].data());
  timer.start();
  for (int s = 0; s < sets; ++s) bound->run(ptrs[s].data());
  const double t1 = std::max(timer.stop_ms() / sets, 1e-4);
  const double budget = cfg_.max_ms > 0 ? cfg_.max_ms : (device ? 2000.0 : 1000.0);
  const double target = device ? 1.0 : 5.0;  // ms per sample
  int reps = std::max(sets, static_cast<int>(std::ceil(target / t1)));
  reps = std::min(reps, 10000);
  int samples = cfg_.iters > 0 ? cfg_.iters : (device ? 20 : 5);
  samples = std::max(1, std::min(samples, static_cast<int>(budget / (reps * t1))));
  std::vector<double> times;
  for (int s = 0; s < samples; ++s) {
    flush_cache(device);
    timer.start();
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    for (int k = 0; k < reps; ++k) {
      const cudnnStatus_t e = bound->run(ptrs[k % sets].data());
      if (e != CUDNN_STATUS_SUCCESS) st = e;
    }
    times.push_back(timer.stop_ms() / reps);
    if (st != CUDNN_STATUS_SUCCESS) {
      r.status = st;
      r.why = "a timed call returned " + std::string(status_name(st));
      return r;
    }
  }
  r.t_min = *std::min_element(times.begin(), times.end());
  r.t_med = median(times);
  return r;
}

CaseResult Runner::run(const std::string& line, int index) {
  CaseResult c;
  c.index = index;
  c.problem = line;
  std::unique_ptr<Op> op;
  try {
    Problem p = parse_problem(line);
    apply_overrides(p, cfg_.dt, cfg_.layout, cfg_.dir);
    op = make_op(p, cfg_.opt);
    c.problem = op->str();
  } catch (const std::exception& e) {
    c.verdict = "FAILED";
    c.reason = std::string("parse: ") + e.what();
    return c;
  }
  c.flops = op->flops();
  c.bytes = op->bytes();
  if (!op->args.empty()) c.dtype = op->args[0].spec.dtype;
  if (cfg_.list) {
    c.verdict = "LISTED";
    return c;
  }
  for (const Arg& a : op->args) {
    if (dtype_size(a.spec.dtype) == 0) {
      c.verdict = "NOT_SUPPORTED";
      c.reason = std::string("the bench has no host conversion for ") + dtype_name(a.spec.dtype);
      return c;
    }
  }

  // Seeded inputs: the whole stored span random (gaps too); outputs poisoned unless they are read (beta != 0).
  std::mt19937_64 rng(cfg_.seed * 1000003u + static_cast<uint64_t>(index));
  std::vector<std::vector<unsigned char>> host(op->args.size());
  std::vector<ref::Tensor> values(op->args.size());
  for (size_t i = 0; i < op->args.size(); ++i) {
    const Arg& a = op->args[i];
    host[i].assign(arg_bytes(a), 0);
    const bool random = a.io != Io::out;
    std::uniform_real_distribution<double> u(a.positive ? std::max(a.lo, 0.1) : a.lo, a.hi);
    for (int64_t k = 0; k < a.spec.span(); ++k) {
      double v = random ? u(rng) : std::numeric_limits<double>::quiet_NaN();
      if (!dtype_is_float(a.spec.dtype)) v = random ? std::round(v) : 0x55;
      store(a.spec.dtype, host[i].data(), k, v);
    }
    values[i] = to_logical(a.spec, host[i].data());
  }
  op->prepare(values);
  for (size_t i = 0; i < op->args.size(); ++i) {
    if (op->args[i].io == Io::out) continue;
    from_logical(op->args[i].spec, values[i], host[i].data());
    values[i] = to_logical(op->args[i].spec, host[i].data());
  }

  try {
    c.lib = run_lib(*lib_, *op, host, cfg_.perf);
    if (vs_) c.vs = run_lib(*vs_, *op, host, cfg_.perf);
  } catch (const std::exception& e) {
    c.verdict = "FAILED";
    c.reason = e.what();
    return c;
  }
  if (c.lib.status != CUDNN_STATUS_SUCCESS) {
    c.verdict = c.lib.status == CUDNN_STATUS_NOT_SUPPORTED ? "NOT_SUPPORTED" : "FAILED";
    c.reason = std::string(status_name(c.lib.status)) + ": " + c.lib.why;
    return c;
  }
  c.verdict = cfg_.correctness ? "PASSED" : "TIMED";

  // Correctness: tests/ref, a custom check, or the CPU backend (--fast-ref).
  if (cfg_.correctness) {
    std::vector<ref::Tensor> expected;
    std::string why;
    bool have_expected = false;
    if (op->has_check()) {
      double err = 0;
      why = op->check(values, c.lib.out, &err);
      c.err = err;
      c.tol = 0;
      if (!why.empty()) {
        c.verdict = "FAILED";
        c.reason = why;
      }
    } else if (cpu_ref_) {
      LibResult cr = run_lib(*cpu_ref_, *op, host, false);
      if (cr.status != CUDNN_STATUS_SUCCESS) {
        why = std::string("the CPU reference returned ") + status_name(cr.status);
      } else {
        expected = cr.out;
        have_expected = true;
      }
    } else {
      expected = values;
      why = op->reference(values, &expected);
      have_expected = why.empty();
    }
    if (!op->has_check() && !have_expected) {
      c.verdict = "FAILED";
      c.reason = "no reference: " + why;
    } else if (have_expected) {
      double worst_ratio = 0;
      for (size_t i = 0; i < op->args.size(); ++i) {
        const Arg& a = op->args[i];
        if (a.io == Io::in || !a.compare) continue;
        const double tol = tolerance(a.spec.dtype) * (dtype_is_float(a.spec.dtype) ? op->tol_scale() : 1.0);
        const double e = compare(c.lib.out[i], expected[i], a.spec.dtype);
        if (e / tol >= worst_ratio) {
          worst_ratio = e / tol;
          c.err = e;
          c.tol = tol;
        }
        if (!(e <= tol)) {
          c.verdict = "FAILED";
          if (c.reason.empty()) c.reason = a.role + " differs from the reference";
        }
      }
    }
  }
  // The second library: the difference of its outputs from ours.
  if (vs_ && c.vs.status == CUDNN_STATUS_SUCCESS) {
    c.diff = 0;
    for (size_t i = 0; i < op->args.size(); ++i) {
      const Arg& a = op->args[i];
      if (a.io == Io::in || !a.compare) continue;
      c.diff = std::max(c.diff, compare(c.vs.out[i], c.lib.out[i], a.spec.dtype));
    }
  }
  return c;
}

}  // namespace bench
