// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The stride phases of a backward-data convolution run as forwards (dgrad_tf32.h has the derivation), one dim at a
// time: which filter taps reach the dx positions of phase a, and the dy window and padding that forward reads. Used
// by the float path (dgrad_tf32.cu) and the 16-bit one (dgrad_phases16.cu).
#pragma once
#include <algorithm>
#include <cstdint>
#include <numeric>

namespace fd::cuda::conv::sm90 {

// One dim of one phase: which taps reach dx positions a, a + s, ... and the dy window they read.
struct Axis {
  int64_t out = 0;  // dx positions in the phase
  int taps = 0, r0 = 0;
  int64_t lo = 0, hi = 0;    // the forward's padding before / after the window
  int64_t top = 0, len = 0;  // the window: dy positions top .. top + len - 1
};

// a: the phase; s, d, pad: stride, dilation, padding; R: filter extent; X / Y: dx / dy extent.
inline Axis axis(int64_t a, int64_t s, int64_t d, int64_t pad, int64_t R, int64_t X, int64_t Y) {
  Axis x;
  x.out = a < X ? (X - a + s - 1) / s : 0;
  const int64_t g = std::gcd(s, d), step = s / g, dil = d / g;
  int64_t r0 = -1;
  for (int64_t r = 0; r < R && r < s; ++r)  // the residues repeat every s / g taps
    if (((a + pad - r * d) % s + s) % s == 0) {
      r0 = r;
      break;
    }
  if (r0 < 0 || x.out == 0) return x;
  const int64_t taps = (R - 1 - r0) / step + 1;
  const int64_t first = (a + pad - r0 * d) / s;  // dy position of tap r0 for i' = 0 (exact: divisible)
  const int64_t last = first - (taps - 1) * dil;  // of the last tap: the lowest
  const int64_t need_end = x.out - 1 + first;     // the highest dy position any output reads
  x.top = std::max<int64_t>(last, 0);
  const int64_t bottom = std::min<int64_t>(Y - 1, need_end);
  if (bottom < x.top) return x;  // every tap reads outside dy: zeros
  x.taps = static_cast<int>(taps), x.r0 = static_cast<int>(r0);
  x.lo = std::max<int64_t>(-last, 0);
  x.hi = need_end - bottom;
  x.len = bottom - x.top + 1;
  return x;
}

}  // namespace fd::cuda::conv::sm90
