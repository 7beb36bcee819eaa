// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The counter-based dropout hash shared by the CPU and CUDA backends (compiled for host and device), so that the
// same seed and call counter give the same mask bit for bit on either backend: element i (logical order) of call
// `counter` is kept when dropout_uniform(seed, counter, i) >= p.
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define FD_DROPOUT_HD __host__ __device__ __forceinline__
#else
#define FD_DROPOUT_HD inline
#endif

namespace fd {

FD_DROPOUT_HD uint64_t dropout_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform in [0, 1) with 53 random bits (splitmix64 finalizer of the seed, counter and index).
FD_DROPOUT_HD double dropout_uniform(uint64_t seed, uint64_t counter, uint64_t index) {
  const uint64_t stream = dropout_mix64(seed + 0x9E3779B97F4A7C15ull * (counter + 1));
  const uint64_t bits = dropout_mix64(stream ^ dropout_mix64(index + 0xD1B54A32D192ED03ull));
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

}  // namespace fd
