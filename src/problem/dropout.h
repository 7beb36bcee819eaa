// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cstdint>
#include <string>

#include "core/tensor_desc.h"

namespace fd::problem {

// dropout fwd p=0.5 seed=7 counter=0 x=f32:... y=f32:...
// dropout bwd p=0.5 dy=f32:... dx=f32:...
struct Dropout {
  bool backward = false;
  float p = 0;
  unsigned long long seed = 0;
  uint64_t counter = 0;
  const cudnnTensorStruct* in = nullptr;   // x or dy
  const cudnnTensorStruct* out = nullptr;  // y or dx
  std::string to_string() const;
};

}  // namespace fd::problem
