// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise backward filter, first level, at stride 1 from shared-memory tiles: packed NHWC x and dy, f32 / f16
// / bf16 with float sums, C a multiple of V = 8 bytes of elements, 3x3 filter, padding 0..2, no dilation.
//
// dw[c][r][s] = sum over (n, p, q) of dy[n][p][q][c] * x[n][p - ph + r][q - pw + s][c].
// Why: the forward's shared-memory tile kernel (depthwise_tile_s1.cu) took 0.54-0.81x the time of the register walks
// on MobileNet-v2's stride-1 layers (run 16); the row-walk backward filter (depthwise_wgrad_rows.cu) left those at
// 0.52-0.74 of PyTorch's path. Here a block stages a 16 x 8 tile of dy and the 18 x 10 x pixels it reads for cv
// channel vectors (8-byte cp.async, zeros outside the image), and each thread walks one column of the tile down its
// 16 rows with a 3 x 3 window of float x vectors: per step 4 shared loads, 4 conversions, 9 x V FMAs into 9 x V sums
// that stay in registers across the block's tiles.
//
// Work split (problem-only, so the workspace query knows it): grid (channel chunks, slices); block (cv, 8): cv channel
// vectors (the largest divisor of C / V up to 16) x 8 tile columns. A slice walks a contiguous run of the N x
// tiles_p x tiles_q tiles; at the end the block adds its 8 columns' sums in column order through shared memory and
// writes partial[slice][tap][c] for its channels; the finish kernel of depthwise_wgrad.cu adds the slices in order.
// Deterministic. Bytes: x (with its 180 / 128 halo, mostly L2 hits) and dy once, the partials (one wave of blocks'
// 9 x cv x V floats) written and read once.
#include "cuda/conv/depthwise_wgrad_tile.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "core/dtype.h"
#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cp_async.cuh"
#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/common/tma.h"
#include "cuda/conv/depthwise_fast.h"
#include "cuda/conv/depthwise_tile.cuh"
#include "cuda/conv/raw_words.cuh"
#include "cuda/conv/wgmma.cuh"

namespace fd::cuda::conv {
namespace {

using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr int kK = 3, kTaps = kK * kK;
constexpr int kTW = 8;  // dy tile columns
constexpr int kInW = kTW + kK - 1;
constexpr int kMaxVecs = 16;  // channel vectors per block at most
constexpr int kMaxThreads = kMaxVecs * kTW;
// dy tile rows: 16-row tiles, one at a time (each tile's loads waited for, then summed). A two-stage variant, 8-row
// tiles with the next one's cp.async in flight while the current one is summed, was measured slower (run 17, H200,
// MobileNet-v2 f16): 1.03x the time on 56x56x144, 1.21-2.46x on the other stride-1 layers.
constexpr int kTH = 16;
constexpr int kSmemPerVec = (kTH * kTW + (kTH + kK - 1) * kInW) * 8;  // bytes per channel vector: dy tile, x tile
// One wave of blocks (problem-only: an H200's SMs and shared memory, registers as ptxas reports them rounded up).
// Why: 6 blocks per SM asked for where shared memory allowed 5 left a second, short wave that doubled the time
// (run 16, 56x56x144 f16: 0.092 ms).
constexpr int64_t kSms = 132, kRegsPerSm = 65536, kRegs = 96, kMaxBlocksPerSm = 8;
// Shared memory per SM the plan counts on: the carveout the driver gave this kernel, not the 227 KB an SM can hold.
// ncu (run 17) showed 6 blocks of 30 KB resident (a 196 KB carveout) where the plan had counted 7, and the grid ran
// a second wave (68 us on 56x56x144 f16); asking the driver for the largest carveout instead made the stride-1 tile
// kernels slower (0.071 -> 0.088 ms there, less L1 left). FREEDNN_DW_WGRAD_TILE_SMEM_KB overrides it (A/B runs).
int64_t smem_per_sm() {
  static const int64_t kb = std::clamp<long long>(fd::env_int("FREEDNN_DW_WGRAD_TILE_SMEM_KB", 196), 32, 227);
  return kb * 1024;
}
static_assert(kTaps * 4 * kTW * 4 <= kSmemPerVec, "the column sums fit in the tile's shared memory");

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct TileGeom {
  int C = 1, H = 1, W = 1, P = 1, Q = 1, ph = 0, pw = 0;
  int cv = 1, chunks = 1, tiles_p = 1, tiles_q = 1, tiles = 1;
  int per_slice = 1;  // consecutive tiles per slice
};

struct TilePlan {
  TileGeom g;
  int smem = 0;  // bytes of dynamic shared memory
  int64_t slices = 1;
  size_t partial_bytes = 0;
};

// Adds tile t (staged in `buf`: the dy tile, then the x tile, [row][column][vector]) into acc: thread (v, qc) walks
// column qc down the tile's rows (rows past P are zeros in dy) with a 3 x 3 window of x vectors.
template <class S>
__device__ __forceinline__ void accumulate_tile(const TileGeom& g, int t, const uint2* buf, int qc, int v,
                                                float (&acc)[kK][kK][8 / sizeof(S)]) {
  constexpr int V = 8 / sizeof(S);
  const int cv = g.cv;
  const uint2* dyt = buf;
  const uint2* xt = buf + kTH * kTW * cv;
  const int p0 = (t / g.tiles_q) % g.tiles_p * kTH, q0 = t % g.tiles_q * kTW;
  // A column past Q sums nothing: its dy is zero, but x there may be an image value (an infinity would give NaN).
  if (q0 + qc >= g.Q) return;
  float win[kK][kK][V];  // x rows pp .. pp + 2 of the tile, columns qc .. qc + 2
  auto load_row = [&](float (&row)[kK][V], int r) { load_window_row<S, kInW, kK>(xt, r, qc, v, cv, row); };
  load_row(win[0], 0);
  load_row(win[1], 1);
  const int rows = min(kTH, g.P - p0);
#pragma unroll
  for (int pp = 0; pp < kTH; ++pp) {
    if (pp >= rows) break;
    load_row(win[(pp + 2) % kK], pp + 2);
    float d[V];
    widen8<S>(dyt[(pp * kTW + qc) * cv + v], d);
#pragma unroll
    for (int r = 0; r < kK; ++r)
#pragma unroll
      for (int s = 0; s < kK; ++s)
#pragma unroll
        for (int e = 0; e < V; ++e) acc[r][s][e] = fmaf(d[e], win[(pp + r) % kK][s][e], acc[r][s][e]);
  }
}

// The block's 8 columns' sums in column order through shared memory (red: [tap][channel of the block][column]),
// written as partial[slice][tap][c]. After a barrier that ends every use of `red` as tiles.
template <class S>
__device__ __forceinline__ void store_column_sums(const TileGeom& g, float* red, int qc, int v,
                                                  const float (&acc)[kK][kK][8 / sizeof(S)],
                                                  float* __restrict__ partial) {
  constexpr int V = 8 / sizeof(S);
  const int cv = g.cv, cb = cv * V, cbase = blockIdx.x * cb;
#pragma unroll
  for (int r = 0; r < kK; ++r)
#pragma unroll
    for (int s = 0; s < kK; ++s)
#pragma unroll
      for (int e = 0; e < V; ++e) red[((r * kK + s) * cb + v * V + e) * kTW + qc] = acc[r][s][e];
  __syncthreads();
  for (int o = qc * cv + v; o < kTaps * cb; o += cv * kTW) {
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < kTW; ++j) sum += red[o * kTW + j];
    const int tap = o / cb, cc = o - tap * cb;
    partial[(int64_t(blockIdx.y) * kTaps + tap) * g.C + cbase + cc] = sum;
  }
}

// grid (chunks, slices), block (cv, kTW); kTH rows per tile.
// LEAN: the dy and x tiles staged by stage_tile8_lean (depthwise_tile.cuh, the default), else by cp_async8 rows and
// stage_tile8.
template <class S, bool LEAN>
__global__ void __launch_bounds__(kMaxThreads, 4)
    dw_wgrad_tile_kernel(TileGeom g, const S* __restrict__ x, const S* __restrict__ dy, float* __restrict__ partial) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int V = 8 / sizeof(S), kInH = kTH + kK - 1;
  extern __shared__ __align__(16) uint2 smem[];  // dy tile [row][column][vector], then the x tile likewise
  const int v = threadIdx.x, qc = threadIdx.y, cv = g.cv;
  const int cbase = blockIdx.x * cv * V, c0 = cbase + v * V;
  const int t0 = blockIdx.y * g.per_slice, t1 = min(g.tiles, t0 + g.per_slice);

  float acc[kK][kK][V];
#pragma unroll
  for (int r = 0; r < kK; ++r)
#pragma unroll
    for (int s = 0; s < kK; ++s)
#pragma unroll
      for (int e = 0; e < V; ++e) acc[r][s][e] = 0.f;

  // Queues tile t into `buf`: thread (v, qc) copies vector v of dy column qc and of the x tile's columns
  // (depthwise_tile.cuh).
  auto stage = [&](int t, uint2* buf) {
    const int tq = t % g.tiles_q, rest = t / g.tiles_q, tp = rest % g.tiles_p, n = rest / g.tiles_p;
    const int p0 = tp * kTH, q0 = tq * kTW;
    const S* dyn = dy + int64_t(n) * g.P * g.Q * g.C + c0;
    if constexpr (LEAN) {  // the dy tile is a tile without a halo: rows p0.., columns q0.., zeros past P and Q
      const S* xn = x + int64_t(n) * g.H * g.W * g.C + c0;
      stage_tile8_lean<S, kTH, kTW, kTW>(buf, dyn, g.P, g.Q, g.C, p0, q0, qc, v, cv);
      stage_tile8_lean<S, kInH, kInW, kTW>(buf + kTH * kTW * cv, xn, g.H, g.W, g.C, p0 - g.ph, q0 - g.pw, qc, v, cv);
    } else {
      const int q = q0 + qc;
      for (int r = 0; r < kTH; ++r) {
        const bool ok = p0 + r < g.P && q < g.Q;
        cp_async8(shared_addr(&buf[(r * kTW + qc) * cv + v]), ok ? dyn + ((p0 + r) * g.Q + q) * g.C : dy, ok);
      }
      const S* xn = x + int64_t(n) * g.H * g.W * g.C + c0;
      stage_tile8<S, kInH, kInW, kTW>(buf + kTH * kTW * cv, xn, x, g.H, g.W, g.C, p0 - g.ph, q0 - g.pw, qc, v, cv);
    }
  };
  for (int t = t0; t < t1; ++t) {
    stage(t, smem);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
    accumulate_tile<S>(g, t, smem, qc, v, acc);
    __syncthreads();  // the tile is read before the next one is staged
  }
  store_column_sums<S>(g, reinterpret_cast<float*>(smem), qc, v, acc, partial);
  pdl_allow_dependents();
}

