// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <atomic>
#include <vector>

#include "core/checked.h"
#include "core/log.h"

namespace fd {
enum class Backend { cpu, cuda };
const char* backend_name(Backend b);
// Whether this build has the CUDA backend and the process sees at least one GPU.
bool cuda_device_available();
}  // namespace fd

// The library context. Bound at creation to a backend (CUDA when a GPU is visible, CPU when none is or when
// FREEDNN_BACKEND=cpu; on the CPU backend every data pointer is a host pointer) and, for CUDA, to the device
// that was current.
struct cudnnContext : fd::Checked<0x48414E44u> {
  static constexpr const char* kTypeName = "cudnnHandle_t";

  fd::Backend backend = fd::Backend::cpu;
  int device = -1;
  cudaStream_t stream = nullptr;
  int cpu_threads = 1;
  // Sticky asynchronous error for cudnnQueryRuntimeError (e.g. overflow found by a kernel).
  std::atomic<int> runtime_status{CUDNN_STATUS_SUCCESS};
  // CUDA backend: device scratch memory for kernels of calls that have no workspace argument (per-block
  // partial sums, per-channel coefficients). Grown stream-ordered by fd::cuda::handle_scratch; freed here.
  void* scratch = nullptr;
  size_t scratch_bytes = 0;
  // cudnnSetStream to another stream after the scratch was used on the old one records an event (a cudaEvent_t,
  // made on first need) on the old stream, and the next use waits for it: else two calls on different streams would
  // write the same buffer at once (fd::cuda::scratch_stream_change, handle_scratch).
  void* scratch_event = nullptr;
  bool scratch_used = false;  // since `stream` was set
  bool scratch_wait = false;  // the next use waits for scratch_event
  // Set once a stream capture used the scratch: a graph may replay that use after later calls, so a grown scratch
  // keeps the old buffer (scratch_retired) until the handle is destroyed.
  bool scratch_in_graph = false;
  std::vector<void*> scratch_retired;
  // CUDA backend: the cuBLAS handle (a cublasHandle_t) of the GEMM-based kernels, created on first use by
  // fd::cuda::cublas_handle (which binds it to `stream` before each use); destroyed here.
  void* cublas = nullptr;
  // CUDA backend: cuda:fft's cache of cuFFT plans (fd::cuda::conv, fft_plans.h; it has its own mutex), created on
  // first use (workspace query, Find, or a call); destroyed here after its plans' last runs.
  void* fft_plans = nullptr;
  // CUDA backend: auxiliary streams and fork/join events for calls that run independent kernels side by side (the
  // batch-split cuda:cutlass_sm90_wgrad; src/cuda/common/aux_streams.h), created on first use; destroyed here.
  void* aux_streams = nullptr;

  cudnnContext() = default;
  cudnnContext(const cudnnContext&) = delete;
  cudnnContext& operator=(const cudnnContext&) = delete;
  ~cudnnContext();

  bool on_cpu() const { return backend == fd::Backend::cpu; }
  void describe(fd::log::Writer& w) const;
};

namespace fd {
// Checks a handle argument (non-null, live) and records it in the call's log context.
cudnnStatus_t check_handle(const cudnnContext* h);
// For operations that have only a CPU implementation so far: NOT_SUPPORTED, with the reason logged, on
// any other backend.
cudnnStatus_t require_cpu(const cudnnContext* h, const char* operation);
}  // namespace fd
