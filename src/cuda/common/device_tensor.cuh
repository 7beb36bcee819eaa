// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Device-side tensor access: a by-value view of a descriptor (passed as a kernel argument), scalar loads/stores
// that convert between the storage type and the compute type, and 16-byte vector loads / blended stores.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "core/tensor_desc.h"

namespace fd::cuda {

struct TensorView {
  int nb_dims = 0;
  int vect = 1;
  bool row_major_packed = false;  // offset(i) == i: no index arithmetic needed
  int64_t dims[CUDNN_DIM_MAX] = {};
  int64_t strides[CUDNN_DIM_MAX] = {};

  // Scalar offset of logical element `linear` (row-major over dims), as cudnnTensorStruct::scalar_offset.
  __host__ __device__ __forceinline__ int64_t offset(int64_t linear) const {
    return row_major_packed ? linear : strided_offset(linear);
  }

  // The generic path, kept as one rolled loop: unrolled over CUDNN_DIM_MAX at each use, its 64-bit divisions made
  // kernels that call offset() a few times (batch norm's finalize) ~10K instructions long, mostly never run, and
  // their hot loops missed the instruction cache (ncu, run 25). (Out of line instead, a kernel whose view is a
  // parameter copied all its parameters to local memory at entry, for the call's `this`.)
  __host__ __device__ int64_t strided_offset(int64_t linear) const {
    int64_t off = 0, c = 0;
#pragma unroll 1
    for (int i = nb_dims - 1; i >= 0; --i) {
      const int64_t q = linear / dims[i];
      const int64_t r = linear - q * dims[i];
      linear = q;
      if (i == 1 && vect > 1) {
        c = r;
        off += (r / vect) * strides[1];
      } else {
        off += r * strides[i];
      }
    }
    return vect > 1 ? off * vect + c % vect : off;
  }
};

inline TensorView make_view(const cudnnTensorStruct& d) {
  TensorView v;
  v.nb_dims = d.nb_dims;
  v.vect = d.vect();
  int64_t s = 1;
  bool packed = v.vect == 1;
  for (int i = d.nb_dims - 1; i >= 0; --i) {
    v.dims[i] = d.dims[i];
    v.strides[i] = d.strides[i];
    packed = packed && (d.strides[i] == s || d.dims[i] == 1);
    s *= d.dims[i];
  }
  v.row_major_packed = packed;
  return v;
}

// A hint: the line holding *p into L1 (and L2), for a read that comes after a wait this one can run ahead of.
__device__ __forceinline__ void prefetch_l1(const void* p) { asm volatile("prefetch.global.L1 [%0];" ::"l"(p)); }

// Storage <-> compute conversions. Integer stores round to nearest and saturate; NaN becomes 0.
template <class S> struct Storage;
template <> struct Storage<float> {
  __device__ static float load(const float* p, int64_t i) { return p[i]; }
  __device__ static void store(float* p, int64_t i, float v) { p[i] = v; }
};
template <> struct Storage<double> {
  __device__ static double load(const double* p, int64_t i) { return p[i]; }
  __device__ static void store(double* p, int64_t i, double v) { p[i] = v; }
};
template <> struct Storage<__half> {
  __device__ static float load(const __half* p, int64_t i) { return __half2float(p[i]); }
  __device__ static void store(__half* p, int64_t i, float v) { p[i] = __float2half_rn(v); }
};
template <> struct Storage<__nv_bfloat16> {
  __device__ static float load(const __nv_bfloat16* p, int64_t i) { return __bfloat162float(p[i]); }
  __device__ static void store(__nv_bfloat16* p, int64_t i, float v) { p[i] = __float2bfloat16_rn(v); }
};
template <> struct Storage<int8_t> {
  __device__ static float load(const int8_t* p, int64_t i) { return static_cast<float>(p[i]); }
  __device__ static void store(int8_t* p, int64_t i, float v) {
    v = v != v ? 0.f : fminf(127.f, fmaxf(-128.f, rintf(v)));
    p[i] = static_cast<int8_t>(v);
  }
};
template <> struct Storage<uint8_t> {
  __device__ static float load(const uint8_t* p, int64_t i) { return static_cast<float>(p[i]); }
  __device__ static void store(uint8_t* p, int64_t i, float v) {
    v = v != v ? 0.f : fminf(255.f, fmaxf(0.f, rintf(v)));
    p[i] = static_cast<uint8_t>(v);
  }
};
template <> struct Storage<int32_t> {
  __device__ static double load(const int32_t* p, int64_t i) { return static_cast<double>(p[i]); }
  __device__ static void store(int32_t* p, int64_t i, double v) {
    v = v != v ? 0.0 : fmin(2147483647.0, fmax(-2147483648.0, rint(v)));
    p[i] = static_cast<int32_t>(v);
  }
};

// The compute type of storage type S: float for the 8- and 16-bit floats and int8, double for DOUBLE / INT32.
template <class S>
using Comp = decltype(Storage<S>::load(nullptr, 0));

// V consecutive elements at p as compute values: one 16-byte access when V * sizeof(S) == 16 (p 16-byte aligned),
// a scalar access when V == 1.
template <class S, int V>
__device__ __forceinline__ void load_vec(const S* p, Comp<S>* v) {
  if constexpr (V == 1) {
    v[0] = Storage<S>::load(p, 0);
  } else {
    static_assert(V * sizeof(S) == 16, "16-byte vectors");
    alignas(16) S a[V];
    *reinterpret_cast<uint4*>(a) = *reinterpret_cast<const uint4*>(p);
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = Storage<S>::load(a, k);
  }
}

template <class S, int V>
__device__ __forceinline__ void store_vec(S* p, const Comp<S>* v) {
  if constexpr (V == 1) {
    Storage<S>::store(p, 0, v[0]);
  } else {
    static_assert(V * sizeof(S) == 16, "16-byte vectors");
    alignas(16) S a[V];
#pragma unroll
    for (int k = 0; k < V; ++k) Storage<S>::store(a, k, v[k]);
    *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(a);
  }
}

// p[k] = alpha * v[k] + beta * p[k] for the V elements at p (as load_vec); p is not read when beta == 0.
template <class S, int V>
__device__ __forceinline__ void blend_store_vec(S* p, const Comp<S>* v, double alpha, double beta) {
  using C = Comp<S>;
  C r[V];
#pragma unroll
  for (int k = 0; k < V; ++k) r[k] = alpha == 1.0 ? v[k] : static_cast<C>(alpha) * v[k];
  if (beta != 0.0) {
    C old[V];
    load_vec<S, V>(p, old);
#pragma unroll
    for (int k = 0; k < V; ++k) r[k] += static_cast<C>(beta) * old[k];
  }
  store_vec<S, V>(p, r);
}

// Calls f(S{}) for the float-family storage types (float, double, half, bfloat16); false for others.
template <class F>
bool with_float_storage(cudnnDataType_t t, F&& f) {
  switch (t) {
    case CUDNN_DATA_FLOAT: f(float{}); return true;
    case CUDNN_DATA_DOUBLE: f(double{}); return true;
    case CUDNN_DATA_HALF: f(__half{}); return true;
    case CUDNN_DATA_BFLOAT16: f(__nv_bfloat16{}); return true;
    default: return false;
  }
}

// Calls f(S{}) with S the C++ storage type of a cuDNN scalar type; returns false for types without one.
template <class F>
bool with_storage_type(cudnnDataType_t t, F&& f) {
  switch (t) {
    case CUDNN_DATA_FLOAT: f(float{}); return true;
    case CUDNN_DATA_DOUBLE: f(double{}); return true;
    case CUDNN_DATA_HALF: f(__half{}); return true;
    case CUDNN_DATA_BFLOAT16: f(__nv_bfloat16{}); return true;
    case CUDNN_DATA_INT8: case CUDNN_DATA_INT8x4: case CUDNN_DATA_INT8x32: f(int8_t{}); return true;
    case CUDNN_DATA_UINT8: case CUDNN_DATA_UINT8x4: f(uint8_t{}); return true;
    case CUDNN_DATA_INT32: f(int32_t{}); return true;
    default: return false;
  }
}

}  // namespace fd::cuda
