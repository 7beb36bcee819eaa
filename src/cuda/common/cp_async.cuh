// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Asynchronous global -> shared copies (sm_80 and later): the kernels that stage tiles in shared memory queue them
// with cp.async and overlap them with work on the previous tile. A copy with valid == false writes zeros and reads
// nothing (the source pointer must still be a valid address expression). Also the shared-window address that
// cp.async and ldmatrix (mma_sync.cuh) take.
#pragma once
#include <cstdint>

namespace fd::cuda {

__device__ __forceinline__ uint32_t shared_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16 bytes through L2 only (.cg).
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0)
               : "memory");
}
// 8 bytes through L1 (.ca: neighbouring tiles' halos hit there).
__device__ __forceinline__ void cp_async8(uint32_t dst, const void* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 8 : 0)
               : "memory");
}
// 4 bytes through L1 (.ca), for gathers with no wider alignment.
__device__ __forceinline__ void cp_async4(uint32_t dst, const void* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 4 : 0) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

}  // namespace fd::cuda
