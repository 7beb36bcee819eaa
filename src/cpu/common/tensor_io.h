// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "core/tensor_desc.h"

// Moving tensors between their stored form (any data type, any strides, vector layouts) and packed
// compute buffers. CPU implementations read their inputs into packed buffers in logical order (dims[0]
// outermost, the last dim innermost), compute in float (double for DOUBLE data), and write back through
// `write_tensor`, which applies cuDNN's blending y = alpha * result + beta * y.
namespace fd::cpu {

// Reads one scalar / writes one scalar (rounded and saturated for integer types; NaN becomes 0 there).
double load_scalar(cudnnDataType_t scalar_type, const void* base, int64_t offset);
void store_scalar(cudnnDataType_t scalar_type, void* base, int64_t offset, double value);

template <class T>
void read_tensor(const cudnnTensorStruct& d, const void* data, T* out);
template <class T>
std::vector<T> read_tensor(const cudnnTensorStruct& d, const void* data) {
  std::vector<T> v(static_cast<size_t>(d.element_count()));
  read_tensor(d, data, v.data());
  return v;
}

// y = alpha * v + beta * y, element by element in logical order. y is not read when beta == 0, so it may hold
// garbage (NaN included) then, as cuDNN documents.
template <class T>
void write_tensor(const cudnnTensorStruct& d, void* data, const T* v, double alpha, double beta);

// Calls f(float{}) or f(double{}): the compute type for a storage type (double only for DOUBLE).
template <class F>
decltype(auto) with_compute_type(cudnnDataType_t storage, F&& f) {
  if (storage == CUDNN_DATA_DOUBLE) return f(double{});
  return f(float{});
}

// Logical strides of a packed buffer with d's dims (the last dim has stride 1).
void packed_logical_strides(const cudnnTensorStruct& d, int64_t* strides);

}  // namespace fd::cpu
