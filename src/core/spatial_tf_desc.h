// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include "core/checked.h"
#include "core/log.h"

// A spatial transformer: sampler type, data type and the dims (N, C, H, W) of the transformed output.
struct cudnnSpatialTransformerStruct : fd::Checked<0x53505446u> {
  static constexpr const char* kTypeName = "cudnnSpatialTransformerDescriptor_t";

  bool is_set = false;
  cudnnSamplerType_t sampler = CUDNN_SAMPLER_BILINEAR;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  int nb_dims = 0;
  int dims[CUDNN_DIM_MAX] = {};

  void describe(fd::log::Writer& w) const;
};
