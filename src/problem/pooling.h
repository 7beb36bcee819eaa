// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <string>

#include "core/pooling_desc.h"
#include "core/tensor_desc.h"

namespace fd::problem {

// pool fwd mode=max nan=0 win=2x2 pad=0x0 stride=2x2 alpha=1 beta=0 x=f32:... y=f32:...
// pool bwd ... alpha=1 beta=0 x=... dy=... dx=...   (y is not used by the CPU backward and not listed)
struct Pooling {
  bool backward = false;
  const cudnnPoolingStruct* pool = nullptr;
  double alpha = 1, beta = 0;
  const cudnnTensorStruct* x = nullptr;
  const cudnnTensorStruct* y = nullptr;   // forward output
  const cudnnTensorStruct* dy = nullptr;  // backward
  const cudnnTensorStruct* dx = nullptr;  // backward
  std::string to_string() const;
};

}  // namespace fd::problem
