// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:patch_dgrad: the backward data of layers with few input channels (the ResNet stem: dx has 3 channels, dy 64)
// on mma.sync tensor cores. The implicit GEMMs put dx's channels in the GEMM-N of their tiles (3 of 64+ columns);
// im2col_gemm writes and re-reads a column matrix 49x dy's pixels. Here the GEMM-N is 8 (one mma column block) and
// strides are split into phases: with h + pad_h = stride_h * i + a, dx[h] sums taps r = a + stride_h * j against
// dy[i - j] (the same for w), so each phase (a, b) is a stride-1 correlation of dy with a sub-filter. A block takes
// 16 x 16 phase-grid positions (sh * 16 x sw * 16 dx pixels, every phase), stages the dy patch they read (64
// channels at a time, channels innermost) in shared memory, and feeds A fragments to the mma with ldmatrix
// straight from it; the B fragments (filter taps) come pre-packed per lane from the workspace (a small kernel packs
// them).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/dtype.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/index.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/impls.h"
#include "cuda/conv/patch_input.cuh"
#include "cuda/conv/mma_sync.cuh"

namespace fd::cuda::conv {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr int kThreads = 256;  // 8 warps, each two phase-grid rows of 16 positions
constexpr int kTileI = 16, kTileU = 16;
// dy channels staged at once. (Run 22: 32 float channels, so that the TF32 patch and its chunk's packed filter
// both fit in shared memory twice per SM as the 16-bit ones do, took 1.07x the time on the stem.)
constexpr int kChunk = 64;
constexpr int kMaxPhases = 4;    // stride_h * stride_w (sums of every phase stay in registers across chunks)
constexpr int kMaxC = 8;         // dx channels: one mma column block
constexpr size_t kMaxSmem = 200 * 1024;

struct DgradGeom {
  int64_t N = 0, C = 0, H = 0, W = 0, K = 0, P = 0, Q = 0;
  int R = 1, S = 1, sh = 1, sw = 1, ph = 0, pw = 0;
  int Rm = 1, Sm = 1;              // taps per phase at most: ceil(R / sh), ceil(S / sw)
  int i_min = 0, u_min = 0, tiles_i = 1, tiles_u = 1;
  int chunks = 1, ksteps = 4;      // 64-channel chunks of dy; mma k-steps per chunk
  int PR = 0, PC = 0, pix_pitch = 0;  // the dy patch: rows, columns, bytes per pixel (64 * es + 16)
  View5 dyv, dxv;
  bool dy_vec = false;             // dy's channels contiguous and 16-byte aligned: the patch loads 16-byte vectors
  bool b_smem = false;             // the chunk's packed filter is copied to shared memory (when both fit twice per SM)
  SmallDivider div_pc, div_pr;     // by PC and PR (patch indices)
};

__host__ __device__ inline size_t patch_bytes(const DgradGeom& g) { return size_t(g.PR) * g.PC * g.pix_pitch; }

// The packed filter: for tap (r, s) of the effective (flipped for CUDNN_CONVOLUTION) filter, chunk, k-step and
// lane, the lane's two B registers; channels past C and dy channels past K are zero.
inline int64_t packed_entries(const DgradGeom& g) { return int64_t(g.R) * g.S * g.chunks * g.ksteps * 32; }

template <class S>
__global__ void __launch_bounds__(kBlock) pack_filter_kernel(DgradGeom g, View5 wv, bool flip, const S* __restrict__ w,
                                                             uint2* __restrict__ wp, int64_t total) {
  constexpr int kK = kStep<S>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int lane = int(i & 31);
    int64_t rest = i >> 5;
    const int ks = int(rest % g.ksteps);
    rest /= g.ksteps;
    const int chunk = int(rest % g.chunks);
    const int tap = int(rest / g.chunks), r = tap / g.S, s = tap - r * g.S;
    const int c = lane >> 2, t = lane & 3;
    const int64_t kb = int64_t(chunk) * kChunk + int64_t(ks) * kK;
    auto val = [&](int64_t k) {
      S v = zero_of<S>();
      if (k < g.K && c < g.C) v = w[wv.at(k, c, 0, flip ? g.R - 1 - r : r, flip ? g.S - 1 - s : s)];
      return operand_bits(v);
    };
    uint2 out;
    if constexpr (kK == 16) {
      out.x = uint32_t(val(kb + 2 * t)) | uint32_t(val(kb + 2 * t + 1)) << 16;
      out.y = uint32_t(val(kb + 2 * t + 8)) | uint32_t(val(kb + 2 * t + 9)) << 16;
    } else {
      out.x = val(kb + t);
      out.y = val(kb + t + 4);
    }
    wp[i] = out;
  }
}

// Stages dy's patch for chunk `chunk` of tile (n, p_lo.., q_lo..): zero outside dy and past K. Each thread
// issues a batch of loads before storing any, so a patch takes a few memory round trips, not one per element.
template <class S>
__device__ __forceinline__ void stage_patch(const DgradGeom& g, const S* __restrict__ dy, unsigned char* patch,
                                            int64_t n, int64_t p_lo, int64_t q_lo, int chunk) {
  const int64_t k0 = int64_t(chunk) * kChunk;
  const int tid = threadIdx.x;
  if (g.dy_vec) {
    constexpr int kV = 16 / int(sizeof(S));  // elements per 16-byte vector
    constexpr int kVpp = kChunk / kV;        // vectors per patch pixel (a power of two)
    constexpr int kBatch = 6;
    const int total = g.PR * g.PC * kVpp;
    const S* dyn = dy + n * g.dyv.st[0] + k0;
    for (int i0 = 0; i0 < total; i0 += kThreads * kBatch) {
      uint4 bits[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = i0 + j * kThreads + tid, pix = i / kVpp, v = i % kVpp, pr = g.div_pc.div(pix),
                  pc = pix - pr * g.PC;
        const int64_t p = p_lo + pr, q = q_lo + pc;
        bits[j] = make_uint4(0, 0, 0, 0);
        if (i < total && p >= 0 && p < g.P && q >= 0 && q < g.Q && k0 + v * kV < g.K)
          bits[j] = __ldg(reinterpret_cast<const uint4*>(dyn + p * g.dyv.st[3] + q * g.dyv.st[4] + v * kV));
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = i0 + j * kThreads + tid;
        if (i >= total) continue;
        uint4 b = bits[j];
        if constexpr (sizeof(S) == 4) {  // round to TF32 once here, not per mma
          b.x = tf32_bits(__uint_as_float(b.x)), b.y = tf32_bits(__uint_as_float(b.y));
          b.z = tf32_bits(__uint_as_float(b.z)), b.w = tf32_bits(__uint_as_float(b.w));
        }
        *reinterpret_cast<uint4*>(patch + size_t(i / kVpp) * g.pix_pitch + size_t(i % kVpp) * 16) = b;
      }
    }
  } else {
    // Channels not innermost (NCHW): a thread takes whole patch pixels, its address set up once, and walks the
    // chunk's channels by dy's channel stride, kBatch loads in flight; each group of kV channels goes to shared
    // memory as one 16-byte store (the pixel pitch is an odd number of 16-byte units: no bank conflicts). Run 41's
    // ncu of the TF32 stem: the old loop over (k, row, column) spent ~52 instructions per element on index math.
    constexpr int kV = 16 / int(sizeof(S));
    constexpr int kBatch = 32;  // a multiple of kV that divides kChunk
    static_assert(kBatch % kV == 0 && kChunk % kBatch == 0);
    const int kn = int(g.K - k0 < kChunk ? g.K - k0 : kChunk);  // channels of this chunk that dy has
    const int64_t ks = g.dyv.st[1];
    const int npix = g.PR * g.PC;
    for (int pix = tid; pix < npix; pix += kThreads) {
      const int pr = g.div_pc.div(pix), pc = pix - pr * g.PC;
      const int64_t p = p_lo + pr, q = q_lo + pc;
      const bool inside = p >= 0 && p < g.P && q >= 0 && q < g.Q;
      const S* src = dy + n * g.dyv.st[0] + k0 * ks + (inside ? p * g.dyv.st[3] + q * g.dyv.st[4] : 0);
      unsigned char* dst = patch + size_t(pix) * g.pix_pitch;
      const bool all = inside && kn == kChunk;  // the common case: every load unconditional
#pragma unroll 1
      for (int kb = 0; kb < kChunk; kb += kBatch) {
        Bits<S> v[kBatch];
        if (all) {
#pragma unroll
          for (int j = 0; j < kBatch; ++j) {
            v[j] = operand_bits(__ldg(src));
            src += ks;
          }
        } else {
#pragma unroll
          for (int j = 0; j < kBatch; ++j) {
            S x = zero_of<S>();
            if (inside && kb + j < kn) x = src[j * ks];
            v[j] = operand_bits(x);
          }
          src += kBatch * ks;
        }
#pragma unroll
        for (int j = 0; j < kBatch; j += kV) {
          uint4 b;
          memcpy(&b, &v[j], 16);
          *reinterpret_cast<uint4*>(dst + size_t(kb + j) * sizeof(S)) = b;
        }
      }
    }
  }
}

// The packed filter of one chunk (every tap's k-steps) from the workspace to shared memory, 16 bytes at a time.
__device__ __forceinline__ void stage_filter(const DgradGeom& g, const uint2* __restrict__ wp, uint2* filter,
                                             int chunk) {
  const int per_tap = g.ksteps * 16, total = g.R * g.S * per_tap;  // uint4 units
  for (int i = threadIdx.x; i < total; i += kThreads) {
    const int tap = i / per_tap, rem = i - tap * per_tap;
    const uint4 v = __ldg(reinterpret_cast<const uint4*>(wp + (int64_t(tap) * g.chunks + chunk) * g.ksteps * 32) + rem);
    reinterpret_cast<uint4*>(filter)[i] = v;
  }
}
__host__ __device__ inline size_t filter_bytes(const DgradGeom& g) {
  return size_t(g.R) * g.S * g.ksteps * 32 * sizeof(uint2);
}
constexpr size_t kTwoPerSm = 110 * 1024;  // shared memory of a block that lets two share an SM

template <class S>
__global__ void __launch_bounds__(kThreads)
    patch_dgrad_kernel(DgradGeom g, const S* __restrict__ dy, const uint2* __restrict__ wp, S* __restrict__ dx,
                       float alpha, float beta, int tiles) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, gq = lane >> 2, tq = lane & 3;
  // ldmatrix: lane supplies row (lane / 8 % 2) * 8 + lane % 8 of the 16-position A tile, k half lane / 16.
  const int a_row = ((lane >> 3) & 1) * 8 + (lane & 7);
  const uint32_t a_k = uint32_t(lane >> 4) * 16;
  const uint32_t patch_addr = shared_addr(smem);
  uint2* filter = reinterpret_cast<uint2*>(smem + patch_bytes(g));
  const int phases = g.sh * g.sw;
  const FusedDev none{};
  // Each phase's row and column offsets (a, b), and the packed filter's stride between taps, worked out once: in
  // the tap loop the divisions by sw cost more than the loop's mma (run 41, SASS of the TF32 kernel).
  int pa[kMaxPhases], pb[kMaxPhases];