// The same tiles loaded by the tensor memory accelerator (sm_90 and later; FREEDNN_DW_WGRAD_TILE_TMA=0 keeps the
// cp.async kernel): one thread queues two loads per tile (the dy box, then the x box with its halo, zeros outside
// the image) on the stage's mbarrier, kTmaStages tiles deep, so the next tile lands while this one is summed. Why:
// the cp.async kernel waits for each tile's loads before summing it, and its copies (8 bytes each, ~40 per thread
// and tile) cost about as many instructions as the sums. TMA writes the boxes in the cp.async kernel's layout
// ([row][column][vector]), so the sums are the same code. Needs cv even (the box's 16-byte rows) and C * the element
// size a multiple of 16 bytes (the map's strides). Run 30 (H100, MobileNet-v2): the cp.async kernel took 1.02-1.27x
// this one's time on the stride-1 layers (56x56x144 f16 0.0642 against 0.0588 ms).
constexpr int kTmaStages = 2;
int tma_stage_bytes(int cv) { return (kSmemPerVec * cv + 127) / 128 * 128; }
int tma_smem_bytes(int cv) { return 128 + kTmaStages * tma_stage_bytes(cv) + kTmaStages * 8; }

template <class S>
__global__ void __launch_bounds__(kMaxThreads, 4)
    dw_wgrad_tile_tma_kernel(TileGeom g, const __grid_constant__ CUtensorMap dy_map,
                             const __grid_constant__ CUtensorMap x_map, int stage_bytes, float* __restrict__ partial) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int V = 8 / sizeof(S), kInH = kTH + kK - 1;
  extern __shared__ __align__(16) uint2 smem[];  // aligned to 128 bytes below (TMA destinations)
  const int v = threadIdx.x, qc = threadIdx.y, cv = g.cv, cbase = blockIdx.x * cv * V;
  const int t0 = blockIdx.y * g.per_slice, t1 = min(g.tiles, t0 + g.per_slice);
  const uint32_t raw = shared_addr(smem), base = (raw + 127u) & ~127u;
  const uint32_t bars = base + uint32_t(kTmaStages * stage_bytes);
  uint2* tiles = smem + (base - raw) / 8;
  const bool leader = threadIdx.x == 0 && threadIdx.y == 0;
  const uint32_t tile_bytes = uint32_t((kTH * kTW + kInH * kInW) * cv * 8);

  auto issue = [&](int t, int slot) {  // the leader: tile t into stage `slot`
    const int tq = t % g.tiles_q, rest = t / g.tiles_q, tp = rest % g.tiles_p, n = rest / g.tiles_p;
    const int p0 = tp * kTH, q0 = tq * kTW;
    const uint32_t buf = base + uint32_t(slot * stage_bytes), bar = bars + uint32_t(slot * 8);
    mbar_arrive_expect_tx(bar, tile_bytes);
    tma_load_4d(buf, &dy_map, bar, cbase, q0, p0, n);
    tma_load_4d(buf + uint32_t(kTH * kTW * cv * 8), &x_map, bar, cbase, q0 - g.pw, p0 - g.ph, n);
  };
  if (leader) {
    mbar_init_stages(bars, kTmaStages, 1);
    mbar_init_fence();
#pragma unroll
    for (int s = 0; s < kTmaStages; ++s)
      if (t0 + s < t1) issue(t0 + s, s);
  }
  __syncthreads();  // the barriers are initialized before anyone waits on them

  float acc[kK][kK][V];
#pragma unroll
  for (int r = 0; r < kK; ++r)
#pragma unroll
    for (int s = 0; s < kK; ++s)
#pragma unroll
      for (int e = 0; e < V; ++e) acc[r][s][e] = 0.f;

  for (int t = t0, i = 0; t < t1; ++t, ++i) {
    const int slot = i % kTmaStages;
    mbar_wait(bars + uint32_t(slot * 8), uint32_t((i / kTmaStages) & 1));
    accumulate_tile<S>(g, t, tiles + slot * (stage_bytes / 8), qc, v, acc);
    __syncthreads();  // every thread is done with the stage
    if (leader && t + kTmaStages < t1) {
      fence_proxy_async_shared();  // the reads above before the TMA unit's writes
      issue(t + kTmaStages, slot);
    }
  }
  store_column_sums<S>(g, reinterpret_cast<float*>(tiles), qc, v, acc, partial);
