// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Dropout reference: given the keep mask (1 keep, 0 drop), out = in * mask / (1 - p); p == 1 gives 0.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ref {

// The keep mask freednn documents (src/cpu/dropout/dropout.h), written again from that description: element i of
// call `counter` is kept when u >= p, u = (h >> 11) * 2^-53, h = f(f(seed + G (counter + 1)) ^ f(i + K)), f the
// splitmix64 finalizer, G = 0x9E3779B97F4A7C15, K = 0xD1B54A32D192ED03.
std::vector<uint8_t> dropout_mask(uint64_t seed, uint64_t counter, size_t n, double p);

std::vector<double> dropout_apply(const std::vector<double>& in, const std::vector<uint8_t>& mask, double p);

}  // namespace ref
