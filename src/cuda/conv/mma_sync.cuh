// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The warp-level tensor-core pieces of the hand-written convolution kernels (cuda:patch_fprop, cuda:patch_dgrad):
// mma.sync m16n8k16 (f16, bf16) and m16n8k8 (TF32) with float sums, ldmatrix, and operand bits as the mma
// registers hold them. Fragment layouts are the PTX ISA's: with g = lane / 4 and t = lane % 4, A holds rows g and
// g + 8, B column g, C rows g and g + 8 at columns 2t and 2t + 1.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/common/cp_async.cuh"  // shared_addr: ldmatrix takes shared-window addresses

namespace fd::cuda::conv {

template <class S>
constexpr int kStep = sizeof(S) == 2 ? 16 : 8;  // mma k: m16n8k16 (f16, bf16) or m16n8k8 (TF32)

// Bits of one element as the mma operand registers hold it: 16-bit types raw, float rounded to TF32.
__device__ __forceinline__ uint32_t tf32_bits(float v) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
  return r;
}
template <class S>
__device__ __forceinline__ auto operand_bits(S v) {
  if constexpr (sizeof(S) == 2) {
    unsigned short b;
    memcpy(&b, &v, 2);
    return b;
  } else {
    return tf32_bits(v);
  }
}
template <class S>
using Bits = std::conditional_t<sizeof(S) == 2, unsigned short, uint32_t>;

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// The same with each 8x8 matrix transposed: rows supplied as (k) give the fragment of the (n)-major operand.
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// Two transposed 8x8 matrices (rows from lanes 0..15): one n8 B fragment of a k16 step.
__device__ __forceinline__ void ldmatrix_x2_trans(uint32_t (&r)[2], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
}

template <class S>
__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (std::is_same_v<S, __half>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else if constexpr (std::is_same_v<S, __nv_bfloat16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

}  // namespace fd::cuda::conv
