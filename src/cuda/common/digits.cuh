// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// A flat index split into three mixed-radix digits with Dividers (index.cuh): the copies and sums that walk a
// tensor in one order and address it in another.
#pragma once
#include <cstdint>

#include "cuda/common/index.cuh"

namespace fd::cuda {

// i as three mixed-radix digits: lo (radix f, the fastest), mid (radix m) and hi; df / dm divide by f / m.
struct Digits3 {
  int64_t lo, mid, hi;
};
__device__ __forceinline__ Digits3 digits3(int64_t i, const Divider& df, int64_t f, const Divider& dm, int64_t m) {
  const int64_t t = df.div(i), t2 = dm.div(t);
  return {i - t * f, t - t2 * m, t2};
}

}  // namespace fd::cuda
