// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "memory.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

Buffer::Buffer(size_t bytes, bool device) : bytes_(bytes), device_(device) {
  const size_t n = bytes ? bytes : 1;
  if (device) {
#ifdef BENCH_WITH_CUDA
    check(cudaMalloc(&p_, n), "cudaMalloc");
#else
    throw std::runtime_error("device memory requested in a bench built without CUDA");
#endif
  } else {
    p_ = std::aligned_alloc(256, (n + 255) / 256 * 256);
    if (p_ == nullptr) throw std::runtime_error("out of host memory");
  }
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& o) noexcept : p_(o.p_), bytes_(o.bytes_), device_(o.device_) { o.p_ = nullptr; }

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    release();
    p_ = o.p_;
    bytes_ = o.bytes_;
    device_ = o.device_;
    o.p_ = nullptr;
  }
  return *this;
}

void Buffer::release() {
  if (p_ == nullptr) return;
#ifdef BENCH_WITH_CUDA
  if (device_) {
    cudaFree(p_);
    p_ = nullptr;
    return;
  }
#endif
  std::free(p_);
  p_ = nullptr;
}

void Buffer::upload(const void* src, size_t n) {
#ifdef BENCH_WITH_CUDA
  if (device_) {
    check(cudaMemcpy(p_, src, n, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
    return;
  }
#endif
  std::memcpy(p_, src, n);
}

void Buffer::download(void* dst, size_t n) const {
#ifdef BENCH_WITH_CUDA
  if (device_) {
    check(cudaMemcpy(dst, p_, n, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return;
  }
#endif
  std::memcpy(dst, p_, n);
}

void Buffer::fill_zero() {
#ifdef BENCH_WITH_CUDA
  if (device_) {
    check(cudaMemset(p_, 0, bytes_), "cudaMemset");
    return;
  }
#endif
  std::memset(p_, 0, bytes_);
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
