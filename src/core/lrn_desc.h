// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include "core/checked.h"
#include "core/log.h"

// LRN / divisive-normalization parameters. cudnnCreateLRNDescriptor gives the documented defaults
// n=5, alpha=1e-4, beta=0.75, k=2.0. alpha is divided inside the computation by the window size
// (n for cross-channel LRN, n^spatialDims for divisive normalization), as cuDNN documents.
struct cudnnLRNStruct : fd::Checked<0x4C524E44u> {
  static constexpr const char* kTypeName = "cudnnLRNDescriptor_t";

  unsigned n = 5;
  double alpha = 1e-4;
  double beta = 0.75;
  double k = 2.0;

  void describe(fd::log::Writer& w) const;
};

namespace fd {
cudnnStatus_t check_lrn(const cudnnLRNStruct* d, const char* role);
// The documented ranges: CUDNN_LRN_MIN_N <= n <= CUDNN_LRN_MAX_N, k >= CUDNN_LRN_MIN_K,
// beta >= CUDNN_LRN_MIN_BETA (alpha is free but must be finite).
cudnnStatus_t check_lrn_params(unsigned n, double alpha, double beta, double k);
}  // namespace fd
