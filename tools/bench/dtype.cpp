// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "dtype.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace bench {
namespace {

struct Name {
  cudnnDataType_t t;
  const char* name;
  const char* alias;
};
constexpr Name kNames[] = {
    {CUDNN_DATA_FLOAT, "f32", "fp32"}, {CUDNN_DATA_DOUBLE, "f64", "fp64"}, {CUDNN_DATA_HALF, "f16", "fp16"},
    {CUDNN_DATA_BFLOAT16, "bf16", "bf16"}, {CUDNN_DATA_INT8, "s8", "int8"}, {CUDNN_DATA_UINT8, "u8", "uint8"},
    {CUDNN_DATA_INT32, "s32", "int32"}, {CUDNN_DATA_INT64, "s64", "int64"}, {CUDNN_DATA_INT8x4, "s8x4", "s8x4"},
    {CUDNN_DATA_UINT8x4, "u8x4", "u8x4"}, {CUDNN_DATA_INT8x32, "s8x32", "s8x32"},
};

float half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: value = man * 2^-24
      float f = std::ldexp(static_cast<float>(man), -24);
      return sign ? -f : f;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  if (std::isnan(f)) return sign | 0x7e00u;
  const float a = std::fabs(f);
  if (a >= 65520.0f) return sign | 0x7c00u;  // rounds to infinity
  if (a < 6.103515625e-05f) {                // subnormal half (or zero): multiples of 2^-24
    const float q = std::nearbyint(a * 16777216.0f);  // round to nearest even (default rounding mode)
    return sign | static_cast<uint16_t>(q);
  }
  const uint32_t ax = x & 0x7fffffffu;
  uint32_t e = (ax >> 23) - 112, m = ax & 0x7fffffu;
  uint32_t h = (e << 10) | (m >> 13);
  const uint32_t rest = m & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // carries into the exponent correctly
  return sign | static_cast<uint16_t>(h);
}

float bf16_to_float(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40u);
  const uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return static_cast<uint16_t>(x >> 16);
}

template <class T>
T clamp_int(double v) {
  const double lo = static_cast<double>(std::numeric_limits<T>::min());
  const double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (std::isnan(v)) return 0;
  v = std::nearbyint(v);
  return static_cast<T>(v < lo ? lo : v > hi ? hi : v);
}

}  // namespace

const char* dtype_name(cudnnDataType_t t) {
  for (const auto& n : kNames)
    if (n.t == t) return n.name;
  return "invalid";
}

bool dtype_parse(const std::string& s, cudnnDataType_t* t) {
  for (const auto& n : kNames)
    if (s == n.name || s == n.alias) {
      *t = n.t;
      return true;
    }
  return false;
}

size_t dtype_size(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT: case CUDNN_DATA_INT32: return 4;
    case CUDNN_DATA_DOUBLE: case CUDNN_DATA_INT64: return 8;
    case CUDNN_DATA_HALF: case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT8: case CUDNN_DATA_UINT8: return 1;
    default: return 0;
  }
}

bool dtype_is_float(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

double load(cudnnDataType_t t, const void* base, int64_t i) {
  switch (t) {
    case CUDNN_DATA_FLOAT: return static_cast<const float*>(base)[i];
    case CUDNN_DATA_DOUBLE: return static_cast<const double*>(base)[i];
    case CUDNN_DATA_HALF: return half_to_float(static_cast<const uint16_t*>(base)[i]);
    case CUDNN_DATA_BFLOAT16: return bf16_to_float(static_cast<const uint16_t*>(base)[i]);
    case CUDNN_DATA_INT8: return static_cast<const int8_t*>(base)[i];
    case CUDNN_DATA_UINT8: return static_cast<const uint8_t*>(base)[i];
    case CUDNN_DATA_INT32: return static_cast<const int32_t*>(base)[i];
    case CUDNN_DATA_INT64: return static_cast<double>(static_cast<const int64_t*>(base)[i]);
    default: return 0;
  }
}

void store(cudnnDataType_t t, void* base, int64_t i, double v) {
  switch (t) {
    case CUDNN_DATA_FLOAT: static_cast<float*>(base)[i] = static_cast<float>(v); break;
    case CUDNN_DATA_DOUBLE: static_cast<double*>(base)[i] = v; break;
    case CUDNN_DATA_HALF: static_cast<uint16_t*>(base)[i] = float_to_half(static_cast<float>(v)); break;
    case CUDNN_DATA_BFLOAT16: static_cast<uint16_t*>(base)[i] = float_to_bf16(static_cast<float>(v)); break;
    case CUDNN_DATA_INT8: static_cast<int8_t*>(base)[i] = clamp_int<int8_t>(v); break;
    case CUDNN_DATA_UINT8: static_cast<uint8_t*>(base)[i] = clamp_int<uint8_t>(v); break;
    case CUDNN_DATA_INT32: static_cast<int32_t*>(base)[i] = clamp_int<int32_t>(v); break;
    case CUDNN_DATA_INT64: static_cast<int64_t*>(base)[i] = clamp_int<int64_t>(v); break;
    default: break;
  }
}

double tolerance(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_DOUBLE: return 1e-10;
    case CUDNN_DATA_FLOAT: return 1e-5;
    case CUDNN_DATA_HALF: return 2e-3;
    case CUDNN_DATA_BFLOAT16: return 1.6e-2;
    default: return 0.51;  // integers: one rounding step relative to the largest value
  }
}

}  // namespace bench
