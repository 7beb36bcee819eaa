// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <cstdint>
#include <string>

#include "core/checked.h"
#include "core/log.h"

// A tensor: data type, up to CUDNN_DIM_MAX logical dims (N, C, spatial...) and a stride per dim.
// Strides count stored elements. For the vector types (INT8x4, UINT8x4, INT8x32: layout NCHW_VECT_C) a
// stored element is a vector of `vect()` channels, dims[1] stays the scalar channel count, and the channel
// dim walks over ceil(C / vect()) vectors.
struct cudnnTensorStruct : fd::Checked<0x54454E53u> {
  static constexpr const char* kTypeName = "cudnnTensorDescriptor_t";

  bool is_set = false;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;  // how it was set; NCHW when set from explicit strides
  int nb_dims = 0;
  int64_t dims[CUDNN_DIM_MAX] = {};
  int64_t strides[CUDNN_DIM_MAX] = {};

  int vect() const;
  int64_t element_count() const;          // logical scalars
  int64_t stored_dim(int i) const;        // dims[i], or the vector count for the channel dim of vector types
  int64_t span_elements() const;          // stored elements from the first to one past the last
  size_t size_in_bytes() const;
  bool is_packed() const;                 // no gaps, in any dim order
  // Stored exactly as a packed tensor of `format` (NCHW: row-major; NHWC: channel innermost) would be, dims of
  // extent 1 taking any stride; false for the vector types.
  bool is_packed_as(cudnnTensorFormat_t format) const;
  bool same_shape(const cudnnTensorStruct& o) const;
  // Offset of the scalar at logical index idx[0..nb_dims), in scalar units (bytes / scalar size).
  int64_t scalar_offset(const int64_t* idx) const;

  std::string spec() const;  // problem-string form: "f32:2x3x4x5:60x20x5x1" (dims : strides)
  void describe(fd::log::Writer& w) const;
};

namespace fd {

// Validates and fills a descriptor. The API setters, the filter helpers and internal code all use these.
cudnnStatus_t set_tensor_strided(cudnnTensorStruct& d, cudnnDataType_t dtype, int nb_dims, const int* dims,
                                 const int* strides);
cudnnStatus_t set_tensor_format(cudnnTensorStruct& d, cudnnTensorFormat_t format, cudnnDataType_t dtype,
                                int nb_dims, const int* dims);
// Packed strides for `format` (NCHW, NHWC: channel innermost, NCHW_VECT_C).
void packed_strides(cudnnTensorFormat_t format, int nb_dims, const int64_t* dims, int vect, int64_t* strides);

// A 4-D tensor (n, c, h, w) packed NHWC / NCHW (dims of extent 1 free). For a filter's as_tensor (k, c, r, s):
// packed KRSC / KCRS.
inline bool packed_nhwc(const cudnnTensorStruct& t) { return t.nb_dims == 4 && t.is_packed_as(CUDNN_TENSOR_NHWC); }
inline bool packed_nchw(const cudnnTensorStruct& t) { return t.nb_dims == 4 && t.is_packed_as(CUDNN_TENSOR_NCHW); }

// The checks every op does on a tensor argument: non-null, alive, set.
cudnnStatus_t check_tensor(const cudnnTensorStruct* d, const char* role);

}  // namespace fd
