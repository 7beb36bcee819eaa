// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cuda/common/aux_streams.h"

#include <atomic>
#include <mutex>
#include <string>

#include "core/api_context.h"
#include "core/handle.h"
#include "core/log.h"
#include "cuda/common/cuda_util.h"

namespace fd::cuda {

// Fixed arrays: a stream handed out is never moved by a later growth (a query on another thread may grow the pool
// while a call uses it); `ready` counts the streams and done events that exist.
struct AuxStreams {
  std::mutex grow;
  std::atomic<int> ready{0};
  cudaEvent_t fork = nullptr;
  cudaStream_t streams[kMaxAuxStreams] = {};
  cudaEvent_t done[kMaxAuxStreams] = {};
};

namespace {

cudnnStatus_t creation_failed(cudaError_t e, const char* what) {
  const cudnnStatus_t st = e == cudaErrorMemoryAllocation ? CUDNN_STATUS_ALLOC_FAILED : CUDNN_STATUS_EXECUTION_FAILED;
  (void)cudaGetLastError();
  return report(st, __FILE__, __LINE__, what, "cannot create an auxiliary stream or event: CUDA error %s",
                cudaGetErrorName(e));
}

// Creates the pool's missing objects up to `count` on the current device (the caller holds `grow`).
cudnnStatus_t grow_to(AuxStreams& a, int count) {
  if (a.fork == nullptr) {
    const cudaError_t e = cudaEventCreateWithFlags(&a.fork, cudaEventDisableTiming);
    if (e != cudaSuccess) {
      a.fork = nullptr;
      return creation_failed(e, "cudaEventCreateWithFlags");
    }
  }
  for (int i = a.ready.load(); i < count; ++i) {
    cudaError_t e = cudaStreamCreateWithFlags(&a.streams[i], cudaStreamNonBlocking);
    if (e != cudaSuccess) {
      a.streams[i] = nullptr;
      return creation_failed(e, "cudaStreamCreateWithFlags");
    }
    e = cudaEventCreateWithFlags(&a.done[i], cudaEventDisableTiming);
    if (e != cudaSuccess) {
      (void)cudaStreamDestroy(a.streams[i]);
      a.streams[i] = nullptr, a.done[i] = nullptr;
      return creation_failed(e, "cudaEventCreateWithFlags");
    }
    a.ready.store(i + 1);
  }
  return CUDNN_STATUS_SUCCESS;
}

// The pool object itself, made once per handle under a process-wide lock (handles are many, creations rare).
AuxStreams* pool_of(cudnnContext* h) {
  static std::mutex make;
  std::lock_guard<std::mutex> lock(make);
  if (h->aux_streams == nullptr) h->aux_streams = new AuxStreams();
  return static_cast<AuxStreams*>(h->aux_streams);
}

}  // namespace

cudnnStatus_t aux_streams(cudnnContext* h, int count, AuxStreams** out) {
  FD_CHECK(count >= 0 && count <= kMaxAuxStreams, CUDNN_STATUS_INTERNAL_ERROR, "%d auxiliary streams asked (<= %d)",
           count, kMaxAuxStreams);
  AuxStreams* a = pool_of(h);
  if (a->ready.load() < count) {  // ready > 0 implies the fork event exists (made first)
    std::lock_guard<std::mutex> lock(a->grow);
    int dev = -1;
    FD_CUDA_CHECK(cudaGetDevice(&dev));
    if (dev != h->device) FD_CUDA_CHECK(cudaSetDevice(h->device));  // streams and events belong to a device
    const int before = a->ready.load();
    const cudnnStatus_t st = grow_to(*a, count);
    if (dev != h->device) FD_CUDA_CHECK(cudaSetDevice(dev));
    if (st != CUDNN_STATUS_SUCCESS) return st;
    // Said at info level: a computing call under graph capture should find them made by the query or Find (tests)
    const int made = a->ready.load() - before;
    if (made > 0 && log::enabled(CUDNN_SEV_INFO))
      log::emit(CUDNN_SEV_INFO, current_api_context().function,
                "made " + std::to_string(made) + " auxiliary stream(s) for the handle (" +
                    std::to_string(a->ready.load()) + " in all)",
                CUDNN_STATUS_SUCCESS);
  }
  *out = a;
  return CUDNN_STATUS_SUCCESS;
}

cudaStream_t aux_stream(const AuxStreams& a, int i) { return a.streams[i]; }

cudnnStatus_t aux_fork(cudnnContext* h, AuxStreams& a, int count) {
  if (count == 0) return CUDNN_STATUS_SUCCESS;
  FD_CUDA_CHECK(cudaEventRecord(a.fork, h->stream));
  for (int i = 0; i < count; ++i) {
    const cudaError_t e = cudaStreamWaitEvent(a.streams[i], a.fork, 0);
    if (e == cudaSuccess) continue;
    const cudnnStatus_t st = cuda_failure(e, __FILE__, __LINE__, "cudaStreamWaitEvent(aux stream, fork event)");
    (void)aux_join(h, a, i);  // the streams already forked rejoin (under capture an unjoined one breaks it)
    return st;
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t aux_join(cudnnContext* h, AuxStreams& a, int count) {
  // Every stream is joined even when one step fails (an unjoined stream would break a capture); the first error
  // is reported.
  cudnnStatus_t first = CUDNN_STATUS_SUCCESS;
  auto note = [&](cudaError_t e, const char* what) {
    if (e != cudaSuccess && first == CUDNN_STATUS_SUCCESS)
      first = report(CUDNN_STATUS_EXECUTION_FAILED, __FILE__, __LINE__, what, "CUDA error %s: %s", cudaGetErrorName(e),
                     cudaGetErrorString(e));
  };
  for (int i = 0; i < count; ++i) note(cudaEventRecord(a.done[i], a.streams[i]), "cudaEventRecord");
  for (int i = 0; i < count; ++i) note(cudaStreamWaitEvent(h->stream, a.done[i], 0), "cudaStreamWaitEvent");
  return first;
}

void destroy_aux_streams(void* pool) {
  auto* a = static_cast<AuxStreams*>(pool);
  if (a == nullptr) return;
  for (int i = 0; i < a->ready.load(); ++i) {
    (void)cudaEventDestroy(a->done[i]);
    (void)cudaStreamDestroy(a->streams[i]);
  }
  if (a->fork != nullptr) (void)cudaEventDestroy(a->fork);
  delete a;
}

}  // namespace fd::cuda
