// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// CUDA fused-ops patterns, composed from the CUDA convolution registry, tensor ops and activation (the same
// composition as src/cpu/fused/), plus one small per-channel kernel for the BN finalize patterns. The API layer
// has validated the plan (made on a CUDA handle) and the variant pack; data pointers and the workspace are device
// pointers. Everything runs on the handle's stream: no allocation, no host synchronization.
#pragma once
#include <cudnn.h>

#include "core/fused_ops_desc.h"
#include "core/handle.h"

namespace fd::cuda::fused {

// Lays out the workspace of a convolution pattern's plan after make_fused_plan (which set conv_workspace): the
// xact buffer and the statistics reductions' workspace after the convolution's part (cudnnFusedOpsPlanStruct).
void lay_out_workspace(const cudnnContext* h, cudnnFusedOpsPlanStruct* p);

// y = conv(act(x * eqScale + eqBias), w); ysum / ysqsum = per-channel sums of y and y^2.
cudnnStatus_t conv_bnstats(cudnnContext* h, const cudnnFusedOpsPlanStruct& p,
                           const cudnnFusedOpsVariantParamStruct& v);
// dw = wgrad(act(x * eqScale + eqBias), dy).
cudnnStatus_t wgrad(cudnnContext* h, const cudnnFusedOpsPlanStruct& p, const cudnnFusedOpsVariantParamStruct& v);
// Batch statistics from ysum / ysqsum, running averages, saved mean / inverse stddev, eqScale / eqBias.
cudnnStatus_t bn_finalize_training(const cudnnContext* h, const cudnnFusedOpsPlanStruct& p,
                                   const cudnnFusedOpsVariantParamStruct& v);
// eqScale / eqBias from the running (estimated) statistics.
cudnnStatus_t bn_finalize_inference(const cudnnContext* h, const cudnnFusedOpsPlanStruct& p,
                                    const cudnnFusedOpsVariantParamStruct& v);

}  // namespace fd::cuda::fused
