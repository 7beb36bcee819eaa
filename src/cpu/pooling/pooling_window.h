// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The per-window kernels shared by pooling forward and backward (see pooling.h for the semantics).
#pragma once
#include <cmath>
#include <cstdint>

#include "cpu/pooling/pooling.h"

namespace fd::cpu::pool_detail {

// Input index ranges [lo, hi) read by output position o3 = (o0, o1, o2), and the divisor for average modes.
struct Window {
  int64_t lo[3], hi[3];
  int64_t divisor;
};

inline Window window_at(const PoolGeometry& g, const int64_t* o) {
  Window w{};
  int64_t read = 1, padded = 1;
  for (int d = 0; d < 3; ++d) {
    const int64_t start = o[d] * g.stride[d] - g.pad[d];
    const int64_t end = start + g.win[d];
    w.lo[d] = start < 0 ? 0 : start;
    w.hi[d] = end > g.in[d] ? g.in[d] : end;
    if (w.hi[d] < w.lo[d]) w.hi[d] = w.lo[d];
    read *= w.hi[d] - w.lo[d];
    const int64_t plo = start < -g.pad[d] ? -g.pad[d] : start;
    const int64_t phi = end > g.in[d] + g.pad[d] ? g.in[d] + g.pad[d] : end;
    padded *= phi > plo ? phi - plo : 0;
  }
  w.divisor = g.mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? padded : read;
  return w;
}

inline void unravel_out(const PoolGeometry& g, int64_t i, int64_t* o) {
  o[2] = i % g.out[2];
  i /= g.out[2];
  o[1] = i % g.out[1];
  o[0] = i / g.out[1];
}

// Max over the window of one plane: returns the value and sets *arg to the plane offset (-1: none).
template <class T>
T window_max(const PoolGeometry& g, const Window& w, const T* plane, int64_t* arg) {
  T best = T(0);
  int64_t best_i = -1;
  bool saw_nan = false;
  for (int64_t a = w.lo[0]; a < w.hi[0]; ++a)
    for (int64_t b = w.lo[1]; b < w.hi[1]; ++b)
      for (int64_t c = w.lo[2]; c < w.hi[2]; ++c) {
        const int64_t i = (a * g.in[1] + b) * g.in[2] + c;
        const T v = plane[i];
        if (std::isnan(v)) {
          if (g.propagate_nan) {
            *arg = i;
            return v;
          }
          saw_nan = true;
          continue;
        }
        if (best_i < 0 || v > best) {
          best = v;
          best_i = i;
        }
      }
  *arg = best_i;
  if (best_i < 0 && saw_nan) return std::nan("");
  return best;
}

}  // namespace fd::cpu::pool_detail
