// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Whether a float convolution may run on TF32 tensor cores (10-bit mantissa products, float sums): the math type
// allows it (anything but CUDNN_FMA_MATH) and NVIDIA_TF32_OVERRIDE is not "0" (the variable NVIDIA's libraries
// honour). Shared by the cuBLAS-based and the CUTLASS-based implementations.
#pragma once
#include <cstdlib>
#include <cstring>

#include "problem/conv.h"

namespace fd::cuda::conv {

inline bool tf32_override_off() {
  const char* e = std::getenv("NVIDIA_TF32_OVERRIDE");
  return e != nullptr && std::strcmp(e, "0") == 0;
}

inline bool tf32_allowed(const fd::ConvProblem& p) {
  return p.xdt == CUDNN_DATA_FLOAT && p.math != CUDNN_FMA_MATH && !tf32_override_off();
}

}  // namespace fd::cuda::conv
