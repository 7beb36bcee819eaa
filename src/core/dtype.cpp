// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/dtype.h"

#include <cmath>

namespace fd {

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      bits = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (mant & 0x3FFu) << 13;
    }
  } else if (exp == 0x1F) {
    bits = sign | 0x7F800000u | mant << 13;  // inf / nan (payload kept)
  } else {
    bits = sign | (exp + (127 - 15)) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);  // NaN stays NaN
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to inf
  if (abs < 0x38800000u) {  // result is subnormal or zero: scale into the subnormal grid and round
    float a;
    std::memcpy(&a, &abs, 4);
    const float scaled = a * 16777216.0f;  // 2^24: one half subnormal ulp becomes 1
    const uint32_t r = static_cast<uint32_t>(std::nearbyint(scaled));
    return static_cast<uint16_t>(sign | r);
  }
  const uint32_t mant = abs & 0x7FFFFFu;
  const uint32_t exp = (abs >> 23) - 127 + 15;
  uint32_t h = exp << 10 | mant >> 13;
  const uint32_t rest = mant & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent, which is right
  return static_cast<uint16_t>(sign | h);
}

uint16_t float_to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  const uint32_t lsb = (x >> 16) & 1u;
  x += 0x7FFFu + lsb;
  return static_cast<uint16_t>(x >> 16);
}

size_t dtype_size(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT: return 4;
    case CUDNN_DATA_DOUBLE: return 8;
    case CUDNN_DATA_HALF: return 2;
    case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT8: return 1;
    case CUDNN_DATA_UINT8: return 1;
    case CUDNN_DATA_INT32: return 4;
    case CUDNN_DATA_INT64: return 8;
    case CUDNN_DATA_INT8x4: return 4;
    case CUDNN_DATA_UINT8x4: return 4;
    case CUDNN_DATA_INT8x32: return 32;
  }
  return 0;
}

int dtype_vector_width(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_UINT8x4: return 4;
    case CUDNN_DATA_INT8x32: return 32;
    default: return 1;
  }
}

bool needs_double(cudnnDataType_t t) {
  t = dtype_scalar(t);
  return t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_INT32 || t == CUDNN_DATA_INT64;
}

cudnnDataType_t dtype_scalar(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_INT8x32: return CUDNN_DATA_INT8;
    case CUDNN_DATA_UINT8x4: return CUDNN_DATA_UINT8;
    default: return t;
  }
}

bool dtype_is_valid(cudnnDataType_t t) { return dtype_size(t) != 0; }

bool dtype_is_float(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

namespace {
struct ShortName {
  cudnnDataType_t type;
  const char* name;
};
constexpr ShortName kShortNames[] = {
    {CUDNN_DATA_FLOAT, "f32"},  {CUDNN_DATA_DOUBLE, "f64"}, {CUDNN_DATA_HALF, "f16"},
    {CUDNN_DATA_BFLOAT16, "bf16"}, {CUDNN_DATA_INT8, "s8"},  {CUDNN_DATA_INT32, "s32"},
    {CUDNN_DATA_INT8x4, "s8x4"}, {CUDNN_DATA_UINT8, "u8"},  {CUDNN_DATA_UINT8x4, "u8x4"},
    {CUDNN_DATA_INT8x32, "s8x32"}, {CUDNN_DATA_INT64, "s64"},
};
}  // namespace

const char* dtype_short_name(cudnnDataType_t t) {
  for (const auto& s : kShortNames)
    if (s.type == t) return s.name;
  return "invalid";
}

bool dtype_from_short_name(const std::string& s, cudnnDataType_t* t) {
  for (const auto& n : kShortNames) {
    if (s == n.name) {
      *t = n.type;
      return true;
    }
  }
  return false;
}

}  // namespace fd
