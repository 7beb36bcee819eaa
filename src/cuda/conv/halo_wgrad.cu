// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:halo_wgrad: the backward filter of 3x3 stride-1 layers with many channels, f16 / bf16, packed NHWC x and dy,
// on mma.sync tensor cores.
//
// Why: the CUTLASS implicit GEMM (cuda:cutlass_sm90_wgrad) gathers x through TMA im2col once per filter tap, so at
// C = K = 64 it re-reads x nine times from L2 and is L2-bound (run 15: 0.094 ms on ResNet-50's 56x56x64 3x3 layer at
// N = 64, NVIDIA 0.052 ms). Here a block stages an 8 x 8 tile of dy (64 output channels) and the 10 x 10 halo of x
// that tile reads (32 input channels) ONCE, and runs all nine taps from shared memory: tap (r, s)'s B operand is the
// halo shifted by (r, s), gathered by ldmatrix.trans with one row address (one pixel's 8 channels) per lane.
//
// dw[k][r][s][c] = sum over (n, p, q) of dy[n][p][q][k] * x[n][p - ph + r][q - pw + s][c]: GEMM M = K (dy
// channels), N = 9 x C, reduction over the output pixels, 16 per mma k-step (two tile rows of 8).
// Work split: grid (slices, K / 64, C / 32). Default (warp span 32): 8 warps; warp w owns dy channels (w & 1) * 32
// .. + 31 (two m16 tiles) and x channels (w >> 1) * 8 .. + 7 of the block at all nine taps (nine n8 tiles): 72 float
// sums per thread. Warp span 64 (FREEDNN_HALO_WGRAD_WARP_M=64, for an A/B): 4 warps; warp w owns all 64 dy
// channels (four m16 tiles) and x channels w * 8 .. + 7: 144 sums per thread, and a third less shared-memory
// traffic per mma (each B fragment feeds four mma instead of two). The default on sm_90a builds and 9.0 devices
// (FREEDNN_HALO_WGRAD_WGMMA=0 / 1 forces it off / on): the same tile on wgmma, one warpgroup, its tiles loaded by
// TMA (halo_wgrad_tma_kernel below). A slice walks a contiguous run of the N x tiles_p x tiles_q pixel tiles, the
// next three tiles' dy and halo loading (cp.async, or TMA) while the current one runs. The 8 blocks of a cluster
// (consecutive slices) add their 64 x 9 x 32 partial dw through distributed shared memory and leave one in the
// workspace in the layout of patch_dw_sum.cuh; dw_sum adds the clusters' in a fixed order (deterministic), with
// alpha / beta and the flip of CUDNN_CONVOLUTION.
// Bytes: x once with its halo (100 / 64), dy once per 32-channel block of x (C / 32 times, mostly L2 hits), the
// partials (slices / 8 x 64 x 9 x C floats) written and read once.
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "core/dtype.h"
#include "core/env.h"
#include "cuda/common/cc90.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cp_async.cuh"
#include "cuda/common/cuda_util.h"
#include "cuda/common/tma.h"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/depthwise_fast.h"
#include "cuda/conv/impls.h"
#include "cuda/conv/mma_sync.cuh"
#include "cuda/conv/patch_dw_sum.cuh"
#include "cuda/conv/patch_input.cuh"
#include "cuda/conv/pointer_check.h"
#include "cuda/conv/wgmma.cuh"