#elif defined(__CUDA_ARCH__)
  __trap();  // no sm_90 code: DeviceInfo::sm90_code keeps the host from launching it
#endif
  pdl_allow_dependents();
}

// tma: the plan of the TMA kernel (kTmaStages tiles of shared memory per block: fewer blocks per SM, so fewer
// slices and partial sums than the cp.async kernel's plan, whose partial bytes the workspace query reports).
TilePlan tile_plan(const ConvProblem& p, bool tma = false) {
  TilePlan b;
  TileGeom& g = b.g;
  g.C = static_cast<int>(p.ic), g.H = static_cast<int>(p.ih), g.W = static_cast<int>(p.iw);
  g.P = static_cast<int>(p.oh), g.Q = static_cast<int>(p.ow), g.ph = static_cast<int>(p.ph),
  g.pw = static_cast<int>(p.pw);
  const int64_t nv = p.ic / (8 / static_cast<int64_t>(dtype_size(p.xdt)));
  g.cv = largest_divisor_upto(nv, kMaxVecs);
  g.chunks = static_cast<int>(nv / g.cv);
  g.tiles_p = static_cast<int>(ceil_div(p.oh, kTH)), g.tiles_q = static_cast<int>(ceil_div(p.ow, kTW));
  const int64_t tiles = p.mb * g.tiles_p * g.tiles_q;
  g.tiles = static_cast<int>(std::min<int64_t>(tiles, INT32_MAX));
  b.smem = tma ? tma_smem_bytes(g.cv) : kSmemPerVec * g.cv;
  const int64_t threads = int64_t(g.cv) * kTW;
  const int64_t per_sm = std::max<int64_t>(1, std::min({kMaxBlocksPerSm, smem_per_sm() / (b.smem + 1024),
                                                         kRegsPerSm / (kRegs * threads)}));
  const int64_t want = std::clamp<int64_t>(kSms * per_sm / g.chunks, 1, tiles);
  g.per_slice = static_cast<int>(ceil_div(tiles, want));
  b.slices = ceil_div(tiles, g.per_slice);
  b.partial_bytes = static_cast<size_t>(b.slices) * kTaps * static_cast<size_t>(p.ic) * sizeof(float);
  return b;
}

// Whether the TMA kernel takes p (b: its TMA plan) on `device`: FREEDNN_DW_WGRAD_TILE_TMA unless 0 (read at every
// call), the library's sm_90 code on the device (DeviceInfo::sm90_code), an even cv and 16-byte map strides (C * element
// size).
template <class S>
bool tma_wanted(const ConvProblem& p, const TilePlan& b, int device) {
  if (fd::env_string("FREEDNN_DW_WGRAD_TILE_TMA") == "0") return false;
  return b.g.cv % 2 == 0 && (p.ic * int64_t(sizeof(S))) % 16 == 0 &&
         b.smem <= int(device_info(device).smem_per_block_optin) && device_info(device).sm90_code;
}

// The TMA kernel's maps: dy as (C, Q, P, N) in cv-vector x 8 x 16 boxes, x as (C, W, H, N) in cv-vector x 10 x 18
// boxes.
template <class S>
cudnnStatus_t launch_tma(const ConvProblem& p, const TilePlan& b, const ConvArgs& a, float* partial) {
  if (!tma_wanted<S>(p, b, a.handle->device)) return CUDNN_STATUS_NOT_SUPPORTED;
  const TileGeom& g = b.g;
  const uint32_t cols = uint32_t(g.cv * 8 / sizeof(S));
  CUtensorMap dy_map, x_map;
  FD_TRY(encode_nhwc_map(&dy_map, a.in2, p.xdt, p.mb, g.P, g.Q, g.C, cols, kTW, kTH, CU_TENSOR_MAP_SWIZZLE_NONE,
                         "cuda:depthwise dy"));
  FD_TRY(encode_nhwc_map(&x_map, a.in, p.xdt, p.mb, g.H, g.W, g.C, cols, kInW, kTH + kK - 1,
                         CU_TENSOR_MAP_SWIZZLE_NONE, "cuda:depthwise x"));
  FD_TRY(allow_dynamic_smem(reinterpret_cast<const void*>(&dw_wgrad_tile_tma_kernel<S>), size_t(b.smem),
                            a.handle->device));
  const dim3 grid(static_cast<unsigned>(g.chunks), static_cast<unsigned>(b.slices));
  const dim3 block(static_cast<unsigned>(g.cv), kTW);
  (void)launch_pdl(ops_pdl(a.handle->device), dw_wgrad_tile_tma_kernel<S>, grid, block, b.smem, a.handle->stream, g,
                   dy_map, x_map, tma_stage_bytes(g.cv), partial);
  return CUDNN_STATUS_SUCCESS;
}

template <class S>
void launch(const TilePlan& b, const ConvArgs& a, float* partial) {
  const dim3 grid(static_cast<unsigned>(b.g.chunks), static_cast<unsigned>(b.slices));
  const dim3 block(static_cast<unsigned>(b.g.cv), kTW);
  const auto* x = static_cast<const S*>(a.in);
  const auto* dy = static_cast<const S*>(a.in2);
  if (dw_tile_lean())
    (void)launch_pdl(ops_pdl(a.handle->device), dw_wgrad_tile_kernel<S, true>, grid, block, b.smem, a.handle->stream,
                     b.g, x, dy, partial);
  else
    (void)launch_pdl(ops_pdl(a.handle->device), dw_wgrad_tile_kernel<S, false>, grid, block, b.smem, a.handle->stream,
                     b.g, x, dy, partial);
}

}  // namespace

bool dw_wgrad_tile_covers(const ConvProblem& p) {
  if (!dw_3x3_vec8_nhwc(p) || p.sh != 1 || p.sw != 1) return false;
  const TilePlan b = tile_plan(p);
  return b.slices <= 65535 && b.g.chunks <= 65535 && p.mb * b.g.tiles_p * b.g.tiles_q < INT32_MAX;
}

size_t dw_wgrad_tile_partial_bytes(const ConvProblem& p) { return tile_plan(p).partial_bytes; }

cudnnStatus_t dw_wgrad_tile_launch(const ConvProblem& p, const ConvArgs& a, float* partial, int64_t& slices) {
  if (!aligned8(a.in) || !aligned8(a.in2)) return CUDNN_STATUS_NOT_SUPPORTED;  // the caller falls back
  if (aligned16(a.in) && aligned16(a.in2)) {
    const TilePlan b = tile_plan(p, true);
    cudnnStatus_t st = CUDNN_STATUS_NOT_SUPPORTED;
    switch (p.xdt) {
      case CUDNN_DATA_FLOAT: st = launch_tma<float>(p, b, a, partial); break;
      case CUDNN_DATA_HALF: st = launch_tma<__half>(p, b, a, partial); break;
      case CUDNN_DATA_BFLOAT16: st = launch_tma<__nv_bfloat16>(p, b, a, partial); break;
      default: break;
    }
    if (st == CUDNN_STATUS_SUCCESS) {
      FD_CUDA_LAUNCHED();
      slices = b.slices;
      return st;
    }
    if (st != CUDNN_STATUS_NOT_SUPPORTED) return st;  // else (the driver refused a map) the cp.async kernel
  }
  const TilePlan b = tile_plan(p);
  switch (p.xdt) {
    case CUDNN_DATA_FLOAT: launch<float>(b, a, partial); break;
    case CUDNN_DATA_HALF: launch<__half>(b, a, partial); break;
    case CUDNN_DATA_BFLOAT16: launch<__nv_bfloat16>(b, a, partial); break;
    default: return CUDNN_STATUS_NOT_SUPPORTED;
  }
  FD_CUDA_LAUNCHED();
  slices = b.slices;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv
