// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The partial dw of the patch backward-filter kernels (cuda:patch_wgrad, cuda:patch_fma_wgrad): block b of the
// `blocks` per 64-channel K tile kt leaves a [64][ld] float block at partial + (kt * blocks + b) * 64 * ld (column
// = (r * S + s) * C + c); dw_sum adds the blocks in a fixed order (deterministic) and writes dw with alpha / beta,
// the taps flipped for CUDNN_CONVOLUTION.
#pragma once
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <cstdint>

#include "cuda/common/cuda_util.h"
#include "cuda/common/pdl.cuh"
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

// One block per 32 consecutive dw elements (threadIdx.x); the 8 rows of threads (threadIdx.y) add every 8th block's
// partial from row y on, then row 0 adds the 8 row sums in row order: a fixed order (deterministic), and 8 loads in
// flight per element instead of one chain. Why: one thread per element left the sum latency-bound (ncu, run 16:
// 13 us for 131 blocks of 64 x 576 partials, 13 % occupancy).
constexpr int kSumRows = 8;

// Programmatic dependent launch (cuda/common/pdl.cuh): the producer of the partials lets the sum's grid start
// launching once each of its blocks has left its main loop; the sum waits for that grid before its first read.
template <class S>
__global__ void __launch_bounds__(32 * kSumRows) dw_sum_kernel(DwPartials g, const float* __restrict__ partial,
                                                               int blocks, S* __restrict__ dw, float alpha, float beta) {
  __shared__ float rows[kSumRows][32];
  pdl_wait();
  const int64_t total = g.K * g.kg;
  const int64_t i = int64_t(blockIdx.x) * 32 + threadIdx.x;
  float sum = 0.f;
  int64_t k = 0;
  int col = 0;
  if (i < total) {
    k = i / g.kg;
    col = int(i - k * g.kg);
    const int64_t kt = k / kDwTileK, ch = k - kt * kDwTileK;
    const float* src = partial + (size_t(kt) * blocks * kDwTileK + ch) * g.ld + col;
    const size_t step = size_t(kDwTileK) * g.ld;
#pragma unroll 4
    for (int b = int(threadIdx.y); b < blocks; b += kSumRows) sum += src[b * step];
  }
  rows[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y != 0 || i >= total) return;
  sum = 0.f;
#pragma unroll
  for (int r = 0; r < kSumRows; ++r) sum += rows[r][threadIdx.x];
  const InputPatch& in = g.in;
  const int rs = col / int(in.C), c = col - rs * int(in.C), r = rs / in.S, s = rs - r * in.S;
  const int64_t off = g.wv.at(k, c, 0, g.flip ? in.R - 1 - r : r, g.flip ? in.S - 1 - s : s);
  float v = alpha * sum;
  if (beta != 0.f) v += beta * widen(dw[off]);
  store(dw, off, v);
}

// pdl: launched as a programmatic dependent of the kernel queued before it (compute capability 9.0 or later only;
// that kernel calls pdl_allow_dependents), so its launch overlaps the producer's tail.
template <class S>
cudnnStatus_t dw_sum(cudaStream_t st, const DwPartials& g, const float* partial, int blocks, void* dw, double alpha,
                     double beta, bool pdl = false) {
  const int64_t grid = (g.K * g.kg + 31) / 32;
  FD_CHECK_SUPPORTED(grid <= INT32_MAX, "dw_sum: %lld dw elements are too many", static_cast<long long>(g.K * g.kg));
  FD_CUDA_CHECK(launch_pdl(pdl, dw_sum_kernel<S>, dim3(static_cast<unsigned>(grid)), dim3(32, kSumRows), 0, st, g,
                           partial, blocks, static_cast<S*>(dw), static_cast<float>(alpha), static_cast<float>(beta)));
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv
