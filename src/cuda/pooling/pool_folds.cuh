// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The max-pooling folds every GPU pooling kernel shares, with the CPU's rules (src/cpu/pooling/pooling.h): ties keep
// the first element in window order; PROPAGATE_NAN: the first NaN wins; NOT_PROPAGATE_NAN: NaNs skipped, NaN only
// when every element read is one.
#pragma once

namespace fd::cuda {
namespace {

// The fold of the forward value (no positions). Neutral start: -inf (propagate) or NaN (not): folding the neutral
// value changes nothing, so padding reads as the neutral value.
template <class C>
__device__ __forceinline__ void max_fold(C& best, C v, bool propagate) {
  if (propagate) {
    if (v > best || v != v) best = best != best ? best : v;
  } else if (v > best || best != best) {
    best = v;
  }
}

// The fold with positions (arg < 0: nothing taken yet), the CPU's window_max rules.
template <class C>
__device__ __forceinline__ void arg_fold(C& best, int& arg, C v, bool valid, int pos, bool propagate) {
  const bool take = propagate ? valid && (arg < 0 || v > best || (v != v && best == best))
                              : valid && v == v && (arg < 0 || v > best);
  if (take) {
    best = v;
    arg = pos;
  }
}

}  // namespace
}  // namespace fd::cuda
