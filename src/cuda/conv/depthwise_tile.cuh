// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The shared-memory tiles of the stride-1 depthwise kernels (depthwise_tile_s1.cu: forward / backward data;
// depthwise_wgrad_tile.cu: backward filter): a tile of IN_H x IN_W source pixels for cv channel vectors of 8 bytes,
// [row][column][vector], staged by the block's cv x TW threads (thread (v, qc) copies vector v of columns qc, qc + TW
// and qc + 2 TW where they are inside the tile, in every row) with 8-byte cp.async, zeros outside the plane.
#pragma once
#include <cstdint>

#include "core/env.h"
#include "cuda/common/cp_async.cuh"
#include "cuda/conv/raw_words.cuh"

namespace fd::cuda::conv {

// Queues the copies (the caller commits and waits). plane: pixel (0, 0) of an H x W plane of C-element pixels, at
// this thread's channel vector; (h0, w0): the plane pixel of tile pixel (0, 0); any: a valid address for the copies
// that only write zeros.
template <class S, int IN_H, int IN_W, int TW>
__device__ __forceinline__ void stage_tile8(uint2* tile, const S* plane, const void* any, int H, int W, int C, int h0,
                                            int w0, int qc, int v, int cv) {
  static_assert(IN_W <= 3 * TW, "a thread copies at most three columns");
  const int wc0 = w0 + qc, wc1 = wc0 + TW, wc2 = wc1 + TW;
  const bool ok0 = wc0 >= 0 && wc0 < W, ok1 = qc < IN_W - TW && wc1 >= 0 && wc1 < W;
  const bool ok2 = qc < IN_W - 2 * TW && wc2 >= 0 && wc2 < W;
#pragma unroll 2
  for (int r = 0; r < IN_H; ++r) {
    const int h = h0 + r;
    const bool hok = h >= 0 && h < H;
    const S* row = plane + h * W * C;
    cp_async8(shared_addr(&tile[(r * IN_W + qc) * cv + v]), hok && ok0 ? row + wc0 * C : any, hok && ok0);
    if (qc < IN_W - TW)
      cp_async8(shared_addr(&tile[(r * IN_W + qc + TW) * cv + v]), hok && ok1 ? row + wc1 * C : any, hok && ok1);
    if constexpr (IN_W > 2 * TW) {  // stride-2 tiles: 2 * TW + 1 columns
      if (qc < IN_W - 2 * TW)
        cp_async8(shared_addr(&tile[(r * IN_W + qc + 2 * TW) * cv + v]), hok && ok2 ? row + wc2 * C : any,
                  hok && ok2);
    }
  }
}

// The same copies with less address arithmetic per copy, the default since run 18 (0.88x the time of the staging
// above on MobileNet-v2's stride-1 forward and backward data, 0.91-0.98x on most backward filters;
// FREEDNN_DW_TILE_LEAN=0 for the old one): each column's global address is formed once as an integer and advanced by
// a plane row per tile row, a copy outside the plane passes that address with a source size of 0 (cp.async then
// reads nothing and writes zeros), and a row's validity is one unsigned compare. Why: in the SASS of the old staging
// (cuobjdump, run 17) a copy costs about 12 instructions of selects and 64-bit pointer math, against 61 for a row
// step of the backward filter's sums; staging was about a third of that kernel's instructions.
// Whether the tile kernels stage with stage_tile8_lean: unless FREEDNN_DW_TILE_LEAN=0 (read at every call, for tests
// and A/B runs).
inline bool dw_tile_lean() { return fd::env_string("FREEDNN_DW_TILE_LEAN") != "0"; }

template <class S, int IN_H, int IN_W, int TW>
__device__ __forceinline__ void stage_tile8_lean(uint2* tile, const S* plane, int H, int W, int C, int h0, int w0,
                                                 int qc, int v, int cv) {
  static_assert(IN_W <= 3 * TW, "a thread copies at most three columns");
  constexpr int kCols = (IN_W + TW - 1) / TW;  // column chunks a thread may copy
  const uint64_t row_bytes = uint64_t(W) * uint64_t(C) * sizeof(S);
  const uint32_t tile_row = uint32_t(IN_W * cv * 8), tile_col = uint32_t(TW * cv * 8);
  bool cok[kCols];
  uint64_t src[kCols];  // global byte address of (h0 + r, column), modulo 2^64 (used only inside the plane)
#pragma unroll
  for (int j = 0; j < kCols; ++j) {
    const int col = w0 + qc + j * TW;
    cok[j] = qc + j * TW < IN_W && col >= 0 && col < W;
    src[j] = reinterpret_cast<uint64_t>(plane) + uint64_t(int64_t(h0) * W + col) * uint64_t(C) * sizeof(S);
  }
  uint32_t dst = shared_addr(&tile[qc * cv + v]);
#pragma unroll 2
  for (int r = 0; r < IN_H; ++r) {
    const bool hok = unsigned(h0 + r) < unsigned(H);
#pragma unroll
    for (int j = 0; j < kCols; ++j) {
      if (j == 0 || qc + j * TW < IN_W)
        cp_async8(dst + j * tile_col, reinterpret_cast<const void*>(src[j]), hok && cok[j]);
      src[j] += row_bytes;
    }
    dst += tile_row;
  }
}

// Tile row r at columns qc .. qc + K - 1 (a thread's window row), channel vector v, widened to float.
template <class S, int IN_W, int K>
__device__ __forceinline__ void load_window_row(const uint2* tile, int r, int qc, int v, int cv,
                                                float (&row)[K][8 / sizeof(S)]) {
#pragma unroll
  for (int s = 0; s < K; ++s) widen8<S>(tile[(r * IN_W + qc + s) * cv + v], row[s]);
}

}  // namespace fd::cuda::conv