#pragma unroll
  for (int f = 0; f < kMaxPhases; ++f) {
    pa[f] = f / g.sw;
    pb[f] = f - pa[f] * g.sw;
  }
  const int tap_stride = g.b_smem ? g.ksteps * 32 : g.chunks * g.ksteps * 32;  // uint2 entries

  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {  // 32-bit: make_geom bounds the tile count
    const int tu = tile % g.tiles_u, rest = tile / g.tiles_u;
    const int ti = rest % g.tiles_i, n = rest / g.tiles_i;
    const int64_t i0 = g.i_min + ti * kTileI, u0 = g.u_min + tu * kTileU;
    float acc[kMaxPhases][2][4];
#pragma unroll
    for (int f = 0; f < kMaxPhases; ++f)
#pragma unroll
      for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[f][mt][j] = 0.f;

    for (int chunk = 0; chunk < g.chunks; ++chunk) {
      __syncthreads();  // the last reads of the previous patch are done
      stage_patch<S>(g, dy, smem, n, i0 - (g.Rm - 1), u0 - (g.Sm - 1), chunk);
      if (g.b_smem && (g.chunks > 1 || tile == blockIdx.x)) stage_filter(g, wp, filter, chunk);
      __syncthreads();
      // Phase (a, b)'s tap (a + sh * j, b + sw * l) reads the patch at offset (j, l) for every phase, so each A
      // fragment is loaded once per offset and feeds the mma of every phase that has that tap (stride 2: 16
      // offsets against 49 taps on a 7x7 filter; run 22: the stem's TF32 NCHW backward data 1.05 -> 0.83 ms, f16 NHWC
      // 0.38 -> 0.32 ms).
      const uint2* wchunk = g.b_smem ? filter + lane : wp + chunk * g.ksteps * 32 + lane;  // tap 0's entries
      for (int j = 0; j < g.Rm; ++j)
        for (int l = 0; l < g.Sm; ++l) {
          const uint2* wt[kMaxPhases];
          bool on[kMaxPhases];
#pragma unroll
          for (int f = 0; f < kMaxPhases; ++f) {
            const int r = pa[f] + g.sh * j, s = pb[f] + g.sw * l;
            on[f] = f < phases && r < g.R && s < g.S;
            wt[f] = wchunk + (on[f] ? r * g.S + s : 0) * tap_stride;
          }
          // Patch pixel of this lane's A row for each m16 tile: phase-grid row 2 * warp + mt, column a_row.
          const int pc = a_row - l + g.Sm - 1;
          const uint32_t row0 = patch_addr + uint32_t(((2 * warp - j + g.Rm - 1) * g.PC + pc) * g.pix_pitch) + a_k;
          const uint32_t row1 = row0 + uint32_t(g.PC * g.pix_pitch);
#pragma unroll
          for (int ks = 0; ks < kChunk / kStep<S>; ++ks) {
            uint32_t a0[4], a1[4];
            ldmatrix_x4(a0, row0 + uint32_t(ks * 32));
            ldmatrix_x4(a1, row1 + uint32_t(ks * 32));
#pragma unroll
            for (int f = 0; f < kMaxPhases; ++f) {
              if (!on[f]) continue;
              const uint2 bw = wt[f][ks * 32];
              mma<S>(acc[f][0], a0, bw.x, bw.y);
              mma<S>(acc[f][1], a1, bw.x, bw.y);
            }
          }
        }
    }

    // Thread holds, per phase and m16 tile, positions (row 2 * warp + mt, columns gq and gq + 8) x channels
    // 2 * tq and 2 * tq + 1. Offsets from dx's strides directly (vect is 1 for the float types; View5::at's
    // vector branch carried a 64-bit division into every one of the 32 stores).
    if (2 * tq >= g.C) continue;
    const int64_t c = 2 * tq;
    const bool c1 = c + 1 < g.C;
    const int64_t base_nc = n * g.dxv.st[0] + c * g.dxv.st[1];
#pragma unroll
    for (int f = 0; f < kMaxPhases; ++f) {
      if (f >= phases) break;
#pragma unroll
      for (int mt = 0; mt < 2; ++mt) {
        const int64_t h = (i0 + 2 * warp + mt) * g.sh + pa[f] - g.ph;
        if (h < 0 || h >= g.H) continue;
        const int64_t row = base_nc + h * g.dxv.st[3];
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int64_t wi = (u0 + gq + 8 * half) * g.sw + pb[f] - g.pw;
          if (wi < 0 || wi >= g.W) continue;
          const int64_t off = row + wi * g.dxv.st[4];
          write_out(dx, off, acc[f][mt][2 * half], alpha, beta, none, n, c, 0, h, wi);
          if (c1) write_out(dx, off + g.dxv.st[1], acc[f][mt][2 * half + 1], alpha, beta, none, n, c + 1, 0, h, wi);
        }
      }
    }
  }
}

bool make_geom(const ConvProblem& p, size_t es, DgradGeom* out, const char** why) {
  DgradGeom g;
  g.N = p.mb, g.C = p.ic, g.H = p.ih, g.W = p.iw, g.K = p.oc, g.P = p.oh, g.Q = p.ow;
  g.R = int(p.kh), g.S = int(p.kw), g.sh = p.sh, g.sw = p.sw, g.ph = p.ph, g.pw = p.pw;
  if (g.sh * g.sw > kMaxPhases) {
    *why = "stride_h * stride_w is above 4 (the phases' sums live in registers)";
    return false;
  }
  g.Rm = (g.R + g.sh - 1) / g.sh;
  g.Sm = (g.S + g.sw - 1) / g.sw;
  g.i_min = g.ph / g.sh;
  g.u_min = g.pw / g.sw;
  const int64_t ni = (g.H - 1 + g.ph) / g.sh - g.i_min + 1, nu = (g.W - 1 + g.pw) / g.sw - g.u_min + 1;
  const int64_t tiles_i = (ni + kTileI - 1) / kTileI, tiles_u = (nu + kTileU - 1) / kTileU;
  if (g.N * tiles_i * tiles_u > INT32_MAX / 2) {  // the kernel counts tiles in 32 bits, tile + gridDim.x included
    *why = "more than 2^30 tiles of 16 x 16 positions";
    return false;
  }
  g.tiles_i = int(tiles_i);
  g.tiles_u = int(tiles_u);
  g.chunks = int((g.K + kChunk - 1) / kChunk);
  g.ksteps = kChunk / (es == 2 ? 16 : 8);
  g.PR = kTileI + g.Rm - 1;
  g.PC = kTileU + g.Sm - 1;
  g.pix_pitch = int(kChunk * es + 16);
  g.div_pc = SmallDivider(g.PC), g.div_pr = SmallDivider(g.PR);
  if (packed_entries(g) > INT32_MAX / 2) {  // the kernel indexes the packed filter in 32 bits
    *why = "the packed filter is too large (taps x dy channels)";
    return false;
  }
  if (patch_bytes(g) > patch_smem_budget(kMaxSmem)) {
    *why = "the dy patch exceeds the shared memory budget (filter too large for the stride)";
    return false;
  }
  g.dyv = view5(*p.y);
  g.dxv = view5(*p.x);
  *out = g;
  return true;
}

template <class S>
cudnnStatus_t launch(const ConvProblem& p, const ConvArgs& a) {
  DgradGeom g;
  const char* why = "";
  FD_CHECK_SUPPORTED(make_geom(p, sizeof(S), &g, &why), "cuda:patch_dgrad: %s", why);
  const int64_t V = 16 / int64_t(sizeof(S));
  g.dy_vec = g.dyv.st[1] == 1 && g.K % V == 0 && g.dyv.st[0] % V == 0 && g.dyv.st[3] % V == 0 &&
             g.dyv.st[4] % V == 0 && aligned16(a.in);
  const int64_t entries = packed_entries(g);
  FD_CHECK(a.workspace != nullptr && a.workspace_size >= size_t(entries) * sizeof(uint2) &&
               reinterpret_cast<uintptr_t>(a.workspace) % alignof(uint2) == 0,
           CUDNN_STATUS_BAD_PARAM, "cuda:patch_dgrad needs %lld bytes of 8-byte aligned workspace (got %zu at %p)",
           static_cast<long long>(entries * int64_t(sizeof(uint2))), a.workspace_size, a.workspace);
  cudnnContext* h = a.handle;
  auto* wp = static_cast<uint2*>(a.workspace);
  pack_filter_kernel<S><<<grid_size(entries, kBlock, h->device), kBlock, 0, h->stream>>>(
      g, view5(p.w->as_tensor), p.mode == CUDNN_CONVOLUTION, static_cast<const S*>(a.in2), wp, entries);
  FD_CUDA_LAUNCHED();
  g.b_smem = patch_bytes(g) + filter_bytes(g) <= patch_smem_budget(kTwoPerSm);
  const size_t smem = patch_bytes(g) + (g.b_smem ? filter_bytes(g) : 0);
  const void* kernel = reinterpret_cast<const void*>(&patch_dgrad_kernel<S>);
  FD_TRY(allow_dynamic_smem(kernel, smem, h->device));
  const int tiles = int(g.N * g.tiles_i * g.tiles_u);
  const int grid = resident_grid(kernel, tiles, 1, kThreads, smem, h->device);
  patch_dgrad_kernel<S><<<grid, kThreads, smem, h->stream>>>(g, static_cast<const S*>(a.in), wp,
                                                              static_cast<S*>(a.out), static_cast<float>(a.alpha),
                                                              static_cast<float>(a.beta), tiles);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

class PatchDgrad final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cuda:patch_dgrad"; }
  fd::Backend backend() const override { return fd::Backend::cuda; }
  bool serves(ConvDir dir, int algo) const override {
    return dir == ConvDir::bwd_data && algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
  }
  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    auto no = [](const char* why) { return fd::conv::Verdict{CUDNN_STATUS_NOT_SUPPORTED, why}; };
    if (const char* why = patch_refusal(p, ConvDir::bwd_data, kMaxC, false)) return no(why);
    if (p.dh != 1 || p.dw != 1) return no("dilation");
    DgradGeom g;
    const char* why = "";
    if (!make_geom(p, dtype_size(p.xdt), &g, &why)) return no(why);
    return {};
  }
  size_t workspace_size(const ConvProblem& p) const override {
    DgradGeom g;
    const char* why = "";
    if (!make_geom(p, dtype_size(p.xdt), &g, &why)) return 0;
    return size_t(packed_entries(g)) * sizeof(uint2);
  }
  bool deterministic() const override { return true; }  // one thread sums each dx element in a fixed order
  cudnnMathType_t math_type(const ConvProblem&) const override { return CUDNN_TENSOR_OP_MATH; }
  double cost_estimate(const ConvProblem& p) const override {
    // mma work: every dx pixel, its taps (R * S / strides), dy channels to 16, 8 columns; about a third of the
    // dense peak; plus dy read once (the patch halo: ~1.4x) and dx.
    const double es = static_cast<double>(dtype_size(p.xdt));
    return patch_phase_cost(p, 8, 1.4, es, es == 2 ? 250e12 : 120e12, 8e-6);
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:patch_dgrad called without a handle");
    switch (p.xdt) {
      case CUDNN_DATA_HALF: return launch<__half>(p, a);
      case CUDNN_DATA_BFLOAT16: return launch<__nv_bfloat16>(p, a);
      case CUDNN_DATA_FLOAT: return launch<float>(p, a);
      default: break;
    }
    FD_CHECK_SUPPORTED(false, "cuda:patch_dgrad has no kernel for %s", dtype_short_name(p.xdt));
    return CUDNN_STATUS_NOT_SUPPORTED;
  }
};

}  // namespace

const fd::conv::ConvImpl* patch_dgrad_impl() {
  static const PatchDgrad impl;
  return &impl;
}

}  // namespace fd::cuda::conv
