// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Dropout reference: given the keep mask (1 keep, 0 drop), out = in * mask / (1 - p); p == 1 gives 0.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ref {

std::vector<double> dropout_apply(const std::vector<double>& in, const std::vector<uint8_t>& mask, double p);

}  // namespace ref
