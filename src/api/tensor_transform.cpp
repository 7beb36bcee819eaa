// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Tensor transforms: the transform descriptor, cudnnInitTransformDest, cudnnTransformTensor(Ex),
// cudnnTransformFilter.
#include <algorithm>
#include <new>
#include <string>

#include "core/api_context.h"
#include "core/dtype.h"
#include "core/filter_desc.h"
#include "core/handle.h"
#include "core/status.h"
#include "core/tensor_desc.h"
#include "core/tensor_ops_desc.h"
#include "cpu/tensor_ops/tensor_ops.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/tensor_ops/tensor_ops.h"
#endif

namespace {

bool convertible(cudnnDataType_t t) {
  switch (fd::dtype_scalar(t)) {
    case CUDNN_DATA_FLOAT: case CUDNN_DATA_DOUBLE: case CUDNN_DATA_HALF: case CUDNN_DATA_BFLOAT16:
    case CUDNN_DATA_INT8: case CUDNN_DATA_UINT8: case CUDNN_DATA_INT32: case CUDNN_DATA_INT64: return true;
    default: return false;
  }
}

std::string blend_spec(double alpha, double beta) {
  return "alpha=" + fd::log::format_double(alpha) + " beta=" + fd::log::format_double(beta);
}

// The checks and the run shared by cudnnTransformTensorEx and cudnnTransformFilter.
cudnnStatus_t transform_ex(cudnnHandle_t handle, const cudnnTensorTransformStruct* t, const void* alpha,
                           const cudnnTensorStruct& src, const void* srcData, const void* beta,
                           const cudnnTensorStruct& dst, void* destData, const char* operation,
                           const std::string& problem_head, const std::string& src_spec,
                           const std::string& dst_spec) {
  FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
  FD_CHECK_PARAM(srcData != nullptr && destData != nullptr, "srcData or destData is NULL");
  int64_t want[CUDNN_DIM_MAX];
  FD_TRY(fd::transform_dims(*t, src.nb_dims, src.dims, want));
  bool ok = dst.nb_dims == src.nb_dims;
  for (int i = 0; ok && i < src.nb_dims; ++i) ok = dst.dims[i] == want[i];
  FD_CHECK_PARAM(ok, "destination %s does not have the dims the transform (%s) gives to source %s",
                 dst_spec.c_str(), t->spec().c_str(), src_spec.c_str());
  FD_CHECK_SUPPORTED(convertible(src.dtype) && convertible(dst.dtype), "no conversion from %s to %s",
                     fd::enum_name(src.dtype), fd::enum_name(dst.dtype));
  // alpha/beta point to double for a DOUBLE destination, to float otherwise.
  const double a = fd::read_scale(alpha, dst.dtype), b = fd::read_scale(beta, dst.dtype);
  if (fd::log::command_logging_enabled())
    fd::log::emit_command(problem_head + " " + t->spec() + " " + blend_spec(a, b) + " x=" + src_spec +
                          " y=" + dst_spec);
#ifdef FREEDNN_WITH_CUDA
  if (!handle->on_cpu())
    return fd::cuda::transform_tensor(handle->stream, handle->device, t, src, srcData, dst, destData, a, b);
#endif
  FD_TRY(fd::require_cpu(handle, operation));
  fd::cpu::transform_tensor(t, src, srcData, dst, destData, a, b);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateTensorTransformDescriptor(cudnnTensorTransformDescriptor_t* transformDesc) {
  return FD_API(cudnnCreateTensorTransformDescriptor, (transformDesc), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(transformDesc != nullptr, "transformDesc output pointer is NULL");
    *transformDesc = new (std::nothrow) cudnnTensorTransformStruct;
    FD_CHECK(*transformDesc != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate a transform descriptor");
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyTensorTransformDescriptor(cudnnTensorTransformDescriptor_t transformDesc) {
  return FD_API(cudnnDestroyTensorTransformDescriptor, (transformDesc), [&]() -> cudnnStatus_t {
    if (transformDesc == nullptr) return CUDNN_STATUS_SUCCESS;
    FD_CHECK_PARAM(transformDesc->alive(), "transformDesc is not a live transform descriptor");
    delete transformDesc;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensorTransformDescriptor(cudnnTensorTransformDescriptor_t transformDesc,
                                                            const uint32_t nbDims,
                                                            const cudnnTensorFormat_t destFormat,
                                                            const int32_t padBeforeA[], const int32_t padAfterA[],
                                                            const uint32_t foldA[],
                                                            const cudnnFoldingDirection_t direction) {
  return FD_API(cudnnSetTensorTransformDescriptor,
                (transformDesc, nbDims, destFormat, padBeforeA, padAfterA, foldA, direction),
                [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(transformDesc != nullptr && transformDesc->alive(), "transformDesc is NULL or not live");
    FD_CHECK_PARAM(nbDims >= 3 && nbDims <= CUDNN_DIM_MAX, "nbDims=%u must be in [3, %d]", nbDims, CUDNN_DIM_MAX);
    FD_CHECK_PARAM(fd::enum_name(destFormat) != nullptr, "invalid destFormat %d", static_cast<int>(destFormat));
    FD_CHECK_PARAM(direction == CUDNN_TRANSFORM_FOLD || direction == CUDNN_TRANSFORM_UNFOLD,
                   "invalid folding direction %d", static_cast<int>(direction));
    cudnnTensorTransformStruct t;
    t.nb_dims = static_cast<int>(nbDims);
    t.dest_format = destFormat;
    t.direction = direction;
    for (int i = 0; i < t.nb_dims; ++i) {
      t.pad_before[i] = padBeforeA ? padBeforeA[i] : 0;
      t.pad_after[i] = padAfterA ? padAfterA[i] : 0;
      FD_CHECK_PARAM(t.pad_before[i] >= 0 && t.pad_after[i] >= 0, "padding of dim %d (%d before, %d after) is negative",
                     i, t.pad_before[i], t.pad_after[i]);
    }
    int64_t product = 1;  // the fold product multiplies the channel count: it must fit a dim
    for (int i = 0; i + 2 < t.nb_dims; ++i) {
      t.fold[i] = foldA ? foldA[i] : 1u;
      FD_CHECK_PARAM(t.fold[i] >= 1 && t.fold[i] <= 65536u, "foldA[%d]=%u must be in [1, 65536]", i, t.fold[i]);
      product *= t.fold[i];  // <= 2^31 * 2^16 before the check below: no overflow
      FD_CHECK_SUPPORTED(product <= INT32_MAX, "the fold product (%lld by dim %d) exceeds 2^31 - 1",
                         static_cast<long long>(product), i + 2);
    }
    t.is_set = true;
    transformDesc->is_set = t.is_set;
    transformDesc->nb_dims = t.nb_dims;
    transformDesc->dest_format = t.dest_format;
    transformDesc->direction = t.direction;
    for (int i = 0; i < CUDNN_DIM_MAX; ++i) {
      transformDesc->pad_before[i] = t.pad_before[i];
      transformDesc->pad_after[i] = t.pad_after[i];
      transformDesc->fold[i] = t.fold[i];
    }
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetTensorTransformDescriptor(cudnnTensorTransformDescriptor_t transformDesc,
                                                            uint32_t nbDimsRequested,
                                                            cudnnTensorFormat_t* destFormat, int32_t padBeforeA[],
                                                            int32_t padAfterA[], uint32_t foldA[],
                                                            cudnnFoldingDirection_t* direction) {
  return FD_API(cudnnGetTensorTransformDescriptor, (transformDesc, nbDimsRequested), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_transform(transformDesc, "transformDesc"));
    FD_CHECK_PARAM(nbDimsRequested <= CUDNN_DIM_MAX, "nbDimsRequested=%u exceeds %d", nbDimsRequested,
                   CUDNN_DIM_MAX);
    FD_CHECK_PARAM(destFormat != nullptr && direction != nullptr, "destFormat or direction is NULL");
    FD_CHECK_PARAM(nbDimsRequested == 0 || (padBeforeA && padAfterA), "padBeforeA or padAfterA is NULL");
    FD_CHECK_PARAM(nbDimsRequested <= 2 || foldA, "foldA is NULL");
    const int n = std::min(static_cast<int>(nbDimsRequested), transformDesc->nb_dims);
    *destFormat = transformDesc->dest_format;
    *direction = transformDesc->direction;
    for (int i = 0; i < n; ++i) {
      padBeforeA[i] = transformDesc->pad_before[i];
      padAfterA[i] = transformDesc->pad_after[i];
    }
    for (int i = 0; i + 2 < n; ++i) foldA[i] = transformDesc->fold[i];
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnInitTransformDest(const cudnnTensorTransformDescriptor_t transformDesc,
                                                 const cudnnTensorDescriptor_t srcDesc,
                                                 cudnnTensorDescriptor_t destDesc, size_t* destSizeInBytes) {
  return FD_API(cudnnInitTransformDest, (transformDesc, srcDesc, destDesc, destSizeInBytes), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_transform(transformDesc, "transformDesc"));
    FD_TRY(fd::check_tensor(srcDesc, "srcDesc"));
    FD_CHECK_PARAM(destDesc != nullptr && destDesc->alive(), "destDesc is NULL or not a live tensor descriptor");
    FD_CHECK_PARAM(destSizeInBytes != nullptr, "destSizeInBytes is NULL");
    int64_t d64[CUDNN_DIM_MAX];
    FD_TRY(fd::transform_dims(*transformDesc, srcDesc->nb_dims, srcDesc->dims, d64));
    int dims[CUDNN_DIM_MAX];
    for (int i = 0; i < srcDesc->nb_dims; ++i) dims[i] = static_cast<int>(d64[i]);
    // The destination keeps the source's scalar type; NCHW_VECT_C packs INT8 / UINT8 into 4-lane vectors
    // (an INT8x32 source stays INT8x32), the other formats unpack vectors.
    const cudnnDataType_t st = fd::dtype_scalar(srcDesc->dtype);
    cudnnDataType_t dt = st;
    if (transformDesc->dest_format == CUDNN_TENSOR_NCHW_VECT_C) {
      FD_CHECK_PARAM(st == CUDNN_DATA_INT8 || st == CUDNN_DATA_UINT8,
                     "destFormat NCHW_VECT_C needs INT8 or UINT8 data, the source is %s",
                     fd::enum_name(srcDesc->dtype));
      dt = srcDesc->vect() > 1 ? srcDesc->dtype : st == CUDNN_DATA_INT8 ? CUDNN_DATA_INT8x4 : CUDNN_DATA_UINT8x4;
    }
    FD_TRY(fd::set_tensor_format(*destDesc, transformDesc->dest_format, dt, srcDesc->nb_dims, dims));
    *destSizeInBytes = destDesc->size_in_bytes();
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnTransformTensor(cudnnHandle_t handle, const void* alpha,
                                               const cudnnTensorDescriptor_t xDesc, const void* x,
                                               const void* beta, const cudnnTensorDescriptor_t yDesc, void* y) {
  return FD_API(cudnnTransformTensor, (handle, alpha, xDesc, x, beta, yDesc, y), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_tensor(yDesc, "yDesc"));
    FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
    FD_CHECK_PARAM(x != nullptr && y != nullptr, "x or y is NULL");
    FD_CHECK_PARAM(xDesc->same_shape(*yDesc), "x %s and y %s differ in shape", xDesc->spec().c_str(),
                   yDesc->spec().c_str());
    FD_CHECK_PARAM(fd::dtype_scalar(xDesc->dtype) == fd::dtype_scalar(yDesc->dtype),
                   "x is %s and y is %s: the data types must be the same (up to NCHW_VECT_C vectors)",
                   fd::enum_name(xDesc->dtype), fd::enum_name(yDesc->dtype));
    FD_CHECK_SUPPORTED(convertible(xDesc->dtype), "no transform for %s", fd::enum_name(xDesc->dtype));
    const double a = fd::read_scale(alpha, yDesc->dtype), b = fd::read_scale(beta, yDesc->dtype);
    if (fd::log::command_logging_enabled())
      fd::log::emit_command("transform fwd " + blend_spec(a, b) + " x=" + xDesc->spec() + " y=" + yDesc->spec());
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu())
      return fd::cuda::transform_tensor(handle->stream, handle->device, nullptr, *xDesc, x, *yDesc, y, a, b);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnTransformTensor"));
    fd::cpu::transform_tensor(nullptr, *xDesc, x, *yDesc, y, a, b);
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnTransformTensorEx(cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                                                 const void* alpha, const cudnnTensorDescriptor_t srcDesc,
                                                 const void* srcData, const void* beta,
                                                 const cudnnTensorDescriptor_t destDesc, void* destData) {
  return FD_API(cudnnTransformTensorEx, (handle, transDesc, alpha, srcDesc, srcData, beta, destDesc, destData),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_transform(transDesc, "transDesc"));
    FD_TRY(fd::check_tensor(srcDesc, "srcDesc"));
    FD_TRY(fd::check_tensor(destDesc, "destDesc"));
    return transform_ex(handle, transDesc, alpha, *srcDesc, srcData, beta, *destDesc, destData,
                        "cudnnTransformTensorEx", "transform ex", srcDesc->spec(), destDesc->spec());
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnTransformFilter(cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                                               const void* alpha, const cudnnFilterDescriptor_t srcDesc,
                                               const void* srcData, const void* beta,
                                               const cudnnFilterDescriptor_t destDesc, void* destData) {
  return FD_API(cudnnTransformFilter, (handle, transDesc, alpha, srcDesc, srcData, beta, destDesc, destData),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_transform(transDesc, "transDesc"));
    FD_TRY(fd::check_filter(srcDesc, "srcDesc"));
    FD_TRY(fd::check_filter(destDesc, "destDesc"));
    return transform_ex(handle, transDesc, alpha, srcDesc->as_tensor, srcData, beta, destDesc->as_tensor, destData,
                        "cudnnTransformFilter", "transform filter", srcDesc->spec(), destDesc->spec());
  });
}

}  // extern "C"
