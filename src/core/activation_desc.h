// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include "core/checked.h"
#include "core/log.h"

// An activation: mode, NaN handling for the ReLU family, coef (clipping threshold for CLIPPED_RELU, alpha for
// ELU; ignored by the other modes) and the swish beta. A fresh descriptor holds SIGMOID, NOT_PROPAGATE_NAN,
// coef 0, swish beta 1 (cuDNN leaves this unspecified: a descriptor must be set before use).
struct cudnnActivationStruct : fd::Checked<0x41435456u> {
  static constexpr const char* kTypeName = "cudnnActivationDescriptor_t";

  cudnnActivationMode_t mode = CUDNN_ACTIVATION_SIGMOID;
  cudnnNanPropagation_t nan_opt = CUDNN_NOT_PROPAGATE_NAN;
  double coef = 0.0;
  double swish_beta = 1.0;

  void describe(fd::log::Writer& w) const;
};

namespace fd {
// Non-null and live.
cudnnStatus_t check_activation(const cudnnActivationStruct* d, const char* role);
// Short lower-case mode name for problem strings ("relu", "clipped_relu", ...); nullptr for invalid values.
const char* activation_mode_short_name(cudnnActivationMode_t m);
}  // namespace fd
