// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Reads an activation descriptor for code that only needs its values (batch norm Ex, fused convolution).
#include "core/activation_params.h"

#include "core/activation_desc.h"
#include "core/status.h"

namespace fd {

cudnnStatus_t get_activation_params(cudnnActivationDescriptor_t desc, ActivationParams* out) {
  FD_TRY(check_activation(desc, "activationDesc"));
  FD_CHECK_PARAM(out != nullptr, "output pointer is NULL");
  out->mode = desc->mode;
  out->nan = desc->nan_opt;
  out->coef = desc->coef;
  out->swish_beta = desc->swish_beta;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd
