// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "dtype.h"
#include "memory.h"
#include "peak.h"

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

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Counter-based random numbers (splitmix64 of key + k): element k of a stream does not depend on the thread
// that computes it, so the data are the same for any thread count.
inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Fills the whole stored span of an argument (gaps too): inputs uniform in [lo, hi] (integers rounded), outputs
// poisoned (NaN; integers 0x55).
void fill_arg(const Arg& a, void* data, uint64_t key) {
  const int64_t n = a.spec.span();
  const cudnnDataType_t t = a.spec.dtype;
  const bool fl = dtype_is_float(t), poison = a.io == Io::out;
  const double lo = a.positive ? std::max(a.lo, 0.1) : a.lo, width = a.hi - lo;
  const uint64_t k0 = mix64(key);
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int64_t k = 0; k < n; ++k) {
    double v;
    if (poison) {
      v = fl ? std::numeric_limits<double>::quiet_NaN() : 0x55;
    } else {
      v = lo + width * static_cast<double>(mix64(k0 + static_cast<uint64_t>(k)) >> 11) * 0x1p-53;
      if (!fl) v = std::round(v);
    }
    store(t, data, k, v);
  }
}

// Logical indices compared between libraries: all of them up to kSample, else one per stride, jittered inside
// the stride so that a regular structure (channels, rows) cannot hide from the sample.
std::vector<int64_t> sample_indices(int64_t count) {
  std::vector<int64_t> idx;
  if (count <= kSample) {
    idx.resize(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) idx[static_cast<size_t>(i)] = i;
    return idx;
  }
  const int64_t step = (count + kSample - 1) / kSample;
  for (int64_t b = 0; b < count; b += step) {
    const int64_t j = b + static_cast<int64_t>(mix64(static_cast<uint64_t>(b)) % static_cast<uint64_t>(step));
    idx.push_back(std::min(j, count - 1));
  }
  return idx;
}

// -v: the phases of each case on stderr, with their wall time since the previous mark.
struct Phases {
  bool on;
  std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
  void mark(const char* what) {
    if (!on) return;
    const auto now = std::chrono::steady_clock::now();
    std::fprintf(stderr, "  [%s %.3f s]", what, std::chrono::duration<double>(now - t).count());
    t = now;
  }
};

bool tf32_disabled_by_env() {
  const char* e = std::getenv("NVIDIA_TF32_OVERRIDE");
  return e != nullptr && std::string(e) == "0";
}

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

// One library's bound call over its buffer sets (several, rotated, so that nothing stays in the cache between
// timed calls). Members in this order: the Bound goes before the scratch it may point into.
struct Runner::Prepared {
  Library* L = nullptr;
  std::vector<Buffer> scratch;
  std::unique_ptr<Bound> bound;
  std::vector<std::vector<Buffer>> bufs;
  std::vector<std::vector<void*>> ptrs;
  bool device = false;
};

Runner::Runner(Api* lib, Api* vs, const Config& cfg) : cfg_(cfg) {
  lib_ = std::make_unique<Library>(lib, false);
  if (vs) vs_ = std::make_unique<Library>(vs, false);
  if (cfg.fast_ref) cpu_ref_ = std::make_unique<Library>(lib, true);
}

Runner::~Runner() = default;

bool Runner::device_timing() const { return !lib_->host(); }

LibResult Runner::run_lib(Library& L, Op& op, const std::vector<Buffer>& host, bool perf, bool full, bool sample,
                          std::unique_ptr<Prepared>* keep) {
  LibResult r;
  r.ran = true;
  if (keep) keep->reset();
  if (L.status() != CUDNN_STATUS_SUCCESS) {
    r.status = L.status();
    r.why = "cudnnCreate failed";
    return r;
  }
  const bool device = !L.host();
  Phases ph{cfg_.verbose};
  r.tf32 = device && op.allows_tf32() && !tf32_disabled_by_env();
  ImplScope impl_scope(L.api(), cfg_.opt.impl);
  auto pp = std::make_unique<Prepared>();
  Prepared& p = *pp;
  p.L = &L;
  p.device = device;
  {
    Env env{L.api(), L.handle(), [&](size_t n) -> void* {
              p.scratch.emplace_back(n, device);
              p.scratch.back().fill_zero();
              return p.scratch.back().get();
            }};
    r.status = op.bind(env, &p.bound, &r.why);
    if (r.status != CUDNN_STATUS_SUCCESS) return r;
  }
  r.impl = p.bound->impl;
  ph.mark("bind");
  // One buffer set, or several (rotated) for timing so that nothing stays in the cache between calls. The first
  // set is copied from the host data, the others from the first (on the device when the data live there).
  size_t total = 0;
  for (const Arg& a : op.args) total += arg_bytes(a);
  int sets = 1;
  if (perf) {
    const size_t cache = device ? size_t{128} << 20 : size_t{64} << 20;
    sets = static_cast<int>(std::clamp<size_t>((cache + total - 1) / std::max<size_t>(total, 1), 1, 16));
    if (static_cast<double>(total) * sets > 8e9) sets = 1;
  }
  p.bufs.resize(sets);
  p.ptrs.resize(sets);
  for (int s = 0; s < sets; ++s) {
    for (size_t i = 0; i < op.args.size(); ++i) {
      const size_t n = arg_bytes(op.args[i]);
      p.bufs[s].emplace_back(n, device);
      if (s == 0) p.bufs[s].back().upload(host[i].get(), n);
      else p.bufs[s].back().copy_from(p.bufs[0][i], n);
      p.ptrs[s].push_back(p.bufs[s].back().get());
    }
  }
  ph.mark("buffers");
  r.status = p.bound->run(p.ptrs[0].data());
  device_synchronize();
  ph.mark("first call");
  // freednn counts what the path it took moves (it may keep data on chip between passes): that count, where it
  // has one, replaces the op's pass model
  if (r.status == CUDNN_STATUS_SUCCESS && L.api().freednnGetLastCallBytesMoved != nullptr) {
    double b = -1;
    int n = 0;
    if (L.api().freednnGetLastCallBytesMoved(L.handle(), &b, &n) == CUDNN_STATUS_SUCCESS && b >= 0 && n > 0) {
      r.bytes_moved = b;
      r.passes = n;
    }
  }
  if (r.status != CUDNN_STATUS_SUCCESS) {
    r.why = "the call returned " + std::string(status_name(r.status));
    return r;
  }
  // Outputs: every element for the correctness check, a sample for the comparison with --vs.
  r.out.resize(op.args.size());
  r.sampled.resize(op.args.size());
  if (full || sample) {
    for (size_t i = 0; i < op.args.size(); ++i) {
      const Arg& a = op.args[i];
      if (a.io == Io::in) continue;
      const size_t n = arg_bytes(a);
      Buffer staged;
      const void* data = p.bufs[0][i].get();
      if (device) {
        staged = Buffer::staging(n);
        p.bufs[0][i].download(staged.get(), n);
        data = staged.get();
      }
      if (full) r.out[i] = to_logical(a.spec, data);
      if (sample) r.sampled[i] = gather_logical(a.spec, data, sample_indices(a.spec.count()));
    }
  }
  ph.mark("outputs");
  if (!perf) return r;
  if (keep) {
    *keep = std::move(pp);
    return r;
  }
  time_calls({{&p, &r}});
  ph.mark("timing");
  return r;
}

