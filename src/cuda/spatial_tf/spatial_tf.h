// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// CUDA spatial transformer (2-D, bilinear): the conventions of src/cpu/spatial_tf/spatial_tf.h. Arguments are
// validated by the API layer; device pointers; asynchronous on the handle's stream.
// Determinism: the grid generator (both directions), the sampler forward and dgrid are deterministic; dx of the
// sampler backward is scattered with atomic adds into handle scratch memory (float, double for DOUBLE), so its
// summation order varies from run to run, as cuDNN documents for cudnnSpatialTfSamplerBackward.
#pragma once
#include "core/handle.h"
#include "core/spatial_tf_desc.h"
#include "core/tensor_desc.h"

namespace fd::cuda {

cudnnStatus_t st_grid_forward(cudnnContext* h, const cudnnSpatialTransformerStruct& st, const void* theta,
                              void* grid);
cudnnStatus_t st_grid_backward(cudnnContext* h, const cudnnSpatialTransformerStruct& st, const void* dgrid,
                               void* dtheta);
cudnnStatus_t st_sampler_forward(cudnnContext* h, const cudnnSpatialTransformerStruct& st, double alpha,
                                 const cudnnTensorStruct& xd, const void* x, const void* grid, double beta,
                                 const cudnnTensorStruct& yd, void* y);
cudnnStatus_t st_sampler_backward(cudnnContext* h, const cudnnSpatialTransformerStruct& st, double alpha,
                                  const cudnnTensorStruct& xd, const void* x, double beta,
                                  const cudnnTensorStruct& dxd, void* dx, double alpha_dgrid,
                                  const cudnnTensorStruct& dyd, const void* dy, const void* grid, double beta_dgrid,
                                  void* dgrid);

}  // namespace fd::cuda
