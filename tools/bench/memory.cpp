// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "memory.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

#ifdef BENCH_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace bench {
namespace {

#ifdef BENCH_WITH_CUDA
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
#endif

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

bool gpu_available() {
#ifdef BENCH_WITH_CUDA
  static const bool ok = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return n > 0;
  }();
  return ok;
#else
  return false;
#endif
}

std::string device_name() {
#ifdef BENCH_WITH_CUDA
  if (gpu_available()) {
    cudaDeviceProp p{};
    int dev = 0;
    cudaGetDevice(&dev);
    if (cudaGetDeviceProperties(&p, dev) == cudaSuccess) return p.name;
  }
#endif
  return "cpu";
}

namespace {

// The pool: released blocks by capacity, per memory kind, up to a cap of unused bytes per kind. Never destroyed
// (device memory must not be freed after the CUDA runtime has shut down at exit).
struct Pool {
  std::multimap<size_t, void*> free[3];
  size_t free_bytes[3] = {0, 0, 0};
};
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}
constexpr size_t kPoolCap[3] = {size_t{4} << 30, size_t{8} << 30, size_t{32} << 30};  // host, pinned, device

size_t capacity_for(size_t n) {
  const size_t g = n >= (size_t{1} << 20) ? size_t{2} << 20 : 256;  // big blocks in 2 MiB steps: more reuse
  return (std::max<size_t>(n, 1) + g - 1) / g * g;
}

void raw_free(void* p, Mem k) {
#ifdef BENCH_WITH_CUDA
  if (k == Mem::device) {
    cudaFree(p);
    return;
  }
  if (k == Mem::pinned) {
    cudaFreeHost(p);
    return;
  }
#endif
  (void)k;
  std::free(p);
}

void trim(Mem k, size_t keep) {
  Pool& P = pool();
  const int i = static_cast<int>(k);
  while (P.free_bytes[i] > keep && !P.free[i].empty()) {
    auto it = P.free[i].begin();  // smallest first: large blocks are the costly ones to allocate again
    P.free_bytes[i] -= it->first;
    raw_free(it->second, k);
    P.free[i].erase(it);
  }
}

void* raw_alloc(size_t cap, Mem k) {
  void* p = nullptr;
#ifdef BENCH_WITH_CUDA
  if (k == Mem::device) {
    if (cudaMalloc(&p, cap) != cudaSuccess) {
      (void)cudaGetLastError();
      trim(Mem::device, 0);
      check(cudaMalloc(&p, cap), "cudaMalloc");
    }
    return p;
  }
  if (k == Mem::pinned) {
    if (cudaMallocHost(&p, cap) != cudaSuccess) {
      (void)cudaGetLastError();
      trim(Mem::pinned, 0);
      check(cudaMallocHost(&p, cap), "cudaMallocHost");
    }
    return p;
  }
#else
  if (k != Mem::host) throw std::runtime_error("device memory requested in a bench built without CUDA");
#endif
  p = std::aligned_alloc(256, cap);
  if (p == nullptr) {
    trim(Mem::host, 0);
    p = std::aligned_alloc(256, cap);
  }
  if (p == nullptr) throw std::runtime_error("out of host memory");
  return p;
}

// memcpy / memset split over the OpenMP threads for large host blocks.
void host_copy(void* dst, const void* src, size_t n) {
  const size_t chunk = size_t{4} << 20;
  if (n < 2 * chunk) {
    std::memcpy(dst, src, n);
    return;
  }
  const int64_t parts = static_cast<int64_t>((n + chunk - 1) / chunk);
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < parts; ++k) {
    const size_t o = static_cast<size_t>(k) * chunk;
    std::memcpy(static_cast<char*>(dst) + o, static_cast<const char*>(src) + o, std::min(chunk, n - o));
  }
}

void host_zero(void* dst, size_t n) {
  const size_t chunk = size_t{4} << 20;
  const int64_t parts = static_cast<int64_t>((n + chunk - 1) / chunk);
#pragma omp parallel for schedule(static) if (parts > 2)
  for (int64_t k = 0; k < parts; ++k) {
    const size_t o = static_cast<size_t>(k) * chunk;
    std::memset(static_cast<char*>(dst) + o, 0, std::min(chunk, n - o));
  }
}

}  // namespace

void pool_trim() {
  for (Mem k : {Mem::host, Mem::pinned, Mem::device}) trim(k, 0);
}

Buffer::Buffer(size_t bytes, Mem kind) : bytes_(bytes), kind_(kind) {
#ifndef BENCH_WITH_CUDA
  if (kind == Mem::device) throw std::runtime_error("device memory requested in a bench built without CUDA");
  if (kind == Mem::pinned) kind_ = Mem::host;
#endif
  const size_t want = capacity_for(bytes);
  Pool& P = pool();
  const int i = static_cast<int>(kind_);
  auto it = P.free[i].lower_bound(want);
  if (it != P.free[i].end() && it->first <= 2 * want + (size_t{64} << 10)) {
    p_ = it->second;
    capacity_ = it->first;
    P.free_bytes[i] -= it->first;
    P.free[i].erase(it);
    return;
  }
  capacity_ = want;
  p_ = raw_alloc(want, kind_);
}

Buffer Buffer::staging(size_t bytes) { return Buffer(bytes, gpu_available() ? Mem::pinned : Mem::host); }

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& o) noexcept : p_(o.p_), bytes_(o.bytes_), capacity_(o.capacity_), kind_(o.kind_) {
  o.p_ = nullptr;
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    release();
    p_ = o.p_;
    bytes_ = o.bytes_;
    capacity_ = o.capacity_;
    kind_ = o.kind_;
    o.p_ = nullptr;
  }
  return *this;
}

void Buffer::release() {
  if (p_ == nullptr) return;
  Pool& P = pool();
  const int i = static_cast<int>(kind_);
  if (capacity_ <= kPoolCap[i]) {
    trim(kind_, kPoolCap[i] - capacity_);
    P.free[i].emplace(capacity_, p_);
    P.free_bytes[i] += capacity_;
  } else {
    raw_free(p_, kind_);
  }
  p_ = nullptr;
}

void Buffer::upload(const void* src, size_t n) {
#ifdef BENCH_WITH_CUDA
  if (kind_ == Mem::device) {
    check(cudaMemcpy(p_, src, n, cudaMemcpyDefault), "cudaMemcpy H2D");
    return;
  }
#endif
  host_copy(p_, src, n);
}

void Buffer::download(void* dst, size_t n) const {
#ifdef BENCH_WITH_CUDA
  if (kind_ == Mem::device) {
    check(cudaMemcpy(dst, p_, n, cudaMemcpyDefault), "cudaMemcpy D2H");
    return;
  }
#endif
  host_copy(dst, p_, n);
}

void Buffer::copy_from(const Buffer& src, size_t n) {
#ifdef BENCH_WITH_CUDA
  if (kind_ == Mem::device || src.kind_ == Mem::device) {
    check(cudaMemcpy(p_, src.p_, n, cudaMemcpyDefault), "cudaMemcpy");
    return;
  }
#endif
  host_copy(p_, src.p_, n);
}

void Buffer::fill_zero() {
#ifdef BENCH_WITH_CUDA
  if (kind_ == Mem::device) {
    check(cudaMemset(p_, 0, bytes_), "cudaMemset");
    return;
  }
#endif
  host_zero(p_, bytes_);
}

void device_synchronize() {
#ifdef BENCH_WITH_CUDA
  if (gpu_available()) check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
#endif
}

Timer::Timer(bool device) : device_(device) {
#ifdef BENCH_WITH_CUDA
  if (device_) {
    check(cudaEventCreate(reinterpret_cast<cudaEvent_t*>(&ev_[0])), "cudaEventCreate");
    check(cudaEventCreate(reinterpret_cast<cudaEvent_t*>(&ev_[1])), "cudaEventCreate");
  }
#else
  device_ = false;
#endif
}

Timer::~Timer() {
#ifdef BENCH_WITH_CUDA
  if (device_) {
    cudaEventDestroy(static_cast<cudaEvent_t>(ev_[0]));
    cudaEventDestroy(static_cast<cudaEvent_t>(ev_[1]));
  }
#endif
}

void Timer::start() {
#ifdef BENCH_WITH_CUDA
  if (device_) {
    check(cudaEventRecord(static_cast<cudaEvent_t>(ev_[0]), 0), "cudaEventRecord");
    return;
  }
#endif
  t0_ = now_ms();
}

double Timer::stop_ms() {
#ifdef BENCH_WITH_CUDA
  if (device_) {
    check(cudaEventRecord(static_cast<cudaEvent_t>(ev_[1]), 0), "cudaEventRecord");
    check(cudaEventSynchronize(static_cast<cudaEvent_t>(ev_[1])), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(ev_[0]), static_cast<cudaEvent_t>(ev_[1])),
          "cudaEventElapsedTime");
    return ms;
  }
#endif
  return now_ms() - t0_;
}

void flush_cache(bool device) {
#ifdef BENCH_WITH_CUDA
  if (device) {
    static Buffer buf = [] {
      int dev = 0, l2 = 0;
      cudaGetDevice(&dev);
      cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
      return Buffer(static_cast<size_t>(l2 > 0 ? l2 : (64 << 20)) * 2, true);
    }();
    check(cudaMemsetAsync(buf.get(), 0, buf.bytes(), 0), "cudaMemsetAsync");
    return;
  }
#endif
  (void)device;
  static std::vector<char> host(size_t{64} << 20);
  static char v = 0;
  std::memset(host.data(), ++v, host.size());
}

}  // namespace bench
