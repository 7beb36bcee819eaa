// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// One call of batch normalization, in any of its API forms: cudnnBatchNormalization* (plain and Ex) and the
// generic cudnnNormalization* API. The entry points only fill this struct; validation, the problem string and
// the CPU implementation are shared.
#pragma once
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/activation_params.h"
#include "core/tensor_desc.h"

namespace fd {

enum class NormDir { inference, training, backward };
enum class NormOps { norm = 0, activation = 1, add_activation = 2 };

struct NormCall {
  // --- what the caller passed -------------------------------------------------------------------------------
  NormDir dir = NormDir::inference;
  bool generic_api = false;     // cudnnNormalization* (separate mean/var descriptor) rather than BN
  int mode = 0;                 // cudnnBatchNormMode_t, or cudnnNormMode_t when generic_api
  int algo = 0;                 // cudnnNormAlgo_t (generic API only)
  int ops = 0;                  // cudnnBatchNormOps_t / cudnnNormOps_t (same values)
  int group_count = 1;          // groupCnt (generic API only; cuDNN 8.2 supports 1)
  cudnnActivationDescriptor_t activation_desc = nullptr;
  const void* alpha_ptr = nullptr;        // y (forward) or dx, dz (backward)
  const void* beta_ptr = nullptr;
  const void* alpha_param_ptr = nullptr;  // dScale, dBias (backward)
  const void* beta_param_ptr = nullptr;
  double epsilon = 0;
  double factor = 0;  // exponentialAverageFactor (training)

  const cudnnTensorStruct* x_desc = nullptr;
  const cudnnTensorStruct* y_desc = nullptr;   // forward output; in backward the optional forward output
  const cudnnTensorStruct* z_desc = nullptr;   // forward: z; backward: dz
  const cudnnTensorStruct* dy_desc = nullptr;
  const cudnnTensorStruct* dx_desc = nullptr;
  const cudnnTensorStruct* scale_bias_desc = nullptr;  // also dScale/dBias in backward
  const cudnnTensorStruct* mean_var_desc = nullptr;    // BN: the same as scale_bias_desc

  const void* x = nullptr;
  const void* z = nullptr;
  const void* dy = nullptr;
  const void* y_in = nullptr;  // backward: forward output (not needed: the reserve space has the mask)
  void* y = nullptr;
  void* dx = nullptr;
  void* dz = nullptr;
  const void* scale = nullptr;
  const void* bias = nullptr;
  const void* est_mean = nullptr;     // inference
  const void* est_var = nullptr;
  void* running_mean = nullptr;       // training (optional pair)
  void* running_var = nullptr;
  void* save_mean = nullptr;          // training outputs (optional pair)
  void* save_inv_var = nullptr;
  const void* saved_mean = nullptr;   // backward inputs (optional pair)
  const void* saved_inv_var = nullptr;
  void* dscale = nullptr;
  void* dbias = nullptr;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  void* reserve = nullptr;
  size_t reserve_bytes = 0;

  // --- filled by validate() -----------------------------------------------------------------------------------
  NormOps op = NormOps::norm;
  ActivationParams act{};
  double alpha = 1, beta = 0, alpha_param = 1, beta_param = 0;

  bool per_activation() const;  // else one statistic per channel
  bool has_activation() const { return op != NormOps::norm; }
  bool has_add() const { return op == NormOps::add_activation; }
  // Statistics (= channels, or C*spatial per activation), and the elements each one reduces over.
  int64_t stat_count() const;
  int64_t reduce_count() const;
  // Elements of x that share one statistic in a row: the spatial size per channel, or 1 per activation.
  int64_t inner_count() const;

  // Checks every argument (descriptors, enums, pointers, sizes) for the direction; logs the reason.
  // shapes_only: the enums and descriptors only (workspace size queries).
  cudnnStatus_t validate(bool shapes_only = false);
  std::string to_string() const;  // problem string: "bn train mode=spatial ops=norm ..."
};

// Validates the mode (cudnnBatchNormMode_t, or cudnnNormMode_t and the algo for the generic API).
cudnnStatus_t check_norm_mode(bool generic_api, int mode, int algo);
// groupCnt of the generic API: BAD_PARAM below 1, NOT_SUPPORTED above (as in cuDNN 8.2).
cudnnStatus_t check_group_count(int group_count);
// Shape checks and queries shared with the size and derive functions (mode / ops in cuDNN's enums).
// Validates a normalization mode, ops and the activation (when ops needs one), filling `op` / `act`.
cudnnStatus_t check_norm_ops(int ops, cudnnActivationDescriptor_t act_desc, NormOps* op, ActivationParams* act);
// The derived scale/bias/mean/var shape and type for x: 1xCx1x1(x1) or 1xCxHxW(xD) and float/double.
cudnnStatus_t derive_norm_desc(cudnnTensorStruct& out, const cudnnTensorStruct& x, bool per_activation);
// Bytes of reserve space a training call with these ops needs (the activation mask), for x's shape.
size_t norm_reserve_size(const cudnnTensorStruct& x, NormOps op);

}  // namespace fd
