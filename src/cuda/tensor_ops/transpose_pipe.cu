// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batched transpose in[b][r][k] (rows x cols, packed) -> out[b][k][r] through a cp.async pipeline, for 4- and 2-byte
// types with rows and cols multiples of the 16-byte vector (V = 4 or 8 elements) and 16-byte aligned data: the
// packed NCHW -> NHWC transform (rows = C, cols = H*W), and NHWC -> NCHW under a knob.
//
// Why: transpose_slab (transform.cu) gives every 64 x 64 tile its own block (12544 blocks for 64x256x56x56): a
// block loads, waits one DRAM round trip with nothing else in flight, stores and retires, and the SM keeps bytes in
// flight only by running several such blocks at once (0.109-0.118 ms there, 83-89 % of copy bandwidth). Here a grid
// of resident blocks walks the tiles, each block keeping `stages - 1` tiles of loads in flight (cp.async straight
// into shared memory, no registers held) while it transposes and stores the oldest, so the loads never stop.
//
// Tile: TR = 8 V rows x TS columns (f32: 32 x 64, 8 KB; TS = 128: 16 KB), NQ = TS / V 16-byte chunks per row, one
// thread per V x V block (8 * NQ threads). Way in: consecutive threads copy consecutive chunks of a row (a warp
// reads TS * E contiguous bytes per row); chunk q of tile row r sits at column chunk q ^ (r / V) (an XOR swizzle of
// 16-byte chunks, so both phases are conflict-free and every cp.async destination stays 16-byte aligned). Way out:
// thread (j = tid % 8, q = tid / 8) loads chunk q of rows j V .. j V + V - 1 (the eight threads of a quarter warp
// share q and differ in j, so they hit eight different chunk columns: all 32 banks), transposes the V x V block in
// registers (16-bit types: byte permutes) and stores V vectors, one per output row; the eight threads of a quarter
// warp write 8 V = 128 bytes of one output row, a warp four rows. Plain (alpha 1, beta 0): raw bits (exact);
// otherwise alpha * x + beta * y in Comp<S>, y read only when beta != 0.
//
// Bytes: each element read once and written once (plus one read of y when beta != 0): 64x256x56x56 f32 moves
// 2 x 205.5 MB = 411 MB, a floor of 0.0974 ms at 4.22 TB/s (90 % of copy bandwidth: 0.108 ms); f16 0.0487 ms.
#include "cuda/tensor_ops/transpose_pipe.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "core/env.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"

