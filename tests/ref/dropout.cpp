// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "ref/dropout.h"

namespace ref {
namespace {
uint64_t finalize(uint64_t z) {
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ull;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

std::vector<uint8_t> dropout_mask(uint64_t seed, uint64_t counter, size_t n, double p) {
  std::vector<uint8_t> m(n);
  const uint64_t s = finalize(seed + 0x9E3779B97F4A7C15ull * (counter + 1));
  for (size_t i = 0; i < n; ++i) {
    const uint64_t h = finalize(s ^ finalize(static_cast<uint64_t>(i) + 0xD1B54A32D192ED03ull));
    const double u = static_cast<double>(h >> 11) / 9007199254740992.0;
    m[i] = (p < 1.0 && u >= p) ? 1 : 0;
  }
  return m;
}

std::vector<double> dropout_apply(const std::vector<double>& in, const std::vector<uint8_t>& mask, double p) {
  std::vector<double> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = (mask[i] != 0 && p < 1.0) ? in[i] / (1.0 - p) : 0.0;
  return out;
}

}  // namespace ref
