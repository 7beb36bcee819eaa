// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cpu/common/tensor_io.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/dtype.h"
#include "cpu/common/parallel.h"

namespace fd::cpu {
namespace {

template <class I>
I saturate(double v) {
  if (std::isnan(v)) return 0;
  const double r = std::nearbyint(v);
  if (r <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (r >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}

// Scalar offset of logical element `linear` (row-major over dims).
int64_t offset_of(const cudnnTensorStruct& d, int64_t linear) {
  int64_t idx[CUDNN_DIM_MAX];
  for (int i = d.nb_dims - 1; i >= 0; --i) {
    idx[i] = linear % d.dims[i];
    linear /= d.dims[i];
  }
  return d.scalar_offset(idx);
}

// Packed, unvectorized and in logical (row-major) order: element i is at scalar offset i.
bool is_row_major(const cudnnTensorStruct& d) {
  if (!d.is_packed() || d.vect() != 1) return false;
  int64_t s = 1;
  for (int i = d.nb_dims - 1; i >= 0; --i) {
    if (d.strides[i] != s) return false;
    s *= d.dims[i];
  }
  return true;
}

template <class T>
constexpr cudnnDataType_t storage_type() {
  return std::is_same_v<T, double> ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

}  // namespace

double load_scalar(cudnnDataType_t t, const void* base, int64_t off) {
  switch (t) {
    case CUDNN_DATA_FLOAT: return static_cast<const float*>(base)[off];
    case CUDNN_DATA_DOUBLE: return static_cast<const double*>(base)[off];
    case CUDNN_DATA_HALF: return half_to_float(static_cast<const uint16_t*>(base)[off]);
    case CUDNN_DATA_BFLOAT16: return bf16_to_float(static_cast<const uint16_t*>(base)[off]);
    case CUDNN_DATA_INT8: return static_cast<const int8_t*>(base)[off];
    case CUDNN_DATA_UINT8: return static_cast<const uint8_t*>(base)[off];
    case CUDNN_DATA_INT32: return static_cast<const int32_t*>(base)[off];
    case CUDNN_DATA_INT64: return static_cast<double>(static_cast<const int64_t*>(base)[off]);
    default: return load_scalar(dtype_scalar(t), base, off);
  }
}

void store_scalar(cudnnDataType_t t, void* base, int64_t off, double v) {
  switch (t) {
    case CUDNN_DATA_FLOAT: static_cast<float*>(base)[off] = static_cast<float>(v); return;
    case CUDNN_DATA_DOUBLE: static_cast<double*>(base)[off] = v; return;
    case CUDNN_DATA_HALF: static_cast<uint16_t*>(base)[off] = float_to_half(static_cast<float>(v)); return;
    case CUDNN_DATA_BFLOAT16: static_cast<uint16_t*>(base)[off] = float_to_bf16(static_cast<float>(v)); return;
    case CUDNN_DATA_INT8: static_cast<int8_t*>(base)[off] = saturate<int8_t>(v); return;
    case CUDNN_DATA_UINT8: static_cast<uint8_t*>(base)[off] = saturate<uint8_t>(v); return;
    case CUDNN_DATA_INT32: static_cast<int32_t*>(base)[off] = saturate<int32_t>(v); return;
    case CUDNN_DATA_INT64: static_cast<int64_t*>(base)[off] = saturate<int64_t>(v); return;
    default: store_scalar(dtype_scalar(t), base, off, v); return;
  }
}

template <class T>
void read_tensor(const cudnnTensorStruct& d, const void* data, T* out) {
  const cudnnDataType_t st = dtype_scalar(d.dtype);
  const int64_t n = d.element_count();
  if (st == CUDNN_DATA_FLOAT && std::is_same_v<T, float> && is_row_major(d)) {
    std::memcpy(out, data, static_cast<size_t>(n) * sizeof(float));
    return;
  }
  parallel_for(n, [&](int64_t i) { out[i] = static_cast<T>(load_scalar(st, data, offset_of(d, i))); }, 4096);
}

template <class T>
void write_tensor(const cudnnTensorStruct& d, void* data, const T* v, double alpha, double beta) {
  const cudnnDataType_t st = dtype_scalar(d.dtype);
  const int64_t n = d.element_count();
  const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
  if (st == storage_type<T>() && is_row_major(d)) {  // fast path: the storage is the compute type, packed NCHW
    T* y = static_cast<T*>(data);
    parallel_for(n, [&](int64_t i) { y[i] = beta != 0.0 ? a * v[i] + b * y[i] : a * v[i]; }, 16384);
    return;
  }
  parallel_for(n, [&](int64_t i) {
    const int64_t off = offset_of(d, i);
    T r = a == T(1) ? v[i] : a * v[i];
    if (beta != 0.0) r += b * static_cast<T>(load_scalar(st, data, off));
    store_scalar(st, data, off, static_cast<double>(r));
  }, 4096);
}

void packed_logical_strides(const cudnnTensorStruct& d, int64_t* strides) {
  int64_t s = 1;
  for (int i = d.nb_dims - 1; i >= 0; --i) {
    strides[i] = s;
    s *= d.dims[i];
  }
}

template void read_tensor<float>(const cudnnTensorStruct&, const void*, float*);
template void read_tensor<double>(const cudnnTensorStruct&, const void*, double*);
template void write_tensor<float>(const cudnnTensorStruct&, void*, const float*, double, double);
template void write_tensor<double>(const cudnnTensorStruct&, void*, const double*, double, double);

}  // namespace fd::cpu
