// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:depthwise forward and backward data at stride 1 from shared-memory tiles (the default where it covers;
// FREEDNN_DW_TILE=0 turns it off): packed NHWC, f32 / f16 / bf16 with float sums, C a multiple of V = 8 bytes of elements, 3x3 filter,
// padding 0..2, no dilation, no fused epilogue. Backward data at stride 1 is the same correlation of dy with the
// filter flipped and padding 2 - p, so one kernel serves both.
//
// Why: the register-walk kernels (depthwise_nhwc.cu strips, depthwise_fwd_walk.cu) read each x vector three times
// through L1 / L2 from three threads' walks, and at stride 1 on MobileNet-v2's wide layers they stay near 1.6-1.8 TB/s
// (run 16: 56x56x144 f16 forward 70 us, backward data 70 us; PyTorch's path 48 us; this kernel 47 / 48 us, and
// 0.54-0.81x the old time on every stride-1 layer of MobileNet-v2). Here a block stages the
// (16 + 2) x (8 + 2) source pixels of a 16 x 8 output tile for cv channel vectors once (8-byte cp.async, zeros outside
// the image), then each thread walks one output column down the tile's 16 rows with a 3 x 3 window of float vectors
// in registers: per step 3 shared loads, 3 conversions, 9 x V FMAs, one store.
//
// Work split: grid (channel chunks x column tiles, row tiles, N); block (cv, 8): cv channel vectors (the largest
// divisor of C / V up to 16, so chunks divide C exactly) x 8 output columns. No reduction, no workspace.
// Bytes: source and destination once from DRAM (the tile halos, 180 / 128 of the source, are mostly L2 hits).
// The forward at stride 2 on small planes takes the same kernel too (see tile_rows and cp_async_form_wanted below).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/dtype.h"
#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cp_async.cuh"
#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/common/tma.h"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/depthwise_fast.h"
#include "cuda/conv/depthwise_tile.cuh"
#include "cuda/conv/depthwise_tile_s1.h"
#include "cuda/conv/raw_words.cuh"

namespace fd::cuda::conv {
namespace {

using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr int kK = 3;
// Output tile: rows x columns. 16 rows per thread's walk: its filter loads and the tile's halo rows amortized over
// twice the outputs of 8 (8 rows measured no faster than the strip kernel, run 16: 69 us on 56x56x144 f16). ncu put
// the 16-row kernel at 66 % of the SMs' issue rate (46 us on that layer), but the two ways tried to cut instructions
// per output were slower on the H200 (run 17, MobileNet-v2 f16, stride-1 layers): 32-row tiles 1.19-1.24x the time,
// the block's filter staged once in shared memory as float 1.02-1.13x.
constexpr int kTH = 16, kTW = 8;
// Stride 2 (forward only; the TMA form on any size, the cp.async one on outputs of at most 14 x 14;
// cp_async_form_wanted):
// 8 x 8 outputs from 17 x 17 source pixels (37 KB for 16 channel vectors), each thread's column walk loading two new
// window rows per output row. Why: the forward walk that serves stride 2 is at 0.83-0.98 of PyTorch's path on
// MobileNet-v2's stride-2 layers (run 17), where this tile layout gave the stride-1 layers 0.54-0.81x the walk's time.
template <int ST>
constexpr int tile_rows() { return ST == 1 ? kTH : 8; }
template <int ST>
constexpr int in_rows() { return (tile_rows<ST>() - 1) * ST + kK; }
template <int ST>
constexpr int in_cols() { return (kTW - 1) * ST + kK; }
constexpr int kMaxVecs = 16;                      // channel vectors per block at most (128 bytes of a pixel)
constexpr int kMaxThreads = kMaxVecs * kTW;

struct TileGeom {
  int C = 1, SH = 1, SW = 1, DH = 1, DW = 1;  // source (x or dy) and destination (y or dx) planes
  int ph = 0, pw = 0;                         // padding of the correlation (2 - p for backward data)
  int cv = 1, chunks = 1, tiles_w = 1;
  int64_t ws_k = 0, ws_r = 0, ws_s = 0;  // the filter's element strides of (k = c, r, s)
  bool flip = false;                     // read the filter rotated by 180 degrees
};

// Thread (v, qc)'s outputs from the staged tile: column q0 + qc down the tile's rows, a 3 x 3 window of float vectors
// in registers, alpha / beta, stored to dst.
template <class S, int ST>
__device__ __forceinline__ void tile_outputs(const TileGeom& g, const uint2* tile,
                                             const float (&wt)[kK][kK][8 / sizeof(S)], int qc, int v, int p0, int q0,
                                             int n, int c0, S* __restrict__ dst, float alpha, float beta) {
  constexpr int V = 8 / sizeof(S), kRows = tile_rows<ST>(), kInW = in_cols<ST>();
  const int cv = g.cv;
  const int q = q0 + qc, rows = min(kRows, g.DH - p0);
  if (q >= g.DW) return;
  float win[kK][kK][V];  // source rows pp * ST .. + 2 (tile row R in win[R % 3]), columns qc * ST .. + 2
  auto load_row = [&](float (&row)[kK][V], int r) { load_window_row<S, kInW, kK>(tile, r, qc * ST, v, cv, row); };
  load_row(win[0], 0);
  if constexpr (ST == 1) load_row(win[1], 1);
  auto* out = reinterpret_cast<uint2*>(dst + ((int64_t(n) * g.DH + p0) * g.DW + q) * g.C + c0);
  const int row_stride = g.DW * g.C / V;  // 8-byte vectors per destination row
#pragma unroll
  for (int pp = 0; pp < kRows; ++pp) {
    if (pp >= rows) break;
    if constexpr (ST == 2) load_row(win[(pp * 2 + 1) % kK], pp * 2 + 1);
    load_row(win[(pp * ST + 2) % kK], pp * ST + 2);
    float acc[V];
#pragma unroll
    for (int e = 0; e < V; ++e) acc[e] = 0.f;
#pragma unroll
    for (int r = 0; r < kK; ++r)  // the reference's order: r, then s
#pragma unroll
      for (int s = 0; s < kK; ++s)
#pragma unroll
        for (int e = 0; e < V; ++e) acc[e] = fmaf(wt[r][s][e], win[(pp * ST + r) % kK][s][e], acc[e]);
#pragma unroll
    for (int e = 0; e < V; ++e) acc[e] *= alpha;
    uint2* o = out + pp * row_stride;
    if (beta != 0.f) {
      float old[V];
      widen8<S>(*o, old);
#pragma unroll
      for (int e = 0; e < V; ++e) acc[e] = fmaf(beta, old[e], acc[e]);
    }
    *o = narrow8<S>(acc);
  }
}

// grid (chunks x tiles_w, tiles_h of tile_rows<ST>() rows, N), block (cv, kTW); ST: the stride; LEAN: the tile
// staged by stage_tile8_lean (depthwise_tile.cuh, the default), else by stage_tile8.
template <class S, int ST, bool LEAN>
__global__ void __launch_bounds__(kMaxThreads, 4)
    dw_tile_s1_kernel(TileGeom g, const S* __restrict__ src, const S* __restrict__ w, S* __restrict__ dst,
                      float alpha, float beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int V = 8 / sizeof(S), kRows = tile_rows<ST>(), kInH = in_rows<ST>(), kInW = in_cols<ST>();
  __shared__ __align__(16) uint2 tile[kInH * kInW * kMaxVecs];  // [row][column][vector of the chunk]
  const int v = threadIdx.x, qc = threadIdx.y, cv = g.cv;
  const int chunk = blockIdx.x % g.chunks, tw = blockIdx.x / g.chunks;
  const int p0 = blockIdx.y * kRows, q0 = tw * kTW, n = blockIdx.z;
  const int c0 = (chunk * cv + v) * V;  // this thread's channels
  const int cbase = chunk * cv * V;     // the chunk's first channel

  const S* plane = src + int64_t(n) * g.SH * g.SW * g.C + cbase + v * V;
  if constexpr (LEAN)
    stage_tile8_lean<S, kInH, kInW, kTW>(tile, plane, g.SH, g.SW, g.C, p0 * ST - g.ph, q0 * ST - g.pw, qc, v, cv);
  else
    stage_tile8<S, kInH, kInW, kTW>(tile, plane, src, g.SH, g.SW, g.C, p0 * ST - g.ph, q0 * ST - g.pw, qc, v, cv);
  cp_async_commit();

  float wt[kK][kK][V];  // loaded while the tile is in flight
  load_depthwise_taps(w, c0, g.ws_k, g.ws_r, g.ws_s, g.flip, wt);
  cp_async_wait<0>();
  __syncthreads();

  tile_outputs<S, ST>(g, tile, wt, qc, v, p0, q0, n, c0, dst, alpha, beta);
  pdl_allow_dependents();
}

// The same tile loaded by the tensor memory accelerator (sm_90 and later; FREEDNN_DW_TILE_TMA=0 keeps cp.async):
// one thread queues the whole (in_rows x in_cols x cv-vector) box, zeros outside the image, on an mbarrier that
// every thread then waits on. Why: the cp.async staging is about a third of the instructions of these kernels
// (run 17's SASS) and ncu had the stride-1 kernel at 66 % of the SMs' issue rate. The box lands in the cp.async
// layout, so the walk is the same code. Needs cv even (16-byte box rows) and C * the element size a multiple of 16.
// Run 30 (H100, MobileNet-v2): the cp.async staging took 1.03-1.20x this kernel's time on every layer it serves.
template <class S, int ST>
__global__ void __launch_bounds__(kMaxThreads, 4)
    dw_tile_tma_kernel(TileGeom g, const __grid_constant__ CUtensorMap src_map, const S* __restrict__ w,
                       S* __restrict__ dst, float alpha, float beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int V = 8 / sizeof(S), kRows = tile_rows<ST>(), kInH = in_rows<ST>(), kInW = in_cols<ST>();
  __shared__ __align__(128) uint2 tile[kInH * kInW * kMaxVecs];  // [row][column][vector of the chunk]
  __shared__ __align__(8) uint64_t bar;
  const int v = threadIdx.x, qc = threadIdx.y, cv = g.cv;
  const int chunk = blockIdx.x % g.chunks, tw = blockIdx.x / g.chunks;
  const int p0 = blockIdx.y * kRows, q0 = tw * kTW, n = blockIdx.z;
  const int c0 = (chunk * cv + v) * V, cbase = chunk * cv * V;
  const uint32_t b = shared_addr(&bar);
  const bool leader = threadIdx.x == 0 && threadIdx.y == 0;
  if (leader) {
    mbar_init(b, 1);
    mbar_init_fence();
  }
  __syncthreads();  // initialized before anyone waits on it
  if (leader) {
    mbar_arrive_expect_tx(b, uint32_t(kInH * kInW * cv * 8));
    tma_load_4d(shared_addr(tile), &src_map, b, cbase, q0 * ST - g.pw, p0 * ST - g.ph, n);
  }
  float wt[kK][kK][V];  // loaded while the tile is in flight
  load_depthwise_taps(w, c0, g.ws_k, g.ws_r, g.ws_s, g.flip, wt);
  mbar_wait(b, 0);
  tile_outputs<S, ST>(g, tile, wt, qc, v, p0, q0, n, c0, dst, alpha, beta);
#elif defined(__CUDA_ARCH__)
  __trap();  // no sm_90 code: DeviceInfo::sm90_code keeps the host from launching it
#endif
  pdl_allow_dependents();
}

TileGeom tile_geom(const ConvProblem& p) {
  TileGeom g;
  const bool bwd = p.dir == fd::ConvDir::bwd_data;
  g.C = static_cast<int>(p.ic);
  g.SH = static_cast<int>(bwd ? p.oh : p.ih), g.SW = static_cast<int>(bwd ? p.ow : p.iw);
  g.DH = static_cast<int>(bwd ? p.ih : p.oh), g.DW = static_cast<int>(bwd ? p.iw : p.ow);
  g.ph = static_cast<int>(bwd ? kK - 1 - p.ph : p.ph), g.pw = static_cast<int>(bwd ? kK - 1 - p.pw : p.pw);
  const int64_t nv = p.ic / (8 / static_cast<int64_t>(dtype_size(p.xdt)));
  g.cv = largest_divisor_upto(nv, kMaxVecs);
  g.chunks = static_cast<int>(nv / g.cv);
  g.tiles_w = (g.DW + kTW - 1) / kTW;
  const cudnnTensorStruct& wt = p.w->as_tensor;  // (k, c, r, s)
  g.ws_k = wt.strides[0], g.ws_r = wt.strides[2], g.ws_s = wt.strides[3];
  g.flip = (p.mode == CUDNN_CONVOLUTION) != bwd;
  return g;
}

template <class S, int ST, bool LEAN>
void launch(const ConvProblem& p, const TileGeom& g, const ConvArgs& a) {
  constexpr int rows = tile_rows<ST>();
  const dim3 grid(static_cast<unsigned>(g.chunks * g.tiles_w), static_cast<unsigned>((g.DH + rows - 1) / rows),
                  static_cast<unsigned>(p.mb));
  const dim3 block(static_cast<unsigned>(g.cv), kTW);
  (void)launch_pdl(ops_pdl(a.handle->device), dw_tile_s1_kernel<S, ST, LEAN>, grid, block, 0, a.handle->stream, g,
                   static_cast<const S*>(a.in), static_cast<const S*>(a.in2), static_cast<S*>(a.out),
                   static_cast<float>(a.alpha), static_cast<float>(a.beta));
}

// Whether the TMA kernel applies: FREEDNN_DW_TILE_TMA unless 0 (read at every call), a 9.0 or later device running
// its sm_90 code, cv even, 16-byte map strides and source.
template <class S, int ST>
bool tma_form(const TileGeom& g, const ConvArgs& a) {
  return fd::env_string("FREEDNN_DW_TILE_TMA") != "0" && g.cv % 2 == 0 && (g.C * sizeof(S)) % 16 == 0 &&
         aligned16(a.in) && device_info(a.handle->device).sm90_code;
}

// The TMA kernel where tma_form says so; NOT_SUPPORTED (nothing queued) otherwise, or where the driver refuses the
// map: the caller then launches the cp.async kernel.
template <class S, int ST>
cudnnStatus_t launch_tma(const ConvProblem& p, const TileGeom& g, const ConvArgs& a) {
  if (!tma_form<S, ST>(g, a)) return CUDNN_STATUS_NOT_SUPPORTED;
  constexpr int rows = tile_rows<ST>();
  CUtensorMap map;
  FD_TRY(encode_nhwc_map(&map, a.in, p.xdt, p.mb, g.SH, g.SW, g.C, uint32_t(g.cv * 8 / sizeof(S)),
                         uint32_t(in_cols<ST>()), uint32_t(in_rows<ST>()), CU_TENSOR_MAP_SWIZZLE_NONE,
                         "cuda:depthwise"));
  const dim3 grid(static_cast<unsigned>(g.chunks * g.tiles_w), static_cast<unsigned>((g.DH + rows - 1) / rows),
                  static_cast<unsigned>(p.mb));
  const dim3 block(static_cast<unsigned>(g.cv), kTW);
  (void)launch_pdl(ops_pdl(a.handle->device), dw_tile_tma_kernel<S, ST>, grid, block, 0, a.handle->stream, g, map,
                   static_cast<const S*>(a.in2), static_cast<S*>(a.out), static_cast<float>(a.alpha),
                   static_cast<float>(a.beta));
  return CUDNN_STATUS_SUCCESS;
}

// The cp.async form at stride 2 on outputs larger than 14 x 14 only where FREEDNN_DW_TILE_S2=1 forces it: there it
// measured slower than the walk (run 18, H200: 1.20x the walk's time at 56 x 56, 1.34x at 28 x 28), while the TMA
// form is faster on every size (run 31, MobileNet-v2 f16 on an H100: 0.86x at 56 x 56, 0.89x at 28 x 28, 1.00 at
// 14 x 14 and 7 x 7; run 18: the cp.async form 0.79x at 14 x 14, 0.94x at 7 x 7).
bool cp_async_form_wanted(const ConvProblem& p) {
  return p.sh == 1 || p.oh * p.ow <= 14 * 14 || fd::env_string("FREEDNN_DW_TILE_S2") == "1";
}

// The TMA form where it applies, else the cp.async form where that is wanted, else NOT_SUPPORTED with nothing queued.
template <class S>
cudnnStatus_t launch(const ConvProblem& p, const TileGeom& g, const ConvArgs& a) {
  const cudnnStatus_t st = p.sh == 2 ? launch_tma<S, 2>(p, g, a) : launch_tma<S, 1>(p, g, a);
  if (st != CUDNN_STATUS_NOT_SUPPORTED) return st;
  if (!cp_async_form_wanted(p)) return CUDNN_STATUS_NOT_SUPPORTED;
  const bool lean = dw_tile_lean();
  if (p.sh == 2)
    lean ? launch<S, 2, true>(p, g, a) : launch<S, 2, false>(p, g, a);
  else
    lean ? launch<S, 1, true>(p, g, a) : launch<S, 1, false>(p, g, a);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

bool dw_tile_s1_wanted(const ConvProblem& p) {
  if (fd::env_string("FREEDNN_DW_TILE") == "0") return false;
  return p.sh == 1 || fd::env_string("FREEDNN_DW_TILE_S2") != "0";  // =0: stride 2 never takes this kernel
}

bool dw_tile_s1_covers(const ConvProblem& p, const ConvArgs& a) {
  if (p.dir == fd::ConvDir::bwd_filter || a.fused != nullptr || !dw_3x3_vec8_nhwc(p)) return false;
  if (p.w->as_tensor.nb_dims != 4 || p.wdt != p.xdt) return false;
  const bool s1 = p.sh == 1 && p.sw == 1, s2 = p.sh == 2 && p.sw == 2 && p.dir == fd::ConvDir::fwd;
  if (!s1 && !s2) return false;  // backward data at stride 2 is no correlation of dy
  if (p.mb > 65535 || (std::max(p.oh, p.ih) + tile_rows<2>() - 1) / tile_rows<2>() > 65535) return false;
  return aligned8(a.in) && aligned8(a.out);
}

cudnnStatus_t dw_tile_s1_run(const ConvProblem& p, const ConvArgs& a) {
  const TileGeom g = tile_geom(p);
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  FD_CHECK_SUPPORTED(with_tensor_core_storage(p.xdt, [&](auto s) { st = launch<decltype(s)>(p, g, a); }),
                     "cuda:depthwise tile kernel: no kernel for %s", dtype_short_name(p.xdt));
  FD_TRY(st);  // NOT_SUPPORTED where neither form is wanted: nothing queued, the caller goes on
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv
