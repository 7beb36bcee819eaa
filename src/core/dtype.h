// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace fd {

// IEEE binary16 and bfloat16 conversions on the host, round to nearest even.
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
inline float bf16_to_float(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t float_to_bf16(float f);

// Bytes of one stored element (one vector for the INTx4 / INT8x32 types).
size_t dtype_size(cudnnDataType_t t);
// Lanes packed into one element: 4 for INT8x4/UINT8x4, 32 for INT8x32, else 1.
int dtype_vector_width(cudnnDataType_t t);
// The scalar type of a vector type (INT8x4 -> INT8), else the type itself.
cudnnDataType_t dtype_scalar(cudnnDataType_t t);
bool dtype_is_valid(cudnnDataType_t t);
bool dtype_is_float(cudnnDataType_t t);  // FLOAT, DOUBLE, HALF, BFLOAT16
// Whether values stored as t (or its scalar type) need double arithmetic to stay exact: DOUBLE, and 32- / 64-bit
// integers (float is exact only below 2^24). Both backends ask this, so that they round alike.
bool needs_double(cudnnDataType_t t);
// Short name used in problem strings: f32 f64 f16 bf16 s8 s32 s8x4 u8 u8x4 s8x32 s64.
const char* dtype_short_name(cudnnDataType_t t);
bool dtype_from_short_name(const std::string& s, cudnnDataType_t* t);

// alpha/beta scaling factors are host pointers to double for DOUBLE data, to float for everything else.
inline double read_scale(const void* p, cudnnDataType_t data_type) {
  if (data_type == CUDNN_DATA_DOUBLE) return *static_cast<const double*>(p);
  return static_cast<double>(*static_cast<const float*>(p));
}

}  // namespace fd
