// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Hopper warpgroup MMA (wgmma.mma_async, sm_90a only) for hand-written kernels: shared-memory matrix descriptors of
// the no-swizzle, 128-byte- and 32-byte-swizzle layouts, the fences and group waits, m64n32k16 with A from registers
// and B from shared memory in N-major ("transposed") order, and m64n128k8 TF32 with a K-major B in shared memory and
// A K-major in shared memory or from registers. Callers compile these only where __CUDA_ARCH_FEAT_SM90_ALL is defined.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace fd::cuda::conv {

// Descriptor of a no-swizzle operand in shared memory. Its core matrices are 8 rows of 16 bytes stored contiguously
// (128 bytes); for an N-major B a core matrix is 8 k-rows of 8 consecutive n elements. lbo: bytes between core
// matrices adjacent in k; sbo: bytes between core matrices adjacent in n (PTX ISA, "Matrix Descriptor Format").
__device__ __forceinline__ uint64_t wgmma_desc(uint32_t smem_addr, uint32_t lbo, uint32_t sbo) {
  return uint64_t((smem_addr >> 4) & 0x3FFF) | (uint64_t((lbo >> 4) & 0x3FFF) << 16) |
         (uint64_t((sbo >> 4) & 0x3FFF) << 32);  // bits 62..63 = 0: no swizzle
}

// Descriptor of a K-major operand in the 128-byte swizzle, as TMA writes it with CU_TENSOR_MAP_SWIZZLE_128B: rows of
// 128 bytes of k, groups of 8 rows 1024 bytes apart (sbo), the tile 1024-byte aligned. Within the row, a k-step
// starts `32 * j` bytes further (the hardware applies the swizzle to the address it forms).
__device__ __forceinline__ uint64_t wgmma_desc_sw128(uint32_t smem_addr) {
  return uint64_t((smem_addr >> 4) & 0x3FFF) | (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) |
         (uint64_t(1) << 62);  // layout type 1: 128-byte swizzle
}

// Descriptor of a K-major operand of 8 floats (32 bytes) per row in the 32-byte swizzle, as TMA writes it with
// CU_TENSOR_MAP_SWIZZLE_32B: groups of 8 rows 256 bytes apart (sbo), the tile 256-byte aligned.
__device__ __forceinline__ uint64_t wgmma_desc_sw32(uint32_t smem_addr) {
  return uint64_t((smem_addr >> 4) & 0x3FFF) | (uint64_t(1) << 16) | (uint64_t(256 >> 4) << 32) |
         (uint64_t(3) << 62);  // layout type 3: 32-byte swizzle
}

// Orders this thread's register writes (A fragments, accumulators) before the wgmma that read them.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Makes this thread's generic-proxy shared-memory writes (st.shared, cp.async) visible to the async proxy that wgmma
// reads through; executed by the writers before the barrier that publishes the data.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Operands after B: keep (scale-d: add to d), scale-a 1, scale-b 1, trans-b 1 (B is N-major).
// d (64 x 32 floats over the warpgroup, the mma.m16n8 accumulator layout per warp and n8 block) += A (64 x 16, this
// warp's rows 16 * (warp % 4) .. + 15 in the mma.m16n8k16 A fragment) x B (16 x 32, N-major, descriptor b).
template <class S>
__device__ __forceinline__ void wgmma_m64n32k16_rs(float (&d)[16], const uint32_t (&a)[4], uint64_t b) {
  static_assert(std::is_same_v<S, __half> || std::is_same_v<S, __nv_bfloat16>, "f16 or bf16");
#define FD_WGMMA_M64N32K16(TYPE)                                                                                    \
  asm volatile("{\n.reg .pred keep;\nsetp.ne.b32 keep, %21, 0;\n"                                                  \
               "wgmma.mma_async.sync.aligned.m64n32k16.f32." TYPE "." TYPE                                         \
               " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15},"                           \
               " {%16, %17, %18, %19}, %20, keep, 1, 1, 1;\n}\n"                                                    \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),   \
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),          \
                 "+f"(d[15])                                                                                        \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1))
  if constexpr (std::is_same_v<S, __half>)
    FD_WGMMA_M64N32K16("f16");
  else
    FD_WGMMA_M64N32K16("bf16");
#undef FD_WGMMA_M64N32K16
}

// The 64 accumulator operands of an m64n128 wgmma (d[0] .. d[63]), eight at a time.
#define FD_R8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
                 "+f"(d[i + 6]), "+f"(d[i + 7])
#define FD_D64 FD_R8(0), FD_R8(8), FD_R8(16), FD_R8(24), FD_R8(32), FD_R8(40), FD_R8(48), FD_R8(56)

// d (64 x 128 floats over the warpgroup, the mma.m16n8 accumulator layout per warp and n8 block) += A (64 x 8) x B
// (8 x 128), both float data read as TF32 (the low 13 mantissa bits ignored) from K-major shared-memory tiles.
__device__ __forceinline__ void wgmma_m64n128k8_tf32(float (&d)[64], uint64_t a, uint64_t b) {
  asm volatile(
      "{\n.reg .pred keep;\nsetp.ne.b32 keep, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, keep, 1, 1;\n}\n"
      : FD_D64
      : "l"(a), "l"(b), "r"(1));
}

// The same with A (64 x 8) from registers: this warp's rows 16 (warp % 4) + lane / 4 (+ 8), columns lane % 4 (+ 4),
// the mma.m16n8k8 TF32 A fragment.
__device__ __forceinline__ void wgmma_m64n128k8_tf32_rs(float (&d)[64], const uint32_t (&a)[4], uint64_t b) {
  asm volatile(
      "{\n.reg .pred keep;\nsetp.ne.b32 keep, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "{%64, %65, %66, %67}, %68, keep, 1, 1;\n}\n"
      : FD_D64
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
#undef FD_D64
#undef FD_R8

}  // namespace fd::cuda::conv
