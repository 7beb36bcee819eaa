// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Vectors of float / half / bfloat16 held as raw 32-bit words (what 8- and 16-byte loads return) converted to and
// from float: kernels that keep a window of loaded vectors in registers and widen them only at use.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <type_traits>

namespace fd::cuda::conv {

// W words of S (W floats, or 2 W halves / bfloat16) as float.
template <class S, int W>
__device__ __forceinline__ void words_to_float(const unsigned (&w)[W], float (&f)[W * 4 / sizeof(S)]) {
#pragma unroll
  for (int k = 0; k < W; ++k) {
    if constexpr (std::is_same_v<S, float>) {
      f[k] = __uint_as_float(w[k]);
    } else {
      float2 t;
      if constexpr (std::is_same_v<S, __half>) {
        __half2 h;
        memcpy(&h, &w[k], 4);
        t = __half22float2(h);
      } else {
        __nv_bfloat162 h;
        memcpy(&h, &w[k], 4);
        t = __bfloat1622float2(h);
      }
      f[2 * k] = t.x, f[2 * k + 1] = t.y;
    }
  }
}

// The same back, rounded to nearest.
template <class S, int W>
__device__ __forceinline__ void float_to_words(const float (&f)[W * 4 / sizeof(S)], unsigned (&w)[W]) {
#pragma unroll
  for (int k = 0; k < W; ++k) {
    if constexpr (std::is_same_v<S, float>) {
      w[k] = __float_as_uint(f[k]);
    } else if constexpr (std::is_same_v<S, __half>) {
      const __half2 h = __floats2half2_rn(f[2 * k], f[2 * k + 1]);
      memcpy(&w[k], &h, 4);
    } else {
      const __nv_bfloat162 h = __floats2bfloat162_rn(f[2 * k], f[2 * k + 1]);
      memcpy(&w[k], &h, 4);
    }
  }
}

template <class S>
__device__ __forceinline__ void widen8(const uint2& u, float (&f)[8 / sizeof(S)]) {
  const unsigned w[2] = {u.x, u.y};
  words_to_float<S, 2>(w, f);
}

template <class S>
__device__ __forceinline__ uint2 narrow8(const float (&f)[8 / sizeof(S)]) {
  unsigned w[2];
  float_to_words<S, 2>(f, w);
  return make_uint2(w[0], w[1]);
}

template <class S>
__device__ __forceinline__ void widen16(const uint4& u, float (&f)[16 / sizeof(S)]) {
  const unsigned w[4] = {u.x, u.y, u.z, u.w};
  words_to_float<S, 4>(w, f);
}

}  // namespace fd::cuda::conv
