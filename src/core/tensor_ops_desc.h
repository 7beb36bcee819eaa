// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Descriptors of the tensor operations: tensor transform (layout, padding, folding), element-wise op tensor,
// and reduce tensor.
#pragma once
#include <cudnn.h>

#include <cstdint>
#include <string>

#include "core/checked.h"
#include "core/log.h"

// A tensor transform: destination layout, per-dim padding and a fold factor per spatial dim.
// FOLD: the (padded) spatial dim d of extent P becomes ceil(P / fold[d]) and the fold phases move into the
// channel dim (channel c of the source becomes channels c * F ... c * F + F - 1, F = product of the folds,
// phase index row-major over the spatial dims). UNFOLD is the exact inverse with the same parameters: it
// unfolds, then removes the padding.
struct cudnnTensorTransformStruct : fd::Checked<0x54524E53u> {
  static constexpr const char* kTypeName = "cudnnTensorTransformDescriptor_t";

  bool is_set = false;
  int nb_dims = 0;
  cudnnTensorFormat_t dest_format = CUDNN_TENSOR_NCHW;
  int32_t pad_before[CUDNN_DIM_MAX] = {};
  int32_t pad_after[CUDNN_DIM_MAX] = {};
  uint32_t fold[CUDNN_DIM_MAX] = {};  // spatial dims only: fold[i] applies to dim i + 2
  cudnnFoldingDirection_t direction = CUDNN_TRANSFORM_FOLD;

  int64_t fold_product() const;
  bool is_identity() const;  // no padding, all folds 1
  std::string spec() const;  // "fmt=nhwc pad_before=0x0x1x1 pad_after=0x0x1x1 fold=2x2 dir=fold"
  void describe(fd::log::Writer& w) const;
};

struct cudnnOpTensorStruct : fd::Checked<0x4F505453u> {
  static constexpr const char* kTypeName = "cudnnOpTensorDescriptor_t";

  bool is_set = false;
  cudnnOpTensorOp_t op = CUDNN_OP_TENSOR_ADD;
  cudnnDataType_t comp_type = CUDNN_DATA_FLOAT;
  cudnnNanPropagation_t nan_opt = CUDNN_NOT_PROPAGATE_NAN;

  void describe(fd::log::Writer& w) const;
};

struct cudnnReduceTensorStruct : fd::Checked<0x52445553u> {
  static constexpr const char* kTypeName = "cudnnReduceTensorDescriptor_t";

  bool is_set = false;
  cudnnReduceTensorOp_t op = CUDNN_REDUCE_TENSOR_ADD;
  cudnnDataType_t comp_type = CUDNN_DATA_FLOAT;
  cudnnNanPropagation_t nan_opt = CUDNN_NOT_PROPAGATE_NAN;
  cudnnReduceTensorIndices_t indices = CUDNN_REDUCE_TENSOR_NO_INDICES;
  cudnnIndicesType_t indices_type = CUDNN_32BIT_INDICES;
  // freednn-internal: NORM2 without the root, i.e. the sum of squares (the fused ops' ysqsum); never set
  // through the API.
  bool sum_of_squares = false;

  // Whether this reduction writes indices: FLATTENED_INDICES with MIN, MAX or AMAX.
  bool wants_indices() const;
  void describe(fd::log::Writer& w) const;
};

namespace fd {
cudnnStatus_t check_transform(const cudnnTensorTransformStruct* d, const char* role);
cudnnStatus_t check_op_tensor(const cudnnOpTensorStruct* d, const char* role);
cudnnStatus_t check_reduce_tensor(const cudnnReduceTensorStruct* d, const char* role);

// Destination dims of a transform applied to a source of `nb_dims` dims. BAD_PARAM (logged) when the
// transform does not apply (rank mismatch, UNFOLD of a channel count that the folds do not divide, a
// non-positive result).
cudnnStatus_t transform_dims(const cudnnTensorTransformStruct& t, int nb_dims, const int64_t* src_dims,
                             int64_t* dst_dims);
}  // namespace fd