namespace fd::cuda::conv {
namespace {

namespace cg = cooperative_groups;

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

// The variants: WM = 32 or 64, mma.sync warps of WM dy channels; kWgmmaTma, the wgmma kernel loading by TMA.
constexpr int kWgmmaTma = 0;
// Threads per block: for mma.sync warps of WM dy channels, the block's 64 x 32 (dy x x channels) in 8-channel
// columns; the wgmma kernels: one warpgroup.
template <int WM>
constexpr int block_threads() {
  if constexpr (WM == kWgmmaTma)
    return 128;
  else
    return 32 * (64 / WM) * 4;
}
constexpr int kK3 = 3, kTaps = 9;                       // 3x3 filters only
// Output pixels per tile: rows x columns (14 x 8 tiles, 7 k-steps between barriers, measured the same in run 16;
// that variant's dy staging also issued zero-fill copies past the dy region, a race racecheck caught).
constexpr int kTileP = 8, kTileQ = 8;
constexpr int kHaloP = kTileP + 2, kHaloQ = kTileQ + 2;  // the x rows and columns a tile reads
constexpr int kTileK = kDwTileK;                         // dy channels per block (64)
constexpr int kTileC = 32;                               // x channels per block
constexpr int kDyPitch = kTileK * 2 + 16;                // bytes per staged dy pixel (conflict-free ldmatrix)
constexpr int kXPitch = kTileC * 2 + 16;                 // bytes per staged x pixel
constexpr int kDyBytes = kTileP * kTileQ * kDyPitch;
constexpr int kStageBytes = kDyBytes + kHaloP * kHaloQ * kXPitch;  // one tile's buffer
// Tiles in flight: a tile's mma work (~600 cycles per warp) is shorter than a DRAM round trip, so the loads run
// kStages - 1 tiles ahead (run 16: two stages took 0.067 ms on the 56x56x64 layer, four 0.065).
constexpr int kStages = 4;
// The blocks of a cluster (kCluster consecutive slices) add their partial dw through distributed shared memory
// before one store: the partials in global memory shrink kCluster times (run 16, ncu: 131 slices of 64 x 576 floats
// cost a 19 MB write and a 13 us sum).
constexpr int kCluster = 8;
constexpr int kRedCols = kTaps * kTileC;          // a block's partial dw: 64 x 288
constexpr int kRedPitch = kRedCols + 8;           // floats per row in shared memory (fewer bank conflicts)
constexpr int kRedBytes = kTileK * kRedPitch * 4;
constexpr int kSmemBytes = kStages * kStageBytes > kRedBytes ? kStages * kStageBytes : kRedBytes;  // 74 KB
static_assert(kStageBytes % 16 == 0, "16-byte cp.async destinations");
static_assert(kTileK % kCluster == 0, "each block of a cluster sums kTileK / kCluster rows");

struct HaloGeom {  // sizes in int: applicable() keeps every tensor below 2^31 elements
  int H = 0, W = 0, C = 0, K = 0, P = 0, Q = 0;
  int ph = 0, pw = 0;
  int hmax = 0, wmax = 0;  // x rows / columns below these are read by some output pixel
  int tiles_p = 1, tiles_q = 1, tiles = 1;
  int per_slice = 1;  // consecutive tiles per slice
  int ld = 0;         // partial row length: 9 x C
};

// Queues (cp.async) tile t's dy (64 channels from k0) and x halo (32 channels from c0) into stage buffer `buf`;
// zeros outside dy, past K, and outside the x rows / columns the valid pixels read.
template <class S, int kThreads>
__device__ __forceinline__ void stage_tile(const HaloGeom& g, const S* __restrict__ x, const S* __restrict__ dy,
                                           uint32_t buf, int t, int64_t k0, int64_t c0) {
  const int tq = t % g.tiles_q, rest = t / g.tiles_q, tp = rest % g.tiles_p, n = rest / g.tiles_p;
  const int p0 = tp * kTileP, q0 = tq * kTileQ;
  constexpr int kDyChunks = kTileP * kTileQ * (kTileK / 8), kXChunks = kHaloP * kHaloQ * (kTileC / 8);
#pragma unroll
  for (int it = 0; it < (kDyChunks + kThreads - 1) / kThreads; ++it) {
    const int i = it * kThreads + int(threadIdx.x), pix = i / (kTileK / 8), v = i % (kTileK / 8);
    if (i >= kDyChunks) break;  // past the dy region: its zero fill would land in the halo's
    const int p = p0 + pix / kTileQ, q = q0 + pix % kTileQ;
    const int64_t k = k0 + v * 8;
    const bool ok = p < g.P && q < g.Q && k < g.K;
    cp_async16(buf + pix * kDyPitch + v * 16, ok ? dy + ((int64_t(n) * g.P + p) * g.Q + q) * g.K + k : dy, ok);
  }
#pragma unroll
  for (int it = 0; it < (kXChunks + kThreads - 1) / kThreads; ++it) {
    const int i = it * kThreads + int(threadIdx.x), hp = i / (kTileC / 8), v = i % (kTileC / 8);
    if (i >= kXChunks) break;
    const int h = p0 - g.ph + hp / kHaloQ, w = q0 - g.pw + hp % kHaloQ;
    const bool ok = h >= 0 && h < g.hmax && w >= 0 && w < g.wmax;
    cp_async16(buf + kDyBytes + hp * kXPitch + v * 16,
               ok ? x + ((int64_t(n) * g.H + h) * g.W + w) * g.C + c0 + v * 8 : x, ok);
  }
}

// The cluster's blocks, each with its partial dw in shared memory (`red`: [dy channel 0..63][tap * 32 + c], row
// pitch kRedPitch), each add kTileK / kCluster rows over the kCluster blocks in rank order (deterministic) and store
// them: partial[blockIdx.y][cluster][dy channel][tap * C + c].
template <int kThreads>
__device__ __forceinline__ void cluster_sum_store(const HaloGeom& g, const float* red, float* __restrict__ partial,
                                                  int64_t c0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();  // every block's partial is in its shared memory
  const float* peer[kCluster];
#pragma unroll
  for (int r = 0; r < kCluster; ++r) peer[r] = cluster.map_shared_rank(red, r);
  constexpr int kRows = kTileK / kCluster;
  const int row0 = int(cluster.block_rank()) * kRows;
  const int clusters = int(gridDim.x) / kCluster, cl = int(blockIdx.x) / kCluster;
  float* out = partial + (size_t(blockIdx.y) * clusters + cl) * kTileK * size_t(g.ld);
  for (int e = threadIdx.x; e < kRows * kRedCols; e += kThreads) {
    const int row = row0 + e / kRedCols, col = e % kRedCols;
    float sum = 0.f;
#pragma unroll
    for (int r = 0; r < kCluster; ++r) sum += peer[r][row * kRedPitch + col];
    out[size_t(row) * g.ld + size_t(col / kTileC) * g.C + c0 + col % kTileC] = sum;
  }
  cluster.sync();  // no block leaves while a peer still reads its shared memory
#endif
}

// grid (slices rounded up to kCluster, K tiles, C blocks), clusters of kCluster slices. sm_90 and later only
// (clusters); launch() checks the device.
// WM: dy channels per warp (32 or 64: two or four m16 tiles).
template <class S, int WM>
__global__ void __cluster_dims__(kCluster, 1, 1) __launch_bounds__(block_threads<WM>(), 2)
    halo_wgrad_kernel(HaloGeom g, const S* __restrict__ x, const S* __restrict__ dy, float* __restrict__ partial) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int kThreads = block_threads<WM>(), kMt = WM / 16, kWarpsM = kTileK / WM;
  extern __shared__ __align__(128) unsigned char smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wm = warp % kWarpsM, wn = warp / kWarpsM;
  const int64_t k0 = int64_t(blockIdx.y) * kTileK, c0 = int64_t(blockIdx.z) * kTileC;
  const int t0 = int(blockIdx.x) * g.per_slice, t1 = min(g.tiles, t0 + g.per_slice);
  const uint32_t base = shared_addr(smem);

  // ldmatrix row addresses of this lane. A (dy^T, x4.trans): pixel (lane / 16) * 8 + lane % 8 of the k-step,
  // channels + 8 for lanes 8..15 / 24..31. B (x4.trans, two taps): pixel k = lane % 8 + 8 * (lane / 8 % 2) of the
  // k-step (tile row k / 8, column k % 8), the first tap of the pair for lanes 0..15, the second for 16..31.
  const uint32_t a_lane = uint32_t((((lane >> 4) * 8) + (lane & 7)) * kDyPitch + ((lane >> 3) & 1) * 16 +
                                   wm * WM * 2);
  const int kpix = (lane & 7) + 8 * ((lane >> 3) & 1);
  const uint32_t b_lane = uint32_t(kDyBytes + ((kpix >> 3) * kHaloQ + (kpix & 7)) * kXPitch + wn * 16);
  auto tap_off = [](int tap) { return uint32_t(((tap / kK3) * kHaloQ + tap % kK3) * kXPitch); };
  const bool second = lane >= 16;

  float acc[kMt][kTaps][4];
#pragma unroll
  for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
    for (int t = 0; t < kTaps; ++t)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][t][e] = 0.f;

  // One cp.async group per tile (empty past the slice's end), kStages - 1 of them ahead of the tile computed.
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (t0 + s < t1) stage_tile<S, kThreads>(g, x, dy, base + uint32_t(s * kStageBytes), t0 + s, k0, c0);
    cp_async_commit();
  }
  int slot = 0;  // (t - t0) % kStages
  for (int t = t0; t < t1; ++t) {
    const uint32_t cur = base + uint32_t(slot * kStageBytes);
    const int ahead = slot == 0 ? kStages - 1 : slot - 1;  // the slot computed last iteration
    if (t + kStages - 1 < t1)
      stage_tile<S, kThreads>(g, x, dy, base + uint32_t(ahead * kStageBytes), t + kStages - 1, k0, c0);
    cp_async_commit();
    slot = slot == kStages - 1 ? 0 : slot + 1;
    cp_async_wait<kStages - 1>();  // tile t's group has landed (this thread's part)
    __syncthreads();               // ... and every thread's
#pragma unroll
    for (int j = 0; j < kTileP * kTileQ / 16; ++j) {  // k-steps: tile rows 2j, 2j + 1
      uint32_t a[kMt][4];
#pragma unroll
      for (int mt = 0; mt < kMt; ++mt) ldmatrix_x4_trans(a[mt], cur + a_lane + uint32_t(j * 16 * kDyPitch + mt * 32));
      const uint32_t bj = cur + b_lane + uint32_t(j * 2 * kHaloQ * kXPitch);
      // B of the next tap pair is loaded before this pair's mma (the asm statements keep their order), so the
      // shared-memory latency overlaps tensor work.
      auto load_pair = [&](uint32_t(&b)[4], int pair) {
        ldmatrix_x4_trans(b, bj + (second ? tap_off(2 * pair + 1) : tap_off(2 * pair)));
      };
      uint32_t b[2][4], blast[2];
      load_pair(b[0], 0);
#pragma unroll
      for (int pair = 0; pair < kTaps / 2; ++pair) {
        if (pair + 1 < kTaps / 2)
          load_pair(b[(pair + 1) & 1], pair + 1);
        else
          ldmatrix_x2_trans(blast, bj + tap_off(kTaps - 1));
        const uint32_t(&bp)[4] = b[pair & 1];
#pragma unroll
        for (int mt = 0; mt < kMt; ++mt) {
          mma<S>(acc[mt][2 * pair], a[mt], bp[0], bp[1]);
          mma<S>(acc[mt][2 * pair + 1], a[mt], bp[2], bp[3]);
        }
      }
#pragma unroll
      for (int mt = 0; mt < kMt; ++mt) mma<S>(acc[mt][kTaps - 1], a[mt], blast[0], blast[1]);
    }
    __syncthreads();  // every warp is done with `cur` before it is staged again
  }

  // This block's partial dw into its shared memory, then the cluster's sum (cluster_sum_store).
  pdl_allow_dependents();
  cp_async_wait<0>();
  __syncthreads();
  float* red = reinterpret_cast<float*>(smem);
  const int gq = lane >> 2, tq = lane & 3;
#pragma unroll
  for (int mt = 0; mt < kMt; ++mt) {
    const int ch = wm * WM + mt * 16 + gq;
#pragma unroll
    for (int tap = 0; tap < kTaps; ++tap) {
      const int col = tap * kTileC + wn * 8 + 2 * tq;
      *reinterpret_cast<float2*>(red + ch * kRedPitch + col) = make_float2(acc[mt][tap][0], acc[mt][tap][1]);
      *reinterpret_cast<float2*>(red + (ch + 8) * kRedPitch + col) = make_float2(acc[mt][tap][2], acc[mt][tap][3]);
    }
  }
  cluster_sum_store<kThreads>(g, red, partial, c0);
#endif
}

// The same work on wgmma (sm_90a), its tiles brought by the tensor memory accelerator: one warpgroup per block, 64
// dy channels x 32 x channels x 9 taps. Per k-step (16 pixels: tile rows 2j, 2j + 1) each warp loads its 16 dy
// channels' A fragment once (ldmatrix.trans, as above) and issues nine m64n32k16 wgmma, one per tap, whose B is the x
// planes read in place: tap (r, s)'s descriptor starts at halo pixel (2j + r, s), the k-step's second 8 pixels one
// halo row (160 bytes) further, the next 8 channels one plane further. No B fragments through registers, and a third
// of the mma.sync kernel's shared-memory reads. Run 18: with cp.async staging, 0.97-0.98x the mma.sync kernel's time
// on ResNet-50's 56x56x64 layer (three warpgroups per block sharing each tile took 1.20x). Run 30: that staging's
// index arithmetic was ~500 of the ~600 instructions a warp issued per tile (ncu: the tensor pipe busy a quarter of
// the time; tools/gpu/wgmma_rate_probe.cu showed m64n32k16 itself reaching the tensor cores' peak). Here one
// thread queues five TMA loads per tile (dy: one 64-channel x 8 x 8 box in the 128-byte swizzle; x: four 8-channel
// 10 x 10 halo planes, zeros outside the image) on the stage's mbarrier, and the warpgroup waits on it: no
// __syncthreads and no wgmma drain between tiles. A stage is reloaded once the next tile's first wgmma group is
// issued and the group before it has completed: wgmma is warpgroup-collective, so that group's completion means
// every warp has read (ldmatrix) and the tensor cores have read (B) the stage's previous tile. Run 30 (H100): the
// cp.async form took 1.46x this kernel's time on 56x56x64 (0.0603 against 0.0414 ms), 1.18-1.47x on the other
// 3x3 layers; it was removed.
constexpr int kTmaDyBytes = kTileP * kTileQ * kTileK * 2;                 // 8 KB, rows of 128 bytes, swizzled
constexpr int kTmaPlanePitch = (kHaloP * kHaloQ * 16 + 127) / 128 * 128;  // 1664: TMA writes 128-byte aligned
constexpr int kTmaStageBytes = (kTmaDyBytes + kTileC / 8 * kTmaPlanePitch + 1023) / 1024 * 1024;  // 15 KB
constexpr uint32_t kTmaTileBytes = kTmaDyBytes + kTileC / 8 * kHaloP * kHaloQ * 16;              // what lands
constexpr int kTmaBarOffset = kStages * kTmaStageBytes > kRedBytes ? kStages * kTmaStageBytes : kRedBytes;
constexpr int kTmaSmemBytes = 1024 + kTmaBarOffset + kStages * 8;  // 1024: room to align the stages to 1 KB

template <class S>
__global__ void __cluster_dims__(kCluster, 1, 1) __launch_bounds__(block_threads<kWgmmaTma>(), 2)
    halo_wgrad_tma_kernel(HaloGeom g, const __grid_constant__ CUtensorMap dy_map,
                          const __grid_constant__ CUtensorMap x_map, float* __restrict__ partial) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr int kSteps = kTileP * kTileQ / 16;
  // a[j & 1] alternates, and a tile's last wgmma is still in flight when the next tile loads a[0]: that one must read
  // a[1] (the one before it is waited for at the end of the tile)
  static_assert(kSteps % 2 == 0, "the last k-step's A registers must be a[1]");
  extern __shared__ __align__(128) unsigned char smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int k0 = int(blockIdx.y) * kTileK, c0 = int(blockIdx.z) * kTileC;
  const int t0 = int(blockIdx.x) * g.per_slice, t1 = min(g.tiles, t0 + g.per_slice);
  const uint32_t raw = shared_addr(smem), base = (raw + 1023u) & ~1023u, bars = base + uint32_t(kTmaBarOffset);
  // ldmatrix.trans rows of A (dy^T): pixel (lane / 16) * 8 + lane % 8 of the k-step, this warp's 16 dy channels as
  // two 16-byte chunks (lanes 8..15 / 24..31 the second); the swizzle moves chunk c of pixel row r to c ^ (r % 8).
  const uint32_t chunk = uint32_t(warp * 2 + ((lane >> 3) & 1)) ^ uint32_t(lane & 7);
  const uint32_t a_off = uint32_t(((lane >> 4) * 8 + (lane & 7)) * 128) + (chunk << 4);

  auto issue = [&](int t, int slot) {  // thread 0: tile t into stage `slot`
    const int tq = t % g.tiles_q, rest = t / g.tiles_q, tp = rest % g.tiles_p, n = rest / g.tiles_p;
    const int p0 = tp * kTileP, q0 = tq * kTileQ;
    const uint32_t buf = base + uint32_t(slot * kTmaStageBytes), bar = bars + uint32_t(slot * 8);
    mbar_arrive_expect_tx(bar, kTmaTileBytes);
    tma_load_4d(buf, &dy_map, bar, k0, q0, p0, n);
#pragma unroll
    for (int v = 0; v < kTileC / 8; ++v)
      tma_load_4d(buf + uint32_t(kTmaDyBytes + v * kTmaPlanePitch), &x_map, bar, c0 + 8 * v, q0 - g.pw, p0 - g.ph, n);
  };
  if (threadIdx.x == 0) {
    mbar_init_stages(bars, kStages, 1);
    mbar_init_fence();
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s)
      if (t0 + s < t1) issue(t0 + s, s);
  }
  __syncthreads();  // the barriers are initialized before anyone waits on them

  float acc[kTaps][16];
#pragma unroll
  for (int t = 0; t < kTaps; ++t)
#pragma unroll
    for (int e = 0; e < 16; ++e) acc[t][e] = 0.f;

  for (int t = t0, i = 0; t < t1; ++t, ++i) {
    const int slot = i % kStages;
    const uint32_t cur = base + uint32_t(slot * kTmaStageBytes), xs = cur + uint32_t(kTmaDyBytes);
    mbar_wait(bars + uint32_t(slot * 8), uint32_t((i / kStages) & 1));
    uint32_t a[2][4];  // A of k-steps j (in use by the wgmma in flight) and j + 1
    ldmatrix_x4_trans(a[0], cur + a_off);
#pragma unroll
    for (int j = 0; j < kSteps; ++j) {
      wgmma_fence();
#pragma unroll
      for (int tap = 0; tap < kTaps; ++tap) {
        const uint32_t start = xs + uint32_t(((2 * j + tap / kK3) * kHaloQ + tap % kK3) * 16);
        wgmma_m64n32k16_rs<S>(acc[tap], a[j & 1], wgmma_desc(start, kHaloQ * 16, kTmaPlanePitch));
      }
      wgmma_commit();
      // The group before this one has completed (at j = 0 the previous tile's last). Also after the last k-step: that
      // completes the last reader of a[0], which the next tile's first ldmatrix rewrites (a pending wgmma's A
      // registers must not change).
      wgmma_wait<1>();
      if (j + 1 < kSteps) {
        if (j == 0 && threadIdx.x == 0 && t + kStages - 1 < t1) issue(t + kStages - 1, (i + kStages - 1) % kStages);
        ldmatrix_x4_trans(a[(j + 1) & 1], cur + a_off + uint32_t((j + 1) * 16 * 128));
      }
    }
  }
  wgmma_wait<0>();

  pdl_allow_dependents();
  __syncthreads();  // every load has landed and been read: the stages become the partial's buffer
  float* red = reinterpret_cast<float*>(smem + (base - raw));
  const int gq = lane >> 2, tq = lane & 3, ch = warp * 16 + gq;
#pragma unroll
  for (int tap = 0; tap < kTaps; ++tap)
#pragma unroll
    for (int jn = 0; jn < kTileC / 8; ++jn) {
      const int col = tap * kTileC + jn * 8 + 2 * tq;
      *reinterpret_cast<float2*>(red + ch * kRedPitch + col) = make_float2(acc[tap][4 * jn], acc[tap][4 * jn + 1]);
      *reinterpret_cast<float2*>(red + (ch + 8) * kRedPitch + col) =
          make_float2(acc[tap][4 * jn + 2], acc[tap][4 * jn + 3]);
    }
  cluster_sum_store<block_threads<kWgmmaTma>()>(g, red, partial, c0);
#elif defined(__CUDA_ARCH__)
  __trap();  // built without sm_90a features: launch() never picks this kernel there
#endif
}

// Whether the wgmma kernel's code exists on `device`: an sm_90a build (FREEDNN_BUILD_SM90A) on a compute capability
// 9.0 device (sm_90a code runs there only; elsewhere its body is a trap).
bool wgmma_kernel_runs(int device) {
#if defined(FREEDNN_BUILD_SM90A)
  return is_cc90(device);
#else
  (void)device;
  return false;
#endif
}

// Whether run() takes the wgmma kernel on `device`: FREEDNN_HALO_WGRAD_WGMMA=0 / 1 if set, else where it runs.
bool wgmma_wanted(int device) {
  const std::string v = fd::env_string("FREEDNN_HALO_WGRAD_WGMMA");
  if (!v.empty()) return v == "1";
  return wgmma_kernel_runs(device);
}

// Why p is not for this kernel, or nullptr.
const char* refusal(const ConvProblem& p) {
  if (const char* why = patch_refusal(p, ConvDir::bwd_filter, INT64_MAX, false)) return why;
  if (p.xdt != CUDNN_DATA_HALF && p.xdt != CUDNN_DATA_BFLOAT16) return "f16 and bf16 only";
  if (!packed_nhwc(*p.x) || !packed_nhwc(*p.y)) return "x and dy must be packed NHWC";
  if (p.kh != kK3 || p.kw != kK3 || p.sh != 1 || p.sw != 1 || p.dh != 1 || p.dw != 1)
    return "3x3 filters at stride 1 without dilation only";
  if (p.ph < 0 || p.ph > 2 || p.pw < 0 || p.pw > 2) return "padding above 2";
  if (p.ic % kTileC != 0) return "C must be a multiple of 32";
  if (p.oc % 8 != 0) return "K must be a multiple of 8 (16-byte dy vectors)";
  return nullptr;
}

// Slices per (K tile, C block) grid column: about two blocks per SM over the whole grid (one per SM measured
// 1.1x slower, run 16), no more than there are tiles, rounded up to whole clusters.
int64_t slices_for(int64_t tiles, int64_t columns, int sm_count) {
  const int64_t want = std::clamp<int64_t>((2 * int64_t(std::max(sm_count, 1)) + columns - 1) / columns, 1, tiles);
  return (want + kCluster - 1) / kCluster * kCluster;
}

// Tensors below 2^31 elements and few enough tiles for int indices (checked by applicable()).
bool fits_int(const ConvProblem& p) {
  const int64_t lim = int64_t{1} << 31;
  const int64_t tiles = p.mb * ((p.oh + kTileP - 1) / kTileP) * ((p.ow + kTileQ - 1) / kTileQ);
  return p.mb * p.ih * p.iw * p.ic < lim && p.mb * p.oh * p.ow * p.oc < lim && tiles < lim && kTaps * p.ic < lim;
}

HaloGeom make_geom(const ConvProblem& p) {
  HaloGeom g;
  g.H = int(p.ih), g.W = int(p.iw), g.C = int(p.ic), g.K = int(p.oc), g.P = int(p.oh), g.Q = int(p.ow);
  g.ph = int(p.ph), g.pw = int(p.pw);
  g.hmax = std::min(g.H, g.P - g.ph + kK3 - 1);
  g.wmax = std::min(g.W, g.Q - g.pw + kK3 - 1);
  g.tiles_p = (g.P + kTileP - 1) / kTileP, g.tiles_q = (g.Q + kTileQ - 1) / kTileQ;
  g.tiles = int(p.mb) * g.tiles_p * g.tiles_q;
  g.ld = kTaps * g.C;
  return g;
}

int64_t grid_columns(const ConvProblem& p) { return ((p.oc + kTileK - 1) / kTileK) * (p.ic / kTileC); }

// A variant's dynamic shared memory.
template <int WM>
constexpr int smem_bytes() {
  return WM == kWgmmaTma ? kTmaSmemBytes : kSmemBytes;
}

// The TMA kernel's maps: dy as (K, Q, P, N) in 64 x 8 x 8 boxes, 128-byte swizzle; x as (C, W, H, N) in 8 x 10 x 10
// planes.
template <class S>
cudnnStatus_t tma_maps(const ConvProblem& p, const HaloGeom& g, const S* x, const S* dy, CUtensorMap* dy_map,
                       CUtensorMap* x_map) {
  const cudnnDataType_t dt = std::is_same_v<S, __nv_bfloat16> ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
  FD_TRY(encode_nhwc_map(dy_map, dy, dt, p.mb, g.P, g.Q, g.K, kTileK, kTileQ, kTileP, CU_TENSOR_MAP_SWIZZLE_128B,
                         "cuda:halo_wgrad dy"));
  return encode_nhwc_map(x_map, x, dt, p.mb, g.H, g.W, g.C, 8, kHaloQ, kHaloP, CU_TENSOR_MAP_SWIZZLE_NONE,
                         "cuda:halo_wgrad x");
}

// A variant's kernel (block_threads' list).
template <class S, int WM>
const void* kernel_of() {
  if constexpr (WM == kWgmmaTma)
    return reinterpret_cast<const void*>(&halo_wgrad_tma_kernel<S>);
  else
    return reinterpret_cast<const void*>(&halo_wgrad_kernel<S, WM>);
}

// Clusters of a variant's kernel that fit on the device at once (cached per device): a grid beyond them runs a
// second wave, the whole kernel's length again for a few clusters (run 16: 136 slices x 2 took 81 us against 56 us
// for a grid that fit). 0 when the query fails.
template <class S, int WM>
int resident_clusters(int device) {
  static std::mutex mutex;
  static std::map<int, int> known;
  std::lock_guard<std::mutex> lock(mutex);
  const auto it = known.find(device);
  if (it != known.end()) return it->second;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(kCluster), cfg.blockDim = dim3(block_threads<WM>()), cfg.dynamicSmemBytes = smem_bytes<WM>();
  int n = 0;
  if (cudaOccupancyMaxActiveClusters(&n, kernel_of<S, WM>(), &cfg) != cudaSuccess) {
    (void)cudaGetLastError();
    n = 0;
  }
  known[device] = n;
  return n;
}

DwPartials dw_partials(const ConvProblem& p, const HaloGeom& g) {
  DwPartials d;
  d.in.C = g.C, d.in.R = kK3, d.in.S = kK3;
  d.K = g.K, d.kg = g.ld, d.ld = g.ld;
  d.wv = view5(p.w->as_tensor);
  d.flip = p.mode == CUDNN_CONVOLUTION;
  return d;
}

// Whether the call's pointers suit every kernel here (accepts_pointers and launch's check): x and dy are loaded in
// 16-byte pieces (cp.async, or TMA boxes), the workspace's partials are written so; dw by dw_sum element by element.
fd::conv::Verdict pointers(const ConvArgs& a) {
  const fd::conv::Verdict data =
      need_aligned("cuda:halo_wgrad", 16, "16-byte cp.async and TMA", {{"x", a.in}, {"dy", a.in2}});
  if (!data.ok()) return data;
  return need_aligned("cuda:halo_wgrad", 16, "the partial sums in 16-byte pieces", {{"workspace", a.workspace}});
}

template <class S, int WM>
cudnnStatus_t launch(const ConvProblem& p, const ConvArgs& a) {
  cudnnContext* h = a.handle;
  const char* id = "cuda:halo_wgrad";
  const fd::conv::Verdict ptrs = pointers(a);
  FD_CHECK_SUPPORTED(ptrs.ok(), "%s", ptrs.reason.c_str());
  HaloGeom g = make_geom(p);
  const DeviceInfo& di = device_info(h->device);
  FD_CHECK_SUPPORTED(di.sm90_code,
                     "%s needs thread block clusters: the build's compute capability 9.x code, which device %d (%d.%d) "
                     "does not run (its kernel bodies exist there only)", id, h->device, di.cc_major, di.cc_minor);
  // The workspace query sized the partials for this device's SM count (one per cluster of slices); a smaller
  // workspace means fewer slices.
  const size_t per_cluster = dw_partial_bytes_per_block(g.K, g.ld);
  FD_TRY(allow_dynamic_smem(kernel_of<S, WM>(), smem_bytes<WM>(), h->device));
  int64_t slices = std::min<int64_t>(slices_for(g.tiles, grid_columns(p), di.sm_count),
                                     int64_t(a.workspace_size / per_cluster) * kCluster);
  const int64_t resident = resident_clusters<S, WM>(h->device) / grid_columns(p);  // per grid column, one wave
  if (resident >= 1) slices = std::min(slices, resident * kCluster);
  // FREEDNN_HALO_WGRAD_MAX_SLICES: fewer slices, so more tiles each (the tests walk the stages round several times).
  if (const int cap = fd::env_int("FREEDNN_HALO_WGRAD_MAX_SLICES", 0); cap > 0)
    slices = std::min<int64_t>(slices, std::max(1, cap / kCluster) * kCluster);
  FD_CHECK(a.workspace != nullptr && slices >= 1 && aligned16(a.workspace),
           CUDNN_STATUS_BAD_PARAM, "%s needs at least %zu bytes of 16-byte aligned workspace (got %zu)", id,
           per_cluster, a.workspace_size);
  g.per_slice = int((g.tiles + slices - 1) / slices);
  const int used = (g.tiles + g.per_slice - 1) / g.per_slice;  // slices with tiles; the rest of a cluster idles
  const int clusters = (used + kCluster - 1) / kCluster;
  const dim3 grid(static_cast<unsigned>(clusters * kCluster), static_cast<unsigned>((g.K + kTileK - 1) / kTileK),
                  static_cast<unsigned>(g.C / kTileC));
  auto* partial = static_cast<float*>(a.workspace);
  const auto* xs = static_cast<const S*>(a.in);
  const auto* dys = static_cast<const S*>(a.in2);
  if constexpr (WM == kWgmmaTma) {
    // FREEDNN_HALO_WGRAD_WGMMA=1 could ask for it where it does not run: refused, and run() falls back to the
    // mma.sync kernel.
    FD_CHECK_SUPPORTED(wgmma_kernel_runs(h->device),
                       "%s: the wgmma kernel needs an sm_90a build on a compute capability 9.0 device", id);
    CUtensorMap dy_map, x_map;
    FD_TRY(tma_maps(p, g, xs, dys, &dy_map, &x_map));
    halo_wgrad_tma_kernel<S><<<grid, block_threads<WM>(), smem_bytes<WM>(), h->stream>>>(g, dy_map, x_map, partial);
  } else
    halo_wgrad_kernel<S, WM><<<grid, block_threads<WM>(), kSmemBytes, h->stream>>>(g, xs, dys, partial);
  FD_CUDA_LAUNCHED();
  // The sum as a programmatic dependent launch (this kernel needs compute capability 9.0 anyway): run 18 measured
  // 0.97-0.98x the time on the 56x56x64 layer, 0.78-0.97x on the others. FREEDNN_DW_SUM_PDL=0 turns it off (read at
  // every call).
  const bool pdl = fd::env_string("FREEDNN_DW_SUM_PDL") != "0";
  return dw_sum<S>(h->stream, dw_partials(p, g), partial, clusters, a.out, a.alpha, a.beta, pdl);
}

class HaloWgrad final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cuda:halo_wgrad"; }
  fd::Backend backend() const override { return fd::Backend::cuda; }
  bool serves(ConvDir dir, int algo) const override {
    return dir == ConvDir::bwd_filter && algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
  }
  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    if (const char* why = refusal(p)) return {CUDNN_STATUS_NOT_SUPPORTED, why};
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
      (void)cudaGetLastError();
      return {CUDNN_STATUS_NOT_SUPPORTED, "cannot query the current CUDA device"};
    }
    if (!device_info(dev).sm90_code)
      return {CUDNN_STATUS_NOT_SUPPORTED,
              "needs thread block clusters: the build's compute capability 9.x code, which this device does not run"};
    if (!fits_int(p)) return {CUDNN_STATUS_NOT_SUPPORTED, "tensors of 2^31 elements or more"};
    if ((p.oc + kTileK - 1) / kTileK > 65535 || p.ic / kTileC > 65535)
      return {CUDNN_STATUS_NOT_SUPPORTED, "too many K tiles or C blocks for the grid"};
    return {};
  }
  size_t workspace_size(const ConvProblem& p) const override {
    if (refusal(p) != nullptr || !fits_int(p)) return 0;
    const HaloGeom g = make_geom(p);
    return size_t(slices_for(g.tiles, grid_columns(p), current_sm_count()) / kCluster) *
           dw_partial_bytes_per_block(g.K, g.ld);
  }
  fd::conv::Verdict accepts_pointers(const ConvProblem&, const ConvArgs& a) const override { return pointers(a); }
  bool deterministic() const override { return true; }  // fixed tiles per slice, slices added in order
  cudnnMathType_t math_type(const ConvProblem&) const override { return CUDNN_TENSOR_OP_MATH; }
  double cost_estimate(const ConvProblem& p) const override {
    // Seconds, fitted by hand to run 16's Find timings of ResNet-50's four 3x3 layers (0.062 / 0.093 / 0.11 /
    // 0.19 ms for C = 64 .. 512; the _v7 table leaves this implementation at its own estimate): the mma work on
    // 8 x 8-pixel tiles with K to 64, or x with its 100 / 64 halo and dy from DRAM when that is longer (the loads
    // overlap the mma), plus dy read again for each further 32 channels of x (about 3 TB/s), the partials written
    // and read, and two launches.
    const double m = double(p.mb) * std::ceil(p.oh / double(kTileP)) * kTileP * std::ceil(p.ow / 8.0) * 8;
    const double flops = 2 * m * std::ceil(p.oc / 64.0) * 64 * kTaps * double(p.ic);
    const double dy = 2.0 * double(p.mb) * p.oc * p.osp();
    const double dram = 2.0 * double(p.mb) * p.ic * p.isp() * 1.56 + dy;
    const double again = dy * (double(p.ic) / kTileC - 1);
    const double cols = std::ceil(p.oc / 64.0) * double(p.ic / kTileC);
    const double partial = 2.0 * std::ceil(2.0 * current_sm_count() / cols / kCluster) * cols * 64 * kTaps * kTileC * 4;
    // The TMA kernel (run 30, H100) runs the tiles at about 500 TFLOP/s where the clusters fit in one wave (the
    // 56x56x64 and 28x28x128 layers: 0.041 / 0.058 ms); grids of several waves keep the old rate.
    const double rate = cols * kCluster <= current_sm_count() ? 500e12 : 350e12;
    return std::max(flops / rate, dram / 3.2e12) + again / 3.0e12 + partial / 3.0e12 + 8e-6;
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:halo_wgrad called without a handle");
    // The wgmma kernel where this build has sm_90a code and the device is a 9.0 (FREEDNN_HALO_WGRAD_WGMMA=0 / 1 forces
    // it off / on; run 30: 0.0414 ms on ResNet-50's 56x56x64 layer, where its cp.async form took 0.0603), or where
    // the driver refuses its tensor maps the mma.sync kernel; FREEDNN_HALO_WGRAD_WARP_M=64 picks the mma.sync warps
    // of 64 dy channels. Read at every call.
    const bool wgmma = wgmma_wanted(a.handle->device);
    const bool wide = fd::env_int("FREEDNN_HALO_WGRAD_WARP_M", 32) == 64;
    auto go = [&](auto tag) {
      using S = decltype(tag);
      if (wgmma) {
        const cudnnStatus_t st = launch<S, kWgmmaTma>(p, a);
        if (st != CUDNN_STATUS_NOT_SUPPORTED) return st;
      }
      return wide ? launch<S, 64>(p, a) : launch<S, 32>(p, a);
    };
    if (p.xdt == CUDNN_DATA_HALF) return go(__half{});
    if (p.xdt == CUDNN_DATA_BFLOAT16) return go(__nv_bfloat16{});
    FD_CHECK_SUPPORTED(false, "cuda:halo_wgrad has no kernel for %s", dtype_short_name(p.xdt));
    return CUDNN_STATUS_NOT_SUPPORTED;
  }
};

}  // namespace

const fd::conv::ConvImpl* halo_wgrad_impl() {
  static const HaloWgrad impl;
  return &impl;
}

}  // namespace fd::cuda::conv
