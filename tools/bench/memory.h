// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Buffers in host memory (CPU backend), page-locked host memory (staging for copies) or device memory (cudart, in a
// CUDA build), and device timing. Buffers come from a size-keyed pool: a released buffer is kept for the next one
// of a similar size (cases of one batch mostly share shapes), so no case pays cudaMalloc / cudaFree / page faults.
#pragma once
#include <cstddef>
#include <string>

namespace bench {

bool gpu_available();  // a CUDA build of the bench and at least one visible device
std::string device_name();

enum class Mem { host, pinned, device };

class Buffer {
 public:
  Buffer() = default;
  Buffer(size_t bytes, bool device) : Buffer(bytes, device ? Mem::device : Mem::host) {}
  Buffer(size_t bytes, Mem kind);
  // Host memory for staging copies to and from the device: page-locked when a GPU is visible.
  static Buffer staging(size_t bytes);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;

  void* get() const { return p_; }
  size_t bytes() const { return bytes_; }
  bool device() const { return kind_ == Mem::device; }
  void upload(const void* src, size_t n);  // n bytes from host to the start of the buffer
  void download(void* dst, size_t n) const;
  void copy_from(const Buffer& src, size_t n);  // n bytes, either kind to either kind
  void fill_zero();

 private:
  void release();
  void* p_ = nullptr;
  size_t bytes_ = 0, capacity_ = 0;
  Mem kind_ = Mem::host;
};

// Frees every pooled (unused) buffer.
void pool_trim();

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
