// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Buffers in host memory (CPU backend) or device memory (cudart, in a CUDA build), and device timing.
#pragma once
#include <cstddef>
#include <string>

namespace bench {

bool gpu_available();  // a CUDA build of the bench and at least one visible device
std::string device_name();

class Buffer {
 public:
  Buffer() = default;
  Buffer(size_t bytes, bool device);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;

  void* get() const { return p_; }
  size_t bytes() const { return bytes_; }
  bool device() const { return device_; }
  void upload(const void* src, size_t n);  // n bytes from host to the start of the buffer
  void download(void* dst, size_t n) const;
  void fill_zero();

 private:
  void release();
  void* p_ = nullptr;
  size_t bytes_ = 0;
  bool device_ = false;
};

void device_synchronize();  // no-op without CUDA

// A stopwatch: device events on the default stream when `device`, else the wall clock.
class Timer {
 public:
  explicit Timer(bool device);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  void start();
  double stop_ms();  // waits for the work between start and stop

 private:
  bool device_;
  void* ev_[2] = {nullptr, nullptr};
  double t0_ = 0;
};

// Evicts the caches: writes a buffer larger than the last-level cache (device L2, or host LLC).
void flush_cache(bool device);

}  // namespace bench
