// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The transposing copy the float sm90 paths run their forward kernels over (wgrad_tf32.h, dgrad_tf32.h):
// dst[a][u][v][n] (packed, a padded to Ap and n to Np with zeros) = src(n, a, u, v) for any element strides of the
// source's four dims, negative ones included (a flipped filter). It gives the TF32 forward kernels K-major operands:
// x or dy transposed for the wgrad, dy to NHWC and the phase sub-filters of the dgrad (and of the 16-bit one).
#pragma once
#include <cuda_runtime_api.h>

#include <cudnn.h>

#include <cstdint>

#include "core/tensor_desc.h"

namespace fd::cuda::conv::sm90 {

// One copy. strides: the source's element strides of (n, a, u, v) (a flipped filter's taps step backwards). The
// 16-bit form moves half or bfloat16 elements as bits (the 16-bit dgrad's phase sub-filters, dgrad_phases16.h).
template <class E>
struct ChwnCopy {
  const E* src = nullptr;
  int64_t strides[4] = {};
  int64_t N = 0, A = 0, Ap = 0, U = 0, V = 0, Np = 0;
  E* dst = nullptr;
};

// The copy of a 4-D tensor t (N, C, H, W dims and strides) from src to channels-last dst[n][h][w][Np channels],
// with Ap rows of n (zeros past N): x for the float forward, dy for the float dgrad.
inline ChwnCopy<float> to_channels_last(const cudnnTensorStruct& t, const void* src, int64_t Ap, int64_t Np,
                                        void* dst) {
  ChwnCopy<float> c;
  c.src = static_cast<const float*>(src);
  c.strides[0] = t.strides[1], c.strides[1] = t.strides[0], c.strides[2] = t.strides[2], c.strides[3] = t.strides[3];
  c.N = t.dims[1], c.A = t.dims[0], c.Ap = Ap, c.U = t.dims[2], c.V = t.dims[3], c.Np = Np;
  c.dst = static_cast<float*>(dst);
  return c;
}

// copies[0 .. count), queued on st (no workspace) in as few launches as kMaxChwnCopies allow, their blocks laid
// end to end in one grid. Why: the stride phases' sub-filters are tiny copies that each cost a launch, about 3.6 us
// apiece on the H200 (ncu, run 21: 14.6 us of the 16-bit 3x3 stride-2 56 -> 28 dgrad's 61 us went to its four).
constexpr int kMaxChwnCopies = 8;
cudnnStatus_t to_chwn(cudaStream_t st, const ChwnCopy<float>* copies, int count);
cudnnStatus_t to_chwn(cudaStream_t st, const ChwnCopy<uint16_t>* copies, int count);

}  // namespace fd::cuda::conv::sm90
