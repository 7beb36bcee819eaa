// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Data types as the bench sees them: short names, element sizes and host conversions to and from double.
#pragma once
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace bench {

const char* dtype_name(cudnnDataType_t t);                  // "f32", "f16", ...
bool dtype_parse(const std::string& s, cudnnDataType_t* t);  // accepts the short names (and "fp32" ...)
size_t dtype_size(cudnnDataType_t t);                       // 0 for types the bench cannot handle
bool dtype_is_float(cudnnDataType_t t);

// Element i of a buffer of type t, as double; and the store (rounding to nearest even for f16/bf16).
double load(cudnnDataType_t t, const void* base, int64_t i);
void store(cudnnDataType_t t, void* base, int64_t i, double v);

// Relative tolerance of a result stored as t (max |error| over max |reference|).
double tolerance(cudnnDataType_t t);

}  // namespace bench
