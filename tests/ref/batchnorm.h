// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Reference batch normalization, from the definitions, in double precision.
// x has dims (N, C, spatial...). A "statistic" is one channel (spatial mode: it reduces over N and the spatial
// dims) or one (c, spatial...) position (per-activation mode: it reduces over N only). Parameters (scale, bias,
// mean, variance) are vectors in the packed order of the statistics: C, or C x spatial.
#pragma once
#include <vector>

#include "ref/ref_tensor.h"

namespace ref {

// The statistic element `linear` of x belongs to.
int bn_stat_index(const Tensor& x, int64_t linear, bool per_activation);
int bn_stat_count(const Tensor& x, bool per_activation);

struct BnBatchStats {
  std::vector<double> mean, var;  // var is the biased (population) variance
  std::vector<double> unbiased_var, inv_std;  // inv_std = 1 / sqrt(var + eps)
};
BnBatchStats bn_batch_stats(const Tensor& x, bool per_activation, double epsilon);

// Optional fused ops: y = act(bn(x) + z), act = ReLU when relu is set, z added when given.
struct BnFusion {
  const Tensor* z = nullptr;
  bool relu = false;
};

// y = scale * (x - mean) / sqrt(var + eps) + bias  (+ z, ReLU)
Tensor bn_forward(const Tensor& x, const std::vector<double>& scale, const std::vector<double>& bias,
                  const std::vector<double>& mean, const std::vector<double>& var, double epsilon,
                  bool per_activation, BnFusion fusion = {});

struct BnGrads {
  Tensor dx, dz;  // dz only with fusion.z
  std::vector<double> dscale, dbias;
};
// Gradients of training-mode batch norm (batch statistics) given dy, through the fused add / ReLU.
BnGrads bn_backward(const Tensor& x, const Tensor& dy, const std::vector<double>& scale,
                    const std::vector<double>& bias, double epsilon, bool per_activation, BnFusion fusion = {});

}  // namespace ref
