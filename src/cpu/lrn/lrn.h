// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include "core/lrn_desc.h"
#include "core/tensor_desc.h"

namespace fd::cpu {

// Cross-channel LRN (dims[1] is the channel dim, any number of spatial dims):
//   s_c = k + alpha / n * sum_{j in window(c)} x_j^2,   y_c = x_c * s_c^-beta
// window(c) = [c - (n-1)/2, c + n-1-(n-1)/2], clipped at the channel borders.
void lrn_cross_channel_forward(const cudnnLRNStruct& p, double alpha, const cudnnTensorStruct& x_desc, const void* x,
                               double beta, const cudnnTensorStruct& y_desc, void* y);
// dx_m = dy_m s_m^-beta - 2 alpha beta / n * x_m * sum_{c : m in window(c)} dy_c x_c s_c^(-beta-1).
// s is recomputed from x; y is not read (cuDNN passes it; the value it holds is x * s^-beta anyway).
void lrn_cross_channel_backward(const cudnnLRNStruct& p, double alpha, const cudnnTensorStruct& dy_desc,
                                const void* dy, const cudnnTensorStruct& x_desc, const void* x, double beta,
                                const cudnnTensorStruct& dx_desc, void* dx);

// Divisive normalization (PRECOMPUTED_MEANS), D = nb_dims - 2 spatial dims, windows of n taps per spatial dim
// (the cross-channel window, applied to each spatial dim), channels independent:
//   d = x - means (means NULL: zero),  s = k + alpha / n^D * sum_{window} d^2,  y = d * s^-beta
// This follows the LRN formula cuDNN documents for the shared descriptor (alpha divided by the window volume);
// cuDNN documents only that the means are subtracted and the LRN parameters are used; the exact kernel
// above (same window shape as cross-channel LRN, same power law) is freednn's choice.
void divisive_normalization_forward(const cudnnLRNStruct& p, double alpha, const cudnnTensorStruct& x_desc,
                                    const void* x, const void* means, double beta, const cudnnTensorStruct& y_desc,
                                    void* y);
// dd = dy s^-beta - 2 alpha beta / n^D * d * adjoint_window_sum(dy d s^(-beta-1));  dx = dd, dMeans = -dd,
// each blended with alpha/beta. dy and means use x_desc; dx and dMeans use dx_desc. dMeans may be NULL.
void divisive_normalization_backward(const cudnnLRNStruct& p, double alpha, const cudnnTensorStruct& x_desc,
                                     const void* x, const void* means, const void* dy, double beta,
                                     const cudnnTensorStruct& dx_desc, void* dx, void* dmeans);

}  // namespace fd::cpu
