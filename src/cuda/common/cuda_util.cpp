// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cuda/common/cuda_util.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <utility>

#include "core/handle.h"
#include "cuda/common/cc90.h"

namespace fd::cuda {

bool current_device_runs_sm90_code();  // arch_probe.cu

namespace {

// sm90_code on `device` (made current for the query, then the caller's device restored).
bool runs_sm90_code(int device) {
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  if (current != device && cudaSetDevice(device) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  const bool yes = current_device_runs_sm90_code();
  if (current != device) (void)cudaSetDevice(current);
  return yes;
}

DeviceInfo query_device(int device) {
  DeviceInfo info;
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, device) == cudaSuccess) {
    info.sm_count = p.multiProcessorCount;
    info.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    info.l2_bytes = static_cast<size_t>(p.l2CacheSize);
    info.smem_per_block_optin = p.sharedMemPerBlockOptin;
    info.cc_major = p.major;
    info.cc_minor = p.minor;
    info.sm90_code = p.major >= 9 && runs_sm90_code(device);
  } else {
    (void)cudaGetLastError();
    info.sm_count = 1;
    info.max_threads_per_sm = 1024;
  }
  return info;
}

}  // namespace

// Every computing call asks for its device's properties (grid sizes), often several times: the common devices'
// entries are published once through atomics, so a call costs one acquire load (no mutex, no map walk).
const DeviceInfo& device_info(int device) {
  constexpr int kFast = 64;
  static std::atomic<const DeviceInfo*> fast[kFast] = {};
  const bool small = device >= 0 && device < kFast;
  if (small) {
    if (const DeviceInfo* d = fast[device].load(std::memory_order_acquire)) return *d;
  }
  static std::mutex mutex;
  static std::map<int, DeviceInfo> cache;  // node-based: references stay valid
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(device);
  if (it == cache.end()) it = cache.emplace(device, query_device(device)).first;
  if (small) fast[device].store(&it->second, std::memory_order_release);
  return it->second;
}

bool is_cc90(int device) {
  const DeviceInfo& di = device_info(device);
  return di.cc_major == 9 && di.cc_minor == 0;
}

cudnnStatus_t require_cc90(int device, const char* who) {
  const DeviceInfo& di = device_info(device);
  FD_CHECK_SUPPORTED(is_cc90(device), "%s needs a compute capability 9.0 device (sm_90a code); device %d is %d.%d",
                     who, device, di.cc_major, di.cc_minor);
  return CUDNN_STATUS_SUCCESS;
}

const DeviceInfo& current_device_info() {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    (void)cudaGetLastError();
    dev = 0;
  }
  return device_info(dev);
}

int current_sm_count() { return current_device_info().sm_count; }

cudnnStatus_t cuda_failure(cudaError_t e, const char* file, int line, const char* expr) {
  return ::fd::report(CUDNN_STATUS_EXECUTION_FAILED, file, line, expr, "CUDA error %s: %s", cudaGetErrorName(e),
                      cudaGetErrorString(e));
}

cudnnStatus_t launch_status(cudnnStatus_t before, const char* file, int line) {
  if (before != CUDNN_STATUS_SUCCESS) return before;
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? CUDNN_STATUS_SUCCESS : cuda_failure(e, file, line, "cudaGetLastError()");
}

int grid_size(int64_t items, int block, int device, int waves) {
  const DeviceInfo& d = device_info(device);
  const int64_t per_sm = std::max(1, d.max_threads_per_sm / block);
  const int64_t cap = static_cast<int64_t>(d.sm_count) * per_sm * waves;
  const int64_t need = (items + block - 1) / block;
  return static_cast<int>(std::max<int64_t>(1, std::min(need, cap)));
}

int resident_blocks(const void* kernel, int block, size_t dyn_smem, int device) {
  struct Key {
    const void* k;
    int block;
    size_t smem;
    int device;
    bool operator<(const Key& o) const {
      if (k != o.k) return k < o.k;
      if (block != o.block) return block < o.block;
      if (smem != o.smem) return smem < o.smem;
      return device < o.device;
    }
  };
  static std::mutex mutex;
  static std::map<Key, int> cache;
  const Key key{kernel, block, dyn_smem, device};
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  int n = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, block, dyn_smem) != cudaSuccess) {
    (void)cudaGetLastError();
    n = 1;
  }
  n = std::max(n, 1);
  std::lock_guard<std::mutex> lock(mutex);
  cache.emplace(key, n);
  return n;
}

int resident_grid(const void* kernel, int64_t items, int64_t per_block, int block, size_t dyn_smem, int device) {
  const int64_t cap = int64_t(device_info(device).sm_count) * resident_blocks(kernel, block, dyn_smem, device);
  const int64_t need = (items + per_block - 1) / std::max<int64_t>(per_block, 1);
  return static_cast<int>(std::max<int64_t>(1, std::min(need, cap)));
}

cudnnStatus_t allow_dynamic_smem(const void* kernel, size_t bytes, int device) {
  if (bytes <= 48 * 1024) return CUDNN_STATUS_SUCCESS;  // the default limit
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, size_t> done;  // the largest limit set per (kernel, device)
  std::lock_guard<std::mutex> lock(mutex);
  size_t& have = done[{kernel, device}];
  if (bytes <= have) return CUDNN_STATUS_SUCCESS;
  FD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  have = bytes;
  return CUDNN_STATUS_SUCCESS;
}

