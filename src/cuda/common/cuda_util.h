// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Host-side helpers of the CUDA backend: error mapping, device properties, grid sizing.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/status.h"

struct cudnnContext;

// Turns a CUDA error into EXECUTION_FAILED with the CUDA error's name in the logged reason.
#define FD_CUDA_CHECK(expr)                                                                                  \
  do {                                                                                                       \
    const cudaError_t fd_cuda_err_ = (expr);                                                                 \
    if (fd_cuda_err_ != cudaSuccess) return ::fd::cuda::cuda_failure(fd_cuda_err_, __FILE__, __LINE__, #expr); \
  } while (0)
// After a kernel launch: a bad configuration shows up here.
#define FD_CUDA_LAUNCHED() FD_CUDA_CHECK(cudaGetLastError())
// The same as a value, for paths that hand their status back through a pointer: `before` when a step before the
// launches failed, else the launch error (logged at the caller's line) or success.
#define FD_LAUNCH_STATUS(before) ::fd::cuda::launch_status((before), __FILE__, __LINE__)

namespace fd::cuda {

struct DeviceInfo {
  int sm_count = 0;
  int max_threads_per_sm = 0;
  size_t l2_bytes = 0;
  size_t smem_per_block_optin = 0;
  int cc_major = 0, cc_minor = 0;
  // The device runs the library's compute capability 9.x code, not older PTX the driver compiled for it: the code
  // with the programmatic-dependent-launch waits and the cluster kernels' bodies (arch_probe.cu).
  bool sm90_code = false;
};
// Properties of `device`, read once per device (later calls: one atomic load, no lock, no driver call).
const DeviceInfo& device_info(int device);
// The current device's properties, device 0's where the runtime cannot say (queries without a handle: the workspace
// size, applicability, cost estimates).
const DeviceInfo& current_device_info();
// Its SM count.
int current_sm_count();

// Relaxed stream-capture mode on this thread for a scope, the caller's mode back after: for calls that allocate or
// synchronize (cudaMalloc, cublasCreate, cuFFT plans, timing on a private stream) while this or another thread may
// be capturing in global mode, which would refuse them or be invalidated by them.
class RelaxedCapture {
 public:
  RelaxedCapture() : status_(cudaThreadExchangeStreamCaptureMode(&mode_)) {}
  ~RelaxedCapture() {
    if (status_ == cudaSuccess) (void)cudaThreadExchangeStreamCaptureMode(&mode_);
  }
  RelaxedCapture(const RelaxedCapture&) = delete;
  RelaxedCapture& operator=(const RelaxedCapture&) = delete;
  cudaError_t status() const { return status_; }  // of the switch (the mode is unchanged where it failed)

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;  // before status_: the constructor exchanges it
  cudaError_t status_;
};

// Blocks for a grid-stride loop over `items` work items: enough to fill every SM `waves` times, no more than
// the work needs.
int grid_size(int64_t items, int block, int device, int waves = 4);

// EXECUTION_FAILED for the CUDA error e that `expr` returned, logged with e's name at the caller's file and line: the
// one body of FD_CUDA_CHECK and FD_LAUNCH_STATUS.
cudnnStatus_t cuda_failure(cudaError_t e, const char* file, int line, const char* expr);
// FD_LAUNCH_STATUS's body.
cudnnStatus_t launch_status(cudnnStatus_t before, const char* file, int line);

// Blocks of `kernel` (a __global__ function) with `block` threads and `dyn_smem` bytes of dynamic shared memory
// that fit on one SM at once (the occupancy calculator; cached per kernel, shape and device; at least 1).
int resident_blocks(const void* kernel, int block, size_t dyn_smem, int device);
// Blocks for a grid-stride loop over `items` work items of `per_block` items per block: one full wave of resident
// blocks (no partial second wave), no more than the work needs.
int resident_grid(const void* kernel, int64_t items, int64_t per_block, int block, size_t dyn_smem, int device);

// Raises `kernel`'s dynamic shared memory limit on `device` to at least `bytes` (cudaFuncSetAttribute), once per
// kernel, device and size: later calls with the same or a smaller size make no driver call.
cudnnStatus_t allow_dynamic_smem(const void* kernel, size_t bytes, int device);
// The most dynamic shared memory one block of `kernel` may ask for on `device`: the opt-in limit per block (at least
// the default 48 KiB) less the kernel's own static shared memory, which counts against the same limit (cached per
// kernel and device; 0 where the driver cannot say: the caller then plans without a dynamic buffer).
size_t max_dynamic_smem(const void* kernel, int device);

// Whether work queued on s now goes into a graph. An error asking (e.g. about the legacy stream while another stream
// captures in global mode) counts as capturing: callers then allocate, free, join or tune nothing.
bool capturing(cudaStream_t s);

// At least `bytes` of device scratch memory owned by the handle, valid for work queued on h->stream after this
// call. Grows stream-ordered (cudaFreeAsync / cudaMallocAsync on the handle's stream): no host synchronization.
// After cudnnSetStream, h->stream first waits for the scratch's last use on the old stream. Under stream capture it
// grows by a plain cudaMalloc (relaxed capture mode), and a buffer a capture used is kept, not freed, when the
// scratch grows later (a graph may still be launched with it).
cudnnStatus_t handle_scratch(cudnnContext* h, size_t bytes, void** out);
// cudnnSetStream's part for the scratch: before the handle's stream becomes `next`, an event on the current stream
// for the next scratch use to wait for, where the scratch was used on it.
cudnnStatus_t scratch_stream_change(cudnnContext* h, cudaStream_t next);

}  // namespace fd::cuda
