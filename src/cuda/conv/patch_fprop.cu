// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:patch_fprop: the forward convolution of layers with few input channels (the ResNet stem: 7x7, stride 2,
// C = 3) on mma.sync tensor cores. Implicit GEMMs spend a K tile per filter tap on padded channels there (CUTLASS:
// taps of 4 or 8 channels, the stem's 147 products in 196-1024 columns) or first stage space-to-depth copies of x.
// Here a block stages, per tile of 16 x 16 output pixels, the input patch the tile reads (x through its strides,
// zero padded) in shared memory, and runs the GEMM-K over the (r, s, c) products packed densely (147 -> 160 in
// 16-bit, 152 in TF32): each A element is read straight from the patch at pixel base + a per-k offset (a table),
// the filter (64 output channels x GEMM-K) sits in shared memory for the life of the block, which loops over tiles.
// Padded k columns read a zero region after the patch (finite zeros, so Inf in x never turns into NaN there).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/index.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/impls.h"
#include "cuda/conv/mma_sync.cuh"
#include "cuda/conv/patch_input.cuh"

namespace fd::cuda::conv {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr int kThreads = 256;  // 8 warps, each 2 output rows of 16 pixels x 64 output channels
constexpr int kTileP = kPatchTileP, kTileQ = kPatchTileQ, kTileK = 64;
constexpr int kMaxGemmK = 256;             // C * R * S the kernel takes (the filter tile lives in shared memory)
constexpr size_t kMaxSmem = 160 * 1024;    // leaves room for a second resident block on the H200 (227 KB)

// Sizes the kernel reads; int64 where they address global memory.
struct PatchGeom {
  InputPatch in;
  int64_t N = 0, K = 0, P = 0, Q = 0;
  int tiles_p = 1, tiles_q = 1;
  int kg = 0, kpad = 0, steps = 0;  // GEMM-K: C * R * S, padded to the mma's k, k-steps
  int b_pitch = 0;                  // bytes per filter row in shared memory (kpad * es + 16: no bank conflicts)
  View5 wv, yv;
  bool flip = false;
  bool y_pairs = false;             // y's channels contiguous and pairs aligned: two channels per store
};

// Shared memory: the filter tile (kTileK rows of b_pitch bytes), the k-offset table (per k-step and thread of a
// quad: 4 ints), the patch and its zero region.
struct SmemLayout {
  size_t table = 0, patch = 0, total = 0;
};
__host__ __device__ inline SmemLayout smem_layout(const PatchGeom& g, size_t es) {
  SmemLayout l;
  l.table = size_t(kTileK) * g.b_pitch;
  l.patch = l.table + size_t(g.steps) * 4 * 16;
  l.total = l.patch + (size_t(g.in.elems) + g.in.zero_elems) * es;
  l.total = (l.total + 15) / 16 * 16;
  return l;
}

// One tile: output pixels (n, p0 .. p0 + 15, q0 .. q0 + 15) x output channels k0 .. k0 + 63. Warp w owns rows
// p0 + 2w and p0 + 2w + 1 (two m16 tiles of 16 pixels); a quad's thread t holds the k columns of the mma layouts.
template <class S>
__global__ void __launch_bounds__(kThreads, 2)
    patch_fprop_kernel(PatchGeom g, const S* __restrict__ x, const S* __restrict__ w, S* __restrict__ y, float alpha,
                       float beta, FusedDev fused, int64_t tiles) {
  using B = Bits<S>;
  constexpr int kK = kStep<S>;
  extern __shared__ __align__(16) unsigned char smem[];
  const SmemLayout L = smem_layout(g, sizeof(S));
  B* patch = reinterpret_cast<B*>(smem + L.patch);
  int4* table = reinterpret_cast<int4*>(smem + L.table);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, gq = lane >> 2, tq = lane & 3;
  const int k0 = blockIdx.y * kTileK;

  // The filter tile, rows n (output channel k0 + n), columns k = (r * S + s) * C + c of the effective
  // (flipped for CUDNN_CONVOLUTION) filter; zero past K and past C * R * S.
  for (int i = tid; i < kTileK * g.kpad; i += kThreads) {
    const int n = i / g.kpad, k = i - n * g.kpad;
    S v = zero_of<S>();
    if (k0 + n < g.K && k < g.kg) {
      const InputPatch& in = g.in;
      const int rs = k / int(in.C), c = k - rs * int(in.C), r = rs / in.S, s = rs - r * in.S;
      v = w[g.wv.at(k0 + n, c, 0, g.flip ? in.R - 1 - r : r, g.flip ? in.S - 1 - s : s)];
    }
    *reinterpret_cast<B*>(smem + size_t(n) * g.b_pitch + size_t(k) * sizeof(S)) = operand_bits(v);
  }
  // Patch offsets of the k columns each quad thread reads: 16-bit (k = 2t, 2t+1, 2t+8, 2t+9 of a step),
  // TF32 (k = t, t+4); padded columns point at the zero region.
  for (int i = tid; i < g.steps * 4; i += kThreads) {
    const int step = i >> 2, t = i & 3;
    int off[4];
    const int ks[4] = {kK == 16 ? 2 * t : t, kK == 16 ? 2 * t + 1 : t + 4, 2 * t + 8, 2 * t + 9};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int k = step * kK + ks[j];
      off[j] = k < g.kg ? g.in.tap_offset(k) : g.in.zero_base();
    }
    table[i] = make_int4(off[0], off[1], off[2], off[3]);
  }
  zero_patch_tail<Bits<S>, kThreads>(g.in, patch);

