// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Spatial transformer reference (2-D, bilinear), from the definitions:
//   grid[n,h,w,:] = theta[n] (xt(w), yt(h), 1), xt(w) = -1 + 2w/(W-1) (0 if W == 1), same for yt;
//   y[n,c,h,w] = sum_{i,j} x[n,c,i,j] k(py - i) k(px - j), k(t) = max(0, 1 - |t|),
//   px = (gx + 1)(W_in - 1)/2, py = (gy + 1)(H_in - 1)/2 (pixels outside contribute nothing);
//   k'(t) is taken from the right: +1 on [-1, 0), -1 on [0, 1), 0 elsewhere.
#pragma once
#include <vector>

#include "ref/ref_tensor.h"

namespace ref {

Tensor st_grid_forward(const Tensor& theta, int h, int w);  // theta (N,2,3) -> grid (N,H,W,2)
Tensor st_grid_backward(const Tensor& dgrid);                // dgrid (N,H,W,2) -> dtheta (N,2,3)
Tensor st_sampler_forward(const Tensor& x, const Tensor& grid);  // -> y (N,C,H,W)
void st_sampler_backward(const Tensor& x, const Tensor& grid, const Tensor& dy, Tensor* dx, Tensor* dgrid);

}  // namespace ref
