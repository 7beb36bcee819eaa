// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "dispatch/conv_find.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

#include "core/api_context.h"
#include "core/env.h"
#include "core/log.h"
#include "core/status.h"
#include "cpu/common/tensor_io.h"
#include "dispatch/conv_registry.h"
#include "dispatch/find_db.h"
#include "dispatch/impl_choice.h"

#ifdef FREEDNN_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace fd::conv {
namespace {

// A zero-initialised buffer of the handle's backend (host memory, or device memory on the CUDA backend, zeroed on
// the handle's stream) that reports allocation failure instead of throwing.
struct Buffer {
  std::unique_ptr<unsigned char[]> host;
  void* device = nullptr;
  ~Buffer() {
#ifdef FREEDNN_WITH_CUDA
    if (device != nullptr) (void)cudaFree(device);
#endif
  }
  bool alloc(const cudnnContext* h, size_t bytes) {
    if (bytes == 0) bytes = 1;
    if (h->on_cpu()) {
      host.reset(new (std::nothrow) unsigned char[bytes]());
      return host != nullptr;
    }
#ifdef FREEDNN_WITH_CUDA
    if (cudaMalloc(&device, bytes) != cudaSuccess || cudaMemsetAsync(device, 0, bytes, h->stream) != cudaSuccess) {
      (void)cudaGetLastError();
      if (device != nullptr) (void)cudaFree(device);
      device = nullptr;
      return false;
    }
    return true;
#else
    return false;
#endif
  }
  void* get() const { return host ? static_cast<void*>(host.get()) : device; }
};

// Small deterministic values, so that the timed runs see ordinary numbers (no denormals, no NaN).
bool fill_pattern(const cudnnContext* h, const cudnnTensorStruct& d, void* p) {
  std::vector<double> v(static_cast<size_t>(d.element_count()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(static_cast<int>(i % 7) - 3) * 0.125;
  if (h->on_cpu()) {
    cpu::write_tensor(d, p, v.data(), 1.0, 0.0);
    return true;
  }
#ifdef FREEDNN_WITH_CUDA
  std::vector<unsigned char> staging(d.size_in_bytes());
  cpu::write_tensor(d, staging.data(), v.data(), 1.0, 0.0);
  // On the handle's stream, ahead of the timed runs (the legacy stream does not order a non-blocking one). From
  // pageable memory the call returns once the staging buffer has been copied out, so it may be freed then.
  if (cudaMemcpyAsync(p, staging.data(), staging.size(), cudaMemcpyHostToDevice, h->stream) == cudaSuccess) return true;
  (void)cudaGetLastError();
#endif
  return false;
}

// Waits for the handle's queued work (CUDA); nothing on the CPU.
cudnnStatus_t wait(const cudnnContext* h) {
#ifdef FREEDNN_WITH_CUDA
  if (!h->on_cpu()) {
    const cudaError_t e = cudaStreamSynchronize(h->stream);
    FD_CHECK(e == cudaSuccess, CUDNN_STATUS_EXECUTION_FAILED, "timing a convolution: %s", cudaGetErrorString(e));
  }
#else
  (void)h;
#endif
  return CUDNN_STATUS_SUCCESS;
}

const cudnnTensorStruct& in_desc(const ConvProblem& p) { return p.dir == ConvDir::bwd_data ? *p.y : *p.x; }
const cudnnTensorStruct& in2_desc(const ConvProblem& p) {
  return p.dir == ConvDir::bwd_filter ? *p.y : p.w->as_tensor;
}
const cudnnTensorStruct& out_desc(const ConvProblem& p) {
  return p.dir == ConvDir::fwd ? *p.y : p.dir == ConvDir::bwd_data ? *p.x : p.w->as_tensor;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#ifdef FREEDNN_WITH_CUDA
// GPU time of `reps` back-to-back runs between two events on the handle's stream, in ms per run.
cudnnStatus_t event_time(const ConvImpl* impl, const ConvProblem& p, const ConvArgs& args, int reps, double* ms) {
  cudaStream_t s = args.handle->stream;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  FD_CHECK(cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess,
           CUDNN_STATUS_EXECUTION_FAILED, "timing a convolution: cannot create CUDA events");
  cudnnStatus_t st = cudaEventRecord(e0, s) == cudaSuccess ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_EXECUTION_FAILED;
  for (int i = 0; i < reps && st == CUDNN_STATUS_SUCCESS; ++i) st = impl->run(p, args);
  float t = 0;
  if (st == CUDNN_STATUS_SUCCESS && (cudaEventRecord(e1, s) != cudaSuccess || cudaEventSynchronize(e1) != cudaSuccess ||
                                     cudaEventElapsedTime(&t, e0, e1) != cudaSuccess))
    st = CUDNN_STATUS_EXECUTION_FAILED;
  (void)cudaEventDestroy(e0);
  (void)cudaEventDestroy(e1);
  FD_CHECK(st == CUDNN_STATUS_SUCCESS, st, "timing %s failed", impl->id());
  *ms = static_cast<double>(t) / reps;
  return CUDNN_STATUS_SUCCESS;
}
#endif

// One warm-up run, then the median of at least 3 and at most 9 timed samples (fewer than 9 once 50 ms have
// been spent). On the GPU a sample is CUDA-event time over enough back-to-back runs to last ~0.2 ms, so that
// launch and synchronization costs do not blur the ranking of short kernels; on the CPU it is wall time.
cudnnStatus_t time_impl(const ConvImpl* impl, const ConvProblem& p, const ConvArgs& args, double* ms) {
  using clock = std::chrono::steady_clock;
  FD_TRY(impl->run(p, args));
  FD_TRY(wait(args.handle));
  std::vector<double> times;
  const auto start = clock::now();
#ifdef FREEDNN_WITH_CUDA
  if (!args.handle->on_cpu()) {
    double one = 0;
    FD_TRY(event_time(impl, p, args, 1, &one));
    const int reps = one >= 0.2 ? 1 : std::min(64, static_cast<int>(0.2 / std::max(one, 1e-3)) + 1);
    while (times.size() < 9) {
      double t = 0;
      FD_TRY(event_time(impl, p, args, reps, &t));
      times.push_back(t);
      if (times.size() >= 3 && std::chrono::duration<double, std::milli>(clock::now() - start).count() > 50.0) break;
    }
    *ms = median(times);
    return CUDNN_STATUS_SUCCESS;
  }
#endif
  while (times.size() < 9) {
    const auto t0 = clock::now();
    FD_TRY(impl->run(p, args));
    FD_TRY(wait(args.handle));
    const auto t1 = clock::now();
    times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    if (times.size() >= 3 && std::chrono::duration<double, std::milli>(t1 - start).count() > 50.0) break;
  }
  *ms = median(times);
  return CUDNN_STATUS_SUCCESS;
}

// The find buffers as a run's arguments: the data, the caller's workspace (as given), alpha 1 and beta 0.
ConvArgs buffer_args(cudnnContext* h, const FindBuffers& bufs) {
  ConvArgs args;
  args.handle = h;
  args.in = bufs.in;
  args.in2 = bufs.in2;
  args.out = bufs.out;
  args.workspace = bufs.workspace;
  args.workspace_size = bufs.workspace_size;
  return args;
}

// Times one implementation on the find buffers (the caller's workspace, or one allocated here). Fills c's
// time (or its failure reason) and returns its status.
cudnnStatus_t time_candidate(cudnnContext* h, const ConvImpl* impl, const ConvProblem& p, const FindBuffers& bufs,
                             bool user_ws, FindResult* c) {
  ConvArgs args = buffer_args(h, bufs);
  Buffer ws;
  if (user_ws) {
    if (c->memory > bufs.workspace_size) {
      c->reason = "needs " + std::to_string(c->memory) + " bytes of workspace, workSpaceSizeInBytes is " +
                  std::to_string(bufs.workspace_size);
      return CUDNN_STATUS_ALLOC_FAILED;
    }
  } else {
    args.workspace = nullptr;
    args.workspace_size = 0;
    if (c->memory > 0) {
      if (!ws.alloc(h, c->memory)) {
        c->reason = "cannot allocate " + std::to_string(c->memory) + " bytes of workspace";
        return CUDNN_STATUS_ALLOC_FAILED;
      }
      args.workspace = ws.get();
      args.workspace_size = c->memory;
    }
  }
  double ms = 0;
  const cudnnStatus_t st = time_impl(impl, p, args, &ms);
  if (st == CUDNN_STATUS_SUCCESS)
    c->time_ms = static_cast<float>(ms);
  else
    c->reason = std::string(impl->id()) + " failed";
  return st;
}

// FREEDNN_FIND_LOG=<file>: every timed implementation is appended as one tab-separated line (problem, algorithm,
// implementation, measured ms, the implementation's uncalibrated cost estimate in ms): the data
// tools/calibrate_conv.py fits the _v7 cost model to. Written only by Find, so timed calls are not slowed.
void append_find_log(const ConvProblem& p, const FindResult& r, const ConvImpl* impl) {
  static const std::string path = env_string("FREEDNN_FIND_LOG");
  if (path.empty() || r.status != CUDNN_STATUS_SUCCESS) return;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (FILE* f = std::fopen(path.c_str(), "a")) {
    std::fprintf(f, "%s\t%s\t%s\t%.6g\t%.6g\n", p.to_string().c_str(), algo_name(p.dir, r.algo), r.impl.c_str(),
                 static_cast<double>(r.time_ms), impl->cost_estimate(p) * 1e3);
    std::fclose(f);
  }
}

void log_result(const ConvProblem& p, const FindResult& r) {
  if (!log::enabled(CUDNN_SEV_INFO)) return;
  std::string body = std::string("    find: ") + algo_name(p.dir, r.algo);
  if (r.status == CUDNN_STATUS_SUCCESS) {
    char buf[96];
    std::snprintf(buf, sizeof buf, " runs %s: %.4g ms (median), workspace %zu bytes", r.impl.c_str(),
                  static_cast<double>(r.time_ms), r.memory);
    body += buf;
  } else {
    body += std::string(" rejected (") + cudnnGetErrorString(r.status) + "): " + r.reason;
  }
  log::emit(CUDNN_SEV_INFO, current_api_context().function, body, CUDNN_STATUS_SUCCESS);
}

}  // namespace

std::string device_tag(const cudnnContext* h) {
  return h == nullptr || h->on_cpu() ? std::string("cpu") : "cuda" + std::to_string(h->device);
}

cudnnStatus_t find(cudnnContext* h, const ConvProblem& p, const FindBuffers* user,
                   std::vector<FindResult>* results) {
  results->clear();
  // The library's own buffers (non-Ex): inputs filled with a fixed pattern, the output zeroed.
  Buffer own_in, own_in2, own_out;
  FindBuffers bufs;
  if (user != nullptr) {
    bufs = *user;
  } else {
    FD_CHECK(own_in.alloc(h, in_desc(p).size_in_bytes()) && own_in2.alloc(h, in2_desc(p).size_in_bytes()) &&
                 own_out.alloc(h, out_desc(p).size_in_bytes()),
             CUDNN_STATUS_ALLOC_FAILED, "cannot allocate the input and output buffers of %s", p.to_string().c_str());
    FD_CHECK(fill_pattern(h, in_desc(p), own_in.get()) && fill_pattern(h, in2_desc(p), own_in2.get()),
             CUDNN_STATUS_EXECUTION_FAILED, "cannot fill the input buffers of %s", p.to_string().c_str());
    bufs.in = own_in.get();
    bufs.in2 = own_in2.get();
    bufs.out = own_out.get();
  }

  const int n = algo_count(p.dir);
  std::vector<const ConvImpl*> chosen(static_cast<size_t>(n), nullptr);
  // The pointers as the candidates see them. One that refuses them (an Ex call's tensors at odd offsets) is not run;
  // and then what this Find measures is a fallback, not the algorithm's choice for the problem: neither recorded nor
  // stored, so that later calls with aligned pointers keep the fast implementation.
  const ConvArgs ptrs = buffer_args(h, bufs);
  bool odd_pointers = false;
  for (int a = 0; a < n; ++a) {
    FindResult r;
    r.algo = a;
    r.math = p.math;
    const ConvImpl* first = nullptr;
    const Verdict v = try_select(p, h->backend, a, &first);
    if (!v.ok()) {
      r.status = v.status;
      r.reason = v.reason;
      log_result(p, r);
    } else {
      // Every implementation behind this enum that accepts the problem is timed; the fastest one is what the
      // enum means for this problem from now on (dispatch/impl_choice.h).
      bool refused = false;
      for (const ConvImpl* impl : candidates(p, h->backend, a)) {
        FindResult c;
        c.algo = a;
        c.impl = impl->id();
        c.deterministic = impl->deterministic();
        c.math = impl->math_type(p);
        const Verdict takes = impl->accepts_pointers(p, ptrs);
        c.status = takes.ok() ? impl->prepare(h, p) : takes.status;  // prepare: per-handle state (cuFFT plans)
        if (!takes.ok()) {
          c.reason = takes.reason;
          refused = true;
        } else if (c.status != CUDNN_STATUS_SUCCESS) {
          c.reason = std::string(impl->id()) + " could not prepare its per-handle state (see the log)";
        } else {
          c.memory = impl->workspace_size(p);
          c.status = time_candidate(h, impl, p, bufs, user != nullptr, &c);
        }
        log_result(p, c);
        append_find_log(p, c, impl);
        const bool ok = c.status == CUDNN_STATUS_SUCCESS, best_ok = r.status == CUDNN_STATUS_SUCCESS;
        if ((ok && (!best_ok || c.time_ms < r.time_ms)) || (!ok && !best_ok && r.impl.empty())) {
          r = c;
          if (ok) chosen[static_cast<size_t>(a)] = impl;
        }
      }
      if (r.status == CUDNN_STATUS_SUCCESS && !refused) choice::remember(device_tag(h), p.key(), a, r.impl);
      odd_pointers = odd_pointers || refused;
    }
    if (r.status != CUDNN_STATUS_SUCCESS) {
      r.time_ms = -1.0f;
      if (r.status != CUDNN_STATUS_ALLOC_FAILED) r.memory = 0;
    }
    results->push_back(r);
  }
  std::stable_sort(results->begin(), results->end(), [](const FindResult& a, const FindResult& b) {
    const bool ao = a.status == CUDNN_STATUS_SUCCESS, bo = b.status == CUDNN_STATUS_SUCCESS;
    if (ao != bo) return ao;
    return ao && a.time_ms < b.time_ms;
  });

  const FindResult& best = results->front();
  if (user != nullptr && best.status == CUDNN_STATUS_SUCCESS) {
    // Leave the winner's result in the caller's output, so it equals a direct call with that algorithm.
    FD_TRY(chosen[static_cast<size_t>(best.algo)]->run(p, buffer_args(h, bufs)));
  }
  std::vector<find_db::Entry> entries;
  for (const FindResult& r : *results)
    if (r.status == CUDNN_STATUS_SUCCESS) entries.push_back({algo_name(p.dir, r.algo), r.time_ms, r.memory, r.impl});
  if (!entries.empty() && !odd_pointers) find_db::store(device_tag(h), p.key(), entries);
  return CUDNN_STATUS_SUCCESS;
}

std::vector<std::pair<int, float>> db_ranking(const cudnnContext* h, const ConvProblem& p) {
  std::vector<std::pair<int, float>> out;
  std::vector<find_db::Entry> entries;
  if (!find_db::lookup(device_tag(h), p.key(), &entries)) return out;
  const int n = algo_count(p.dir);
  for (const find_db::Entry& e : entries) {
    for (int a = 0; a < n; ++a) {
      if (e.algo != algo_name(p.dir, a)) continue;
      bool seen = false;
      for (const auto& o : out) seen = seen || o.first == a;
      if (!seen) out.emplace_back(a, static_cast<float>(e.time_ms));
    }
  }
  return out;
}

}  // namespace fd::conv