  // ldmatrix row addresses: matrix m = lane / 8 is (n-tile pair half m / 2, k half m % 2), row lane % 8.
  const uint32_t b_base = shared_addr(smem) + uint32_t(((lane >> 4) * 8 + (lane & 7)) * g.b_pitch) +
                          uint32_t(((lane >> 3) & 1) * 16);
  // Pixel bases in the patch: rows gq and gq + 8 of each m16 tile.
  int base[2][2];
#pragma unroll
  for (int mt = 0; mt < 2; ++mt) {
    base[mt][0] = g.in.pixel_base(2 * warp + mt, gq);
    base[mt][1] = g.in.pixel_base(2 * warp + mt, gq + 8);
  }

  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t tq_i = tile % g.tiles_q, rest = tile / g.tiles_q;
    const int64_t tp_i = rest % g.tiles_p, n = rest / g.tiles_p;
    const int64_t p0 = tp_i * kTileP, q0 = tq_i * kTileQ;
    __syncthreads();  // the previous tile's reads of the patch are done (and, first time, the tables are written)
    stage_input_patch<S, kThreads, 16>(g.in, x, patch, n, p0, q0);
    __syncthreads();

    float acc[2][8][4];
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
      for (int nt = 0; nt < 8; ++nt)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[mt][nt][j] = 0.f;

    for (int step = 0; step < g.steps; ++step) {
      const int4 off = table[step * 4 + tq];
      uint32_t bf[8][2];
#pragma unroll
      for (int pair = 0; pair < 4; ++pair) {
        uint32_t r[4];
        ldmatrix_x4(r, b_base + uint32_t(pair * 16 * g.b_pitch + step * 32));
        bf[2 * pair][0] = r[0], bf[2 * pair][1] = r[1], bf[2 * pair + 1][0] = r[2], bf[2 * pair + 1][1] = r[3];
      }
#pragma unroll
      for (int mt = 0; mt < 2; ++mt) {
        uint32_t a[4];
        if constexpr (kK == 16) {
          const B* lo = patch + base[mt][0];
          const B* hi = patch + base[mt][1];
          a[0] = uint32_t(lo[off.x]) | uint32_t(lo[off.y]) << 16;
          a[1] = uint32_t(hi[off.x]) | uint32_t(hi[off.y]) << 16;
          a[2] = uint32_t(lo[off.z]) | uint32_t(lo[off.w]) << 16;
          a[3] = uint32_t(hi[off.z]) | uint32_t(hi[off.w]) << 16;
        } else {
          a[0] = patch[base[mt][0] + off.x];
          a[1] = patch[base[mt][1] + off.x];
          a[2] = patch[base[mt][0] + off.y];
          a[3] = patch[base[mt][1] + off.y];
        }
#pragma unroll
        for (int nt = 0; nt < 8; ++nt) mma<S>(acc[mt][nt], a, bf[nt][0], bf[nt][1]);
      }
    }

