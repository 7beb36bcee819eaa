// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Spatial transformer: descriptor, grid generator and bilinear sampler, forward and backward (CPU and CUDA backends).
#include <cstdint>
#include <new>

#include "core/api_context.h"
#include "core/dtype.h"
#include "core/handle.h"
#include "core/spatial_tf_desc.h"
#include "core/status.h"
#include "core/tensor_desc.h"
#include "cpu/spatial_tf/spatial_tf.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/spatial_tf/spatial_tf.h"
#endif
#include "problem/spatial_tf.h"

namespace {

cudnnStatus_t check_st_obj(const cudnnSpatialTransformerStruct* d) {
  FD_CHECK_PARAM(d != nullptr, "stDesc is NULL");
  FD_CHECK_PARAM(d->alive(), "stDesc is not a live cudnnSpatialTransformerDescriptor_t");
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_st(const cudnnSpatialTransformerStruct* d) {
  FD_TRY(check_st_obj(d));
  FD_CHECK_PARAM(d->is_set, "stDesc has not been set");
  return CUDNN_STATUS_SUCCESS;
}

// x (N, C, H_in, W_in) and y/dy (the descriptor's N, C, H, W), all of the descriptor's data type.
cudnnStatus_t check_sampler_tensors(const cudnnSpatialTransformerStruct& st, const cudnnTensorStruct& x,
                                    const cudnnTensorStruct& y, const char* yname) {
  FD_CHECK_SUPPORTED(x.nb_dims == 4 && y.nb_dims == 4, "the sampler runs on 4-D tensors: x %s, %s %s",
                     x.spec().c_str(), yname, y.spec().c_str());
  FD_CHECK_PARAM(x.dtype == st.dtype && y.dtype == st.dtype, "x %s and %s %s must have stDesc's data type %s",
                 x.spec().c_str(), yname, y.spec().c_str(), fd::dtype_short_name(st.dtype));
  for (int i = 0; i < 4; ++i)
    FD_CHECK_PARAM(y.dims[i] == st.dims[i], "%s %s differs from stDesc dims at %d (%d)", yname, y.spec().c_str(), i,
                   st.dims[i]);
  FD_CHECK_PARAM(x.dims[0] == y.dims[0] && x.dims[1] == y.dims[1], "N,C of x %s and %s %s differ", x.spec().c_str(),
                 yname, y.spec().c_str());
  return CUDNN_STATUS_SUCCESS;
}

void log_command(const fd::problem::SpatialTf& pb) {
  if (fd::log::command_logging_enabled()) fd::log::emit_command(pb.to_string());
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateSpatialTransformerDescriptor(cudnnSpatialTransformerDescriptor_t* stDesc) {
  return FD_API(cudnnCreateSpatialTransformerDescriptor, (stDesc), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(stDesc != nullptr, "stDesc output pointer is NULL");
    *stDesc = new (std::nothrow) cudnnSpatialTransformerStruct;
    FD_CHECK(*stDesc != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate a cudnnSpatialTransformerDescriptor_t");
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroySpatialTransformerDescriptor(cudnnSpatialTransformerDescriptor_t stDesc) {
  return FD_API(cudnnDestroySpatialTransformerDescriptor, (stDesc), [&]() -> cudnnStatus_t {
    if (stDesc == nullptr) return CUDNN_STATUS_SUCCESS;
    FD_CHECK_PARAM(stDesc->alive(), "stDesc is not live (destroyed twice, or not a spatial transformer descriptor)");
    delete stDesc;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetSpatialTransformerNdDescriptor(cudnnSpatialTransformerDescriptor_t stDesc,
                                                                 cudnnSamplerType_t samplerType,
                                                                 cudnnDataType_t dataType, const int nbDims,
                                                                 const int dimA[]) {
  return FD_API(cudnnSetSpatialTransformerNdDescriptor, (stDesc, samplerType, dataType, nbDims, dimA),
                [&]() -> cudnnStatus_t {
                  FD_TRY(check_st_obj(stDesc));
                  FD_CHECK_PARAM(samplerType == CUDNN_SAMPLER_BILINEAR, "samplerType=%d is not a cudnnSamplerType_t",
                                 static_cast<int>(samplerType));
                  FD_CHECK_PARAM(fd::dtype_is_valid(dataType), "dataType=%d is not a cudnnDataType_t",
                                 static_cast<int>(dataType));
                  FD_CHECK_PARAM(dimA != nullptr, "dimA is NULL");
                  FD_CHECK_PARAM(nbDims > 0 && nbDims <= CUDNN_DIM_MAX, "nbDims=%d must be in [1, %d]", nbDims,
                                 CUDNN_DIM_MAX);
                  FD_CHECK_SUPPORTED(nbDims == 4, "only 4-D (N, C, H, W) spatial transformers, nbDims=%d", nbDims);
                  for (int i = 0; i < nbDims; ++i)
                    FD_CHECK_PARAM(dimA[i] > 0, "dimA[%d]=%d must be positive", i, dimA[i]);
                  FD_CHECK_SUPPORTED(fd::dtype_is_float(dataType), "data type %s is not supported",
                                     fd::dtype_short_name(dataType));
                  // The grid (N x H x W x 2) and theta (N x 2 x 3) are packed tensors of their own: each must be
                  // a tensor the library takes (fewer than 2^31 elements)
                  const int64_t n = dimA[0], plane = int64_t(dimA[2]) * dimA[3];  // each product < 2^62
                  FD_CHECK_SUPPORTED(plane <= INT32_MAX / 2 && n <= INT32_MAX / (plane * 2) && n * 6 <= INT32_MAX,
                                     "the grid of %d x %d x %d x 2 or theta of %d x 6 elements reaches 2^31",
                                     dimA[0], dimA[2], dimA[3], dimA[0]);
                  stDesc->sampler = samplerType;
                  stDesc->dtype = dataType;
                  stDesc->nb_dims = nbDims;
                  for (int i = 0; i < CUDNN_DIM_MAX; ++i) stDesc->dims[i] = i < nbDims ? dimA[i] : 0;
                  stDesc->is_set = true;
                  return CUDNN_STATUS_SUCCESS;
                });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSpatialTfGridGeneratorForward(cudnnHandle_t handle,
                                                             const cudnnSpatialTransformerDescriptor_t stDesc,
                                                             const void* theta, void* grid) {
  return FD_API(cudnnSpatialTfGridGeneratorForward, (handle, stDesc, theta, grid), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(check_st(stDesc));
    FD_CHECK_PARAM(theta && grid, "theta or grid is NULL");
    fd::problem::SpatialTf pb;
    pb.op = "grid_fwd";
    pb.st = stDesc;
    log_command(pb);
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu()) return fd::cuda::st_grid_forward(handle, *stDesc, theta, grid);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnSpatialTfGridGeneratorForward"));
    fd::cpu::st_grid_forward(*stDesc, theta, grid);
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSpatialTfGridGeneratorBackward(cudnnHandle_t handle,
                                                              const cudnnSpatialTransformerDescriptor_t stDesc,
                                                              const void* dgrid, void* dtheta) {
  return FD_API(cudnnSpatialTfGridGeneratorBackward, (handle, stDesc, dgrid, dtheta), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(check_st(stDesc));
    FD_CHECK_PARAM(dgrid && dtheta, "dgrid or dtheta is NULL");
    fd::problem::SpatialTf pb;
    pb.op = "grid_bwd";
    pb.st = stDesc;
    log_command(pb);
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu()) return fd::cuda::st_grid_backward(handle, *stDesc, dgrid, dtheta);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnSpatialTfGridGeneratorBackward"));
    fd::cpu::st_grid_backward(*stDesc, dgrid, dtheta);
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSpatialTfSamplerForward(cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc,
                                                       const void* alpha, const cudnnTensorDescriptor_t xDesc,
                                                       const void* x, const void* grid, const void* beta,
                                                       cudnnTensorDescriptor_t yDesc, void* y) {
  return FD_API(cudnnSpatialTfSamplerForward, (handle, stDesc, alpha, xDesc, x, grid, beta, yDesc, y),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(check_st(stDesc));
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_tensor(yDesc, "yDesc"));
    FD_CHECK_PARAM(alpha && beta, "alpha or beta is NULL");
    FD_CHECK_PARAM(x && grid && y, "x, grid or y is NULL");
    FD_TRY(check_sampler_tensors(*stDesc, *xDesc, *yDesc, "y"));
    fd::problem::SpatialTf pb;
    pb.op = "sampler_fwd";
    pb.st = stDesc;
    pb.alpha = fd::read_scale(alpha, stDesc->dtype);
    pb.beta = fd::read_scale(beta, stDesc->dtype);
    pb.x = xDesc;
    pb.y = yDesc;
    log_command(pb);
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu())
      return fd::cuda::st_sampler_forward(handle, *stDesc, pb.alpha, *xDesc, x, grid, pb.beta, *yDesc, y);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnSpatialTfSamplerForward"));
    fd::cpu::st_sampler_forward(*stDesc, pb.alpha, *xDesc, x, grid, pb.beta, *yDesc, y);
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSpatialTfSamplerBackward(cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc,
                                                        const void* alpha, const cudnnTensorDescriptor_t xDesc,
                                                        const void* x, const void* beta,
                                                        const cudnnTensorDescriptor_t dxDesc, void* dx,
                                                        const void* alphaDgrid, const cudnnTensorDescriptor_t dyDesc,
                                                        const void* dy, const void* grid, const void* betaDgrid,
                                                        void* dgrid) {
  return FD_API(cudnnSpatialTfSamplerBackward,
                (handle, stDesc, alpha, xDesc, x, beta, dxDesc, dx, alphaDgrid, dyDesc, dy, grid, betaDgrid, dgrid),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(check_st(stDesc));
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_tensor(dxDesc, "dxDesc"));
    FD_TRY(fd::check_tensor(dyDesc, "dyDesc"));
    FD_CHECK_PARAM(alpha && beta && alphaDgrid && betaDgrid, "alpha, beta, alphaDgrid or betaDgrid is NULL");
    FD_CHECK_PARAM(x && dx && dy && grid && dgrid, "x, dx, dy, grid or dgrid is NULL");
    FD_CHECK_PARAM(xDesc->same_shape(*dxDesc) && xDesc->dtype == dxDesc->dtype, "x %s and dx %s differ",
                   xDesc->spec().c_str(), dxDesc->spec().c_str());
    FD_TRY(check_sampler_tensors(*stDesc, *xDesc, *dyDesc, "dy"));
    const cudnnDataType_t t = stDesc->dtype;
    fd::problem::SpatialTf pb;
    pb.op = "sampler_bwd";
    pb.st = stDesc;
    pb.alpha = fd::read_scale(alpha, t);
    pb.beta = fd::read_scale(beta, t);
    pb.alpha_dgrid = fd::read_scale(alphaDgrid, t);
    pb.beta_dgrid = fd::read_scale(betaDgrid, t);
    pb.x = xDesc;
    pb.dx = dxDesc;
    pb.y = dyDesc;
    log_command(pb);
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu())
      return fd::cuda::st_sampler_backward(handle, *stDesc, pb.alpha, *xDesc, x, pb.beta, *dxDesc, dx, pb.alpha_dgrid,
                                           *dyDesc, dy, grid, pb.beta_dgrid, dgrid);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnSpatialTfSamplerBackward"));
    fd::cpu::st_sampler_backward(*stDesc, pb.alpha, *xDesc, x, pb.beta, *dxDesc, dx, pb.alpha_dgrid, *dyDesc, dy,
                                 grid, pb.beta_dgrid, dgrid);
    return CUDNN_STATUS_SUCCESS;
  });
}

}  // extern "C"