size_t max_dynamic_smem(const void* kernel, int device) {
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, size_t> cache;
  std::lock_guard<std::mutex> lock(mutex);
  const auto it = cache.find({kernel, device});
  if (it != cache.end()) return it->second;
  const size_t optin = std::max<size_t>(48 * 1024, device_info(device).smem_per_block_optin);
  cudaFuncAttributes fa{};
  if (cudaFuncGetAttributes(&fa, kernel) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;  // not cached: the caller then takes its paths without a dynamic buffer
  }
  const size_t n = fa.sharedSizeBytes < optin ? optin - fa.sharedSizeBytes : 0;
  cache.emplace(std::make_pair(kernel, device), n);
  return n;
}

bool capturing(cudaStream_t s) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(s, &status) != cudaSuccess) {
    (void)cudaGetLastError();
    return true;
  }
  return status != cudaStreamCaptureStatusNone;
}

namespace {

// A new scratch buffer of `bytes`: stream-ordered on the handle's stream, or, under capture (where that would make
// graph memory, which the handle's later calls could not use), a plain cudaMalloc in relaxed capture mode.
cudaError_t allocate_scratch(cudnnContext* h, size_t bytes, bool in_capture, void** p) {
  if (!in_capture) return cudaMallocAsync(p, bytes, h->stream);
  const RelaxedCapture relaxed;
  if (relaxed.status() != cudaSuccess) return relaxed.status();
  return cudaMalloc(p, bytes);
}

}  // namespace

cudnnStatus_t scratch_stream_change(cudnnContext* h, cudaStream_t next) {
  if (next == h->stream || !h->scratch_used) return CUDNN_STATUS_SUCCESS;
  // Not from a capture (a graph's use runs when it is launched; its event could not order the eager stream).
  if (capturing(h->stream)) {
    h->scratch_used = false;
    return CUDNN_STATUS_SUCCESS;
  }
  // scratch_used stays set until the old stream's use is ordered: a failure here leaves the next cudnnSetStream to
  // try again (found by review)
  if (h->scratch_event == nullptr) {
    cudaEvent_t e = nullptr;
    FD_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    h->scratch_event = e;
  }
  // A use still waited for (an older stream's, the handle moved on before any eager use here) goes into this
  // record too: the stream waits for the event first, so re-recording it does not drop that use (found by review).
  if (h->scratch_wait &&
      cudaStreamWaitEvent(h->stream, static_cast<cudaEvent_t>(h->scratch_event), 0) != cudaSuccess) {
    (void)cudaGetLastError();
    FD_CUDA_CHECK(cudaDeviceSynchronize());
    h->scratch_wait = false;
    h->scratch_used = false;
    return CUDNN_STATUS_SUCCESS;
  }
  if (cudaEventRecord(static_cast<cudaEvent_t>(h->scratch_event), h->stream) != cudaSuccess) {
    (void)cudaGetLastError();  // e.g. the old stream destroyed already: wait for everything instead
    FD_CUDA_CHECK(cudaDeviceSynchronize());
    h->scratch_used = false;
    return CUDNN_STATUS_SUCCESS;
  }
  h->scratch_wait = true;
  h->scratch_used = false;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t handle_scratch(cudnnContext* h, size_t bytes, void** out) {
  const bool in_capture = capturing(h->stream);
  if (h->scratch_wait) {  // the old stream's last use first (scratch_stream_change)
    // Under capture as an external wait node: each launch of the graph waits for the event's latest record. The
    // eager calls after the capture still wait themselves, so the flag stays set.
    FD_CUDA_CHECK(cudaStreamWaitEvent(h->stream, static_cast<cudaEvent_t>(h->scratch_event),
                                      in_capture ? cudaEventWaitExternal : 0));
    if (!in_capture) h->scratch_wait = false;
  }
  if (in_capture) h->scratch_in_graph = true;
  if (bytes > h->scratch_bytes) {
    size_t want = std::max<size_t>(size_t{1} << 20, h->scratch_bytes * 2);
    while (want < bytes) want *= 2;
    if (h->scratch != nullptr) {
      // A graph may still use the old buffer when it is launched (and under capture nothing can be freed
      // stream-ordered): kept until the handle is destroyed.
      if (h->scratch_in_graph)
        h->scratch_retired.push_back(h->scratch);
      else
        FD_CUDA_CHECK(cudaFreeAsync(h->scratch, h->stream));
      h->scratch = nullptr;
      h->scratch_bytes = 0;
    }
    const cudaError_t err = allocate_scratch(h, want, in_capture, &h->scratch);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      h->scratch = nullptr;
      return ::fd::report(CUDNN_STATUS_ALLOC_FAILED, __FILE__, __LINE__, "allocate_scratch",
                          "cannot allocate %zu bytes of handle scratch memory: %s", want, cudaGetErrorString(err));
    }
    h->scratch_bytes = want;
  }
  h->scratch_used = true;
  *out = h->scratch;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda
