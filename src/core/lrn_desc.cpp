// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/lrn_desc.h"

#include <cmath>

#include "core/status.h"

void cudnnLRNStruct::describe(fd::log::Writer& w) const {
  w.arg("lrnN", n);
  w.arg("lrnAlpha", alpha);
  w.arg("lrnBeta", beta);
  w.arg("lrnK", k);
}

namespace fd {

cudnnStatus_t check_lrn(const cudnnLRNStruct* d, const char* role) {
  FD_CHECK_PARAM(d != nullptr, "LRN descriptor %s is NULL", role);
  FD_CHECK_PARAM(d->alive(), "LRN descriptor %s is not a live LRN descriptor", role);
  return check_lrn_params(d->n, d->alpha, d->beta, d->k);
}

cudnnStatus_t check_lrn_params(unsigned n, double alpha, double beta, double k) {
  FD_CHECK_PARAM(n >= CUDNN_LRN_MIN_N && n <= CUDNN_LRN_MAX_N, "lrnN=%u must be in [%d, %d]", n, CUDNN_LRN_MIN_N,
                 CUDNN_LRN_MAX_N);
  FD_CHECK_PARAM(k >= CUDNN_LRN_MIN_K, "lrnK=%g must be >= CUDNN_LRN_MIN_K=%g", k, CUDNN_LRN_MIN_K);
  FD_CHECK_PARAM(beta >= CUDNN_LRN_MIN_BETA, "lrnBeta=%g must be >= CUDNN_LRN_MIN_BETA=%g", beta,
                 CUDNN_LRN_MIN_BETA);
  FD_CHECK_PARAM(std::isfinite(alpha) && std::isfinite(beta) && std::isfinite(k),
                 "lrnAlpha=%g, lrnBeta=%g, lrnK=%g must be finite", alpha, beta, k);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd
