// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Device helpers for kernels whose storage types are runtime values (generic strided paths that would otherwise
// need one instantiation per type pair): loads / stores by scalar type with the CPU backend's conversions, a
// strided view that broadcasts, alpha/beta blending, and warp / block reductions.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "core/tensor_desc.h"

namespace fd::cuda {

// Loads element i of a buffer of scalar type t (never a vector type: pass dtype_scalar) as C.
template <class C>
__device__ __forceinline__ C load_dyn(cudnnDataType_t t, const void* p, int64_t i) {
  switch (t) {
    case CUDNN_DATA_FLOAT: return static_cast<C>(static_cast<const float*>(p)[i]);
    case CUDNN_DATA_DOUBLE: return static_cast<C>(static_cast<const double*>(p)[i]);
    case CUDNN_DATA_HALF: return static_cast<C>(__half2float(static_cast<const __half*>(p)[i]));
    case CUDNN_DATA_BFLOAT16: return static_cast<C>(__bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]));
    case CUDNN_DATA_INT8: return static_cast<C>(static_cast<const int8_t*>(p)[i]);
    case CUDNN_DATA_UINT8: return static_cast<C>(static_cast<const uint8_t*>(p)[i]);
    case CUDNN_DATA_INT32: return static_cast<C>(static_cast<const int32_t*>(p)[i]);
    case CUDNN_DATA_INT64: return static_cast<C>(static_cast<double>(static_cast<const int64_t*>(p)[i]));
    default: return C(0);
  }
}

// Stores v into element i, as the CPU's store_scalar: floats via float, integers rounded to nearest and saturated
// (NaN becomes 0).
template <class C>
__device__ __forceinline__ void store_dyn(cudnnDataType_t t, void* p, int64_t i, C v) {
  switch (t) {
    case CUDNN_DATA_FLOAT: static_cast<float*>(p)[i] = static_cast<float>(v); return;
    case CUDNN_DATA_DOUBLE: static_cast<double*>(p)[i] = static_cast<double>(v); return;
    case CUDNN_DATA_HALF: static_cast<__half*>(p)[i] = __float2half_rn(static_cast<float>(v)); return;
    case CUDNN_DATA_BFLOAT16: static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(static_cast<float>(v)); return;
    default: break;
  }
  const double d = static_cast<double>(v);
  const double r = d != d ? 0.0 : rint(d);
  switch (t) {
    case CUDNN_DATA_INT8: static_cast<int8_t*>(p)[i] = static_cast<int8_t>(fmin(127.0, fmax(-128.0, r))); return;
    case CUDNN_DATA_UINT8: static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(fmin(255.0, fmax(0.0, r))); return;
    case CUDNN_DATA_INT32:
      static_cast<int32_t*>(p)[i] = static_cast<int32_t>(fmin(2147483647.0, fmax(-2147483648.0, r)));
      return;
    case CUDNN_DATA_INT64: {
      int64_t q;
      if (r <= -9223372036854775808.0) q = INT64_MIN;
      else if (r >= 9223372036854775807.0) q = INT64_MAX;
      else q = static_cast<int64_t>(r);
      static_cast<int64_t*>(p)[i] = q;
      return;
    }
    default: return;
  }
}

// y = alpha * v + beta * y at element off; y is not read when beta == 0.
template <class C>
__device__ __forceinline__ void blend_dyn(cudnnDataType_t t, void* p, int64_t off, C v, C alpha, C beta) {
  C r = alpha == C(1) ? v : alpha * v;
  if (beta != C(0)) r += beta * load_dyn<C>(t, p, off);
  store_dyn<C>(t, p, off, r);
}

// Scalar offset of a logical element (row-major over dims) of a tensor, possibly broadcast: a broadcast dim has
// stride 0. For vector types (vect > 1) the channel dim walks vectors and picks a lane; a broadcast channel reads
// lane 0.
struct BView {
  int nb = 0;
  int vect = 1;
  bool packed = false;  // offset(i) == i
  int64_t dims[CUDNN_DIM_MAX] = {};
  int64_t strides[CUDNN_DIM_MAX] = {};

  __device__ __forceinline__ int64_t offset(int64_t linear) const {
    if (packed) return linear;
    int64_t off = 0, lane = 0;
    for (int i = nb - 1; i > 0; --i) {
      const int64_t q = linear / dims[i];
      const int64_t r = linear - q * dims[i];
      linear = q;
      if (i == 1 && vect > 1) {
        off += (r / vect) * strides[1];
        lane = strides[1] == 0 ? 0 : r % vect;
      } else {
        off += r * strides[i];
      }
    }
    off += linear * strides[0];
    return vect > 1 ? off * vect + lane : off;
  }
};

// The view of `in` indexed by the logical elements of `out` (in's dims equal out's or are 1).
inline BView make_bview(const cudnnTensorStruct& in, const cudnnTensorStruct& out) {
  BView v;
  v.nb = out.nb_dims;
  v.vect = in.vect();
  int64_t s = 1;
  bool packed = v.vect == 1;
  for (int i = out.nb_dims - 1; i >= 0; --i) {
    v.dims[i] = out.dims[i];
    const bool bc = in.dims[i] == 1 && out.dims[i] != 1;
    v.strides[i] = bc ? 0 : in.strides[i];
    packed = packed && !bc && (in.strides[i] == s || in.dims[i] == 1);
    s *= in.dims[i];
  }
  v.packed = packed;
  return v;
}
inline BView make_bview(const cudnnTensorStruct& d) { return make_bview(d, d); }

// Whether two tensors of the same dims store their elements at the same offsets, without gaps (any dim order).
inline bool same_packed_layout(const cudnnTensorStruct& a, const cudnnTensorStruct& b) {
  if (a.nb_dims != b.nb_dims || a.vect() != 1 || b.vect() != 1 || !a.is_packed() || !b.is_packed()) return false;
  for (int i = 0; i < a.nb_dims; ++i)
    if (a.dims[i] != b.dims[i] || (a.dims[i] > 1 && a.strides[i] != b.strides[i])) return false;
  return true;
}

template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
  return v;
}
template <class T>
__device__ __forceinline__ T warp_max(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const T w = __shfl_xor_sync(0xFFFFFFFFu, v, o);
    v = w > v ? w : v;
  }
  return v;
}

// Block-wide reduction (blockDim.x a multiple of 32, at most 1024); every thread gets the result. `scratch` holds
// 32 values; `identity` is op's neutral element; the call synchronizes the block (all threads must call it).
template <class T, class Op>
__device__ __forceinline__ T block_reduce(T v, T* scratch, Op op, T identity) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xFFFFFFFFu, v, o));
  __syncthreads();  // scratch may still be read by a previous reduction
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < nw ? scratch[lane] : identity;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xFFFFFFFFu, v, o));
  return v;
}

}  // namespace fd::cuda