void Runner::time_calls(const std::vector<std::pair<Prepared*, LibResult*>>& calls) {
  // Per call: warm-up, the time of one pass over the buffer sets, and from it the calls per sample (about 1 ms on
  // a GPU) and the samples its budget allows.
  struct Plan {
    Prepared* p;
    LibResult* r;
    std::unique_ptr<Timer> timer;
    int reps = 1, samples = 1;
    std::vector<double> times;
    double wall = 0;
    bool failed = false;
  };
  std::vector<Plan> plans;
  for (const auto& [p, r] : calls) {
    Plan pl{p, r, std::make_unique<Timer>(p->device), 1, 1, {}, 0.0, false};
    const auto t0 = std::chrono::steady_clock::now();
    ImplScope impl_scope(p->L->api(), cfg_.opt.impl);
    const int sets = static_cast<int>(p->ptrs.size());
    for (int w = 0; w < 2; ++w) p->bound->run(p->ptrs[w % sets].data());
    pl.timer->start();
    for (int s = 0; s < sets; ++s) p->bound->run(p->ptrs[s].data());
    const double t1 = std::max(pl.timer->stop_ms() / sets, 1e-4);
    const double budget = cfg_.max_ms > 0 ? cfg_.max_ms : (p->device ? 2000.0 : 1000.0);
    const double target = p->device ? 1.0 : 5.0;  // ms per sample
    pl.reps = std::min(std::max(sets, static_cast<int>(std::ceil(target / t1))), 10000);
    const int samples = cfg_.iters > 0 ? cfg_.iters : (p->device ? 20 : 5);
    pl.samples = std::max(1, std::min(samples, static_cast<int>(budget / (pl.reps * t1))));
    pl.wall = seconds_since(t0);
    plans.push_back(std::move(pl));
  }
  // Sample s of every call, then sample s + 1 of every call (interleaved), or one call's samples after the other's.
  auto sample = [&](Plan& pl) {
    const auto t0 = std::chrono::steady_clock::now();
    ImplScope impl_scope(pl.p->L->api(), cfg_.opt.impl);
    const int sets = static_cast<int>(pl.p->ptrs.size());
    flush_cache(pl.p->device);
    pl.timer->start();
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    for (int k = 0; k < pl.reps; ++k) {
      const cudnnStatus_t e = pl.p->bound->run(pl.p->ptrs[k % sets].data());
      if (e != CUDNN_STATUS_SUCCESS) st = e;
    }
    pl.times.push_back(pl.timer->stop_ms() / pl.reps);
    pl.wall += seconds_since(t0);
    if (st != CUDNN_STATUS_SUCCESS) {
      pl.failed = true;
      pl.r->status = st;
      pl.r->why = "a timed call returned " + std::string(status_name(st));
    }
  };
  int most = 0;
  for (const Plan& pl : plans) most = std::max(most, pl.samples);
  if (cfg_.interleave) {
    for (int s = 0; s < most; ++s)
      for (Plan& pl : plans)
        if (s < pl.samples && !pl.failed) sample(pl);
  } else {
    for (Plan& pl : plans)
      for (int s = 0; s < pl.samples && !pl.failed; ++s) sample(pl);
  }
  for (Plan& pl : plans) {
    pl.r->timed_s = pl.wall;
    if (pl.failed || pl.times.empty()) continue;
    pl.r->t_min = *std::min_element(pl.times.begin(), pl.times.end());
    pl.r->t_med = median(pl.times);
  }
}

CaseResult Runner::run(const std::string& line, int index) {
  const auto t0 = std::chrono::steady_clock::now();
  CaseResult c = run_case(line, index);
  c.wall_s = seconds_since(t0);
  return c;
}

CaseResult Runner::run_case(const std::string& line, int index) {
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
  c.bytes_moved = op->bytes_moved();
  c.passes = op->passes();
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
  // Filled in place in (page-locked) staging buffers by a counter-based generator over the OpenMP threads; logical
  // (double) copies only where something needs them: the reference, or an op's prepare().
  Phases ph{cfg_.verbose};
  const uint64_t case_key = cfg_.seed * 1000003u + static_cast<uint64_t>(index);
  const size_t nargs = op->args.size();
  std::vector<Buffer> host;
  host.reserve(nargs);
  for (size_t i = 0; i < nargs; ++i) {
    host.push_back(Buffer::staging(arg_bytes(op->args[i])));
    fill_arg(op->args[i], host[i].get(), mix64(case_key) + 0x1000193u * (i + 1));
  }
  std::vector<ref::Tensor> values(nargs);
  std::vector<int> prep_reads, prep_writes;
  op->prepare_io(&prep_reads, &prep_writes);
  if (cfg_.correctness) {
    for (size_t i = 0; i < nargs; ++i) values[i] = to_logical(op->args[i].spec, host[i].get());
  } else {
    for (int i : prep_reads) values[i] = to_logical(op->args[i].spec, host[i].get());
  }
  ph.mark("fill");
  if (!prep_reads.empty() || !prep_writes.empty()) {
    op->prepare(values);
    ph.mark("prepare");
    for (int i : prep_writes) {
      if (op->args[i].io == Io::out) continue;
      from_logical(op->args[i].spec, values[i], host[i].get());
      if (cfg_.correctness) values[i] = to_logical(op->args[i].spec, host[i].get());
    }
  }

  ph.mark("inputs");
  const bool full = cfg_.correctness;
  try {
    if (vs_ && cfg_.perf && cfg_.interleave) {
      // Both calls prepared first, then their timing samples alternate: a drift of the clocks or of the machine's
      // load during the case falls on both libraries alike.
      std::unique_ptr<Prepared> pl, pv;
      c.lib = run_lib(*lib_, *op, host, true, full, true, &pl);
      c.vs = run_lib(*vs_, *op, host, true, false, true, &pv);
      std::vector<std::pair<Prepared*, LibResult*>> calls;
      if (pl) calls.push_back({pl.get(), &c.lib});
      if (pv) calls.push_back({pv.get(), &c.vs});
      time_calls(calls);
    } else {
      c.lib = run_lib(*lib_, *op, host, cfg_.perf, full, vs_ != nullptr);
      if (vs_) c.vs = run_lib(*vs_, *op, host, cfg_.perf, false, true);
    }
  } catch (const std::exception& e) {
    c.verdict = "FAILED";
    c.reason = e.what();
    return c;
  }
  c.tf32 = c.lib.tf32;
  ph.mark("libraries");
  if (c.lib.status != CUDNN_STATUS_SUCCESS) {
    c.verdict = c.lib.status == CUDNN_STATUS_NOT_SUPPORTED ? "NOT_SUPPORTED" : "FAILED";
    c.reason = std::string(status_name(c.lib.status)) + ": " + c.lib.why;
    return c;
  }
  c.verdict = cfg_.correctness ? "PASSED" : "TIMED";
  if (c.lib.bytes_moved >= 0) {  // freednn's count for the path this call took
    c.bytes_moved = c.lib.bytes_moved;
    c.passes = c.lib.passes;
  }
  if (cfg_.perf && cfg_.size_copy && c.bytes_moved > 0 && c.passes > 0 && c.lib.t_med > 0)
    c.copy_same_ms = same_size_copy_ms(device_timing(), c.bytes_moved, c.passes);

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
      LibResult cr = run_lib(*cpu_ref_, *op, host, false, true, false);
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
      for (size_t i = 0; i < nargs; ++i) {
        const Arg& a = op->args[i];
        if (a.io == Io::in || !a.compare) continue;
        // TF32 keeps 10 mantissa bits, as f16 does: float results of a TF32-capable call get f16's tolerance.
        const cudnnDataType_t tt = c.tf32 && a.spec.dtype == CUDNN_DATA_FLOAT ? CUDNN_DATA_HALF : a.spec.dtype;
        const double tol = tolerance(tt) * (dtype_is_float(a.spec.dtype) ? op->tol_scale() : 1.0);
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
  ph.mark("check");
  if (cfg_.verbose) std::fprintf(stderr, "\n");
  // The second library: the difference of its outputs from ours, on the sampled elements.
  if (vs_ && c.vs.status == CUDNN_STATUS_SUCCESS) {
    c.diff = 0;
    for (size_t i = 0; i < nargs; ++i) {
      const Arg& a = op->args[i];
      if (a.io == Io::in || !a.compare) continue;
      c.diff = std::max(c.diff, compare(c.vs.sampled[i], c.lib.sampled[i], a.spec.dtype));
    }
  }
  return c;
}

}  // namespace bench
