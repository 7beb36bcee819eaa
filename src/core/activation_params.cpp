// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Temporary implementation of fd::get_activation_params through the public getters, so this file does not
// need the layout of cudnnActivationStruct. Once the activation descriptor lands it can read the struct
// directly; the callers do not change.
#include "core/activation_params.h"

#include "core/status.h"

namespace fd {

cudnnStatus_t get_activation_params(cudnnActivationDescriptor_t desc, ActivationParams* out) {
  FD_CHECK_PARAM(desc != nullptr, "activationDesc is NULL");
  FD_CHECK_PARAM(out != nullptr, "output pointer is NULL");
  ActivationParams p{};
  FD_TRY(cudnnGetActivationDescriptor(desc, &p.mode, &p.nan, &p.coef));
  p.swish_beta = 1.0;
  if (p.mode == CUDNN_ACTIVATION_SWISH) FD_TRY(cudnnGetActivationDescriptorSwishBeta(desc, &p.swish_beta));
  *out = p;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd
