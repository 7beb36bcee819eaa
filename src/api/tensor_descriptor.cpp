// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Tensor and filter descriptors: create, set, get, destroy, sizes.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <new>

#include "core/api_context.h"
#include "core/dtype.h"
#include "core/filter_desc.h"
#include "core/status.h"
#include "core/tensor_desc.h"

namespace {
template <class T>
cudnnStatus_t create_object(T** out, const char* what) {
  FD_CHECK_PARAM(out != nullptr, "%s output pointer is NULL", what);
  *out = new (std::nothrow) T;
  FD_CHECK(*out != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate a %s", what);
  return CUDNN_STATUS_SUCCESS;
}

template <class T>
cudnnStatus_t destroy_object(T* p, const char* what) {
  if (p == nullptr) return CUDNN_STATUS_SUCCESS;  // like free(NULL)
  FD_CHECK_PARAM(p->alive(), "%s is not live (destroyed twice, or not a %s)", what, what);
  delete p;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_tensor_obj(const cudnnTensorStruct* d) {
  FD_CHECK_PARAM(d != nullptr, "tensorDesc is NULL");
  FD_CHECK_PARAM(d->alive(), "tensorDesc is not a live tensor descriptor");
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_filter_obj(const cudnnFilterStruct* d) {
  FD_CHECK_PARAM(d != nullptr, "filterDesc is NULL");
  FD_CHECK_PARAM(d->alive(), "filterDesc is not a live filter descriptor");
  return CUDNN_STATUS_SUCCESS;
}
// Stride i as the API's int. Only a dim of extent 1 can hold a stride past 2^31 - 1 (the packed stride of a leading
// extent-1 dim of a tensor of exactly 2^31 elements; the span check refuses the others), and its stride is never
// used: reported as 2^31 - 1, so that the values read back set an equivalent descriptor (found by review: INT_MIN).
int api_stride(const cudnnTensorStruct& d, int i) {
  return static_cast<int>(std::min<int64_t>(d.strides[i], INT32_MAX));
}
}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* tensorDesc) {
  return FD_API(cudnnCreateTensorDescriptor, (tensorDesc),
                [&] { return create_object(tensorDesc, "cudnnTensorDescriptor_t"); });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc) {
  return FD_API(cudnnDestroyTensorDescriptor, (tensorDesc),
                [&] { return destroy_object(tensorDesc, "cudnnTensorDescriptor_t"); });
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                                     cudnnDataType_t dataType, int n, int c, int h, int w) {
  return FD_API(cudnnSetTensor4dDescriptor, (tensorDesc, format, dataType, n, c, h, w), [&]() -> cudnnStatus_t {
    FD_TRY(check_tensor_obj(tensorDesc));
    const int dims[4] = {n, c, h, w};
    return fd::set_tensor_format(*tensorDesc, format, dataType, 4, dims);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType,
                                                       int n, int c, int h, int w, int nStride, int cStride,
                                                       int hStride, int wStride) {
  return FD_API(cudnnSetTensor4dDescriptorEx,
                (tensorDesc, dataType, n, c, h, w, nStride, cStride, hStride, wStride), [&]() -> cudnnStatus_t {
                  FD_TRY(check_tensor_obj(tensorDesc));
                  const int dims[4] = {n, c, h, w};
                  const int strides[4] = {nStride, cStride, hStride, wStride};
                  return fd::set_tensor_strided(*tensorDesc, dataType, 4, dims, strides);
                });
}

cudnnStatus_t CUDNNWINAPI cudnnGetTensor4dDescriptor(const cudnnTensorDescriptor_t tensorDesc,
                                                     cudnnDataType_t* dataType, int* n, int* c, int* h, int* w,
                                                     int* nStride, int* cStride, int* hStride, int* wStride) {
  return FD_API(cudnnGetTensor4dDescriptor, (tensorDesc), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_tensor(tensorDesc, "tensorDesc"));
    FD_CHECK_PARAM(tensorDesc->nb_dims == 4, "descriptor has %d dims, not 4", tensorDesc->nb_dims);
    FD_CHECK_PARAM(dataType && n && c && h && w && nStride && cStride && hStride && wStride,
                   "an output pointer is NULL");
    const auto& d = *tensorDesc;
    *dataType = d.dtype;
    *n = static_cast<int>(d.dims[0]);
    *c = static_cast<int>(d.dims[1]);
    *h = static_cast<int>(d.dims[2]);
    *w = static_cast<int>(d.dims[3]);
    *nStride = api_stride(d, 0);
    *cStride = api_stride(d, 1);
    *hStride = api_stride(d, 2);
    *wStride = api_stride(d, 3);
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType,
                                                     int nbDims, const int dimA[], const int strideA[]) {
  return FD_API(cudnnSetTensorNdDescriptor, (tensorDesc, dataType, nbDims, dimA, strideA), [&]() -> cudnnStatus_t {
    FD_TRY(check_tensor_obj(tensorDesc));
    return fd::set_tensor_strided(*tensorDesc, dataType, nbDims, dimA, strideA);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensorNdDescriptorEx(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                                       cudnnDataType_t dataType, int nbDims, const int dimA[]) {
  return FD_API(cudnnSetTensorNdDescriptorEx, (tensorDesc, format, dataType, nbDims, dimA), [&]() -> cudnnStatus_t {
    FD_TRY(check_tensor_obj(tensorDesc));
    return fd::set_tensor_format(*tensorDesc, format, dataType, nbDims, dimA);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                                     cudnnDataType_t* dataType, int* nbDims, int dimA[],
                                                     int strideA[]) {
  return FD_API(cudnnGetTensorNdDescriptor, (tensorDesc, nbDimsRequested), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_tensor(tensorDesc, "tensorDesc"));
    FD_CHECK_PARAM(nbDimsRequested >= 0, "nbDimsRequested=%d is negative", nbDimsRequested);
    FD_CHECK_PARAM(dataType && nbDims, "dataType or nbDims is NULL");
    FD_CHECK_PARAM(nbDimsRequested == 0 || (dimA && strideA), "dimA or strideA is NULL");
    *dataType = tensorDesc->dtype;
    *nbDims = tensorDesc->nb_dims;
    for (int i = 0; i < nbDimsRequested && i < tensorDesc->nb_dims; ++i) {
      dimA[i] = static_cast<int>(tensorDesc->dims[i]);
      strideA[i] = api_stride(*tensorDesc, i);
    }
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetTensorSizeInBytes(const cudnnTensorDescriptor_t tensorDesc, size_t* size) {
  return FD_API(cudnnGetTensorSizeInBytes, (tensorDesc, size), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_tensor(tensorDesc, "tensorDesc"));
    FD_CHECK_PARAM(size != nullptr, "size is NULL");
    *size = tensorDesc->size_in_bytes();
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* filterDesc) {
  return FD_API(cudnnCreateFilterDescriptor, (filterDesc),
                [&] { return create_object(filterDesc, "cudnnFilterDescriptor_t"); });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc) {
  return FD_API(cudnnDestroyFilterDescriptor, (filterDesc),
                [&] { return destroy_object(filterDesc, "cudnnFilterDescriptor_t"); });
}

cudnnStatus_t CUDNNWINAPI cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                                     cudnnTensorFormat_t format, int k, int c, int h, int w) {
  return FD_API(cudnnSetFilter4dDescriptor, (filterDesc, dataType, format, k, c, h, w), [&]() -> cudnnStatus_t {
    FD_TRY(check_filter_obj(filterDesc));
    const int dims[4] = {k, c, h, w};
    return fd::set_filter(*filterDesc, dataType, format, 4, dims);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetFilter4dDescriptor(const cudnnFilterDescriptor_t filterDesc,
                                                     cudnnDataType_t* dataType, cudnnTensorFormat_t* format, int* k,
                                                     int* c, int* h, int* w) {
  return FD_API(cudnnGetFilter4dDescriptor, (filterDesc), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_filter(filterDesc, "filterDesc"));
    FD_CHECK_PARAM(filterDesc->nb_dims == 4, "filter has %d dims, not 4", filterDesc->nb_dims);
    FD_CHECK_PARAM(dataType && format && k && c && h && w, "an output pointer is NULL");
    *dataType = filterDesc->dtype;
    *format = filterDesc->format;
    *k = static_cast<int>(filterDesc->dims[0]);
    *c = static_cast<int>(filterDesc->dims[1]);
    *h = static_cast<int>(filterDesc->dims[2]);
    *w = static_cast<int>(filterDesc->dims[3]);
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                                     cudnnTensorFormat_t format, int nbDims, const int filterDimA[]) {
  return FD_API(cudnnSetFilterNdDescriptor, (filterDesc, dataType, format, nbDims, filterDimA),
                [&]() -> cudnnStatus_t {
                  FD_TRY(check_filter_obj(filterDesc));
                  return fd::set_filter(*filterDesc, dataType, format, nbDims, filterDimA);
                });
}

cudnnStatus_t CUDNNWINAPI cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t filterDesc, int nbDimsRequested,
                                                     cudnnDataType_t* dataType, cudnnTensorFormat_t* format,
                                                     int* nbDims, int filterDimA[]) {
  return FD_API(cudnnGetFilterNdDescriptor, (filterDesc, nbDimsRequested), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_filter(filterDesc, "filterDesc"));
    FD_CHECK_PARAM(nbDimsRequested >= 0, "nbDimsRequested=%d is negative", nbDimsRequested);
    FD_CHECK_PARAM(dataType && format && nbDims, "an output pointer is NULL");
    FD_CHECK_PARAM(nbDimsRequested == 0 || filterDimA, "filterDimA is NULL");
    *dataType = filterDesc->dtype;
    *format = filterDesc->format;
    *nbDims = filterDesc->nb_dims;
    for (int i = 0; i < nbDimsRequested && i < filterDesc->nb_dims; ++i)
      filterDimA[i] = static_cast<int>(filterDesc->dims[i]);
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetFilterSizeInBytes(const cudnnFilterDescriptor_t filterDesc, size_t* size) {
  return FD_API(cudnnGetFilterSizeInBytes, (filterDesc, size), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_filter(filterDesc, "filterDesc"));
    FD_CHECK_PARAM(size != nullptr, "size is NULL");
    *size = filterDesc->size_in_bytes();
    return CUDNN_STATUS_SUCCESS;
  });
}

}  // extern "C"
