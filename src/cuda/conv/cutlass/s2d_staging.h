// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Space-to-depth staging of a strided forward convolution with few input channels (the ResNet stem: 7x7, stride 2,
// C = 3). With stride s, filter tap r = s * a + b (b < s), so
//   y[n][k][p][q] = sum over a_h, a_w and j = (b_h * s + b_w) * C + c of w'[k][a_h][a_w][j] * z[n][p + a_h][q + a_w][j]
// where z[n][u][v][j] = x[n][c][s * u + b_h - pad_h][s * v + b_w - pad_w] (zero outside x) and
// w' is the (flipped, for CUDNN_CONVOLUTION) filter regrouped the same way (zero past R, S): a stride-1,
// unpadded, cross-correlation over ceil(R / s) x ceil(S / s) taps of s * s * C channels. The GEMM-K of the stem
// becomes 4 x 4 x 12 = 192 in three full 64-deep tiles, and every (pixel, tap) load reads s * s * C contiguous
// channels instead of C (sm80_common.cu picks it; docs/perf/conv-h200.md run 11 has the stem's numbers before).
// Folded: the a_w taps also move into the channels, z[n][u][q][a_w * s * s * C + j] = the z above at (u, q + a_w),
// a ceil(R / s) x 1 filter over ceil(S / s) * s * s * C channels (the stem: 4 x 1 taps of 48), for kernels that
// spend a whole K tile on every tap (CUTLASS's kOptimized ones): 4 K tiles instead of 16.
#pragma once
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>

#include "core/tensor_desc.h"
#include "problem/conv.h"

namespace fd::cuda::conv {

// Whether p has the shape space-to-depth serves: a 2-D forward with stride s >= 2 both ways, no dilation and
// s * s * C <= 16 (ResNet's stem: 12); the implementations decide whether to use it.
inline bool s2d_applies(const ConvProblem& p) {
  return p.dir == ConvDir::fwd && p.x->nb_dims == 4 && p.sh == p.sw && p.sh >= 2 && p.dh == 1 && p.dw == 1 &&
         p.ic * p.sh * p.sw <= 16;
}

// s2d_input's limit on z's channels (its per-channel table lives in shared memory).
constexpr int64_t kS2dMaxChannels = 256;

// The derived problem's sizes. z's channel t is channel t % Cg of folded tap t / Cg; channels of taps >= taps_w,
// and channels j >= s * s * C of a tap, are zero padding.
struct S2dShape {
  int s = 1;               // the stride (the same both ways)
  int64_t U = 0, V = 0;    // z's height and width: P + ceil(R / s) - 1, Q + ceil(S / s) - 1 (folded: Q)
  int64_t Rs = 0, Ss = 0;  // the derived filter: ceil(R / s) x ceil(S / s) (folded: ceil(R / s) x 1)
  int64_t Cz = 0;          // z's channels: taps_w * Cg rounded up to `channel_multiple`
  int64_t taps_w = 1;      // a_w taps folded into the channels (folded: ceil(S / s))
  int64_t Cg = 0;          // channels per folded tap (folded: s * s * C; otherwise Cz)
};

S2dShape s2d_shape(int64_t C, int64_t R, int64_t S, int64_t P, int64_t Q, int s, int64_t channel_multiple,
                   bool fold_w = false);

// z (packed N x U x V x Cz, 16-byte aligned) from x (N, C, H, W through its strides; any 4-D layout).
// sh.Cz <= kS2dMaxChannels.
cudnnStatus_t s2d_input(cudaStream_t st, int dev, cudnnDataType_t dt, const cudnnTensorStruct& x, const void* src,
                        const S2dShape& sh, int64_t pad_h, int64_t pad_w, void* z);

// w' (packed Kp x Rs x Ss x Cz; filters k >= K zero) from w (K, C, R, S through its strides); flip: the filter is
// reversed in both spatial dims first (CUDNN_CONVOLUTION).
cudnnStatus_t s2d_filter(cudaStream_t st, int dev, cudnnDataType_t dt, const cudnnTensorStruct& w, const void* src,
                         const S2dShape& sh, int64_t Kp, bool flip, void* wz);

}  // namespace fd::cuda::conv
