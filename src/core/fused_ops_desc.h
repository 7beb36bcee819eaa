// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The fused-ops API objects: const param pack (descriptors and pointer placeholders, fixed at plan time),
// variant param pack (the pointers and scalars of one execution) and the plan.
#pragma once
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/activation_desc.h"
#include "core/checked.h"
#include "core/convolution_desc.h"
#include "core/filter_desc.h"
#include "core/handle.h"
#include "core/log.h"
#include "core/tensor_desc.h"
#include "core/tensor_ops_desc.h"
#include "problem/conv.h"

namespace fd::conv {
class ConvImpl;
}

namespace fd::fused {
constexpr int kConstLabels = CUDNN_PARAM_BN_DBIAS_PLACEHOLDER + 1;  // 39
constexpr int kPtrLabels = CUDNN_PTR_BN_DBIAS + 1;                  // 24

// What a const label holds.
enum class ConstKind { tensor, filter, conv, activation, bn_mode, placeholder };
// The kind of a valid label; false for an out-of-range one.
bool const_kind(int label, ConstKind* kind);
// The variant pointer label that a placeholder label gives the pointer for (-1 if none).
int placeholder_pointer(int label);
}  // namespace fd::fused

struct cudnnFusedOpsConstParamStruct : fd::Checked<0x46434F50u> {
  static constexpr const char* kTypeName = "cudnnFusedOpsConstParamPack_t";

  cudnnFusedOps_t ops = CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
  // Descriptor labels hold the caller's descriptor pointers (read when the plan is made), NULL when unset.
  const void* desc[fd::fused::kConstLabels] = {};
  cudnnFusedOpsPointerPlaceHolder_t placeholder[fd::fused::kConstLabels] = {};
  cudnnBatchNormMode_t bn_mode = CUDNN_BATCHNORM_SPATIAL;

  const cudnnTensorStruct* tensor(cudnnFusedOpsConstParamLabel_t l) const {
    return static_cast<const cudnnTensorStruct*>(desc[l]);
  }
  bool has(cudnnFusedOpsConstParamLabel_t placeholder_label) const {
    return placeholder[placeholder_label] != CUDNN_PTR_NULL;
  }
  void describe(fd::log::Writer& w) const;
};

struct cudnnFusedOpsVariantParamStruct : fd::Checked<0x46564150u> {
  static constexpr const char* kTypeName = "cudnnFusedOpsVariantParamPack_t";

  cudnnFusedOps_t ops = CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
  void* ptr[fd::fused::kPtrLabels] = {};
  size_t workspace_size = 0;
  int64_t accumulation_count = 0;
  double exp_avg_factor = 0.0;
  double epsilon = 0.0;

  void describe(fd::log::Writer& w) const;
};

// A made plan owns copies of every descriptor it uses, so the caller may change or destroy them afterwards.
struct cudnnFusedOpsPlanStruct : fd::Checked<0x46504C4Eu> {
  static constexpr const char* kTypeName = "cudnnFusedOpsPlan_t";

  cudnnFusedOps_t ops = CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
  bool made = false;
  cudnnFusedOpsPointerPlaceHolder_t placeholder[fd::fused::kConstLabels] = {};
  cudnnBatchNormMode_t bn_mode = CUDNN_BATCHNORM_SPATIAL;
  std::optional<cudnnTensorStruct> x, y, dy, eq, stats, bn;  // x, y / dy, eq scale+bias, ysum/ysqsum, bn params
  std::optional<cudnnFilterStruct> w;                         // w or dw
  std::optional<cudnnConvolutionStruct> conv;
  std::optional<cudnnActivationStruct> act;                   // absent: no activation
  cudnnTensorStruct xact;  // the scaled / biased / activated x fed to the convolution (packed, x's type)
  bool prologue = false;   // whether x goes through scale, bias or activation first
  fd::ConvProblem problem;
  int algo = 0;
  const fd::conv::ConvImpl* impl = nullptr;  // the convolution implementation chosen (and prepared) at make time
  fd::Backend backend = fd::Backend::cpu;    // of the handle the plan was made with; Execute needs the same
  int device = 0;                            // and the same device (the choice and the sizes depend on it)
  // The workspace: the convolution's part first (conv_workspace bytes). The CUDA backend adds, each at a
  // 256-byte aligned offset, the prologue's xact buffer (when `prologue`) and the ysum / ysqsum reductions'
  // workspace (reduce_workspace bytes, when not 0), all from the caller's pointer rounded up to 256 bytes (the
  // reported size has room for that); the CPU keeps those in host memory of its own.
  size_t workspace = 0;  // total bytes
  size_t conv_workspace = 0;
  size_t xact_offset = 0;
  size_t reduce_offset = 0, reduce_workspace = 0;

  bool has(cudnnFusedOpsConstParamLabel_t placeholder_label) const {
    return placeholder[placeholder_label] != CUDNN_PTR_NULL;
  }
  std::string to_string() const;  // problem string for FREEDNN_LOG_CMD
  void describe(fd::log::Writer& w) const;
};

namespace fd {
cudnnStatus_t check_fused_const(const cudnnFusedOpsConstParamStruct* p, const char* role);
cudnnStatus_t check_fused_variant(const cudnnFusedOpsVariantParamStruct* p, const char* role);
cudnnStatus_t check_fused_plan(const cudnnFusedOpsPlanStruct* p, const char* role);

// Whether the fused patterns compute on `t` in double (double data) or in float, on both backends.
inline bool fused_double_compute(const cudnnTensorStruct& t) { return t.dtype == CUDNN_DATA_DOUBLE; }

// The reduction of conv_bnstats's statistics, on both backends: the per-channel sum of y (ADD) or of y * y (NORM2
// without its root), in float (double for double y).
cudnnReduceTensorStruct fused_stats_reduction(const cudnnFusedOpsPlanStruct& p, bool squares);

// Validates a const pack for its pattern and fills `plan` (descriptor copies; the convolution algorithm and
// implementation among those of the handle's backend, prepared on the handle; its workspace as
// conv_workspace and workspace). NOT_SUPPORTED with a logged reason for the patterns freednn does not compute.
cudnnStatus_t make_fused_plan(cudnnContext* handle, const cudnnFusedOpsConstParamStruct& c,
                              cudnnFusedOpsPlanStruct* plan);
}  // namespace fd
