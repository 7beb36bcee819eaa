// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <cstdint>

#include "core/tensor_desc.h"

// CPU dropout. The mask of element i (logical order of x) in call number `counter` of a descriptor seeded with
// `seed` is keep = u(seed, counter, i) >= p, where u is a counter-based hash (splitmix64 finalizer) mapped to
// [0, 1) with 53 bits: the same seed and counter give the same mask on any number of threads. The reserve
// space holds one byte per element (1 keep, 0 drop). Kept values are scaled by 1 / (1 - p); p == 1 drops all.
namespace fd::cpu {

double dropout_uniform(uint64_t seed, uint64_t counter, uint64_t index);

void dropout_forward(float p, uint64_t seed, uint64_t counter, const cudnnTensorStruct& xd, const void* x,
                     const cudnnTensorStruct& yd, void* y, uint8_t* mask);
void dropout_backward(float p, const cudnnTensorStruct& dyd, const void* dy, const cudnnTensorStruct& dxd, void* dx,
                      const uint8_t* mask);

}  // namespace fd::cpu
