// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Tensor maps for Hopper's tensor memory accelerator (TMA), for hand-written kernels: the host-side encoding of a
// tiled map (the driver's cuTensorMapEncodeTiled, reached through the runtime's entry-point query so that the
// library does not link libcuda), and the device-side bulk tensor loads with the mbarriers they complete.
#pragma once
#include <cuda.h>

#include <cstdint>

#include "core/status.h"

namespace fd::cuda {

// A tiled map over a tensor of half, bfloat16 or float elements (dt: CUDNN_DATA_*): dims[0] the contiguous one,
// strides (bytes, multiples of 16) of dims[1..rank), box: the elements one load brings, written to shared memory in
// dims order (dims[0] fastest; box[0] * element size a multiple of 16 bytes). Zeros fill what lies outside the
// tensor. NOT_SUPPORTED with a logged reason where the driver has no TMA or refuses the shape.
cudnnStatus_t encode_tma_map(CUtensorMap* map, const void* base, cudnnDataType_t dt, int rank, const uint64_t* dims,
                             const uint64_t* strides, const uint32_t* box, CUtensorMapSwizzle swizzle,
                             const char* what);

// The same over a packed NHWC tensor (n images of h x w pixels of c channels; a filter as K x R x S x C likewise),
// dims (c, w, h, n), one image per box: box_c channels x box_w columns x box_h rows, channels fastest.
cudnnStatus_t encode_nhwc_map(CUtensorMap* map, const void* base, cudnnDataType_t dt, int64_t n, int64_t h, int64_t w,
                              int64_t c, uint32_t box_c, uint32_t box_w, uint32_t box_h, CUtensorMapSwizzle swizzle,
                              const char* what);

}  // namespace fd::cuda

#if defined(__CUDACC__)
namespace fd::cuda {

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// n mbarriers 8 bytes apart from `first` (one per pipeline stage), each expecting `count` arrivals.
__device__ __forceinline__ void mbar_init_stages(uint32_t first, int n, uint32_t count) {
#pragma unroll
  for (int s = 0; s < n; ++s) mbar_init(first + uint32_t(s * 8), count);
}
// Makes the initialized mbarriers visible to the async proxy (the TMA unit that completes them).
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// This thread's arrival, announcing `bytes` of loads that will complete on the barrier.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
// This thread's plain arrival (a consumer saying it is done with a stage).
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Waits until the barrier's phase of this parity has completed.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\nwait_loop:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_loop;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
// One box of a 2-D tiled map, as tma_load_4d.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], "
      "[%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}
// One box of a 3-D tiled map, as tma_load_4d.
__device__ __forceinline__ void tma_load_3d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1,
                                            int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], "
      "[%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
// One box of a 4-D tiled map into shared memory at dst (128-byte aligned; 1024 with the 128-byte swizzle),
// completing on bar. Coordinates in elements, dims order; negative or past the end: zeros.
__device__ __forceinline__ void tma_load_4d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1, int c2,
                                            int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, "
      "%6}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

}  // namespace fd::cuda
#endif
