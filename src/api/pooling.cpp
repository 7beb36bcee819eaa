// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Pooling: descriptor, output dims, forward and backward (CPU backend).
#include <cstdint>
#include <new>

#include "core/api_context.h"
#include "core/dtype.h"
#include "core/handle.h"
#include "core/pooling_desc.h"
#include "core/status.h"
#include "core/tensor_desc.h"
#include "cpu/pooling/pooling.h"
#include "problem/pooling.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/pooling/pooling.h"
#endif

namespace {

cudnnStatus_t check_pool_obj(const cudnnPoolingStruct* p) {
  FD_CHECK_PARAM(p != nullptr, "poolingDesc is NULL");
  FD_CHECK_PARAM(p->alive(), "poolingDesc is not a live cudnnPoolingDescriptor_t");
  return CUDNN_STATUS_SUCCESS;
}

// Output extent of one spatial dim by the documented formula; < 1 when the window does not fit.
int64_t out_dim(int64_t in, int window, int pad, int stride) {
  const int64_t span = in + 2 * static_cast<int64_t>(pad) - window;
  if (span < 0) return 0;
  return 1 + span / stride;
}

cudnnStatus_t output_dims(const cudnnPoolingStruct& p, const cudnnTensorStruct& x, int64_t* out) {
  FD_CHECK_PARAM(x.nb_dims == p.nb_dims + 2, "input has %d dims, pooling descriptor has %d spatial dims (needs %d)",
                 x.nb_dims, p.nb_dims, p.nb_dims + 2);
  out[0] = x.dims[0];
  out[1] = x.dims[1];
  for (int d = 0; d < p.nb_dims; ++d) {
    out[2 + d] = out_dim(x.dims[2 + d], p.window[d], p.padding[d], p.stride[d]);
    FD_CHECK_PARAM(out[2 + d] >= 1, "spatial dim %d: window %d does not fit input %lld with padding %d", d,
                   p.window[d], static_cast<long long>(x.dims[2 + d]), p.padding[d]);
    FD_CHECK_SUPPORTED(out[2 + d] <= INT32_MAX, "spatial dim %d: the output extent %lld exceeds 2^31 - 1", d,
                       static_cast<long long>(out[2 + d]));
  }
  return CUDNN_STATUS_SUCCESS;
}

// x and y of a pooling call: dimensionality, N and C, and y's spatial extents. y may be smaller than the
// formula gives, or larger by the "ceil mode" windows that start inside the padded input.
cudnnStatus_t check_pool_shapes(const cudnnPoolingStruct& p, const cudnnTensorStruct& x, const cudnnTensorStruct& y,
                                const char* yname) {
  FD_CHECK_PARAM(x.nb_dims == y.nb_dims, "x has %d dims, %s has %d", x.nb_dims, yname, y.nb_dims);
  FD_CHECK_PARAM(x.nb_dims == p.nb_dims + 2, "tensors have %d dims, pooling descriptor has %d spatial dims",
                 x.nb_dims, p.nb_dims);
  FD_CHECK_SUPPORTED(x.nb_dims == 4 || x.nb_dims == 5, "pooling runs on 4-D and 5-D tensors, not %d-D", x.nb_dims);
  FD_CHECK_PARAM(x.dims[0] == y.dims[0] && x.dims[1] == y.dims[1], "N,C of x %s and %s %s differ",
                 x.spec().c_str(), yname, y.spec().c_str());
  for (int d = 0; d < p.nb_dims; ++d) {
    const int64_t span = x.dims[2 + d] + 2 * static_cast<int64_t>(p.padding[d]) - p.window[d];
    FD_CHECK_PARAM(span >= 0, "spatial dim %d: window %d does not fit input %lld with padding %d", d, p.window[d],
                   static_cast<long long>(x.dims[2 + d]), p.padding[d]);
    const int64_t ceil_max = 1 + (span + p.stride[d] - 1) / p.stride[d];
    FD_CHECK_PARAM(y.dims[2 + d] <= ceil_max, "spatial dim %d: %s extent %lld exceeds %lld windows of input %lld", d,
                   yname, static_cast<long long>(y.dims[2 + d]), static_cast<long long>(ceil_max),
                   static_cast<long long>(x.dims[2 + d]));
  }
  return CUDNN_STATUS_SUCCESS;
}

bool float_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t* poolingDesc) {
  return FD_API(cudnnCreatePoolingDescriptor, (poolingDesc), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(poolingDesc != nullptr, "poolingDesc output pointer is NULL");
    *poolingDesc = new (std::nothrow) cudnnPoolingStruct;
    FD_CHECK(*poolingDesc != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate a cudnnPoolingDescriptor_t");
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t poolingDesc) {
  return FD_API(cudnnDestroyPoolingDescriptor, (poolingDesc), [&]() -> cudnnStatus_t {
    if (poolingDesc == nullptr) return CUDNN_STATUS_SUCCESS;
    FD_CHECK_PARAM(poolingDesc->alive(), "poolingDesc is not live (destroyed twice, or not a pooling descriptor)");
    delete poolingDesc;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetPooling2dDescriptor(cudnnPoolingDescriptor_t poolingDesc, cudnnPoolingMode_t mode,
                                                      cudnnNanPropagation_t maxpoolingNanOpt, int windowHeight,
                                                      int windowWidth, int verticalPadding, int horizontalPadding,
                                                      int verticalStride, int horizontalStride) {
  return FD_API(cudnnSetPooling2dDescriptor,
                (poolingDesc, mode, maxpoolingNanOpt, windowHeight, windowWidth, verticalPadding, horizontalPadding,
                 verticalStride, horizontalStride),
                [&]() -> cudnnStatus_t {
                  FD_TRY(check_pool_obj(poolingDesc));
                  const int win[2] = {windowHeight, windowWidth};
                  const int pad[2] = {verticalPadding, horizontalPadding};
                  const int str[2] = {verticalStride, horizontalStride};
                  return fd::set_pooling(*poolingDesc, mode, maxpoolingNanOpt, 2, win, pad, str);
                });
}

cudnnStatus_t CUDNNWINAPI cudnnGetPooling2dDescriptor(const cudnnPoolingDescriptor_t poolingDesc,
                                                      cudnnPoolingMode_t* mode, cudnnNanPropagation_t* maxpoolingNanOpt,
                                                      int* windowHeight, int* windowWidth, int* verticalPadding,
                                                      int* horizontalPadding, int* verticalStride,
                                                      int* horizontalStride) {
  return FD_API(cudnnGetPooling2dDescriptor, (poolingDesc), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_pooling(poolingDesc, "poolingDesc"));
    FD_CHECK_PARAM(poolingDesc->nb_dims == 2, "poolingDesc has %d spatial dims, not 2", poolingDesc->nb_dims);
    FD_CHECK_PARAM(mode && maxpoolingNanOpt && windowHeight && windowWidth && verticalPadding && horizontalPadding &&
                       verticalStride && horizontalStride,
                   "an output pointer is NULL");
    const auto& p = *poolingDesc;
    *mode = p.mode;
    *maxpoolingNanOpt = p.nan_opt;
    *windowHeight = p.window[0];
    *windowWidth = p.window[1];
    *verticalPadding = p.padding[0];
    *horizontalPadding = p.padding[1];
    *verticalStride = p.stride[0];
    *horizontalStride = p.stride[1];
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetPoolingNdDescriptor(cudnnPoolingDescriptor_t poolingDesc,
                                                      const cudnnPoolingMode_t mode,
                                                      const cudnnNanPropagation_t maxpoolingNanOpt, int nbDims,
                                                      const int windowDimA[], const int paddingA[],
                                                      const int strideA[]) {
  return FD_API(cudnnSetPoolingNdDescriptor, (poolingDesc, mode, maxpoolingNanOpt, nbDims, windowDimA, paddingA, strideA),
                [&]() -> cudnnStatus_t {
                  FD_TRY(check_pool_obj(poolingDesc));
                  return fd::set_pooling(*poolingDesc, mode, maxpoolingNanOpt, nbDims, windowDimA, paddingA, strideA);
                });
}

cudnnStatus_t CUDNNWINAPI cudnnGetPoolingNdDescriptor(const cudnnPoolingDescriptor_t poolingDesc, int nbDimsRequested,
                                                      cudnnPoolingMode_t* mode, cudnnNanPropagation_t* maxpoolingNanOpt,
                                                      int* nbDims, int windowDimA[], int paddingA[], int strideA[]) {
  return FD_API(cudnnGetPoolingNdDescriptor, (poolingDesc, nbDimsRequested), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_pooling(poolingDesc, "poolingDesc"));
    FD_CHECK_PARAM(nbDimsRequested >= 0, "nbDimsRequested=%d is negative", nbDimsRequested);
    FD_CHECK_SUPPORTED(nbDimsRequested <= CUDNN_DIM_MAX, "nbDimsRequested=%d exceeds CUDNN_DIM_MAX",
                       nbDimsRequested);
    FD_CHECK_PARAM(mode && maxpoolingNanOpt && nbDims, "mode, maxpoolingNanOpt or nbDims is NULL");
    FD_CHECK_PARAM(nbDimsRequested == 0 || (windowDimA && paddingA && strideA),
                   "windowDimA, paddingA or strideA is NULL");
    const auto& p = *poolingDesc;
    *mode = p.mode;
    *maxpoolingNanOpt = p.nan_opt;
    *nbDims = p.nb_dims;
    for (int i = 0; i < nbDimsRequested && i < p.nb_dims; ++i) {
      windowDimA[i] = p.window[i];
      paddingA[i] = p.padding[i];
      strideA[i] = p.stride[i];
    }
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetPoolingNdForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                                            const cudnnTensorDescriptor_t inputTensorDesc, int nbDims,
                                                            int outputTensorDimA[]) {
  return FD_API(cudnnGetPoolingNdForwardOutputDim, (poolingDesc, inputTensorDesc, nbDims, outputTensorDimA),
                [&]() -> cudnnStatus_t {
                  FD_TRY(fd::check_pooling(poolingDesc, "poolingDesc"));
                  FD_TRY(fd::check_tensor(inputTensorDesc, "inputTensorDesc"));
                  FD_CHECK_PARAM(outputTensorDimA != nullptr, "outputTensorDimA is NULL");
                  FD_CHECK_PARAM(nbDims == inputTensorDesc->nb_dims, "nbDims=%d, input tensor has %d dims", nbDims,
                                 inputTensorDesc->nb_dims);
                  int64_t out[CUDNN_DIM_MAX];
                  FD_TRY(output_dims(*poolingDesc, *inputTensorDesc, out));
                  for (int i = 0; i < nbDims; ++i) outputTensorDimA[i] = static_cast<int>(out[i]);
                  return CUDNN_STATUS_SUCCESS;
                });
}

cudnnStatus_t CUDNNWINAPI cudnnGetPooling2dForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                                            const cudnnTensorDescriptor_t inputTensorDesc, int* n,
                                                            int* c, int* h, int* w) {
  return FD_API(cudnnGetPooling2dForwardOutputDim, (poolingDesc, inputTensorDesc), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_pooling(poolingDesc, "poolingDesc"));
    FD_TRY(fd::check_tensor(inputTensorDesc, "inputTensorDesc"));
    FD_CHECK_PARAM(n && c && h && w, "an output pointer is NULL");
    FD_CHECK_PARAM(poolingDesc->nb_dims == 2, "poolingDesc has %d spatial dims, not 2", poolingDesc->nb_dims);
    int64_t out[CUDNN_DIM_MAX];
    FD_TRY(output_dims(*poolingDesc, *inputTensorDesc, out));
    *n = static_cast<int>(out[0]);
    *c = static_cast<int>(out[1]);
    *h = static_cast<int>(out[2]);
    *w = static_cast<int>(out[3]);
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnPoolingForward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc,
                                              const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
                                              const void* beta, const cudnnTensorDescriptor_t yDesc, void* y) {
  return FD_API(cudnnPoolingForward, (handle, poolingDesc, alpha, xDesc, x, beta, yDesc, y), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_pooling(poolingDesc, "poolingDesc"));
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_tensor(yDesc, "yDesc"));
    FD_CHECK_PARAM(alpha && beta, "alpha or beta is NULL");
    FD_CHECK_PARAM(x && y, "x or y is NULL");
    FD_CHECK_PARAM(xDesc->dtype == yDesc->dtype, "x %s and y %s differ in data type", xDesc->spec().c_str(),
                   yDesc->spec().c_str());
    const cudnnDataType_t t = xDesc->dtype;
    FD_CHECK_SUPPORTED(float_type(t) || t == CUDNN_DATA_INT8 || t == CUDNN_DATA_INT8x4 || t == CUDNN_DATA_INT8x32,
                       "pooling forward does not support data type %s", fd::dtype_short_name(t));
    FD_TRY(check_pool_shapes(*poolingDesc, *xDesc, *yDesc, "y"));
    fd::problem::Pooling pb;
    pb.pool = poolingDesc;
    pb.alpha = fd::read_scale(alpha, t);
    pb.beta = fd::read_scale(beta, t);
    pb.x = xDesc;
    pb.y = yDesc;
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu()) {
      if (fd::log::command_logging_enabled()) fd::log::emit_command(pb.to_string());
      return fd::cuda::pooling_forward(handle->stream, handle->device, *poolingDesc, pb.alpha, *xDesc, x, pb.beta,
                                       *yDesc, y);
    }
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnPoolingForward"));
    if (fd::log::command_logging_enabled()) fd::log::emit_command(pb.to_string());
    const auto g = fd::cpu::PoolGeometry::from(*poolingDesc, *xDesc, *yDesc);
    fd::cpu::pooling_forward(g, pb.alpha, *xDesc, x, pb.beta, *yDesc, y);
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnPoolingBackward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc,
                                               const void* alpha, const cudnnTensorDescriptor_t yDesc, const void* y,
                                               const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                               const cudnnTensorDescriptor_t xDesc, const void* x, const void* beta,
                                               const cudnnTensorDescriptor_t dxDesc, void* dx) {
  return FD_API(cudnnPoolingBackward, (handle, poolingDesc, alpha, yDesc, y, dyDesc, dy, xDesc, x, beta, dxDesc, dx),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_pooling(poolingDesc, "poolingDesc"));
    FD_TRY(fd::check_tensor(yDesc, "yDesc"));
    FD_TRY(fd::check_tensor(dyDesc, "dyDesc"));
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_tensor(dxDesc, "dxDesc"));
    FD_CHECK_PARAM(alpha && beta, "alpha or beta is NULL");
    FD_CHECK_PARAM(y && dy && x && dx, "y, dy, x or dx is NULL");
    const cudnnDataType_t t = xDesc->dtype;
    FD_CHECK_PARAM(yDesc->dtype == t && dyDesc->dtype == t && dxDesc->dtype == t,
                   "data types differ: y %s dy %s x %s dx %s", yDesc->spec().c_str(), dyDesc->spec().c_str(),
                   xDesc->spec().c_str(), dxDesc->spec().c_str());
    FD_CHECK_SUPPORTED(float_type(t), "pooling backward does not support data type %s", fd::dtype_short_name(t));
    FD_CHECK_PARAM(yDesc->same_shape(*dyDesc), "y %s and dy %s differ in shape", yDesc->spec().c_str(),
                   dyDesc->spec().c_str());
    FD_CHECK_PARAM(xDesc->same_shape(*dxDesc), "x %s and dx %s differ in shape", xDesc->spec().c_str(),
                   dxDesc->spec().c_str());
    FD_TRY(check_pool_shapes(*poolingDesc, *xDesc, *yDesc, "y"));
    fd::problem::Pooling pb;
    pb.backward = true;
    pb.pool = poolingDesc;
    pb.alpha = fd::read_scale(alpha, t);
    pb.beta = fd::read_scale(beta, t);
    pb.x = xDesc;
    pb.dy = dyDesc;
    pb.dx = dxDesc;
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu()) {
      if (fd::log::command_logging_enabled()) fd::log::emit_command(pb.to_string());
      return fd::cuda::pooling_backward(handle, *poolingDesc, pb.alpha, *dyDesc, dy, *xDesc,
                                        x, pb.beta, *dxDesc, dx);
    }
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnPoolingBackward"));
    if (fd::log::command_logging_enabled()) fd::log::emit_command(pb.to_string());
    const auto g = fd::cpu::PoolGeometry::from(*poolingDesc, *xDesc, *yDesc);
    fd::cpu::pooling_backward(g, pb.alpha, *dyDesc, dy, *xDesc, x, pb.beta, *dxDesc, dx);
    return CUDNN_STATUS_SUCCESS;
  });
}

}  // extern "C"
