// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <string>

#include "core/checked.h"
#include "core/log.h"

// A pooling operation: mode, NaN option (max modes), and per spatial dim the window, padding and stride.
struct cudnnPoolingStruct : fd::Checked<0x504F4F4Cu> {
  static constexpr const char* kTypeName = "cudnnPoolingDescriptor_t";

  bool is_set = false;
  cudnnPoolingMode_t mode = CUDNN_POOLING_MAX;
  cudnnNanPropagation_t nan_opt = CUDNN_NOT_PROPAGATE_NAN;
  int nb_dims = 0;  // spatial dims
  int window[CUDNN_DIM_MAX] = {};
  int padding[CUDNN_DIM_MAX] = {};
  int stride[CUDNN_DIM_MAX] = {};

  // "mode=max nan=0 win=3x3 pad=1x1 stride=2x2"
  std::string spec() const;
  void describe(fd::log::Writer& w) const;
};

namespace fd {
cudnnStatus_t set_pooling(cudnnPoolingStruct& p, cudnnPoolingMode_t mode, cudnnNanPropagation_t nan_opt,
                          int nb_dims, const int* window, const int* padding, const int* stride);
// Non-null, live and set.
cudnnStatus_t check_pooling(const cudnnPoolingStruct* p, const char* role);
const char* pooling_mode_short_name(cudnnPoolingMode_t m);  // max avg_incl avg_excl max_det
}  // namespace fd
