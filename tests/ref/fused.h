// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Reference for the fused-ops patterns, composed from the other references (conv, activation) and the
// definitions of the batch-norm statistics.
#pragma once
#include <cstdint>
#include <vector>

#include "ref/activation.h"
#include "ref/ref_tensor.h"

namespace ref {

// act(x * scale[c] + bias[c]); a null scale / bias / act skips that step.
Tensor scale_bias_activation(const Tensor& x, const std::vector<double>* scale, const std::vector<double>* bias,
                             const Activation* act);

// Per-channel (dim 1) sums of y and of y^2.
void channel_sums(const Tensor& y, std::vector<double>& sum, std::vector<double>& sqsum);

struct BnFinalized {
  std::vector<double> mean, inv_std, eq_scale, eq_bias, running_mean, running_var;
};
// From per-channel sums over `count` elements: mean, biased variance -> inv_std = 1/sqrt(var + eps),
// eq_scale = scale * inv_std, eq_bias = bias - eq_scale * mean; running = (1 - f) running + f * (mean, unbiased var).
BnFinalized bn_finalize_training(const std::vector<double>& sum, const std::vector<double>& sqsum, int64_t count,
                                 const std::vector<double>& scale, const std::vector<double>& bias,
                                 const std::vector<double>& running_mean, const std::vector<double>& running_var,
                                 double factor, double epsilon);
// eq_scale = scale / sqrt(var + eps), eq_bias = bias - eq_scale * mean.
BnFinalized bn_finalize_inference(const std::vector<double>& scale, const std::vector<double>& bias,
                                  const std::vector<double>& mean, const std::vector<double>& var, double epsilon);

}  // namespace ref
