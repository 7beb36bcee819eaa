// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Index arithmetic for kernels: division by a runtime constant without a hardware divide (when the operands
// are small enough), and strided offsets of a group of collapsed dims.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace fd::cuda {

// n / d for 0 <= n <= max_dividend. Below 2^31 it uses a multiply-high and a shift (round-up reciprocal
// m = floor(2^32 * (2^s - d) / d) + 1 with 2^s >= d: q = (mulhi(n, m) + n) >> s); otherwise a 64-bit divide.
struct Divider {
  int64_t d = 1;
  uint32_t m = 1;
  int s = 0;
  bool fast = true;

  Divider() = default;
  Divider(int64_t divisor, int64_t max_dividend) : d(divisor < 1 ? 1 : divisor) {
    fast = d < (int64_t{1} << 31) && max_dividend < (int64_t{1} << 31);
    if (!fast) return;
    s = 0;
    while ((int64_t{1} << s) < d) ++s;
    m = static_cast<uint32_t>(((uint64_t{1} << 32) * static_cast<uint64_t>((int64_t{1} << s) - d)) /
                              static_cast<uint64_t>(d) + 1);
  }
  __device__ __forceinline__ int64_t div(int64_t n) const {
    if (fast) {
      const uint32_t u = static_cast<uint32_t>(n);
      return static_cast<int64_t>((__umulhi(u, m) + u) >> s);
    }
    return n / d;
  }
};

// n / d for 0 <= n < 2^22 through a float reciprocal (a multiply and a conversion): (n + 0.5) / d is at least
// 0.5 / d away from an integer and the float product's relative error is below 2^-23, so the truncation is exact
// in that range. For shared-memory tile indices, which stay far below it.
struct SmallDivider {
  float inv = 1.f;
  SmallDivider() = default;
  explicit SmallDivider(int divisor) : inv(1.f / float(divisor < 1 ? 1 : divisor)) {}
  __device__ __forceinline__ int div(int n) const { return static_cast<int>((static_cast<float>(n) + 0.5f) * inv); }
};

// Up to four dims (outermost first) with element strides, adjacent dims merged where the layout allows:
// offset(i) of the row-major index i over these dims.
struct DimGroup {
  int nd = 1;
  int64_t dims[4] = {1, 1, 1, 1};
  int64_t strides[4] = {0, 0, 0, 0};
  Divider div[4];

  // dims/strides of `count` dims (outermost first); `count` <= 4.
  static DimGroup make(const int64_t* d, const int64_t* st, int count) {
    DimGroup g;
    g.nd = 0;
    for (int i = 0; i < count; ++i) {
      if (d[i] == 1) continue;
      if (g.nd > 0 && g.strides[g.nd - 1] == st[i] * d[i]) {  // merges with the previous (outer) dim
        g.dims[g.nd - 1] *= d[i];
        g.strides[g.nd - 1] = st[i];
        continue;
      }
      g.dims[g.nd] = d[i];
      g.strides[g.nd] = st[i];
      ++g.nd;
    }
    if (g.nd == 0) {
      g.nd = 1;
      g.dims[0] = 1;
      g.strides[0] = 0;
    }
    int64_t total = 1;
    for (int i = 0; i < g.nd; ++i) total *= g.dims[i];
    for (int i = 0; i < g.nd; ++i) g.div[i] = Divider(g.dims[i], total);
    return g;
  }
  int64_t innermost_stride() const { return strides[nd - 1]; }

  __device__ __forceinline__ int64_t offset(int64_t i) const {
    if (nd == 1) return i * strides[0];
    int64_t off = 0;
#pragma unroll
    for (int d = 3; d > 0; --d) {
      if (d < nd) {
        const int64_t q = div[d].div(i);
        off += (i - q * dims[d]) * strides[d];
        i = q;
      }
    }
    return off + i * strides[0];
  }
};

}  // namespace fd::cuda
