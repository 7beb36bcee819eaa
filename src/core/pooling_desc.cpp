// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/pooling_desc.h"

#include <cstdint>

#include "core/status.h"

namespace {
std::string join(const int* v, int n, const char* sep) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}
}  // namespace

std::string cudnnPoolingStruct::spec() const {
  return std::string("mode=") + fd::pooling_mode_short_name(mode) + " nan=" + std::to_string(static_cast<int>(nan_opt)) +
         " win=" + join(window, nb_dims, "x") + " pad=" + join(padding, nb_dims, "x") +
         " stride=" + join(stride, nb_dims, "x");
}

void cudnnPoolingStruct::describe(fd::log::Writer& w) const {
  if (!is_set) {
    w.line("<not set>");
    return;
  }
  w.arg("mode", mode);
  w.arg("maxpoolingNanOpt", nan_opt);
  w.arg("nbDims", nb_dims);
  w.field("windowDimA", "int", "[" + join(window, nb_dims, ",") + "]");
  w.field("paddingA", "int", "[" + join(padding, nb_dims, ",") + "]");
  w.field("strideA", "int", "[" + join(stride, nb_dims, ",") + "]");
}

namespace fd {

const char* pooling_mode_short_name(cudnnPoolingMode_t m) {
  switch (m) {
    case CUDNN_POOLING_MAX: return "max";
    case CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING: return "avg_incl";
    case CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING: return "avg_excl";
    case CUDNN_POOLING_MAX_DETERMINISTIC: return "max_det";
  }
  return "invalid";
}

cudnnStatus_t set_pooling(cudnnPoolingStruct& p, cudnnPoolingMode_t mode, cudnnNanPropagation_t nan_opt,
                          int nb_dims, const int* window, const int* padding, const int* stride) {
  FD_CHECK_PARAM(mode == CUDNN_POOLING_MAX || mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ||
                     mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING || mode == CUDNN_POOLING_MAX_DETERMINISTIC,
                 "mode=%d is not a cudnnPoolingMode_t", static_cast<int>(mode));
  FD_CHECK_PARAM(nan_opt == CUDNN_NOT_PROPAGATE_NAN || nan_opt == CUDNN_PROPAGATE_NAN,
                 "maxpoolingNanOpt=%d is not a cudnnNanPropagation_t", static_cast<int>(nan_opt));
  FD_CHECK_PARAM(nb_dims > 0, "nbDims=%d must be positive", nb_dims);
  FD_CHECK_SUPPORTED(nb_dims <= CUDNN_DIM_MAX - 2, "nbDims=%d exceeds CUDNN_DIM_MAX-2=%d", nb_dims,
                     CUDNN_DIM_MAX - 2);
  FD_CHECK_PARAM(window && padding && stride, "windowDimA, paddingA or strideA is NULL");
  for (int i = 0; i < nb_dims; ++i) {
    FD_CHECK_PARAM(window[i] > 0, "windowDimA[%d]=%d must be positive", i, window[i]);
    FD_CHECK_PARAM(stride[i] > 0, "strideA[%d]=%d must be positive", i, stride[i]);
    FD_CHECK_PARAM(padding[i] >= 0, "paddingA[%d]=%d is negative", i, padding[i]);
  }
  // The average modes divide by the window's element count (as int in the kernels): it must fit 31 bits
  int64_t elems = 1;
  for (int i = 0; i < nb_dims; ++i) {
    elems *= window[i];  // < 2^31 * 2^31 before the check below
    FD_CHECK_SUPPORTED(elems <= INT32_MAX, "the window's element count (%lld by dim %d) exceeds 2^31 - 1",
                       static_cast<long long>(elems), i);
  }
  p.mode = mode;
  p.nan_opt = nan_opt;
  p.nb_dims = nb_dims;
  for (int i = 0; i < CUDNN_DIM_MAX; ++i) {
    p.window[i] = i < nb_dims ? window[i] : 0;
    p.padding[i] = i < nb_dims ? padding[i] : 0;
    p.stride[i] = i < nb_dims ? stride[i] : 0;
  }
  p.is_set = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_pooling(const cudnnPoolingStruct* p, const char* role) {
  FD_CHECK_PARAM(p != nullptr, "%s is NULL", role);
  FD_CHECK_PARAM(p->alive(), "%s is not a live cudnnPoolingDescriptor_t", role);
  FD_CHECK_PARAM(p->is_set, "%s has not been set", role);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd
