// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:gemm_1x1's NCHW backward filter in TF32 on Hopper (sm_90a): dW (K x C) = sum over images n and pixels s of
// dy[n][k][s] * x[n][c][s]. Why: in NCHW the reduction runs over (n, s), two strides, so cuBLAS can only take it
// one image at a time (strided-batched GEMMs into partial-sum slots). Each image's K x C partial product is as large
// as its inputs, so the slots' writes and re-reads doubled the bytes: 14x14x256 -> 1024 at N = 64 moved ~190 MB for
// 64 MB of x and dy (0.094 ms on an H100, 17 % of the copy bandwidth; NVIDIA 0.104 ms).
// Here one GEMM walks the whole (n, s) range: both operands are K-major (s is contiguous in NCHW), as TF32 wgmma
// wants them. The tensor maps see dy as (s, k, n) and x as (s, c, n); a k-step is one image's 32 pixels (a 128-byte
// row per channel, the 128-byte swizzle), pixels past s are zeros from the map, so a step never spans two images.
// Block: one or two warpgroups along k (Tile below), each a 128 (k) x 128 (c) output tile as two m64n128
// accumulators, stages of the dy and x tiles on mbarriers (a "full" one the TMA completes, an "empty" one each
// warpgroup arrives on once the wgmma group that read the stage has completed); thread 0 refills a stage when it is
// empty. Grid: (tiles, slices): the slices cut the n x ceil(s / 32) k-steps into equal contiguous runs so that tiles
// x slices fill one wave; the tiles of a slice are adjacent in launch order, so they read the same x and dy rows at
// about the same time (L2 hits). Each block writes its tile's sums to partial[slice]; the caller adds the slices in
// order (deterministic). Bytes: x and dy about once from DRAM (re-read from L2 once per tile of the other operand),
// plus slices x K x C x 8 of partials (<= ~1/8 of the inputs on ResNet-50's layers).
#include "cuda/conv/wgrad1x1_tf32.h"

#include <algorithm>
#include <climits>
#include <string>

#include "core/env.h"
#include "core/status.h"
#include "cuda/common/cc90.h"
#include "cuda/common/cp_async.cuh"
#include "cuda/common/cuda_util.h"
#include "cuda/common/tma.h"
#include "cuda/conv/wgmma.cuh"

namespace fd::cuda::conv {
namespace {

constexpr int kBN = 128, kBK = 32, kRowBytes = kBK * 4;  // a c tile of 128 channels; k-steps of 32 pixels
constexpr int64_t kSms = 132;  // an H100 / H200 (a constant: the workspace query, which has no device, gets the plan)
constexpr int64_t kMinStepsPerSlice = 16;  // the pipeline's fill and the tile's store, spread over enough steps

// The block: WM warpgroups along k (128 dy channels each, two m64n128 accumulators: 128 floats per thread) over one
// 128-channel c tile. WM = 2 would halve the times each x row is read (the one-warpgroup kernel is L2-bound: ncu,
// run 32 call 2, 14x14x1024 -> 256: L2 92 % busy, DRAM 42 %); registers allow no more than two warpgroups of
// accumulators per SM.
template <int WM>
struct Tile {
  static constexpr int kBM = 128 * WM, kThreads = 128 * WM;
  static constexpr int kStages = WM == 1 ? 3 : 4;
  static constexpr int kBlocksPerSm = WM == 1 ? 2 : 1;
  static constexpr int kABytes = kBM * kRowBytes, kStageBytes = kABytes + kBN * kRowBytes;
  static constexpr int kSmemBytes = 1024 + kStages * kStageBytes + 2 * kStages * 8;  // 1024: to align to 1 KB
};

struct Geom {
  int k = 0, c = 0, n_tiles = 1, wm = 1;
  int steps_per_image = 1;  // ceil(s / 32)
  int64_t steps = 0;        // n x steps_per_image
  int64_t per_slice = 1;
};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Warpgroups along k: 2 where k has more than one 128-row tile, else 1; FREEDNN_WGRAD1X1_WM=1 keeps one (read at
// every call). Run 33 call 1 (H100, ResNet-50's 1x1 backward filters): one warpgroup took 1.15-1.30x the time on
// the 14x14 layers and 1.20x on 28x28 -> 14x14 stride 2, 0.98-1.02x on the others (geomean 1.057).
int choose_wm(int64_t k) { return k > 128 && fd::env_string("FREEDNN_WGRAD1X1_WM") != "1" ? 2 : 1; }

Geom geom(int64_t n, int64_t c, int64_t k, int64_t s) {
  Geom g;
  g.k = int(k);
  g.c = int(c);
  g.wm = choose_wm(k);
  g.n_tiles = int(ceil_div(c, kBN));
  g.steps_per_image = int(ceil_div(s, kBK));
  g.steps = n * g.steps_per_image;
  // At most one wave: ceil instead of floor made 272 or 288 blocks of 264 on ResNet-50's 14x14 layers (run 32).
  const int64_t tiles = ceil_div(k, 128 * g.wm) * g.n_tiles;
  const int64_t target = kSms * (g.wm == 1 ? Tile<1>::kBlocksPerSm : Tile<2>::kBlocksPerSm);
  const int64_t want = std::clamp<int64_t>(target / tiles, 1, std::max<int64_t>(1, g.steps / kMinStepsPerSlice));
  g.per_slice = ceil_div(g.steps, want);
  return g;
}

template <int WM>
__global__ void __launch_bounds__(Tile<WM>::kThreads, Tile<WM>::kBlocksPerSm)
    wgrad1x1_tf32_kernel(Geom g, const __grid_constant__ CUtensorMap dy_map, const __grid_constant__ CUtensorMap x_map,
                         float* __restrict__ partial) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = Tile<WM>;
  constexpr int S = T::kStages;
  extern __shared__ __align__(128) unsigned char smem[];
  const int k0 = int(blockIdx.x) / g.n_tiles * T::kBM, c0 = int(blockIdx.x) % g.n_tiles * kBN;
  const int64_t t0 = int64_t(blockIdx.y) * g.per_slice, t1 = min(g.steps, t0 + g.per_slice);
  const uint32_t base = (shared_addr(smem) + 1023u) & ~1023u;
  const uint32_t full = base + uint32_t(S * T::kStageBytes), empty = full + uint32_t(S * 8);  // mbarriers per stage
  const int wg = int(threadIdx.x) / 128, tid = int(threadIdx.x) % 128;

  auto issue = [&](int64_t t, int slot) {  // thread 0: k-step t into stage `slot`
    const int n = int(t / g.steps_per_image), s0 = int(t % g.steps_per_image) * kBK;
    const uint32_t buf = base + uint32_t(slot * T::kStageBytes), bar = full + uint32_t(slot * 8);
    mbar_arrive_expect_tx(bar, T::kStageBytes);  // whole boxes land, zeros included
    tma_load_3d(buf, &dy_map, bar, s0, k0, n);
    tma_load_3d(buf + T::kABytes, &x_map, bar, s0, c0, n);
  };
  if (threadIdx.x == 0) {
    mbar_init_stages(full, S, 1);
    mbar_init_stages(empty, S, WM);  // one arrival per warpgroup
    mbar_init_fence();
#pragma unroll
    for (int s = 0; s < S - 1; ++s)
      if (t0 + s < t1) issue(t0 + s, s);
  }
  __syncthreads();  // the barriers are initialized before anyone waits on them

  float acc[2][64];
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int e = 0; e < 64; ++e) acc[h][e] = 0.f;

  for (int64_t t = t0; t < t1; ++t) {
    const int i = int(t - t0), slot = i % S;
    const uint32_t a = base + uint32_t(slot * T::kStageBytes + wg * 128 * kRowBytes);
    const uint32_t b = base + uint32_t(slot * T::kStageBytes + T::kABytes);
    mbar_wait(full + uint32_t(slot * 8), uint32_t((i / S) & 1));
    wgmma_fence();
#pragma unroll
    for (int j = 0; j < kBK / 8; ++j) {
      const uint64_t db = wgmma_desc_sw128(b + uint32_t(32 * j));
#pragma unroll
      for (int h = 0; h < 2; ++h)
        wgmma_m64n128k8_tf32(acc[h], wgmma_desc_sw128(a + uint32_t(h * 64 * kRowBytes + 32 * j)), db);
    }
    wgmma_commit();
    wgmma_wait<1>();  // this warpgroup's previous step has completed: it is done with that step's stage
    if (i >= 1 && tid == 0) mbar_arrive(empty + uint32_t(((i - 1) % S) * 8));
    if (threadIdx.x == 0 && t + S - 1 < t1) {  // refill that stage once every warpgroup is done with it
      const int r = (i + S - 1) % S;
      if (i >= 1) mbar_wait(empty + uint32_t(r * 8), uint32_t(((i - 1) / S) & 1));
      issue(t + S - 1, r);
    }
  }
  wgmma_wait<0>();

  // acc[h][4 j + e]: row (k) 128 wg + 64 h + 16 warp + lane / 4 (+ 8 for e >= 2), column (c) 8 j + 2 (lane % 4)
  // (+ 1 for odd e); warp and lane within the warpgroup.
  const int lane = tid & 31, warp = tid >> 5;
  float* out = partial + int64_t(blockIdx.y) * g.k * g.c;
  const bool pairs = g.c % 2 == 0;
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = k0 + 128 * wg + 64 * h + 16 * warp + lane / 4 + 8 * half;
      if (row >= g.k) continue;
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        const int col = c0 + 8 * j + 2 * (lane % 4);
        const float v0 = acc[h][4 * j + 2 * half], v1 = acc[h][4 * j + 2 * half + 1];
        float* dst = out + int64_t(row) * g.c + col;
        if (pairs && col + 1 < g.c) {
          *reinterpret_cast<float2*>(dst) = make_float2(v0, v1);
        } else {
          if (col < g.c) dst[0] = v0;
          if (col + 1 < g.c) dst[1] = v1;
        }
      }
    }
#elif defined(__CUDA_ARCH__)
  __trap();  // built without sm_90a features: wgrad1x1_tf32_wanted keeps the host from launching it
#endif
}

// A map over an NCHW float tensor of n images x rows channels x s pixels, dims (s, rows, n), 32 x box_rows x 1 boxes.
cudnnStatus_t encode_rows_map(CUtensorMap* map, const float* base, int64_t n, int64_t rows, int64_t s, int box_rows) {
  const uint64_t dims[3] = {uint64_t(s), uint64_t(rows), uint64_t(n)};
  const uint64_t strides[2] = {uint64_t(s) * 4, uint64_t(s * rows) * 4};
  const uint32_t box[3] = {uint32_t(kBK), uint32_t(box_rows), 1};
  return encode_tma_map(map, base, CUDNN_DATA_FLOAT, 3, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B,
                        "cuda:gemm_1x1 tf32 backward filter");
}

}  // namespace

int64_t wgrad1x1_tf32_slices(int64_t n, int64_t c, int64_t k, int64_t s) {
  if (n < 1 || c < 1 || k < 1 || s < 1 || s % 4 != 0) return 0;
  if (s > INT_MAX / 2 || c > INT_MAX / 2 || k > INT_MAX / 2 || n > INT_MAX / 2) return 0;
  if (ceil_div(k, 128) * ceil_div(c, kBN) > INT_MAX || n * ceil_div(s, kBK) > INT64_MAX / 2) return 0;
  const Geom g = geom(n, c, k, s);
  return ceil_div(g.steps, g.per_slice);
}

bool wgrad1x1_tf32_wanted(int device) {
  if (fd::env_string("FREEDNN_WGRAD1X1_WGMMA") == "0") return false;
#if defined(FREEDNN_BUILD_SM90A)
  return is_cc90(device);
#else
  (void)device;
  return false;
#endif
}

cudnnStatus_t wgrad1x1_tf32_run(cudaStream_t stream, int device, const float* x, const float* dy, int64_t n, int64_t c,
                                int64_t k, int64_t s, int64_t slices, float* partial) {
  // The plan's slices sized `partial`; a plan made now must agree (FREEDNN_WGRAD1X1_WM may have changed since).
  const Geom g = geom(n, c, k, s);
  FD_CHECK_SUPPORTED(slices > 0 && slices <= 65535 && ceil_div(g.steps, g.per_slice) == slices,
                     "cuda:gemm_1x1 tf32 backward filter: the plan of n %lld c %lld k %lld s %lld differs from the "
                     "workspace query's", (long long)n, (long long)c, (long long)k, (long long)s);
  CUtensorMap dy_map, x_map;
  FD_TRY(encode_rows_map(&dy_map, dy, n, k, s, 128 * g.wm));
  FD_TRY(encode_rows_map(&x_map, x, n, c, s, kBN));
  const dim3 grid(unsigned(ceil_div(k, 128 * g.wm) * g.n_tiles), unsigned(slices));
  auto launch = [&](auto kernel, auto tile) {
    using T = decltype(tile);
    FD_TRY(allow_dynamic_smem(reinterpret_cast<const void*>(kernel), T::kSmemBytes, device));
    kernel<<<grid, T::kThreads, T::kSmemBytes, stream>>>(g, dy_map, x_map, partial);
    return CUDNN_STATUS_SUCCESS;
  };
  FD_TRY(g.wm == 2 ? launch(wgrad1x1_tf32_kernel<2>, Tile<2>{}) : launch(wgrad1x1_tf32_kernel<1>, Tile<1>{}));
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv
