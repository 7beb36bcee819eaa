// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:patch_wgrad: the backward filter of layers with few input channels (the ResNet stem: dw is 64 x 3 x 7 x 7)
// on mma.sync tensor cores. dw = dy^T x im2col(x) has a GEMM-N of only C * R * S (147) and a reduction over every
// output pixel (800 000 at N = 64), which the implicit GEMMs cover with padded channel taps. Here each block walks
// tiles of 16 x 16 output pixels: it stages the tile's dy (64 channels, channels innermost: A fragments by
// ldmatrix.trans) and the input patch the tile reads (patch_input.cuh: B fragments gathered straight from it),
// and keeps its 64 x (C * R * S) partial dw in registers across tiles. Each block then writes its partial sums to
// the workspace and a second kernel adds them in block order (deterministic), with alpha / beta.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "core/dtype.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/index.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/impls.h"
#include "cuda/conv/mma_sync.cuh"
#include "cuda/conv/patch_dw_sum.cuh"
#include "cuda/conv/patch_input.cuh"
#include "cuda/conv/pointer_check.h"

namespace fd::cuda::conv {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr int kThreads = 256;         // 8 warps: warp w owns n8 tiles w, w + 8, ... of dw's columns, all 4 m16 tiles
constexpr int kTileK = kDwTileK;      // dy channels per block (blockIdx.y)
constexpr int kPixels = kPatchTileP * kPatchTileQ;
constexpr int kMaxGemmN = 256;        // C * R * S
constexpr int kMaxNt = kMaxGemmN / 8 / 8;  // n8 tiles per warp
constexpr size_t kMaxSmem = 160 * 1024;

struct WgradGeom {
  InputPatch in;
  int64_t N = 0, K = 0, P = 0, Q = 0;
  int tiles_p = 1, tiles_q = 1;
  int kg = 0, ntiles = 0;  // GEMM-N: C * R * S and its n8 tiles
  int dy_pitch = 0;        // bytes per pixel of the staged dy (conflict-free ldmatrix / scalar reads)
  View5 dyv, wv;
  bool flip = false;
  bool dy_vec = false;     // dy's channels contiguous and 16-byte aligned
  __host__ __device__ int ld() const { return ntiles * 8; }
};

__host__ __device__ inline size_t dy_bytes(const WgradGeom& g) { return size_t(kPixels) * g.dy_pitch; }
__host__ __device__ inline size_t smem_bytes(const WgradGeom& g, size_t es) {
  return (dy_bytes(g) + (size_t(g.in.elems) + g.in.zero_elems) * es + 15) / 16 * 16;
}

// dy of tile (n, p0.., q0..), channels k0 .. k0 + 63, as [pixel][channel] operand bits; zero outside dy and past
// K (out-of-range pixels must contribute nothing).
template <class S>
__device__ __forceinline__ void stage_dy(const WgradGeom& g, const S* __restrict__ dy, unsigned char* dys, int64_t n,
                                         int64_t p0, int64_t q0, int64_t k0) {
  const int tid = threadIdx.x;
  if (g.dy_vec) {
    constexpr int kV = 16 / int(sizeof(S)), kVpp = kTileK / kV, kBatch = 4;  // acc stays live: few registers
    constexpr int total = kPixels * kVpp;
    const S* dyn = dy + n * g.dyv.st[0] + k0;
    for (int i0 = 0; i0 < total; i0 += kThreads * kBatch) {
      uint4 bits[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = i0 + j * kThreads + tid, pix = i / kVpp, v = i % kVpp;
        const int64_t p = p0 + pix / kPatchTileQ, q = q0 + pix % kPatchTileQ;
        bits[j] = make_uint4(0, 0, 0, 0);
        if (p < g.P && q < g.Q && k0 + v * kV < g.K)
          bits[j] = __ldg(reinterpret_cast<const uint4*>(dyn + p * g.dyv.st[3] + q * g.dyv.st[4] + v * kV));
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = i0 + j * kThreads + tid;
        uint4 b = bits[j];
        if constexpr (sizeof(S) == 4) {  // round to TF32 once here, not per mma
          b.x = tf32_bits(__uint_as_float(b.x)), b.y = tf32_bits(__uint_as_float(b.y));
          b.z = tf32_bits(__uint_as_float(b.z)), b.w = tf32_bits(__uint_as_float(b.w));
        }
        *reinterpret_cast<uint4*>(dys + size_t(i / kVpp) * g.dy_pitch + size_t(i % kVpp) * 16) = b;
      }
    }
  } else {  // any strides: the pixel fastest (NCHW rows of 16 pixels read together)
    constexpr int kBatch = 4, total = kPixels * kTileK;
    for (int i0 = 0; i0 < total; i0 += kThreads * kBatch) {
      Bits<S> v[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = i0 + j * kThreads + tid, pix = i % kPixels, kk = i / kPixels;
        const int64_t p = p0 + pix / kPatchTileQ, q = q0 + pix % kPatchTileQ, k = k0 + kk;
        S x = zero_of<S>();
        if (p < g.P && q < g.Q && k < g.K)
          x = dy[n * g.dyv.st[0] + k * g.dyv.st[1] + p * g.dyv.st[3] + q * g.dyv.st[4]];
        v[j] = operand_bits(x);
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = i0 + j * kThreads + tid;
        *reinterpret_cast<Bits<S>*>(dys + size_t(i % kPixels) * g.dy_pitch + size_t(i / kPixels) * sizeof(S)) = v[j];
      }
    }
  }
}

template <class S>
__global__ void __launch_bounds__(kThreads, 2)
    patch_wgrad_kernel(WgradGeom g, const S* __restrict__ x, const S* __restrict__ dy, float* __restrict__ partial,
                       int64_t tiles) {
  extern __shared__ __align__(16) unsigned char smem[];
  unsigned char* dys = smem;
  Bits<S>* patch = reinterpret_cast<Bits<S>*>(smem + dy_bytes(g));
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, gq = lane >> 2, tq = lane & 3;
  const int64_t k0 = int64_t(blockIdx.y) * kTileK;
  zero_patch_tail<Bits<S>, kThreads>(g.in, patch);

  // This warp's n8 tiles and the patch offset of the dw column (gq of each) the thread gathers B values for.
  int offn[kMaxNt];
#pragma unroll
  for (int j = 0; j < kMaxNt; ++j) {
    const int col = (warp + 8 * j) * 8 + gq;
    offn[j] = col < g.kg ? g.in.tap_offset(col) : 0;
  }
  float acc[4][kMaxNt][4];
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int j = 0; j < kMaxNt; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][j][e] = 0.f;
  // ldmatrix.trans (16-bit): lane supplies pixel (lane / 8 / 2) * 8 + lane % 8 of a row, channel half lane / 8 % 2.
  const uint32_t a_lane = shared_addr(dys) + uint32_t((((lane >> 4) * 8) + (lane & 7)) * g.dy_pitch) +
                          uint32_t(((lane >> 3) & 1) * 16);

  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t tq_i = tile % g.tiles_q, rest = tile / g.tiles_q;
    const int64_t tp_i = rest % g.tiles_p, n = rest / g.tiles_p;
    const int64_t p0 = tp_i * kPatchTileP, q0 = tq_i * kPatchTileQ;
    __syncthreads();  // the previous tile's reads are done
    stage_input_patch<S, kThreads, 4>(g.in, x, patch, n, p0, q0);
    stage_dy<S>(g, dy, dys, n, p0, q0, k0);
    __syncthreads();
    const int rows = int(std::min<int64_t>(kPatchTileP, g.P - p0)), cols = int(std::min<int64_t>(kPatchTileQ, g.Q - q0));
    // Pixel base in the patch of column qq of row s, or the zero region for a pixel past Q.
    auto base_of = [&](int s, int qq) { return qq < cols ? g.in.pixel_base(s, qq) : g.in.zero_base(); };
    for (int s = 0; s < rows; ++s) {
      if constexpr (sizeof(S) == 2) {  // one k-step of 16 pixels: row s
        const int b0 = base_of(s, 2 * tq), b1 = base_of(s, 2 * tq + 1), b2 = base_of(s, 2 * tq + 8),
                  b3 = base_of(s, 2 * tq + 9);
        uint32_t bx[kMaxNt], by[kMaxNt];  // B first (shared by the 4 m16 tiles), then one A tile at a time
#pragma unroll
        for (int j = 0; j < kMaxNt; ++j) {
          if (warp + 8 * j >= g.ntiles) break;
          bx[j] = uint32_t(patch[b0 + offn[j]]) | uint32_t(patch[b1 + offn[j]]) << 16;
          by[j] = uint32_t(patch[b2 + offn[j]]) | uint32_t(patch[b3 + offn[j]]) << 16;
        }
#pragma unroll
        for (int mt = 0; mt < 4; ++mt) {
          uint32_t a[4];
          ldmatrix_x4_trans(a, a_lane + uint32_t(s * kPatchTileQ * g.dy_pitch + mt * 32));
#pragma unroll
          for (int j = 0; j < kMaxNt; ++j) {
            if (warp + 8 * j >= g.ntiles) break;
            mma<S>(acc[mt][j], a, bx[j], by[j]);
          }
        }
      } else {  // TF32: two k-steps of 8 pixels per row; A read as scalars (ldmatrix cannot transpose 32-bit)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int q = half * 8 + tq;
          const int b0 = base_of(s, q), b1 = base_of(s, q + 4);
          const unsigned char* arow = dys + size_t(s * kPatchTileQ + q) * g.dy_pitch;
          uint32_t bx[kMaxNt], by[kMaxNt];
#pragma unroll
          for (int j = 0; j < kMaxNt; ++j) {
            if (warp + 8 * j >= g.ntiles) break;
            bx[j] = patch[b0 + offn[j]], by[j] = patch[b1 + offn[j]];
          }
#pragma unroll
          for (int mt = 0; mt < 4; ++mt) {
            const int c = (mt * 16 + gq) * 4;
            const uint32_t a[4] = {*reinterpret_cast<const uint32_t*>(arow + c),
                                   *reinterpret_cast<const uint32_t*>(arow + c + 32),
                                   *reinterpret_cast<const uint32_t*>(arow + 4 * g.dy_pitch + c),
                                   *reinterpret_cast<const uint32_t*>(arow + 4 * g.dy_pitch + c + 32)};
#pragma unroll
            for (int j = 0; j < kMaxNt; ++j) {
              if (warp + 8 * j >= g.ntiles) break;
              mma<S>(acc[mt][j], a, bx[j], by[j]);
            }
          }
        }
      }
    }
  }

  // Partial sums of this block: [blockIdx.y][blockIdx.x][channel 0..63][column], rows gq / gq + 8, columns 2tq, +1.
  float* out = partial + (size_t(blockIdx.y) * gridDim.x + blockIdx.x) * kTileK * g.ld();
#pragma unroll
  for (int j = 0; j < kMaxNt; ++j) {
    if (warp + 8 * j >= g.ntiles) break;
    const int col = (warp + 8 * j) * 8 + 2 * tq;
#pragma unroll
    for (int mt = 0; mt < 4; ++mt) {
      const int ch = mt * 16 + gq;
      *reinterpret_cast<float2*>(out + size_t(ch) * g.ld() + col) = make_float2(acc[mt][j][0], acc[mt][j][1]);
      *reinterpret_cast<float2*>(out + size_t(ch + 8) * g.ld() + col) = make_float2(acc[mt][j][2], acc[mt][j][3]);
    }
  }
}

bool make_geom(const ConvProblem& p, size_t es, WgradGeom* out, const char** why) {
  WgradGeom g;
  if (!make_input_patch(p, &g.in, why)) return false;
  g.N = p.mb, g.K = p.oc, g.P = p.oh, g.Q = p.ow;
  g.tiles_p = int((g.P + kPatchTileP - 1) / kPatchTileP);
  g.tiles_q = int((g.Q + kPatchTileQ - 1) / kPatchTileQ);
  g.kg = int(p.ic * p.kh * p.kw);
  if (g.kg > kMaxGemmN) {
    *why = "C * R * S is above 256 (the partial dw would not fit in registers)";
    return false;
  }
  g.ntiles = (g.kg + 7) / 8;
  g.dy_pitch = es == 2 ? kTileK * 2 + 16 : kTileK * 4 + 32;
  g.dyv = view5(*p.y);
  g.wv = view5(p.w->as_tensor);
  g.flip = p.mode == CUDNN_CONVOLUTION;
  if (smem_bytes(g, es) > patch_smem_budget(kMaxSmem)) {
    *why = "the input patch and dy tile exceed the shared memory budget (strides or dilations too large)";
    return false;
  }
  *out = g;
  return true;
}

