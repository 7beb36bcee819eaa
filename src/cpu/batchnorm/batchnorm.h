// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// CPU batch normalization, shared by cudnnBatchNormalization* (plain and Ex) and cudnnNormalization*.
// Data is viewed as N x S x inner: S statistics (channels, or C*spatial per activation), each reducing over
// the N batch items and the `inner` elements (spatial size per channel, 1 per activation) that share it.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor_desc.h"
#include "problem/batchnorm.h"

namespace fd::cpu {

// Inference (estimated statistics) and training (batch statistics, running averages, saved statistics).
void norm_forward(const NormCall& c);
// dx, dScale, dBias (and dz for add+activation) from dy, x and the saved or recomputed statistics.
void norm_backward(const NormCall& c);

// Per-statistic batch mean and biased variance of x (packed, logical order: N x S x inner), two passes.
template <class T>
void batch_stats(const std::vector<T>& x, int64_t n, int64_t s, int64_t inner, std::vector<T>& mean,
                 std::vector<T>& var);

// The per-statistic affine map of a normalization: inv = 1 / sqrt(var + eps), a = scale * inv,
// b = bias - a * mean (y = a * x + b). Shared with the fused BN finalize (src/cpu/fused).
template <class T>
void equivalent_scale_bias(const std::vector<T>& scale, const std::vector<T>& bias, const std::vector<T>& mean,
                           const std::vector<T>& var, double epsilon, std::vector<T>& inv, std::vector<T>& a,
                           std::vector<T>& b);

// Running averages over the mean/var tensor `mv`: r = (1 - factor) r + factor * batch value, the variance
// unbiased with m / (m - 1) for m reduced elements. A factor of 1 replaces them without reading (they may hold
// garbage on the first call).
template <class T>
void update_running_stats(const cudnnTensorStruct& mv, void* running_mean, void* running_var,
                          const std::vector<T>& mean, const std::vector<T>& var, int64_t m, double factor);

// Work per parallel task: about this many elements, so small problems stay on one thread.
inline int64_t norm_grain(int64_t elements_per_item) {
  const int64_t g = 32768 / (elements_per_item > 0 ? elements_per_item : 1);
  return g > 1 ? g : 1;
}

// The activation mask in the reserve space: bit i of 64-bit word i/64 is set where the pre-activation of
// element i (logical order) is positive.
inline bool mask_bit(const void* reserve, int64_t i) {
  return (static_cast<const uint64_t*>(reserve)[i / 64] >> (i % 64)) & 1u;
}

}  // namespace fd::cpu
