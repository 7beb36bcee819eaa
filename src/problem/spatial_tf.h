// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <string>

#include "core/spatial_tf_desc.h"
#include "core/tensor_desc.h"

namespace fd::problem {

// stn grid_fwd st=f32:2x3x8x8            stn grid_bwd st=f32:2x3x8x8
// stn sampler_fwd st=f32:2x3x8x8 alpha=1 beta=0 x=f32:... y=f32:...
// stn sampler_bwd st=f32:2x3x8x8 alpha=1 beta=0 alpha_dgrid=1 beta_dgrid=0 x=f32:... dx=f32:... dy=f32:...
struct SpatialTf {
  const char* op = "grid_fwd";
  const cudnnSpatialTransformerStruct* st = nullptr;
  double alpha = 1, beta = 0, alpha_dgrid = 1, beta_dgrid = 0;
  const cudnnTensorStruct* x = nullptr;
  const cudnnTensorStruct* y = nullptr;   // y, or dy for the sampler backward
  const cudnnTensorStruct* dx = nullptr;  // sampler backward
  std::string to_string() const;
};

}  // namespace fd::problem
