// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// What the channels-last max-pooling kernels share (pooling2d_nhwc.cu, pooling2d_nhwc_bwd1.cu): tensor strides and
// plane sizes, the neutral bits of unread window positions, and the host-side checks of the 16-byte channel
// vectors; for pooling2d_nhwc.cu's two passes also work-item splitting, the per-row argmax (with pool_folds.cuh's
// folds) and one-byte argmax codes. Included by those .cu files only.
#pragma once
#include <cstdint>
#include <type_traits>

#include "core/env.h"
#include "cuda/common/aligned.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/index.cuh"
#include "cuda/pooling/pool_folds.cuh"
#include "cuda/pooling/pooling.h"

namespace fd::cuda {
namespace {

constexpr int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
constexpr int ceil_div(int a, int b) { return -floor_div(-a, b); }

// Element strides of n, h, w (the channel stride is 1).
struct Str {
  int n = 0, h = 0, w = 0;
};

struct Geo {
  int in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  bool propagate = false;
};

// Work items i -> (n, row block, column, channel vector), channel vectors innermost.
struct Items {
  int total = 0, cv = 1, cols = 1, rows = 1;
  Divider d_cv, d_cols, d_rows;
  __device__ __forceinline__ void split(int i, int* n, int* grp, int* col, int* v) const {
    int q = static_cast<int>(d_cv.div(i));
    *v = i - q * cv;
    i = q;
    q = static_cast<int>(d_cols.div(i));
    *col = i - q * cols;
    i = q;
    q = static_cast<int>(d_rows.div(i));
    *grp = i - q * rows;
    *n = q;
  }
};

Items make_items(int64_t n, int64_t rows, int64_t cols, int64_t cv) {
  Items it;
  const int64_t total = n * rows * cols * cv;
  it.total = static_cast<int>(total);
  it.cv = static_cast<int>(cv);
  it.cols = static_cast<int>(cols);
  it.rows = static_cast<int>(rows);
  it.d_cv = Divider(cv, total);
  it.d_cols = Divider(cols, total);
  it.d_rows = Divider(rows, total);
  return it;
}

// 16 bytes of the neutral value of the max folds: NaN (all bits set) when NaNs are skipped, -inf when they
// propagate (unread window positions hold it).
template <class S, bool kProp>
__device__ __forceinline__ uint4 neutral_bits() {
  if constexpr (!kProp) return make_uint4(~0u, ~0u, ~0u, ~0u);
  else if constexpr (sizeof(S) == 2) {
    constexpr uint32_t w = std::is_same_v<S, __half> ? 0xFC00FC00u : 0xFF80FF80u;
    return make_uint4(w, w, w, w);
  } else if constexpr (sizeof(S) == 4) {
    return make_uint4(0xFF800000u, 0xFF800000u, 0xFF800000u, 0xFF800000u);
  } else {
    return make_uint4(0u, 0xFFF00000u, 0u, 0xFFF00000u);
  }
}

// The larger of a and b, NaN only when both are (fmaxf / fmax).
__device__ __forceinline__ float max_skip_nan(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double max_skip_nan(double a, double b) { return fmax(a, b); }

__device__ __forceinline__ uint4 shfl_up4(const uint4& v, int delta) {
  uint4 r;
  r.x = __shfl_up_sync(0xffffffffu, v.x, delta);
  r.y = __shfl_up_sync(0xffffffffu, v.y, delta);
  r.z = __shfl_up_sync(0xffffffffu, v.z, delta);
  r.w = __shfl_up_sync(0xffffffffu, v.w, delta);
  return r;
}

// V one-byte codes at p (p aligned to V bytes), as little-endian 32-bit words.
template <int V>
__device__ __forceinline__ void load_codes(const uint8_t* p, uint32_t* w) {
  if constexpr (V == 8) {
    const uint2 u = *reinterpret_cast<const uint2*>(p);
    w[0] = u.x;
    w[1] = u.y;
  } else if constexpr (V == 4) {
    w[0] = *reinterpret_cast<const uint32_t*>(p);
  } else {
    static_assert(V == 2, "vectors of 2, 4 or 8 elements");
    w[0] = *reinterpret_cast<const uint16_t*>(p);
  }
}
template <int V>
__device__ __forceinline__ void store_codes(uint8_t* p, const uint32_t* w) {
  if constexpr (V == 8) *reinterpret_cast<uint2*>(p) = make_uint2(w[0], w[1]);
  else if constexpr (V == 4) *reinterpret_cast<uint32_t*>(p) = w[0];
  else *reinterpret_cast<uint16_t*>(p) = static_cast<uint16_t>(w[0]);
}

// One window row of each of V lanes (K values per lane in v; positions not read hold the neutral value, rv &&
// colv[t] says which were read): its maximum hv and that maximum's column ht (-1: none), the first column holding
// it (max_skip_nan skips NaNs; kProp: the first NaN instead when the row has one). Folded over the window's rows in
// order with arg_fold, the CPU's window_max.
template <class C, int K, int V, bool kProp>
__device__ __forceinline__ void row_arg(const C (&v)[K][V], bool rv, const bool (&colv)[K], C (&hv)[V], int (&ht)[V]) {
#pragma unroll
  for (int k = 0; k < V; ++k) {
    C m = v[0][k];
#pragma unroll
    for (int t = 1; t < K; ++t) m = max_skip_nan(m, v[t][k]);
    bool nan_row = false;
    if constexpr (kProp) {
#pragma unroll
      for (int t = 0; t < K; ++t) nan_row |= v[t][k] != v[t][k];
    }
    ht[k] = -1;
#pragma unroll
    for (int t = K - 1; t >= 0; --t) {
      // not propagating, unread columns hold NaN and never match; propagating, they hold -inf
      const bool hit = kProp ? rv && colv[t] && (nan_row ? v[t][k] != v[t][k] : v[t][k] == m) : v[t][k] == m;
      if (hit) ht[k] = t;
    }
    hv[k] = kProp && nan_row ? C(NAN) : m;
  }
}

// ---- host side ----

// pool_tensor_fits, no empty dimension, and 16-byte vectors of v channels: unit channel stride, C % v == 0, the
// other strides multiples of v, the pointer 16-byte aligned.
bool nhwc_vec(const cudnnTensorStruct& d, const void* p, int v) {
  if (!pool_tensor_fits(d) || !aligned16(p)) return false;
  for (int i = 0; i < 4; ++i)
    if (d.dims[i] < 1) return false;
  if (d.dims[1] % v != 0 || d.strides[1] != 1) return false;
  for (int i : {0, 2, 3})
    if (d.dims[i] > 1 && d.strides[i] % v != 0) return false;
  return true;
}

bool nhwc_on(const cudnnPoolingStruct& p) {
  static const bool off = fd::env_flag("FREEDNN_POOL_NO_NHWC");
  return !off && p.nb_dims == 2 && (p.mode == CUDNN_POOLING_MAX || p.mode == CUDNN_POOLING_MAX_DETERMINISTIC);
}

Geo make_geo(const cudnnPoolingStruct& p, const cudnnTensorStruct& xd, const cudnnTensorStruct& od) {
  Geo g;
  g.in_h = static_cast<int>(xd.dims[2]);
  g.in_w = static_cast<int>(xd.dims[3]);
  g.out_h = static_cast<int>(od.dims[2]);
  g.out_w = static_cast<int>(od.dims[3]);
  g.propagate = p.nan_opt == CUDNN_PROPAGATE_NAN;
  return g;
}

Str str_of(const cudnnTensorStruct& d) {
  Str s;
  s.n = static_cast<int>(d.strides[0]);
  s.h = static_cast<int>(d.strides[2]);
  s.w = static_cast<int>(d.strides[3]);
  return s;
}

}  // namespace
}  // namespace fd::cuda
