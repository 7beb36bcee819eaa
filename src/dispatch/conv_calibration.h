// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <string>

#include "dispatch/conv_registry.h"
#include "problem/conv.h"

// The _v7 cost model: each implementation's own flops/bytes estimate (ConvImpl::cost_estimate) times a factor
// measured on a GPU for that implementation and data class (tools/calibrate_conv.py fits the factors to what Find
// timed; conv_calibration_table.inc holds them, with the run they came from). Implementations or classes that were
// not measured keep factor 1.
namespace fd::conv {

// Seconds: impl.cost_estimate(p) scaled by the measured factor of (impl, class of p); *measured (when given):
// whether the table has a factor for it (else the factor is 1).
double calibrated_estimate(const ConvImpl& impl, const ConvProblem& p, bool* measured = nullptr);

// "f16", "bf16", "f32" (TF32 allowed), "f32fma", "f64", ...: the data classes the factors are kept for.
const char* calibration_class(const ConvProblem& p);

// The finer class, tried first: data class, direction and filter shape, e.g. "f16/bwd_w/k_s2" (a filter larger
// than 1x1, some stride > 1) or "f32fma/fwd/1x1_s1" (tools/calibrate_conv.py's shape_class).
std::string calibration_class_fine(const ConvProblem& p);

}  // namespace fd::conv
