// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The parameters of an activation descriptor, as the fused normalization ops (batch norm Ex, the generic
// normalization API) need them. Kept apart from the descriptor's own struct so that these ops do not depend on
// its layout.
#pragma once
#include <cudnn.h>

namespace fd {

struct ActivationParams {
  cudnnActivationMode_t mode;
  cudnnNanPropagation_t nan;
  double coef;
  double swish_beta;
};

// Reads the parameters of a live, set activation descriptor (BAD_PARAM for NULL or a dead one).
cudnnStatus_t get_activation_params(cudnnActivationDescriptor_t desc, ActivationParams* out);

}  // namespace fd
