// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Pooling reference: straight loops over every output position and its window, in double precision.
#pragma once
#include <vector>

#include "ref/ref_tensor.h"

namespace ref {

// mode: 0 max, 1 average counting padding, 2 average excluding padding, 3 max (deterministic); the cuDNN values.
struct PoolParams {
  int mode = 0;
  bool propagate_nan = false;
  std::vector<int> window, pad, stride;  // one per spatial dim
};

// Output spatial extent by the floor formula 1 + (in + 2 pad - window) / stride.
int pool_out_dim(int in, int window, int pad, int stride);

// y (N, C, out...) from x (N, C, in...). Window o covers o*stride - pad .. + window - 1; padding is never a
// value. Max: first maximum in window order; with propagate_nan the first NaN; NaNs skipped otherwise
// (all NaN -> NaN); nothing read -> 0. Average: sum / divisor, divisor = positions in [-pad, in + pad) (mode 1)
// or elements read (mode 2), 0 when the divisor is 0.
Tensor pooling_forward(const PoolParams& p, const Tensor& x, const std::vector<int>& out_spatial);
// dx from dy: dy routed to the argmax (max modes) or spread / divisor (average modes).
Tensor pooling_backward(const PoolParams& p, const Tensor& x, const Tensor& dy);

}  // namespace ref
