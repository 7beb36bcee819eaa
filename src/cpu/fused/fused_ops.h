// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// CPU fused-ops patterns, composed from the convolution registry, the tensor ops, activation and batch norm
// code (no math of their own beyond turning ysum / ysqsum into a mean and variance). The API layer has
// validated the plan and the variant pack.
#pragma once
#include <cudnn.h>

#include "core/fused_ops_desc.h"

namespace fd::cpu::fused {

// y = conv(act(x * eqScale + eqBias), w); ysum / ysqsum = per-channel sums of y and y^2.
cudnnStatus_t conv_bnstats(const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v);
// dw = wgrad(act(x * eqScale + eqBias), dy).
cudnnStatus_t wgrad(const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v);
// Batch statistics from ysum / ysqsum, running averages, saved mean / inverse stddev, eqScale / eqBias.
cudnnStatus_t bn_finalize_training(const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v);
// eqScale / eqBias from the running (estimated) statistics.
cudnnStatus_t bn_finalize_inference(const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v);

}  // namespace fd::cpu::fused