    // Epilogue: thread holds pixels (row 2 * warp + mt, columns gq and gq + 8) x channels nt * 8 + 2 * tq + {0, 1}.
    // Written twice: plain stores, and the fused form through one called copy (its code unrolled 64 times made
    // the kernel too large for the instruction cache; run 41).
    auto epilogue = [&](auto fused_tag) {
      constexpr bool kFused = decltype(fused_tag)::value;
      const FusedDev kPlain{};  // write_out's plain form (its fused branch compiled away)
#pragma unroll
      for (int mt = 0; mt < 2; ++mt) {
        const int64_t p = p0 + 2 * warp + mt;
        if (p >= g.P) continue;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int64_t q = q0 + gq + 8 * half;
          if (q >= g.Q) continue;
          const int64_t pix = n * g.yv.st[0] + p * g.yv.st[3] + q * g.yv.st[4];
#pragma unroll
          for (int nt = 0; nt < 8; ++nt) {
            const int64_t c = k0 + nt * 8 + 2 * tq;
            const float v0 = acc[mt][nt][2 * half], v1 = acc[mt][nt][2 * half + 1];
            if (c >= g.K) continue;
            if constexpr (kFused) {
              const int64_t off = pix + c * g.yv.st[1];
              write_out_called(y, off, v0, alpha, beta, fused, n, c, int64_t(0), p, q);
              if (c + 1 < g.K) write_out_called(y, off + g.yv.st[1], v1, alpha, beta, fused, n, c + 1, int64_t(0), p, q);
            } else if (g.y_pairs) {
              // Two neighbouring channels in one store (K is even here, so c + 1 < K too).
              S* dst = y + pix + c;
              float r0 = alpha * v0, r1 = alpha * v1;
              if (beta != 0.f) r0 += beta * widen(dst[0]), r1 += beta * widen(dst[1]);
              S pair[2];
              store(pair, 0, r0);
              store(pair, 1, r1);
              if constexpr (sizeof(S) == 2) {
                uint32_t bits;
                memcpy(&bits, pair, 4);
                *reinterpret_cast<uint32_t*>(dst) = bits;
              } else {
                *reinterpret_cast<float2*>(dst) = make_float2(pair[0], pair[1]);
              }
            } else {
              const int64_t off = pix + c * g.yv.st[1];
              write_out(y, off, v0, alpha, beta, kPlain, n, c, int64_t(0), p, q);
              if (c + 1 < g.K) write_out(y, off + g.yv.st[1], v1, alpha, beta, kPlain, n, c + 1, int64_t(0), p, q);
            }
          }
        }
      }
    };
    if (fused.on) epilogue(std::true_type{});
    else epilogue(std::false_type{});
  }
}

// The geometry of p; false (and why) when the kernel cannot take it.
bool make_geom(const ConvProblem& p, size_t es, PatchGeom* out, const char** why) {
  PatchGeom g;
  if (!make_input_patch(p, &g.in, why)) return false;
  g.N = p.mb, g.K = p.oc, g.P = p.oh, g.Q = p.ow;
  g.tiles_p = int((g.P + kTileP - 1) / kTileP);
  g.tiles_q = int((g.Q + kTileQ - 1) / kTileQ);
  g.kg = int(p.ic * p.kh * p.kw);
  if (g.kg > kMaxGemmK) {
    *why = "C * R * S is above 256 (the filter tile would not fit in shared memory)";
    return false;
  }
  const int kk = es == 2 ? 16 : 8;
  g.kpad = (g.kg + kk - 1) / kk * kk;
  g.steps = g.kpad / kk;
  g.b_pitch = int(g.kpad * es + 16);
  g.wv = view5(p.w->as_tensor);
  g.yv = view5(*p.y);
  g.flip = p.mode == CUDNN_CONVOLUTION;
  if (smem_layout(g, es).total > patch_smem_budget(kMaxSmem)) {
    *why = "the input patch and filter tile exceed the shared memory budget (strides or dilations too large)";
    return false;
  }
  *out = g;
  return true;
}

template <class S>
cudnnStatus_t launch(const ConvProblem& p, const ConvArgs& a) {
  PatchGeom g;
  const char* why = "";
  FD_CHECK_SUPPORTED(make_geom(p, sizeof(S), &g, &why), "cuda:patch_fprop: %s", why);
  const bool fused = a.fused != nullptr;
  const int64_t ys = int64_t(sizeof(S));
  g.y_pairs = !fused && g.yv.st[1] == 1 && g.K % 2 == 0 && g.yv.st[0] % 2 == 0 && g.yv.st[3] % 2 == 0 &&
              g.yv.st[4] % 2 == 0 && reinterpret_cast<uintptr_t>(a.out) % (2 * ys) == 0;
  const size_t smem = smem_layout(g, sizeof(S)).total;
  const void* kernel = reinterpret_cast<const void*>(&patch_fprop_kernel<S>);
  cudnnContext* h = a.handle;
  FD_TRY(allow_dynamic_smem(kernel, smem, h->device));
  const int64_t tiles = g.N * g.tiles_p * g.tiles_q;
  const dim3 grid(static_cast<unsigned>(resident_grid(kernel, tiles, 1, kThreads, smem, h->device)),
                  static_cast<unsigned>((g.K + kTileK - 1) / kTileK));
  patch_fprop_kernel<S><<<grid, kThreads, smem, h->stream>>>(
      g, static_cast<const S*>(a.in), static_cast<const S*>(a.in2), static_cast<S*>(a.out),
      static_cast<float>(a.alpha), static_cast<float>(a.beta), fused_dev(a.fused), tiles);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

class PatchFprop final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cuda:patch_fprop"; }
  fd::Backend backend() const override { return fd::Backend::cuda; }
  bool serves(ConvDir dir, int algo) const override {
    return dir == ConvDir::fwd &&
           (algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
  }
  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    auto no = [](const char* why) { return fd::conv::Verdict{CUDNN_STATUS_NOT_SUPPORTED, why}; };
    if (const char* why = patch_refusal(p, ConvDir::fwd, 8, false)) return no(why);
    PatchGeom g;
    const char* why = "";
    if (!make_geom(p, dtype_size(p.xdt), &g, &why)) return no(why);
    return {};
  }
  size_t workspace_size(const ConvProblem&) const override { return 0; }
  bool deterministic() const override { return true; }  // one thread sums each output in a fixed order
  cudnnMathType_t math_type(const ConvProblem&) const override { return CUDNN_TENSOR_OP_MATH; }
  double cost_estimate(const ConvProblem& p) const override {
    // Tensor-core work on the padded GEMM (16 x 16-pixel tiles, 64 output channels, GEMM-K to the mma's k),
    // at about a third of the dense peak (operands gathered from shared memory), plus x and y once.
    const double es = static_cast<double>(dtype_size(p.xdt));
    return patch_tile_cost(p, es == 2 ? 16 : 8, es, es == 2 ? 250e12 : 120e12, 5e-6);
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:patch_fprop called without a handle");
    switch (p.xdt) {
      case CUDNN_DATA_HALF: return launch<__half>(p, a);
      case CUDNN_DATA_BFLOAT16: return launch<__nv_bfloat16>(p, a);
      case CUDNN_DATA_FLOAT: return launch<float>(p, a);
      default: break;
    }
    FD_CHECK_SUPPORTED(false, "cuda:patch_fprop has no kernel for %s", dtype_short_name(p.xdt));
    return CUDNN_STATUS_NOT_SUPPORTED;
  }
};

}  // namespace

const fd::conv::ConvImpl* patch_fprop_impl() {
  static const PatchFprop impl;
  return &impl;
}

}  // namespace fd::cuda::conv