namespace fd::cuda {
namespace {

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most n (0, 1 or 2: the immediate must be a constant) of this thread's groups are pending.
__device__ __forceinline__ void cp_async_wait(int n) {
  if (n <= 0) asm volatile("cp.async.wait_group 0;\n" ::: "memory");
  else if (n == 1) asm volatile("cp.async.wait_group 1;\n" ::: "memory");
  else asm volatile("cp.async.wait_group 2;\n" ::: "memory");
}

__device__ __forceinline__ uint32_t word(const uint4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

struct PipeArgs {
  const void* in = nullptr;
  void* out = nullptr;
  int64_t rows = 0, cols = 0;
  unsigned tiles_r = 0, tiles_c = 0, ntiles = 0;
  int stages = 3, order = 0;
  double alpha = 1, beta = 0;
};

struct Tile {
  int64_t b, r0, c0;
};

template <class S, int TS, bool kPlain>
__global__ void __launch_bounds__(8 * TS / (16 / sizeof(S))) transpose_pipe_kernel(PipeArgs p) {
  constexpr int E = sizeof(S), V = 16 / E, TR = 8 * V, NQ = TS / V, NT = 8 * NQ, kChunks = TR * NQ;
  static_assert((E == 2 || E == 4) && NQ % 8 == 0, "tile shape");
  extern __shared__ uint4 smem[];  // stages x kChunks
  const int tid = threadIdx.x;
  const int64_t plane = p.rows * p.cols;
  // Order 0: the channel (row) tiles of one column range fastest (the output of consecutive tiles is contiguous);
  // 1: the column tiles of one row range fastest (their input is contiguous).
  auto tile_at = [&](unsigned t) {
    unsigned tr, tc, u;
    if (p.order == 0) {
      u = t / p.tiles_r;
      tr = t - u * p.tiles_r;
      const unsigned b = u / p.tiles_c;
      tc = u - b * p.tiles_c;
      u = b;
    } else {
      u = t / p.tiles_c;
      tc = t - u * p.tiles_c;
      const unsigned b = u / p.tiles_r;
      tr = u - b * p.tiles_r;
      u = b;
    }
    return Tile{static_cast<int64_t>(u), static_cast<int64_t>(tr) * TR, static_cast<int64_t>(tc) * TS};
  };
  auto issue = [&](unsigned t, int stage) {
    const Tile tl = tile_at(t);
    const S* src = static_cast<const S*>(p.in) + tl.b * plane;
    uint4* st = smem + stage * kChunks;
#pragma unroll
    for (int u = 0; u < V; ++u) {
      const int e = tid + u * NT, r = e / NQ, q = e % NQ;
      const int64_t gr = tl.r0 + r, gc = tl.c0 + q * V;
      if (gr < p.rows && gc < p.cols) cp_async16(st + r * NQ + (q ^ (r / V)), src + gr * p.cols + gc);
    }
  };
  const unsigned step = gridDim.x;
  for (int k = 0; k < p.stages - 1; ++k) {
    const unsigned t = blockIdx.x + k * step;
    if (t < p.ntiles) issue(t, k);
    cp_async_commit();
  }
  const int j = tid & 7, q = tid >> 3;
  int stage = 0;
  for (unsigned t = blockIdx.x; t < p.ntiles; t += step) {
    cp_async_wait(p.stages - 2);  // this thread's copies of tile t are done
    __syncthreads();              // everyone's are, and everyone is done reading the stage refilled below
    const unsigned tn = t + (p.stages - 1) * step;
    if (tn < p.ntiles) issue(tn, stage == 0 ? p.stages - 1 : stage - 1);
    cp_async_commit();
    const Tile tl = tile_at(t);
    const uint4* st = smem + stage * kChunks;
    uint4 a[V];
#pragma unroll
    for (int m = 0; m < V; ++m) a[m] = st[(j * V + m) * NQ + (q ^ j)];
    S* dst = static_cast<S*>(p.out) + tl.b * plane;
    const int64_t c = tl.r0 + j * V;  // output column (input row) of the block's first element
#pragma unroll
    for (int k = 0; k < V; ++k) {
      uint4 o;
      if constexpr (E == 4) {
        o = make_uint4(word(a[0], k), word(a[1], k), word(a[2], k), word(a[3], k));
      } else {
        const unsigned sel = k % 2 ? 0x7632u : 0x5410u;  // the high or low halves of two words
        o = make_uint4(__byte_perm(word(a[0], k / 2), word(a[1], k / 2), sel),
                       __byte_perm(word(a[2], k / 2), word(a[3], k / 2), sel),
                       __byte_perm(word(a[4], k / 2), word(a[5], k / 2), sel),
                       __byte_perm(word(a[6], k / 2), word(a[7], k / 2), sel));
      }
      const int64_t s = tl.c0 + q * V + k;  // output row
      if (s < p.cols && c < p.rows) {
        S* d = dst + s * p.rows + c;
        if constexpr (kPlain) {
          *reinterpret_cast<uint4*>(d) = o;
        } else {
          alignas(16) S raw[V];
          *reinterpret_cast<uint4*>(raw) = o;
          Comp<S> val[V];
#pragma unroll
          for (int e = 0; e < V; ++e) val[e] = Storage<S>::load(raw, e);
          blend_store_vec<S, V>(d, val, p.alpha, p.beta);
        }
      }
    }
    stage = stage + 1 == p.stages ? 0 : stage + 1;
  }
}

template <class S, int TS>
cudnnStatus_t launch(cudaStream_t stream, int device, PipeArgs a) {
  constexpr int V = 16 / sizeof(S), NT = 8 * TS / V;
  constexpr size_t kTileBytes = size_t(8) * V * TS * sizeof(S);
  const bool plain = a.alpha == 1.0 && a.beta == 0.0;
  const void* k = plain ? reinterpret_cast<const void*>(transpose_pipe_kernel<S, TS, true>)
                        : reinterpret_cast<const void*>(transpose_pipe_kernel<S, TS, false>);
  const size_t smem = kTileBytes * a.stages;
  FD_TRY(allow_dynamic_smem(k, smem, device));
  // Resident blocks, then as many as give every block the same number of tiles (no tail where a few blocks
  // finish one tile more while the rest idle).
  const int cap = resident_grid(k, a.ntiles, 1, NT, smem, device);
  const int64_t per = (int64_t(a.ntiles) + cap - 1) / cap;
  const int grid = static_cast<int>(std::max<int64_t>(1, (int64_t(a.ntiles) + per - 1) / per));
  if (plain) transpose_pipe_kernel<S, TS, true><<<grid, NT, smem, stream>>>(a);
  else transpose_pipe_kernel<S, TS, false><<<grid, NT, smem, stream>>>(a);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

bool transpose_pipe(cudaStream_t stream, int device, cudnnDataType_t t, const void* in, void* out, int64_t batch,
                    int64_t rows, int64_t cols, double alpha, double beta, cudnnStatus_t* status) {
  if (t != CUDNN_DATA_FLOAT && t != CUDNN_DATA_HALF && t != CUDNN_DATA_BFLOAT16) return false;
  const int V = t == CUDNN_DATA_FLOAT ? 4 : 8;
  if (batch <= 0 || rows <= 0 || cols <= 0 || rows % V != 0 || cols % V != 0) return false;
  if (reinterpret_cast<uintptr_t>(in) % 16 != 0 || reinterpret_cast<uintptr_t>(out) % 16 != 0) return false;
  // FREEDNN_TRANSFORM_PIPE_TS=64|128: the tile's columns (default 128 where cols is a multiple of 128, else 64);
  // _STAGES=2..4 (default 3: two tiles in flight per block); _ORDER=0|1 (see the kernel).
  static const int ts_knob = static_cast<int>(fd::env_int("FREEDNN_TRANSFORM_PIPE_TS", 0));
  static const int stages = static_cast<int>(std::clamp<long long>(fd::env_int("FREEDNN_TRANSFORM_PIPE_STAGES", 3), 2, 4));
  static const int order = fd::env_int("FREEDNN_TRANSFORM_PIPE_ORDER", 0) == 1 ? 1 : 0;
  const int ts = ts_knob == 64 || ts_knob == 128 ? ts_knob : cols % 128 == 0 ? 128 : 64;
  const int64_t tr = 8 * V;
  const int64_t tiles_r = (rows + tr - 1) / tr, tiles_c = (cols + ts - 1) / ts;
  const int64_t ntiles = batch * tiles_r * tiles_c;
  if (ntiles > INT32_MAX) return false;
  PipeArgs a;
  a.in = in;
  a.out = out;
  a.rows = rows;
  a.cols = cols;
  a.tiles_r = static_cast<unsigned>(tiles_r);
  a.tiles_c = static_cast<unsigned>(tiles_c);
  a.ntiles = static_cast<unsigned>(ntiles);
  a.stages = stages;
  a.order = order;
  a.alpha = alpha;
  a.beta = beta;
  auto go = [&](auto tag) {
    using S = decltype(tag);
    return ts == 128 ? launch<S, 128>(stream, device, a) : launch<S, 64>(stream, device, a);
  };
  *status = t == CUDNN_DATA_FLOAT ? go(float{}) : t == CUDNN_DATA_HALF ? go(__half{}) : go(__nv_bfloat16{});
  return true;
}

}  // namespace fd::cuda
