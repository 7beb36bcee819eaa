// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include "core/spatial_tf_desc.h"
#include "core/tensor_desc.h"

// CPU spatial transformer (2-D, bilinear).
// Conventions (cuDNN documents the (N, H, W, 2) grid of normalized coordinates in [-1, 1]; the rest is ours):
//  * Grid generator: output pixel (h, w) has normalized coordinates xt = -1 + 2 w / (W - 1),
//    yt = -1 + 2 h / (H - 1) (0 when the extent is 1); grid[n, h, w, 0] = theta[n, 0, :] . (xt, yt, 1) is the
//    x (width) coordinate, grid[n, h, w, 1] = theta[n, 1, :] . (xt, yt, 1) the y (height) coordinate.
//    theta is packed (N, 2, 3), grid packed (N, H, W, 2), both of the descriptor's data type.
//  * Sampler: -1 and +1 are the centers of the first and last input pixels: px = (gx + 1) (W_in - 1) / 2,
//    py = (gy + 1) (H_in - 1) / 2; bilinear interpolation of the 4 neighbours, neighbours outside the input
//    count as 0. dgrid uses the right-sided derivative at integer pixel positions (the floor convention).
namespace fd::cpu {

// A packed tensor description of the grid (N, H, W, 2) or of theta (N, 2, 3, 1), for the tensor I/O helpers.
cudnnTensorStruct grid_tensor(const cudnnSpatialTransformerStruct& st);
cudnnTensorStruct theta_tensor(const cudnnSpatialTransformerStruct& st);

void st_grid_forward(const cudnnSpatialTransformerStruct& st, const void* theta, void* grid);
void st_grid_backward(const cudnnSpatialTransformerStruct& st, const void* dgrid, void* dtheta);
void st_sampler_forward(const cudnnSpatialTransformerStruct& st, double alpha, const cudnnTensorStruct& xd,
                        const void* x, const void* grid, double beta, const cudnnTensorStruct& yd, void* y);
void st_sampler_backward(const cudnnSpatialTransformerStruct& st, double alpha, const cudnnTensorStruct& xd,
                         const void* x, double beta, const cudnnTensorStruct& dxd, void* dx, double alpha_dgrid,
                         const cudnnTensorStruct& dyd, const void* dy, const void* grid, double beta_dgrid,
                         void* dgrid);

}  // namespace fd::cpu