DwPartials dw_partials(const WgradGeom& g) {
  DwPartials d;
  d.in = g.in, d.K = g.K, d.kg = g.kg, d.ld = g.ld(), d.wv = g.wv, d.flip = g.flip;
  return d;
}

template <class S>
cudnnStatus_t launch(const ConvProblem& p, const ConvArgs& a) {
  WgradGeom g;
  const char* why = "";
  FD_CHECK_SUPPORTED(make_geom(p, sizeof(S), &g, &why), "cuda:patch_wgrad: %s", why);
  const int64_t V = 16 / int64_t(sizeof(S));
  g.dy_vec = g.dyv.st[1] == 1 && g.K % V == 0 && g.dyv.st[0] % V == 0 && g.dyv.st[3] % V == 0 &&
             g.dyv.st[4] % V == 0 && aligned16(a.in2);
  cudnnContext* h = a.handle;
  // The workspace query sized the partials for this device's SM count; a smaller workspace means fewer blocks.
  const size_t per_block = dw_partial_bytes_per_block(g.K, g.ld());
  const int64_t tiles = g.N * g.tiles_p * g.tiles_q;
  const int64_t blocks = std::min<int64_t>(dw_partial_blocks(tiles, device_info(h->device).sm_count),
                                           int64_t(a.workspace_size / per_block));
  FD_CHECK(a.workspace != nullptr && blocks >= 1 && aligned16(a.workspace),
           CUDNN_STATUS_BAD_PARAM, "cuda:patch_wgrad needs at least %zu bytes of 16-byte aligned workspace (got %zu)",
           per_block, a.workspace_size);
  auto* partial = static_cast<float*>(a.workspace);
  const size_t smem = smem_bytes(g, sizeof(S));
  const void* kernel = reinterpret_cast<const void*>(&patch_wgrad_kernel<S>);
  FD_TRY(allow_dynamic_smem(kernel, smem, h->device));
  const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>((g.K + kTileK - 1) / kTileK));
  patch_wgrad_kernel<S><<<grid, kThreads, smem, h->stream>>>(g, static_cast<const S*>(a.in),
                                                             static_cast<const S*>(a.in2), partial, tiles);
  FD_CUDA_LAUNCHED();
  return dw_sum<S>(h->stream, dw_partials(g), partial, int(blocks), a.out, a.alpha, a.beta);
}

class PatchWgrad final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cuda:patch_wgrad"; }
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
    if (const char* why = patch_refusal(p, ConvDir::bwd_filter, 8, false)) return no(why);
    WgradGeom g;
    const char* why = "";
    if (!make_geom(p, dtype_size(p.xdt), &g, &why)) return no(why);
    return {};
  }
  size_t workspace_size(const ConvProblem& p) const override {
    WgradGeom g;
    const char* why = "";
    if (!make_geom(p, dtype_size(p.xdt), &g, &why)) return 0;
    return size_t(dw_partial_blocks(g.N * g.tiles_p * g.tiles_q, current_sm_count())) *
           dw_partial_bytes_per_block(g.K, g.ld());
  }
  bool deterministic() const override { return true; }  // fixed tiles per block, partials added in block order
  cudnnMathType_t math_type(const ConvProblem&) const override { return CUDNN_TENSOR_OP_MATH; }
  double cost_estimate(const ConvProblem& p) const override {
    // mma work on 16 x 16-pixel tiles x 64 dy channels x C * R * S to 8, about a quarter of the dense peak (B
    // gathered as scalars), plus x (patch halo ~1.4x) and dy once.
    const double es = static_cast<double>(dtype_size(p.xdt));
    return patch_tile_cost(p, 8, es, es == 2 ? 200e12 : 100e12, 10e-6);
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:patch_wgrad called without a handle");
    switch (p.xdt) {
      case CUDNN_DATA_HALF: return launch<__half>(p, a);
      case CUDNN_DATA_BFLOAT16: return launch<__nv_bfloat16>(p, a);
      case CUDNN_DATA_FLOAT: return launch<float>(p, a);
      default: break;
    }
    FD_CHECK_SUPPORTED(false, "cuda:patch_wgrad has no kernel for %s", dtype_short_name(p.xdt));
    return CUDNN_STATUS_NOT_SUPPORTED;
  }
};

}  // namespace

const fd::conv::ConvImpl* patch_wgrad_impl() {
  static const PatchWgrad impl;
  return &impl;
}

}  // namespace fd::cuda::conv
