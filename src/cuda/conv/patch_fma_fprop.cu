// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:patch_fma_fprop: cuda:patch_fprop's forward for few input channels on float FMA (CUDA cores): the math type
// CUDNN_FMA_MATH, or NVIDIA_TF32_OVERRIDE=0. The block stages the same input patch (patch_input.cuh) per tile of
// 16 x 16 output pixels and the filter tile (C * R * S x 64 output channels) once; warp w computes output channels
// 8w .. 8w + 7 for all 256 pixels, lane l the pixels l + 32 i (i < 8): per GEMM-k, 8 patch reads and two float4
// filter reads (the same for the whole warp: broadcast) feed 64 FMAs. No padding of the GEMM-K.
#include <algorithm>
#include <cstdint>

#include "core/dtype.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/index.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/impls.h"
#include "cuda/conv/patch_input.cuh"

namespace fd::cuda::conv {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr int kThreads = 256;
constexpr int kTileK = 64;          // output channels per block (blockIdx.y)
constexpr int kMaxGemmK = 256;      // C * R * S
constexpr size_t kMaxSmem = 160 * 1024;

struct FmaGeom {
  InputPatch in;
  int64_t N = 0, K = 0, P = 0, Q = 0;
  int tiles_p = 1, tiles_q = 1, kg = 0;
  View5 wv, yv;
  bool flip = false;
  bool y_vec = false;  // y's channels contiguous, 16-byte aligned groups of 8: two float4 stores per pixel
};

// Shared memory: the filter tile [kg][64] floats, the k-offset table, the patch and its zero region.
__host__ __device__ inline size_t table_offset(const FmaGeom& g) { return size_t(g.kg) * kTileK * 4; }
__host__ __device__ inline size_t patch_offset(const FmaGeom& g) {
  return (table_offset(g) + size_t(g.kg) * 4 + 15) / 16 * 16;
}
__host__ __device__ inline size_t smem_bytes(const FmaGeom& g) {
  return patch_offset(g) + (size_t(g.in.elems) + g.in.zero_elems) * 4;
}

__global__ void __launch_bounds__(kThreads, 2)
    patch_fma_fprop_kernel(FmaGeom g, const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                           float alpha, float beta, FusedDev fused, int64_t tiles) {
  extern __shared__ __align__(16) unsigned char smem[];
  float* bs = reinterpret_cast<float*>(smem);
  int* table = reinterpret_cast<int*>(smem + table_offset(g));
  float* patch = reinterpret_cast<float*>(smem + patch_offset(g));
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int64_t k0 = int64_t(blockIdx.y) * kTileK;
  const InputPatch& in = g.in;
  const bool fused_on = fused.on;  // read once: the called fused epilogue takes fused's address

  // The filter tile: row k = (r * S + s) * C + c of the effective (flipped for CUDNN_CONVOLUTION) filter, 64 output
  // channels per row (zero past K).
  for (int i = tid; i < g.kg * kTileK; i += kThreads) {
    const int k = i / kTileK, n = i - k * kTileK;
    const int rs = k / int(in.C), c = k - rs * int(in.C), r = rs / in.S, s = rs - r * in.S;
    bs[i] = k0 + n < g.K ? w[g.wv.at(k0 + n, c, 0, g.flip ? in.R - 1 - r : r, g.flip ? in.S - 1 - s : s)] : 0.f;
  }
  for (int k = tid; k < g.kg; k += kThreads) table[k] = in.tap_offset(k);
  zero_patch_tail<float, kThreads>(in, patch);
  int base[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) base[i] = in.pixel_base(2 * i + (lane >> 4), lane & 15);

  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t tq_i = tile % g.tiles_q, rest = tile / g.tiles_q;
    const int64_t tp_i = rest % g.tiles_p, n = rest / g.tiles_p;
    const int64_t p0 = tp_i * kPatchTileP, q0 = tq_i * kPatchTileQ;
    __syncthreads();
    stage_input_patch<float, kThreads, 9, float>(in, x, patch, n, p0, q0);  // raw floats: no TF32 rounding
    __syncthreads();

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
    const float4* brow = reinterpret_cast<const float4*>(bs) + warp * 2;
#pragma unroll 2
    for (int k = 0; k < g.kg; ++k) {
      const int off = table[k];
      const float4 b0 = brow[k * (kTileK / 4)], b1 = brow[k * (kTileK / 4) + 1];
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const float a = patch[base[i] + off];
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a, b[j], acc[i][j]);
      }
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int64_t p = p0 + 2 * i + (lane >> 4), q = q0 + (lane & 15);
      if (p >= g.P || q >= g.Q) continue;
      const int64_t pix = n * g.yv.st[0] + p * g.yv.st[3] + q * g.yv.st[4];
      const int64_t c0 = k0 + warp * 8;
      if (g.y_vec) {
        if (c0 >= g.K) continue;
        float4* dst = reinterpret_cast<float4*>(y + pix + c0);
        float4 v0 = make_float4(alpha * acc[i][0], alpha * acc[i][1], alpha * acc[i][2], alpha * acc[i][3]);
        float4 v1 = make_float4(alpha * acc[i][4], alpha * acc[i][5], alpha * acc[i][6], alpha * acc[i][7]);
        if (beta != 0.f) {
          const float4 o0 = dst[0], o1 = dst[1];
          v0.x += beta * o0.x, v0.y += beta * o0.y, v0.z += beta * o0.z, v0.w += beta * o0.w;
          v1.x += beta * o1.x, v1.y += beta * o1.y, v1.z += beta * o1.z, v1.w += beta * o1.w;
        }
        dst[0] = v0;
        dst[1] = v1;
      } else {
        // The fused form as one called copy (inlined at these 64 stores it made the kernel 28k instructions;
        // run 41), the plain one inline.
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          if (c0 + j >= g.K) continue;
          const int64_t off = pix + (c0 + j) * g.yv.st[1];
          if (fused_on)
            write_out_called(y, off, acc[i][j], alpha, beta, fused, n, c0 + j, int64_t(0), p, q);
          else
            write_out(y, off, acc[i][j], alpha, beta, FusedDev{}, n, c0 + j, int64_t(0), p, q);
        }
      }
    }
  }
}

bool make_geom(const ConvProblem& p, FmaGeom* out, const char** why) {
  FmaGeom g;
  if (!make_input_patch(p, &g.in, why)) return false;
  g.N = p.mb, g.K = p.oc, g.P = p.oh, g.Q = p.ow;
  g.tiles_p = int((g.P + kPatchTileP - 1) / kPatchTileP);
  g.tiles_q = int((g.Q + kPatchTileQ - 1) / kPatchTileQ);
  g.kg = int(p.ic * p.kh * p.kw);
  if (g.kg > kMaxGemmK) {
    *why = "C * R * S is above 256 (the filter tile would not fit in shared memory)";
    return false;
  }
  g.wv = view5(p.w->as_tensor);
  g.yv = view5(*p.y);
  g.flip = p.mode == CUDNN_CONVOLUTION;
  if (smem_bytes(g) > patch_smem_budget(kMaxSmem)) {
    *why = "the input patch and filter tile exceed the shared memory budget (strides or dilations too large)";
    return false;
  }
  *out = g;
  return true;
}

cudnnStatus_t launch(const ConvProblem& p, const ConvArgs& a) {
  FmaGeom g;
  const char* why = "";
  FD_CHECK_SUPPORTED(make_geom(p, &g, &why), "cuda:patch_fma_fprop: %s", why);
  g.y_vec = a.fused == nullptr && g.yv.st[1] == 1 && g.K % 8 == 0 && g.yv.st[0] % 4 == 0 && g.yv.st[3] % 4 == 0 &&
            g.yv.st[4] % 4 == 0 && aligned16(a.out);
  cudnnContext* h = a.handle;
  const size_t smem = smem_bytes(g);
  const void* kernel = reinterpret_cast<const void*>(&patch_fma_fprop_kernel);
  FD_TRY(allow_dynamic_smem(kernel, smem, h->device));
  const int64_t tiles = g.N * g.tiles_p * g.tiles_q;
  const dim3 grid(static_cast<unsigned>(resident_grid(kernel, tiles, 1, kThreads, smem, h->device)),
                  static_cast<unsigned>((g.K + kTileK - 1) / kTileK));
  patch_fma_fprop_kernel<<<grid, kThreads, smem, h->stream>>>(
      g, static_cast<const float*>(a.in), static_cast<const float*>(a.in2), static_cast<float*>(a.out),
      static_cast<float>(a.alpha), static_cast<float>(a.beta), fused_dev(a.fused), tiles);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

class PatchFmaFprop final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cuda:patch_fma_fprop"; }
  fd::Backend backend() const override { return fd::Backend::cuda; }
  bool serves(ConvDir dir, int algo) const override {
    return dir == ConvDir::fwd &&
           (algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
  }
  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    auto no = [](const char* why) { return fd::conv::Verdict{CUDNN_STATUS_NOT_SUPPORTED, why}; };
    if (const char* why = patch_refusal(p, ConvDir::fwd, 8, true)) return no(why);
    FmaGeom g;
    const char* why = "";
    if (!make_geom(p, &g, &why)) return no(why);
    return {};
  }
  size_t workspace_size(const ConvProblem&) const override { return 0; }
  bool deterministic() const override { return true; }
  cudnnMathType_t math_type(const ConvProblem&) const override { return CUDNN_FMA_MATH; }
  double cost_estimate(const ConvProblem& p) const override {
    // FMA work on 16 x 16-pixel tiles x 64 output channels at about 60 % of the H200's ~67 TFLOP/s, plus x (patch
    // halo ~1.4x) and y once.
    return patch_tile_cost(p, 1, 4, 40e12, 5e-6);
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:patch_fma_fprop called without a handle");
    return launch(p, a);
  }
};

}  // namespace

const fd::conv::ConvImpl* patch_fma_fprop_impl() {
  static const PatchFmaFprop impl;
  return &impl;
}

}  // namespace fd::cuda::conv
