// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// What every computing batch norm / normalization entry point does once it has filled a NormCall.
#pragma once
#include "core/handle.h"
#include "core/log.h"
#include "core/status.h"
#include "cpu/batchnorm/batchnorm.h"
#include "problem/batchnorm.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/batchnorm/batchnorm.h"
#endif

namespace fd {

inline cudnnStatus_t run_norm_call(cudnnHandle_t handle, NormCall& call, const char* function) {
  FD_TRY(check_handle(handle));
  FD_TRY(call.validate());
#ifdef FREEDNN_WITH_CUDA
  if (!handle->on_cpu()) {
    if (log::command_logging_enabled()) log::emit_command(call.to_string());
    return call.dir == NormDir::backward ? cuda::norm_backward(handle, call) : cuda::norm_forward(handle, call);
  }
#endif
  FD_TRY(require_cpu(handle, function));
  if (log::command_logging_enabled()) log::emit_command(call.to_string());
  if (call.dir == NormDir::backward) {
    cpu::norm_backward(call);
  } else {
    cpu::norm_forward(call);
  }
  return CUDNN_STATUS_SUCCESS;
}

// The size queries: handle and shapes only; this CPU implementation needs no workspace.
inline cudnnStatus_t norm_workspace_size(cudnnHandle_t handle, NormCall& call, size_t* size) {
  FD_TRY(check_handle(handle));
  FD_CHECK_PARAM(size != nullptr, "sizeInBytes is NULL");
  FD_TRY(call.validate(/*shapes_only=*/true));
  *size = 0;
  return CUDNN_STATUS_SUCCESS;
}

inline cudnnStatus_t norm_reserve_size_query(cudnnHandle_t handle, bool generic_api, int mode, int algo,
                                             int group_count, int ops,
                                             cudnnActivationDescriptor_t act_desc, const cudnnTensorStruct* x_desc,
                                             size_t* size) {
  FD_TRY(check_handle(handle));
  FD_CHECK_PARAM(size != nullptr, "sizeInBytes is NULL");
  FD_TRY(check_norm_mode(generic_api, mode, algo));
  if (generic_api) FD_TRY(check_group_count(group_count));
  NormOps op;
  ActivationParams act;
  FD_TRY(check_norm_ops(ops, act_desc, &op, &act));
  FD_TRY(check_tensor(x_desc, "xDesc"));
  cudnnTensorStruct derived;
  FD_TRY(derive_norm_desc(derived, *x_desc, mode == 0));
  *size = norm_reserve_size(*x_desc, op);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd
