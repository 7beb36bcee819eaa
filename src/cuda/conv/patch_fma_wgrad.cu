// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:patch_fma_wgrad: cuda:patch_wgrad's backward filter for few input channels on float FMA (CUDA cores): the
// math type CUDNN_FMA_MATH, or NVIDIA_TF32_OVERRIDE=0. Each block walks tiles of 16 x 16 output pixels with the tile's
// dy (64 channels, [pixel][channel]) and input patch (patch_input.cuh) in shared memory; warp w owns dy channels
// 8w .. 8w + 7, lane l the dw columns l + 32 j: per pixel, two float4 dy reads (the same for the whole warp:
// broadcast) and one patch read per column feed 8 FMAs per column. Partial dw per block, added in block order
// (patch_dw_sum.cuh).
#include <algorithm>
#include <cstdint>

#include "core/dtype.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/impls.h"
#include "cuda/conv/patch_dw_sum.cuh"
#include "cuda/conv/patch_input.cuh"
#include "cuda/conv/pointer_check.h"

namespace fd::cuda::conv {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr int kThreads = 256;
constexpr int kPixels = kPatchTileP * kPatchTileQ;
constexpr int kMaxGemmN = 256;             // C * R * S
constexpr int kMaxCols = kMaxGemmN / 32;   // dw columns per lane
constexpr size_t kDyBytes = size_t(kPixels) * kDwTileK * 4;
constexpr size_t kMaxSmem = 160 * 1024;

struct FmaWgradGeom {
  InputPatch in;
  int64_t N = 0, K = 0, P = 0, Q = 0;
  int tiles_p = 1, tiles_q = 1, kg = 0, ncols = 0;
  View5 dyv, wv;
  bool flip = false;
  bool dy_vec = false;  // dy's channels contiguous and 16-byte aligned
};

__host__ __device__ inline size_t smem_bytes(const FmaWgradGeom& g) {
  return kDyBytes + (size_t(g.in.elems) + g.in.zero_elems) * 4;
}

// dy of tile (n, p0.., q0..), channels k0 .. k0 + 63, as [pixel][channel] floats; zero outside dy and past K.
__device__ __forceinline__ void stage_dy(const FmaWgradGeom& g, const float* __restrict__ dy, float* dys, int64_t n,
                                         int64_t p0, int64_t q0, int64_t k0) {
  const int tid = threadIdx.x;
  constexpr int kBatch = 4;  // the partial dw stays live: few registers
  if (g.dy_vec) {
    constexpr int kVpp = kDwTileK / 4, total = kPixels * kVpp;
    const float* dyn = dy + n * g.dyv.st[0] + k0;
    for (int i0 = 0; i0 < total; i0 += kThreads * kBatch) {
      float4 v[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = i0 + j * kThreads + tid, pix = i / kVpp, c4 = i % kVpp;
        const int64_t p = p0 + pix / kPatchTileQ, q = q0 + pix % kPatchTileQ;
        v[j] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (p < g.P && q < g.Q && k0 + c4 * 4 < g.K)
          v[j] = __ldg(reinterpret_cast<const float4*>(dyn + p * g.dyv.st[3] + q * g.dyv.st[4] + c4 * 4));
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j) reinterpret_cast<float4*>(dys)[i0 + j * kThreads + tid] = v[j];
    }
  } else {  // any strides: the pixel fastest (NCHW rows of 16 pixels read together)
    constexpr int total = kPixels * kDwTileK;
    for (int i0 = 0; i0 < total; i0 += kThreads * kBatch) {
      float v[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = i0 + j * kThreads + tid, pix = i % kPixels, kk = i / kPixels;
        const int64_t p = p0 + pix / kPatchTileQ, q = q0 + pix % kPatchTileQ, k = k0 + kk;
        v[j] = p < g.P && q < g.Q && k < g.K ? dy[n * g.dyv.st[0] + k * g.dyv.st[1] + p * g.dyv.st[3] + q * g.dyv.st[4]]
                                             : 0.f;
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = i0 + j * kThreads + tid;
        dys[(i % kPixels) * kDwTileK + i / kPixels] = v[j];
      }
    }
  }
}

__global__ void __launch_bounds__(kThreads, 2)
    patch_fma_wgrad_kernel(FmaWgradGeom g, const float* __restrict__ x, const float* __restrict__ dy,
                           float* __restrict__ partial, int64_t tiles) {
  extern __shared__ __align__(16) unsigned char smem[];
  float* dys = reinterpret_cast<float*>(smem);
  float* patch = reinterpret_cast<float*>(smem + kDyBytes);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t k0 = int64_t(blockIdx.y) * kDwTileK;
  zero_patch_tail<float, kThreads>(g.in, patch);
  int off[kMaxCols];
#pragma unroll
  for (int j = 0; j < kMaxCols; ++j) off[j] = lane + 32 * j < g.kg ? g.in.tap_offset(lane + 32 * j) : 0;
  float acc[8][kMaxCols];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < kMaxCols; ++j) acc[i][j] = 0.f;
  const float4* dy4 = reinterpret_cast<const float4*>(dys) + warp * 2;

  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t tq_i = tile % g.tiles_q, rest = tile / g.tiles_q;
    const int64_t tp_i = rest % g.tiles_p, n = rest / g.tiles_p;
    const int64_t p0 = tp_i * kPatchTileP, q0 = tq_i * kPatchTileQ;
    __syncthreads();  // the previous tile's reads are done
    stage_input_patch<float, kThreads, 4, float>(g.in, x, patch, n, p0, q0);  // raw floats: no TF32 rounding
    stage_dy(g, dy, dys, n, p0, q0, k0);
    __syncthreads();
    const int rows = int(std::min<int64_t>(kPatchTileP, g.P - p0)), cols = int(std::min<int64_t>(kPatchTileQ, g.Q - q0));
    for (int s = 0; s < rows; ++s)
      for (int q = 0; q < cols; ++q) {
        const int pix = s * kPatchTileQ + q, base = g.in.pixel_base(s, q);
        const float4 d0 = dy4[pix * (kDwTileK / 4)], d1 = dy4[pix * (kDwTileK / 4) + 1];
        const float d[8] = {d0.x, d0.y, d0.z, d0.w, d1.x, d1.y, d1.z, d1.w};
#pragma unroll
        for (int j = 0; j < kMaxCols; ++j) {
          if (j >= g.ncols) break;
          const float a = patch[base + off[j]];
#pragma unroll
          for (int i = 0; i < 8; ++i) acc[i][j] = fmaf(d[i], a, acc[i][j]);
        }
      }
  }

  float* out = partial + (size_t(blockIdx.y) * gridDim.x + blockIdx.x) * kDwTileK * g.kg;
#pragma unroll
  for (int j = 0; j < kMaxCols; ++j) {
    const int col = lane + 32 * j;
    if (col >= g.kg) break;
#pragma unroll
    for (int i = 0; i < 8; ++i) out[size_t(warp * 8 + i) * g.kg + col] = acc[i][j];
  }
}

bool make_geom(const ConvProblem& p, FmaWgradGeom* out, const char** why) {
  FmaWgradGeom g;
  if (!make_input_patch(p, &g.in, why)) return false;
  g.N = p.mb, g.K = p.oc, g.P = p.oh, g.Q = p.ow;
  g.tiles_p = int((g.P + kPatchTileP - 1) / kPatchTileP);
  g.tiles_q = int((g.Q + kPatchTileQ - 1) / kPatchTileQ);
  g.kg = int(p.ic * p.kh * p.kw);
  if (g.kg > kMaxGemmN) {
    *why = "C * R * S is above 256 (the partial dw would not fit in registers)";
    return false;
  }
  g.ncols = (g.kg + 31) / 32;
  g.dyv = view5(*p.y);
  g.wv = view5(p.w->as_tensor);
  g.flip = p.mode == CUDNN_CONVOLUTION;
  if (smem_bytes(g) > patch_smem_budget(kMaxSmem)) {
    *why = "the input patch and dy tile exceed the shared memory budget (strides or dilations too large)";
    return false;
  }
  *out = g;
  return true;
}

DwPartials dw_partials(const FmaWgradGeom& g) {
  DwPartials d;
  d.in = g.in, d.K = g.K, d.kg = g.kg, d.ld = g.kg, d.wv = g.wv, d.flip = g.flip;
  return d;
}

cudnnStatus_t launch(const ConvProblem& p, const ConvArgs& a) {
  FmaWgradGeom g;
  const char* why = "";
  FD_CHECK_SUPPORTED(make_geom(p, &g, &why), "cuda:patch_fma_wgrad: %s", why);
  g.dy_vec = g.dyv.st[1] == 1 && g.K % 4 == 0 && g.dyv.st[0] % 4 == 0 && g.dyv.st[3] % 4 == 0 &&
             g.dyv.st[4] % 4 == 0 && aligned16(a.in2);
  cudnnContext* h = a.handle;
  const int64_t tiles = g.N * g.tiles_p * g.tiles_q;
  const size_t per_block = dw_partial_bytes_per_block(g.K, g.kg);
  const int64_t blocks = std::min<int64_t>(dw_partial_blocks(tiles, device_info(h->device).sm_count),
                                           int64_t(a.workspace_size / per_block));
  FD_CHECK(a.workspace != nullptr && blocks >= 1 && aligned16(a.workspace),
           CUDNN_STATUS_BAD_PARAM,
           "cuda:patch_fma_wgrad needs at least %zu bytes of 16-byte aligned workspace (got %zu)", per_block,
           a.workspace_size);
  auto* partial = static_cast<float*>(a.workspace);
  const size_t smem = smem_bytes(g);
  const void* kernel = reinterpret_cast<const void*>(&patch_fma_wgrad_kernel);
  FD_TRY(allow_dynamic_smem(kernel, smem, h->device));
  const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>((g.K + kDwTileK - 1) / kDwTileK));
  patch_fma_wgrad_kernel<<<grid, kThreads, smem, h->stream>>>(g, static_cast<const float*>(a.in),
                                                              static_cast<const float*>(a.in2), partial, tiles);
  FD_CUDA_LAUNCHED();
  return dw_sum<float>(h->stream, dw_partials(g), partial, int(blocks), a.out, a.alpha, a.beta);
}

class PatchFmaWgrad final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cuda:patch_fma_wgrad"; }
  // The workspace is checked with the pointers, so that an unaligned one hands the call on (conv::settle) instead
  // of failing in run().
  fd::conv::Verdict accepts_pointers(const ConvProblem&, const ConvArgs& a) const override {
    return need_aligned(id(), 16, "its per-block partial sums in 16-byte pieces", {{"workspace", a.workspace}});
  }
  fd::Backend backend() const override { return fd::Backend::cuda; }
  bool serves(ConvDir dir, int algo) const override {
    return dir == ConvDir::bwd_filter && algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
  }
  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    auto no = [](const char* why) { return fd::conv::Verdict{CUDNN_STATUS_NOT_SUPPORTED, why}; };
    if (!patch_fma_bwd_enabled()) return no("turned off with FREEDNN_PATCH_FMA_BWD=0");
    if (const char* why = patch_refusal(p, ConvDir::bwd_filter, 8, true)) return no(why);
    FmaWgradGeom g;
    const char* why = "";
    if (!make_geom(p, &g, &why)) return no(why);
    return {};
  }
  size_t workspace_size(const ConvProblem& p) const override {
    FmaWgradGeom g;
    const char* why = "";
    if (!make_geom(p, &g, &why)) return 0;
    return size_t(dw_partial_blocks(g.N * g.tiles_p * g.tiles_q, current_sm_count())) *
           dw_partial_bytes_per_block(g.K, g.kg);
  }
  bool deterministic() const override { return true; }  // fixed tiles per block, partials added in block order
  cudnnMathType_t math_type(const ConvProblem&) const override { return CUDNN_FMA_MATH; }
  double cost_estimate(const ConvProblem& p) const override {
    // FMA work on 16 x 16-pixel tiles x 64 dy channels x C * R * S at about half of the H200's ~67 TFLOP/s, plus x
    // (patch halo ~1.4x) and dy once.
    return patch_tile_cost(p, 1, 4, 33e12, 10e-6);
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:patch_fma_wgrad called without a handle");
    return launch(p, a);
  }
};

}  // namespace

const fd::conv::ConvImpl* patch_fma_wgrad_impl() {
  static const PatchFmaWgrad impl;
  return &impl;
}

}  // namespace fd::cuda::conv
