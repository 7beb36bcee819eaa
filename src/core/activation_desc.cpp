// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/activation_desc.h"

#include "core/status.h"

void cudnnActivationStruct::describe(fd::log::Writer& w) const {
  w.arg("mode", mode);
  w.arg("reluNanOpt", nan_opt);
  w.arg("coef", coef);
  if (mode == CUDNN_ACTIVATION_SWISH) w.arg("swish_beta", swish_beta);
}

namespace fd {

cudnnStatus_t check_activation(const cudnnActivationStruct* d, const char* role) {
  FD_CHECK_PARAM(d != nullptr, "activation descriptor %s is NULL", role);
  FD_CHECK_PARAM(d->alive(), "activation descriptor %s is not a live activation descriptor", role);
  return CUDNN_STATUS_SUCCESS;
}

const char* activation_mode_short_name(cudnnActivationMode_t m) {
  switch (m) {
    case CUDNN_ACTIVATION_SIGMOID: return "sigmoid";
    case CUDNN_ACTIVATION_RELU: return "relu";
    case CUDNN_ACTIVATION_TANH: return "tanh";
    case CUDNN_ACTIVATION_CLIPPED_RELU: return "clipped_relu";
    case CUDNN_ACTIVATION_ELU: return "elu";
    case CUDNN_ACTIVATION_IDENTITY: return "identity";
    case CUDNN_ACTIVATION_SWISH: return "swish";
  }
  return nullptr;
}

}  // namespace fd
