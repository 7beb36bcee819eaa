// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "ref/dropout.h"

namespace ref {

std::vector<double> dropout_apply(const std::vector<double>& in, const std::vector<uint8_t>& mask, double p) {
  std::vector<double> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = (mask[i] != 0 && p < 1.0) ? in[i] / (1.0 - p) : 0.0;
  return out;
}

}  // namespace ref
