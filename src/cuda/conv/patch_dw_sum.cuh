// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The partial dw of the patch backward-filter kernels (cuda:patch_wgrad, cuda:patch_fma_wgrad): block b of the
// `blocks` per 64-channel K tile kt leaves a [64][ld] float block at partial + (kt * blocks + b) * 64 * ld (column
// = (r * S + s) * C + c); dw_sum adds the blocks in block order (deterministic) and writes dw with alpha / beta,
// the taps flipped for CUDNN_CONVOLUTION.
#pragma once
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <cstdint>

#include "cuda/common/cuda_util.h"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/patch_input.cuh"

namespace fd::cuda::conv {

constexpr int kDwTileK = 64;  // dy channels per block (blockIdx.y)

struct DwPartials {
  InputPatch in;
  int64_t K = 0;
  int kg = 0, ld = 0;  // dw columns (C * R * S) and the partial blocks' row length
  View5 wv;
  bool flip = false;
};

// Blocks per K tile (each leaves one partial): two per SM, no more than there are tiles.
inline int64_t dw_partial_blocks(int64_t tiles, int sm_count) {
  return std::max<int64_t>(1, std::min<int64_t>(tiles, int64_t{2} * std::max(sm_count, 1)));
}
// Bytes of one block index's partials over every K tile.
inline size_t dw_partial_bytes_per_block(int64_t K, int ld) {
  return size_t((K + kDwTileK - 1) / kDwTileK) * kDwTileK * size_t(ld) * sizeof(float);
}

template <class S>
__global__ void __launch_bounds__(kBlock) dw_sum_kernel(DwPartials g, const float* __restrict__ partial, int blocks,
                                                        S* __restrict__ dw, float alpha, float beta) {
  const int64_t total = g.K * g.kg;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t k = i / g.kg;
    const int col = int(i - k * g.kg);
    const int64_t kt = k / kDwTileK, ch = k - kt * kDwTileK;
    const float* src = partial + (size_t(kt) * blocks * kDwTileK + ch) * g.ld + col;
    const size_t step = size_t(kDwTileK) * g.ld;
    float sum = 0.f;
#pragma unroll 8
    for (int b = 0; b < blocks; ++b) sum += src[b * step];
    const InputPatch& in = g.in;
    const int rs = col / int(in.C), c = col - rs * int(in.C), r = rs / in.S, s = rs - r * in.S;
    const int64_t off = g.wv.at(k, c, 0, g.flip ? in.R - 1 - r : r, g.flip ? in.S - 1 - s : s);
    float v = alpha * sum;
    if (beta != 0.f) v += beta * widen(dw[off]);
    store(dw, off, v);
  }
}

template <class S>
cudnnStatus_t dw_sum(cudaStream_t st, int device, const DwPartials& g, const float* partial, int blocks, void* dw,
                     double alpha, double beta) {
  dw_sum_kernel<S><<<grid_size(g.K * g.kg, kBlock, device, 1), kBlock, 0, st>>>(
      g, partial, blocks, static_cast<S*>(dw), static_cast<float>(alpha), static_cast<float>(beta));
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv
