// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Convolution forward (cudnn_cnn_infer): algorithm queries, workspace, forward, fused bias + activation,
// im2col, filter/bias reordering.
#include <cstring>

#include "api/conv_common.h"
#include "core/activation_desc.h"
#include "core/api_context.h"
#include "cpu/conv/standalone.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/conv/impls.h"
#endif

namespace {

using fd::ConvDir;
using fd::ConvProblem;

bool is_int8_scalar(cudnnDataType_t t) {
  const cudnnDataType_t s = fd::dtype_scalar(t);
  return s == CUDNN_DATA_INT8 || s == CUDNN_DATA_UINT8;
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t handle, int* count) {
  return FD_API(cudnnGetConvolutionForwardAlgorithmMaxCount, (handle, count), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_CHECK_PARAM(count != nullptr, "count is NULL");
    *count = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc, const cudnnFilterDescriptor_t filterDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t destDesc, const int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  return FD_API(cudnnGetConvolutionForwardAlgorithm_v7,
                (handle, srcDesc, filterDesc, convDesc, destDesc, requestedAlgoCount, returnedAlgoCount, perfResults),
                [&]() -> cudnnStatus_t {
                  FD_TRY(fd::check_handle(handle));
                  ConvProblem p;
                  FD_TRY(ConvProblem::make(ConvDir::fwd, srcDesc, filterDesc, convDesc, destDesc, &p));
                  return fd::conv_api::rank<cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgo_t>(
                      handle, p, requestedAlgoCount, returnedAlgoCount, perfResults);
                });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle,
                                                                  const cudnnTensorDescriptor_t xDesc,
                                                                  const cudnnFilterDescriptor_t wDesc,
                                                                  const cudnnConvolutionDescriptor_t convDesc,
                                                                  const cudnnTensorDescriptor_t yDesc,
                                                                  cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes) {
  return FD_API(cudnnGetConvolutionForwardWorkspaceSize, (handle, xDesc, wDesc, convDesc, yDesc, algo, sizeInBytes),
                [&]() -> cudnnStatus_t {
                  return fd::conv_api::workspace_size(handle, ConvDir::fwd, xDesc, wDesc, convDesc, yDesc, algo,
                                                      sizeInBytes);
                });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnConvolutionForward(cudnnHandle_t handle, const void* alpha,
                                                  const cudnnTensorDescriptor_t xDesc, const void* x,
                                                  const cudnnFilterDescriptor_t wDesc, const void* w,
                                                  const cudnnConvolutionDescriptor_t convDesc,
                                                  cudnnConvolutionFwdAlgo_t algo, void* workSpace,
                                                  size_t workSpaceSizeInBytes, const void* beta,
                                                  const cudnnTensorDescriptor_t yDesc, void* y) {
  return FD_API(cudnnConvolutionForward,
                (handle, alpha, xDesc, x, wDesc, w, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, yDesc, y),
                [&]() -> cudnnStatus_t {
                  FD_TRY(fd::check_handle(handle));
                  ConvProblem p;
                  FD_TRY(ConvProblem::make(ConvDir::fwd, xDesc, wDesc, convDesc, yDesc, &p));
                  FD_CHECK_PARAM(x != nullptr && w != nullptr && y != nullptr, "x, w or y is NULL");
                  FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
                  fd::conv::ConvArgs a;
                  a.in = x;
                  a.in2 = w;
                  a.out = y;
                  a.workspace = workSpace;
                  a.workspace_size = workSpaceSizeInBytes;
                  a.alpha = fd::read_scale(alpha, p.ydt);
                  a.beta = fd::read_scale(beta, p.ydt);
                  return fd::conv_api::run(handle, p, algo, a, "");
                });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle, const void* alpha1, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo, void* workSpace, size_t workSpaceSizeInBytes, const void* alpha2,
    const cudnnTensorDescriptor_t zDesc, const void* z, const cudnnTensorDescriptor_t biasDesc, const void* bias,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t yDesc, void* y) {
  return FD_API(cudnnConvolutionBiasActivationForward,
                (handle, alpha1, xDesc, x, wDesc, w, convDesc, algo, workSpace, workSpaceSizeInBytes, alpha2, zDesc,
                 z, biasDesc, bias, activationDesc, yDesc, y),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    ConvProblem p;
    FD_TRY(ConvProblem::make(ConvDir::fwd, xDesc, wDesc, convDesc, yDesc, &p));
    FD_TRY(fd::check_tensor(zDesc, "zDesc"));
    FD_TRY(fd::check_tensor(biasDesc, "biasDesc"));
    FD_CHECK_PARAM(x != nullptr && w != nullptr && y != nullptr && bias != nullptr, "x, w, y or bias is NULL");
    FD_CHECK_PARAM(alpha1 != nullptr && alpha2 != nullptr, "alpha1 or alpha2 is NULL");
    FD_CHECK_PARAM(activationDesc != nullptr, "activationDesc is NULL");
    FD_CHECK_PARAM(zDesc->same_shape(*yDesc), "zDesc %s and yDesc %s differ in shape", zDesc->spec().c_str(),
                   yDesc->spec().c_str());
    FD_CHECK_PARAM(zDesc->dtype == yDesc->dtype, "z (%s) and y (%s) differ in data type",
                   fd::dtype_short_name(zDesc->dtype), fd::dtype_short_name(yDesc->dtype));
    bool bias_shape = biasDesc->nb_dims == yDesc->nb_dims && biasDesc->dims[1] == p.oc;
    for (int i = 0; i < biasDesc->nb_dims; ++i) bias_shape = bias_shape && (i == 1 || biasDesc->dims[i] == 1);
    FD_CHECK_PARAM(bias_shape, "biasDesc %s must be 1x%lldx1x..., one value per output channel",
                   biasDesc->spec().c_str(), static_cast<long long>(p.oc));
    const cudnnDataType_t bias_type = is_int8_scalar(p.xdt) ? CUDNN_DATA_FLOAT : p.ydt;
    FD_CHECK_PARAM(biasDesc->dtype == bias_type, "bias is %s, this configuration needs %s",
                   fd::dtype_short_name(biasDesc->dtype), fd::dtype_short_name(bias_type));
    const double a2 = fd::read_scale(alpha2, p.ydt);
    FD_CHECK_PARAM(a2 == 0.0 || z != nullptr, "z is NULL while alpha2=%g", a2);
    fd::conv::FusedEpilogue e;
    const cudnnStatus_t got = cudnnGetActivationDescriptor(activationDesc, &e.act, &e.nan_opt, &e.coef);
    FD_CHECK(got == CUDNN_STATUS_SUCCESS, got, "cannot read activationDesc (cudnnGetActivationDescriptor: %s)",
             cudnnGetErrorString(got));
    FD_CHECK_SUPPORTED(e.act == CUDNN_ACTIVATION_RELU || e.act == CUDNN_ACTIVATION_IDENTITY,
                       "activation mode %s: only RELU and IDENTITY are supported by the fused forward",
                       fd::enum_name(e.act) ? fd::enum_name(e.act) : "<invalid>");
    FD_CHECK_SUPPORTED(e.act != CUDNN_ACTIVATION_IDENTITY || algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                       "IDENTITY activation needs CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, not %s",
                       fd::conv::algo_name(ConvDir::fwd, algo));
    e.z = zDesc;
    e.z_data = z;
    e.bias = biasDesc;
    e.bias_data = bias;
    e.alpha2 = a2;
    fd::conv::ConvArgs a;
    a.in = x;
    a.in2 = w;
    a.out = y;
    a.workspace = workSpace;
    a.workspace_size = workSpaceSizeInBytes;
    a.alpha = fd::read_scale(alpha1, p.ydt);
    a.fused = &e;
    std::string extra = std::string(" post=bias+") + (e.act == CUDNN_ACTIVATION_RELU ? "relu" : "identity") +
                        " alpha2=" + fd::log::format_double(a2);
    return fd::conv_api::run(handle, p, algo, a, extra);
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnIm2Col(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
                                      const cudnnFilterDescriptor_t wDesc, const cudnnConvolutionDescriptor_t convDesc,
                                      void* colBuffer) {
  return FD_API(cudnnIm2Col, (handle, xDesc, x, wDesc, convDesc, colBuffer), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_filter(wDesc, "wDesc"));
    FD_TRY(fd::check_convolution(convDesc, "convDesc"));
    FD_CHECK_PARAM(x != nullptr && colBuffer != nullptr, "x or colBuffer is NULL");
    FD_CHECK_PARAM(xDesc->nb_dims == convDesc->array_length + 2, "xDesc has %d dims, the convolution %d spatial dims",
                   xDesc->nb_dims, convDesc->array_length);
    // The output shape of the forward convolution, as a y descriptor; the compute type only has to fit x.
    int ydims[CUDNN_DIM_MAX];
    FD_TRY(cudnnGetConvolutionNdForwardOutputDim(convDesc, xDesc, wDesc, xDesc->nb_dims, ydims));
    cudnnTensorStruct yd;
    const cudnnDataType_t ydt = fd::dtype_vector_width(xDesc->dtype) > 1 ? CUDNN_DATA_FLOAT : xDesc->dtype;
    FD_TRY(fd::set_tensor_format(yd, CUDNN_TENSOR_NCHW, ydt == CUDNN_DATA_UINT8 ? CUDNN_DATA_INT8 : ydt,
                                 xDesc->nb_dims, ydims));
    cudnnConvolutionStruct c = *convDesc;
    c.compute_type = is_int8_scalar(xDesc->dtype) ? CUDNN_DATA_INT32
                     : xDesc->dtype == CUDNN_DATA_BFLOAT16 ? CUDNN_DATA_FLOAT
                                                           : xDesc->dtype;
    ConvProblem p;
    FD_TRY(ConvProblem::make(ConvDir::fwd, xDesc, wDesc, &c, &yd, &p));
    if (fd::log::command_logging_enabled()) fd::log::emit_command(p.to_string() + " op=im2col");
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu()) return fd::cuda::conv::im2col_buffer(handle, p, x, colBuffer);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnIm2Col"));
    fd::cpu::conv::im2col_buffer(p, x, colBuffer);
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnReorderFilterAndBias(cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc,
                                                    cudnnReorderType_t reorderType, const void* filterData,
                                                    void* reorderedFilterData, int reorderBias, const void* biasData,
                                                    void* reorderedBiasData) {
  return FD_API(cudnnReorderFilterAndBias,
                (handle, filterDesc, reorderType, filterData, reorderedFilterData, reorderBias, biasData,
                 reorderedBiasData),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_filter(filterDesc, "filterDesc"));
    FD_CHECK_PARAM(reorderType == CUDNN_DEFAULT_REORDER || reorderType == CUDNN_NO_REORDER,
                   "reorderType=%d is not a reorder type", static_cast<int>(reorderType));
    FD_CHECK_PARAM(filterData != nullptr && reorderedFilterData != nullptr,
                   "filterData or reorderedFilterData is NULL");
    FD_CHECK_PARAM(!reorderBias || (biasData != nullptr && reorderedBiasData != nullptr),
                   "reorderBias is set but biasData or reorderedBiasData is NULL");
    FD_CHECK_SUPPORTED(filterDesc->dtype == CUDNN_DATA_INT8x32,
                       "filter reordering applies to INT8x32 filters only, not %s",
                       fd::dtype_short_name(filterDesc->dtype));
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu()) {  // the CUDA kernels also read the plain NCHW_VECT_C order: a copy, as on the CPU
      if (filterData != reorderedFilterData)
        FD_TRY(fd::cuda::conv::copy_bytes(handle, reorderedFilterData, filterData, filterDesc->size_in_bytes()));
      if (reorderBias && biasData != reorderedBiasData)
        FD_TRY(fd::cuda::conv::copy_bytes(handle, reorderedBiasData, biasData,
                                          static_cast<size_t>(filterDesc->dims[0]) * sizeof(float)));
      return CUDNN_STATUS_SUCCESS;
    }
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnReorderFilterAndBias"));
    // The CPU kernels read INT8x32 filters in the plain NCHW_VECT_C order, so on the CPU backend the order the
    // fused int8 kernels want is that plain order: reordering is a copy.
    if (filterData != reorderedFilterData)
      std::memmove(reorderedFilterData, filterData, filterDesc->size_in_bytes());
    if (reorderBias && biasData != reorderedBiasData)
      std::memmove(reorderedBiasData, biasData, static_cast<size_t>(filterDesc->dims[0]) * sizeof(float));
    return CUDNN_STATUS_SUCCESS;
  });
}

}  // extern "C"
