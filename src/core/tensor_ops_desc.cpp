// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/tensor_ops_desc.h"

#include "core/status.h"

namespace {
std::string join(const auto* v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? "x" : "") + std::to_string(v[i]);
  return s.empty() ? "-" : s;
}
const char* format_short(cudnnTensorFormat_t f) {
  switch (f) {
    case CUDNN_TENSOR_NCHW: return "nchw";
    case CUDNN_TENSOR_NHWC: return "nhwc";
    case CUDNN_TENSOR_NCHW_VECT_C: return "nchw_vect_c";
  }
  return "?";
}
}  // namespace

int64_t cudnnTensorTransformStruct::fold_product() const {
  int64_t f = 1;
  for (int i = 0; i + 2 < nb_dims; ++i) f *= fold[i];
  return f;
}

bool cudnnTensorTransformStruct::is_identity() const {
  for (int i = 0; i < nb_dims; ++i)
    if (pad_before[i] != 0 || pad_after[i] != 0) return false;
  return fold_product() == 1;
}

std::string cudnnTensorTransformStruct::spec() const {
  return std::string("fmt=") + format_short(dest_format) + " pad_before=" + join(pad_before, nb_dims) +
         " pad_after=" + join(pad_after, nb_dims) + " fold=" + join(fold, nb_dims > 2 ? nb_dims - 2 : 0) +
         " dir=" + (direction == CUDNN_TRANSFORM_FOLD ? "fold" : "unfold");
}

void cudnnTensorTransformStruct::describe(fd::log::Writer& w) const {
  if (!is_set) {
    w.line("<not set>");
    return;
  }
  w.arg("nbDims", nb_dims);
  w.arg("destFormat", dest_format);
  w.field("padBeforeA", "int", "[" + join(pad_before, nb_dims) + "]");
  w.field("padAfterA", "int", "[" + join(pad_after, nb_dims) + "]");
  w.field("foldA", "unsigned", "[" + join(fold, nb_dims > 2 ? nb_dims - 2 : 0) + "]");
  w.arg("direction", direction);
}

void cudnnOpTensorStruct::describe(fd::log::Writer& w) const {
  if (!is_set) {
    w.line("<not set>");
    return;
  }
  w.arg("opTensorOp", op);
  w.arg("opTensorCompType", comp_type);
  w.arg("opTensorNanOpt", nan_opt);
}

bool cudnnReduceTensorStruct::wants_indices() const {
  return indices == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES &&
         (op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX || op == CUDNN_REDUCE_TENSOR_AMAX);
}

void cudnnReduceTensorStruct::describe(fd::log::Writer& w) const {
  if (!is_set) {
    w.line("<not set>");
    return;
  }
  w.arg("reduceTensorOp", op);
  w.arg("reduceTensorCompType", comp_type);
  w.arg("reduceTensorNanOpt", nan_opt);
  w.arg("reduceTensorIndices", indices);
  w.arg("reduceTensorIndicesType", indices_type);
}

namespace fd {

namespace {
template <class T>
cudnnStatus_t check_obj(const T* d, const char* role) {
  FD_CHECK_PARAM(d != nullptr, "%s %s is NULL", T::kTypeName, role);
  FD_CHECK_PARAM(d->alive(), "%s is not a live %s", role, T::kTypeName);
  FD_CHECK_PARAM(d->is_set, "%s %s was never set", T::kTypeName, role);
  return CUDNN_STATUS_SUCCESS;
}
}  // namespace

cudnnStatus_t check_transform(const cudnnTensorTransformStruct* d, const char* role) { return check_obj(d, role); }
cudnnStatus_t check_op_tensor(const cudnnOpTensorStruct* d, const char* role) { return check_obj(d, role); }
cudnnStatus_t check_reduce_tensor(const cudnnReduceTensorStruct* d, const char* role) { return check_obj(d, role); }

cudnnStatus_t transform_dims(const cudnnTensorTransformStruct& t, int nb_dims, const int64_t* src, int64_t* dst) {
  FD_CHECK_PARAM(t.nb_dims == nb_dims, "the transform has %d dims, the tensor %d", t.nb_dims, nb_dims);
  const int64_t F = t.fold_product();
  const bool unfold = t.direction == CUDNN_TRANSFORM_UNFOLD;
  for (int i = 0; i < nb_dims; ++i) {
    const int64_t pads = static_cast<int64_t>(t.pad_before[i]) + t.pad_after[i];
    const int64_t f = i >= 2 ? t.fold[i - 2] : 1;
    if (!unfold) {
      const int64_t padded = src[i] + pads;  // each term below 2^31
      FD_CHECK_PARAM(i != 1 || padded <= INT32_MAX / F, "FOLD: %lld padded channels times the fold product %lld "
                     "exceed 2^31 - 1", static_cast<long long>(padded), static_cast<long long>(F));
      dst[i] = i == 1 ? padded * F : (padded + f - 1) / f;
    } else if (i == 1) {
      FD_CHECK_PARAM(src[1] % F == 0, "UNFOLD: channel count %lld is not a multiple of the fold product %lld",
                     static_cast<long long>(src[1]), static_cast<long long>(F));
      dst[1] = src[1] / F - pads;
    } else {
      dst[i] = src[i] * f - pads;  // below 2^31 * 2^16: no overflow
    }
    FD_CHECK_PARAM(dst[i] > 0 && dst[i] <= INT32_MAX, "the transform gives dim %d the extent %lld", i,
                   static_cast<long long>(dst[i]));
  }
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd
