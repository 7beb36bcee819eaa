// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "dispatch/conv_find.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <new>

#include "core/api_context.h"
#include "core/log.h"
#include "core/status.h"
#include "cpu/common/tensor_io.h"
#include "dispatch/conv_registry.h"
#include "dispatch/find_db.h"

#ifdef FREEDNN_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace fd::conv {
namespace {

// A zero-initialised buffer of the handle's backend (host memory, or device memory on the CUDA backend) that
// reports allocation failure instead of throwing.
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
    if (cudaMalloc(&device, bytes) != cudaSuccess || cudaMemset(device, 0, bytes) != cudaSuccess) {
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
  if (cudaMemcpy(p, staging.data(), staging.size(), cudaMemcpyHostToDevice) == cudaSuccess) return true;
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

// One warm-up run, then at least 3 and at most 9 timed runs (fewer than 9 once 50 ms have been spent).
cudnnStatus_t time_impl(const ConvImpl* impl, const ConvProblem& p, const ConvArgs& args, double* ms) {
  using clock = std::chrono::steady_clock;
  FD_TRY(impl->run(p, args));
  FD_TRY(wait(args.handle));
  std::vector<double> times;
  const auto start = clock::now();
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
  for (int a = 0; a < n; ++a) {
    FindResult r;
    r.algo = a;
    r.math = p.math;
    const ConvImpl* impl = nullptr;
    const Verdict v = try_select(p, h->backend, a, &impl);
    const cudnnStatus_t prep = v.ok() ? impl->prepare(h, p) : v.status;
    if (!v.ok()) {
      r.status = v.status;
      r.reason = v.reason;
    } else if (prep != CUDNN_STATUS_SUCCESS) {
      r.status = prep;
      r.reason = std::string(impl->id()) + " could not prepare its per-handle state (see the log)";
    } else {
      r.impl = impl->id();
      r.memory = impl->workspace_size(p);
      r.deterministic = impl->deterministic();
      r.math = impl->math_type(p);
      ConvArgs args;
      args.handle = h;
      args.in = bufs.in;
      args.in2 = bufs.in2;
      args.out = bufs.out;
      args.alpha = 1.0;
      args.beta = 0.0;
      Buffer ws;
      bool have_ws = true;
      if (user != nullptr) {
        if (r.memory > bufs.workspace_size) {
          have_ws = false;
          r.status = CUDNN_STATUS_ALLOC_FAILED;
          r.reason = "needs " + std::to_string(r.memory) + " bytes of workspace, workSpaceSizeInBytes is " +
                     std::to_string(bufs.workspace_size);
        } else {
          args.workspace = bufs.workspace;
          args.workspace_size = bufs.workspace_size;
        }
      } else if (r.memory > 0) {
        if (!ws.alloc(h, r.memory)) {
          have_ws = false;
          r.status = CUDNN_STATUS_ALLOC_FAILED;
          r.reason = "cannot allocate " + std::to_string(r.memory) + " bytes of workspace";
        } else {
          args.workspace = ws.get();
          args.workspace_size = r.memory;
        }
      }
      if (have_ws) {
        double ms = 0;
        r.status = time_impl(impl, p, args, &ms);
        if (r.status == CUDNN_STATUS_SUCCESS) {
          r.time_ms = static_cast<float>(ms);
          chosen[static_cast<size_t>(a)] = impl;
        } else {
          r.reason = std::string(impl->id()) + " failed";
        }
      }
    }
    if (r.status != CUDNN_STATUS_SUCCESS) {
      r.time_ms = -1.0f;
      if (r.status != CUDNN_STATUS_ALLOC_FAILED) r.memory = 0;
    }
    log_result(p, r);
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
    ConvArgs args;
    args.handle = h;
    args.in = bufs.in;
    args.in2 = bufs.in2;
    args.out = bufs.out;
    args.workspace = bufs.workspace;
    args.workspace_size = bufs.workspace_size;
    FD_TRY(chosen[static_cast<size_t>(best.algo)]->run(p, args));
  }
  std::vector<find_db::Entry> entries;
  for (const FindResult& r : *results)
    if (r.status == CUDNN_STATUS_SUCCESS) entries.push_back({algo_name(p.dir, r.algo), r.time_ms, r.memory, r.impl});
  if (!entries.empty()) find_db::store(device_tag(h), p.key(), entries);
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
