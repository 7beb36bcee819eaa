// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Convolution descriptors: create, set, get, destroy, output dims.
#include <algorithm>
#include <cstdint>
#include <new>

#include "core/api_context.h"
#include "core/convolution_desc.h"
#include "core/dtype.h"
#include "core/filter_desc.h"
#include "core/status.h"
#include "core/tensor_desc.h"

namespace {

cudnnStatus_t check_conv_obj(const cudnnConvolutionStruct* c) {
  FD_CHECK_PARAM(c != nullptr, "convDesc is NULL");
  FD_CHECK_PARAM(c->alive(), "convDesc is not a live convolution descriptor");
  return CUDNN_STATUS_SUCCESS;
}

// Output dims (N, K, spatial...) of a forward convolution, shared by the 2-D and N-D queries.
cudnnStatus_t forward_output_dims(const cudnnConvolutionStruct* conv, const cudnnTensorStruct* x,
                                  const cudnnFilterStruct* w, int nb_dims, int* out) {
  FD_TRY(fd::check_convolution(conv, "convDesc"));
  FD_TRY(fd::check_tensor(x, "inputTensorDesc"));
  FD_TRY(fd::check_filter(w, "filterDesc"));
  const int want = conv->array_length + 2;
  FD_CHECK_PARAM(x->nb_dims == want, "input has %d dims, the convolution %d spatial dims (needs %d)", x->nb_dims,
                 conv->array_length, want);
  FD_CHECK_PARAM(w->nb_dims == want, "filter has %d dims, the convolution %d spatial dims (needs %d)", w->nb_dims,
                 conv->array_length, want);
  FD_CHECK_PARAM(nb_dims == want, "nbDims=%d, the convolution output has %d dims", nb_dims, want);
  const int g = conv->group_count;
  FD_CHECK_PARAM(x->dims[1] == w->dims[1] * g, "input channels %lld != filter channels %lld x groups %d",
                 static_cast<long long>(x->dims[1]), static_cast<long long>(w->dims[1]), g);
  FD_CHECK_PARAM(w->dims[0] % g == 0, "filter output channels %lld are not a multiple of groups %d",
                 static_cast<long long>(w->dims[0]), g);
  out[0] = static_cast<int>(x->dims[0]);
  out[1] = static_cast<int>(w->dims[0]);
  for (int i = 0; i < conv->array_length; ++i) {
    const long long o =
        fd::conv_output_size(x->dims[2 + i], w->dims[2 + i], conv->pad[i], conv->stride[i], conv->dilation[i]);
    FD_CHECK_PARAM(o > 0,
                   "spatial dim %d: input %lld + 2 x pad %d is smaller than the dilated filter (%lld - 1) x %d + 1",
                   i, static_cast<long long>(x->dims[2 + i]), conv->pad[i], static_cast<long long>(w->dims[2 + i]),
                   conv->dilation[i]);
    FD_CHECK_SUPPORTED(o <= INT32_MAX, "spatial dim %d: the output extent %lld exceeds 2^31 - 1", i, o);
    out[2 + i] = static_cast<int>(o);
  }
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* convDesc) {
  return FD_API(cudnnCreateConvolutionDescriptor, (convDesc), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(convDesc != nullptr, "convDesc output pointer is NULL");
    *convDesc = new (std::nothrow) cudnnConvolutionStruct;
    FD_CHECK(*convDesc != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate a convolution descriptor");
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc) {
  return FD_API(cudnnDestroyConvolutionDescriptor, (convDesc), [&]() -> cudnnStatus_t {
    if (convDesc == nullptr) return CUDNN_STATUS_SUCCESS;
    FD_CHECK_PARAM(convDesc->alive(), "convDesc is not live (destroyed twice, or not a convolution descriptor)");
    delete convDesc;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType) {
  return FD_API(cudnnSetConvolutionMathType, (convDesc, mathType), [&]() -> cudnnStatus_t {
    FD_TRY(check_conv_obj(convDesc));
    FD_CHECK_PARAM(mathType >= CUDNN_DEFAULT_MATH && mathType <= CUDNN_FMA_MATH, "mathType=%d is not a math type",
                   static_cast<int>(mathType));
    convDesc->math_type = mathType;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc,
                                                      cudnnMathType_t* mathType) {
  return FD_API(cudnnGetConvolutionMathType, (convDesc, mathType), [&]() -> cudnnStatus_t {
    FD_TRY(check_conv_obj(convDesc));
    FD_CHECK_PARAM(mathType != nullptr, "mathType is NULL");
    *mathType = convDesc->math_type;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int groupCount) {
  return FD_API(cudnnSetConvolutionGroupCount, (convDesc, groupCount), [&]() -> cudnnStatus_t {
    FD_TRY(check_conv_obj(convDesc));
    FD_CHECK_PARAM(groupCount > 0, "groupCount=%d must be positive", groupCount);
    convDesc->group_count = groupCount;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int* groupCount) {
  return FD_API(cudnnGetConvolutionGroupCount, (convDesc, groupCount), [&]() -> cudnnStatus_t {
    FD_TRY(check_conv_obj(convDesc));
    FD_CHECK_PARAM(groupCount != nullptr, "groupCount is NULL");
    *groupCount = convDesc->group_count;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc,
                                                         cudnnReorderType_t reorderType) {
  return FD_API(cudnnSetConvolutionReorderType, (convDesc, reorderType), [&]() -> cudnnStatus_t {
    FD_TRY(check_conv_obj(convDesc));
    FD_CHECK_PARAM(reorderType == CUDNN_DEFAULT_REORDER || reorderType == CUDNN_NO_REORDER,
                   "reorderType=%d is not a reorder type", static_cast<int>(reorderType));
    convDesc->reorder_type = reorderType;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc,
                                                         cudnnReorderType_t* reorderType) {
  return FD_API(cudnnGetConvolutionReorderType, (convDesc, reorderType), [&]() -> cudnnStatus_t {
    FD_TRY(check_conv_obj(convDesc));
    FD_CHECK_PARAM(reorderType != nullptr, "reorderType is NULL");
    *reorderType = convDesc->reorder_type;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t convDesc, int pad_h, int pad_w,
                                                          int u, int v, int dilation_h, int dilation_w,
                                                          cudnnConvolutionMode_t mode, cudnnDataType_t computeType) {
  return FD_API(cudnnSetConvolution2dDescriptor,
                (convDesc, pad_h, pad_w, u, v, dilation_h, dilation_w, mode, computeType), [&]() -> cudnnStatus_t {
                  FD_TRY(check_conv_obj(convDesc));
                  const int pad[2] = {pad_h, pad_w}, stride[2] = {u, v}, dil[2] = {dilation_h, dilation_w};
                  return fd::set_convolution(*convDesc, 2, pad, stride, dil, mode, computeType);
                });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolution2dDescriptor(const cudnnConvolutionDescriptor_t convDesc, int* pad_h,
                                                          int* pad_w, int* u, int* v, int* dilation_h,
                                                          int* dilation_w, cudnnConvolutionMode_t* mode,
                                                          cudnnDataType_t* computeType) {
  return FD_API(cudnnGetConvolution2dDescriptor, (convDesc), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_convolution(convDesc, "convDesc"));
    FD_CHECK_PARAM(convDesc->array_length == 2, "convDesc has %d spatial dims, not 2", convDesc->array_length);
    FD_CHECK_PARAM(pad_h && pad_w && u && v && dilation_h && dilation_w && mode && computeType,
                   "an output pointer is NULL");
    *pad_h = convDesc->pad[0];
    *pad_w = convDesc->pad[1];
    *u = convDesc->stride[0];
    *v = convDesc->stride[1];
    *dilation_h = convDesc->dilation[0];
    *dilation_w = convDesc->dilation[1];
    *mode = convDesc->mode;
    *computeType = convDesc->compute_type;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t convDesc, int arrayLength,
                                                          const int padA[], const int filterStrideA[],
                                                          const int dilationA[], cudnnConvolutionMode_t mode,
                                                          cudnnDataType_t computeType) {
  return FD_API(cudnnSetConvolutionNdDescriptor,
                (convDesc, arrayLength, padA, filterStrideA, dilationA, mode, computeType), [&]() -> cudnnStatus_t {
                  FD_TRY(check_conv_obj(convDesc));
                  return fd::set_convolution(*convDesc, arrayLength, padA, filterStrideA, dilationA, mode,
                                             computeType);
                });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t convDesc,
                                                          int arrayLengthRequested, int* arrayLength, int padA[],
                                                          int strideA[], int dilationA[],
                                                          cudnnConvolutionMode_t* mode, cudnnDataType_t* computeType) {
  return FD_API(cudnnGetConvolutionNdDescriptor, (convDesc, arrayLengthRequested), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_convolution(convDesc, "convDesc"));
    FD_CHECK_PARAM(arrayLengthRequested >= 0 && arrayLengthRequested <= CUDNN_DIM_MAX - 2,
                   "arrayLengthRequested=%d is outside [0, %d]", arrayLengthRequested, CUDNN_DIM_MAX - 2);
    FD_CHECK_PARAM(arrayLength && mode && computeType, "arrayLength, mode or computeType is NULL");
    FD_CHECK_PARAM(arrayLengthRequested == 0 || (padA && strideA && dilationA), "padA, strideA or dilationA is NULL");
    *arrayLength = convDesc->array_length;
    for (int i = 0; i < std::min(arrayLengthRequested, convDesc->array_length); ++i) {
      padA[i] = convDesc->pad[i];
      strideA[i] = convDesc->stride[i];
      dilationA[i] = convDesc->dilation[i];
    }
    *mode = convDesc->mode;
    *computeType = convDesc->compute_type;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolution2dForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                                const cudnnTensorDescriptor_t inputTensorDesc,
                                                                const cudnnFilterDescriptor_t filterDesc, int* n,
                                                                int* c, int* h, int* w) {
  return FD_API(cudnnGetConvolution2dForwardOutputDim, (convDesc, inputTensorDesc, filterDesc),
                [&]() -> cudnnStatus_t {
                  FD_CHECK_PARAM(n && c && h && w, "an output pointer is NULL");
                  int out[4];
                  FD_TRY(forward_output_dims(convDesc, inputTensorDesc, filterDesc, 4, out));
                  *n = out[0];
                  *c = out[1];
                  *h = out[2];
                  *w = out[3];
                  return CUDNN_STATUS_SUCCESS;
                });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionNdForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                                const cudnnTensorDescriptor_t inputTensorDesc,
                                                                const cudnnFilterDescriptor_t filterDesc, int nbDims,
                                                                int tensorOuputDimA[]) {
  return FD_API(cudnnGetConvolutionNdForwardOutputDim, (convDesc, inputTensorDesc, filterDesc, nbDims),
                [&]() -> cudnnStatus_t {
                  FD_CHECK_PARAM(tensorOuputDimA != nullptr, "tensorOuputDimA is NULL");
                  FD_CHECK_PARAM(nbDims >= 3 && nbDims <= CUDNN_DIM_MAX, "nbDims=%d is outside [3, %d]", nbDims,
                                 CUDNN_DIM_MAX);
                  int out[CUDNN_DIM_MAX];
                  FD_TRY(forward_output_dims(convDesc, inputTensorDesc, filterDesc, nbDims, out));
                  for (int i = 0; i < nbDims; ++i) tensorOuputDimA[i] = out[i];
                  return CUDNN_STATUS_SUCCESS;
                });
}

}  // extern "C"
