// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
//
// Cost of the copies, per element, as they were before the vectorized paths (S = 4 bytes for float, 2 for 16-bit):
//   to_nhwc tiled (NCHW source, Cp * S > 16 bytes): 32 x 32 tile of S through shared memory, 256 threads, 4 elements
//     per thread and image. Moves S bytes in and S bytes out (plus the zero padding), with S-byte scalar accesses:
//     a warp reads 32 consecutive pixels of one channel (128 B for float, 64 B for 16-bit) and writes 32 channels of
//     one pixel (idle lanes when Cp < 32). Shared memory [32][33] of S: no bank conflict for float, 2-way for
//     16-bit (66-byte row pitch). Index math per element: s / W and s % W in 64 bits (one 64-bit division, ~70-100
//     instructions, emulated) plus View5::at (5 64-bit multiply-adds). Grid (HW/32, Cp/32, N): for ResNet-50's
//     64x128x56x56 x, 98 x 4 x 64 = 25088 blocks. The division dominates: ~150-200 instructions per element, i.e.
//     25.7 M elements x ~180 instructions / (132 SMs x 128 lanes x 1.98 GHz) ~ 0.14 ms against ~0.05 ms for the
//     206 MB of traffic at ~4 TB/s: the copy was instruction bound, not memory bound.
//   from_nhwc tiled (NCHW destination): the same tiling and the same per-element 64-bit division, plus write_out;
//     S-byte reads of buf (64/128 B per warp), S-byte writes along pixels, y read with scalar loads when beta != 0.
//   to_nhwc flat (channels innermost, or Cp * S <= 16): one 16-byte coalesced store per thread, V = 16 / S scalar
//     reads through View5::at; six 64-bit divisions/remainders per 16 bytes (e0 % Cp, / Cp, % W, / W, % H, / H).
//   from_nhwc linear (NHWC destination, also in place): one element per thread, scalar S-byte reads and writes
//     (coalesced along channels), three 64-bit division/remainder pairs per element.
//   bias_act_nhwc: 16 bytes per thread (loads and stores), one 64-bit remainder per 16 bytes, bias read per element
//     (cached).
// Now: packed NCHW <-> packed, channel-padded NHWC (the common case: every NCHW activation of the TF32 and staged
// 16-bit convolutions) runs through a 64 (channels) x 64 (pixels) tile with 16-byte global accesses on the NHWC
// side always and on the NCHW side when H * W is a multiple of V and the pointer is 16-byte aligned (else V scalar
// loads/stores per 16-byte slot, still coalesced), the same tiling as cudnnTransformTensor's transpose_vec: every
// thread issues its 16 / V (4 for float, 2 for 16-bit) 16-byte loads first, the raw bits go through 4-byte shared
// cells [64][65] (at most 2-way bank conflicts: ~0.5 K shared cycles per 32 KB tile against ~2 K cycles of its DRAM
// traffic per SM), and each thread gathers V cells into a 16-byte store; a warp covers 256 contiguous bytes. Grid:
// (HW / 64, channels / 64, N), so no division at all per element (the tile coordinates are shifts and masks).
// The write-back keeps write_out's arithmetic exactly (called per element on a one-element y: blend with y read
// only when beta != 0, vector-loaded; or the fused bias/z/activation with z read through its view, its offset from
// the pixel index without division when z's H and W are packed), in two instances: blend-only (~64 registers, 3+
// blocks of 256 per SM) and fused. Expected: ~55 us for the ResNet-50 example's x (206 MB) and ~15 us for its y
// write-back (51 MB) at ~3.5-4 TB/s, against ~0.15 + ~0.04 ms before. The other kernels keep their shapes, with
// 32-bit index math when the sizes fit (one 32-bit division per 16 bytes, or per element where they were scalar).
#include "cuda/conv/cutlass/nhwc_staging.h"

#include <algorithm>
#include <climits>
#include <type_traits>

#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/conv/conv_kernels.cuh"

namespace fd::cuda::conv {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

constexpr int kTile = 32, kRows = 8;

// The index type of the kernels' element/pixel decompositions: 32-bit when every index fits (divisions by a
// runtime value then cost ~20 instructions instead of the ~70-100 of the emulated 64-bit division).
bool fits32(int64_t n) { return n >= 0 && n < (int64_t{1} << 31); }

// s -> (h, w) for a pixel index s < H * W.
template <class I>
__device__ __forceinline__ void split_hw(int64_t s, int64_t W, int64_t& h, int64_t& w) {
  const I q = static_cast<I>(s) / static_cast<I>(W);
  h = q;
  w = static_cast<I>(s) - q * static_cast<I>(W);
}

// dst (packed Np x H x W x Cp) = src (N, C, H, W through its view), zeros in the padding (channels c >= C, and
// images n >= N: the filters added when K is padded): 32 x 32 tiles of (channel, pixel) transposed through shared
// memory, reads coalesced along pixels for NCHW, writes along channels. The general (strided) fallback.
template <class S, class I>
__global__ void to_nhwc_tiled_kernel(View5 v, const S* src, int64_t N, int64_t C, int64_t H, int64_t W, int64_t Np,
                                     int64_t Cp, S* dst) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  __shared__ S tile[kTile][kTile + 1];
  const int64_t hw = H * W, s0 = int64_t(blockIdx.x) * kTile, c0 = int64_t(blockIdx.y) * kTile;
  for (int64_t n = blockIdx.z; n < Np; n += gridDim.z) {
    for (int j = threadIdx.y; j < kTile; j += kRows) {
      const int64_t c = c0 + j, s = s0 + threadIdx.x;
      if (s < hw) {
        S val = zero_of<S>();
        if (n < N && c < C) {
          int64_t h, w;
          split_hw<I>(s, W, h, w);
          val = src[v.at(n, c, 0, h, w)];
        }
        tile[j][threadIdx.x] = val;
      }
    }
    __syncthreads();
    for (int j = threadIdx.y; j < kTile; j += kRows) {
      const int64_t s = s0 + j, c = c0 + threadIdx.x;
      if (c < Cp && s < hw) dst[(n * hw + s) * Cp + c] = tile[threadIdx.x][j];
    }
    __syncthreads();
  }
  pdl_allow_dependents();
}

// The same copy for sources whose channels are innermost, or whose padded rows are at most one 16-byte vector
// (Cp <= 8 for 16-bit data, e.g. 3 channels padded to 4): one thread per 16 bytes of dst, in dst's order
// (coalesced 16-byte stores; adjacent threads read adjacent channels, or adjacent pixels of an NCHW source).
template <class S, class I>
__global__ void to_nhwc_flat_kernel(View5 v, const S* src, int64_t N, int64_t C, int64_t H, int64_t W, int64_t Cp,
                                    int64_t total, S* dst) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int V = 16 / sizeof(S);
  const int64_t vecs = (total + V - 1) / V;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < vecs; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t e0 = i * V;
    const I t = static_cast<I>(e0) / static_cast<I>(Cp), t2 = t / static_cast<I>(W), t3 = t2 / static_cast<I>(H);
    int64_t c = static_cast<I>(e0) - t * static_cast<I>(Cp);
    int64_t w = t - t2 * static_cast<I>(W), h = t2 - t3 * static_cast<I>(H), n = t3;
    uint4 raw;
    S* e = reinterpret_cast<S*>(&raw);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      e[j] = n < N && c < C && e0 + j < total ? src[v.at(n, c, 0, h, w)] : zero_of<S>();
      if (++c == Cp) {
        c = 0;
        if (++w == W) {
          w = 0;
          if (++h == H) h = 0, ++n;
        }
      }
    }
    if (e0 + V <= total) {
      reinterpret_cast<uint4*>(dst)[i] = raw;
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j)
        if (e0 + j < total) dst[e0 + j] = e[j];
    }
  }
  pdl_allow_dependents();
}

// ---- Packed NCHW <-> packed NHWC through 64 x 64 tiles with 16-byte accesses -------------------------------------
// Tile coordinates: a block owns channels c0 .. c0 + 63 and pixels s0 .. s0 + 63 of one image at a time (grid
// (pixel tiles, channel tiles, images), the images strided by gridDim.z). 256 threads; each moves kPer 16-byte
// vectors in and kPer out. Shared memory holds the raw bits in 4-byte cells, [64][65] (one padding column).
constexpr int kVT = 64, kVBlock = 256;

template <class S>
using Raw = std::conditional_t<sizeof(S) == 4, uint32_t, uint16_t>;

// The raw bits of a storage value and back.
__device__ __forceinline__ uint32_t raw_of(float v) { return __float_as_uint(v); }
__device__ __forceinline__ uint16_t raw_of(__half v) { return __half_as_ushort(v); }
__device__ __forceinline__ uint16_t raw_of(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }
template <class S>
__device__ __forceinline__ S of_raw(Raw<S> r) {
  if constexpr (std::is_same_v<S, float>)
    return __uint_as_float(r);
  else if constexpr (std::is_same_v<S, __half>)
    return __ushort_as_half(r);
  else
    return __ushort_as_bfloat16(r);
}

template <class S>
struct VecShape {
  static constexpr int V = 16 / static_cast<int>(sizeof(S));  // elements per 16 bytes
  static constexpr int kVpr = kVT / V;                        // vectors per tile row
  static constexpr int kPer = kVT * kVpr / kVBlock;           // vectors per thread
  static_assert(kPer >= 1 && kVT * kVpr % kVBlock == 0, "tile / block shape");
};

// dst (packed Np x HW x Cp, Cp a multiple of V, 16-byte aligned) = src (packed N x C x HW), zeros for c >= C and
// n >= N. Tile rows are channels, columns pixels. vec_in: HW a multiple of V and src 16-byte aligned (16-byte
// loads); otherwise V scalar loads per 16-byte slot.
template <class S>
__global__ void __launch_bounds__(kVBlock) to_nhwc_vec_kernel(const S* src, int64_t N, int64_t C, int64_t HW,
                                                              int64_t Np, int64_t Cp, bool vec_in, S* dst) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using R = Raw<S>;
  constexpr int V = VecShape<S>::V, kVpr = VecShape<S>::kVpr, kPer = VecShape<S>::kPer;
  __shared__ uint32_t tile[kVT][kVT + 1];
  const int64_t s0 = int64_t(blockIdx.x) * kVT, c0 = int64_t(blockIdx.y) * kVT;
  for (int64_t n = blockIdx.z; n < Np; n += gridDim.z) {
    uint4 v[kPer];
#pragma unroll
    for (int u = 0; u < kPer; ++u) {  // all loads first (kPer x 16 bytes in flight per thread)
      const int e = threadIdx.x + u * kVBlock, r = e / kVpr, cv = e % kVpr;
      const int64_t c = c0 + r, s = s0 + cv * V;
      v[u] = make_uint4(0u, 0u, 0u, 0u);
      if (n < N && c < C && s < HW) {
        const S* p = src + (n * C + c) * HW + s;
        if (vec_in) {
          v[u] = *reinterpret_cast<const uint4*>(p);
        } else {
          R* raw = reinterpret_cast<R*>(&v[u]);
#pragma unroll
          for (int k = 0; k < V; ++k)
            if (s + k < HW) raw[k] = reinterpret_cast<const R*>(p)[k];
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int e = threadIdx.x + u * kVBlock, r = e / kVpr, cv = e % kVpr;
      const R* raw = reinterpret_cast<const R*>(&v[u]);
#pragma unroll
      for (int k = 0; k < V; ++k) tile[r][cv * V + k] = raw[k];
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int e = threadIdx.x + u * kVBlock, o = e / kVpr, ov = e % kVpr;  // pixel s0 + o, channels c0 + ov * V ..
      const int64_t s = s0 + o, c = c0 + ov * V;
      if (s < HW && c < Cp) {
        uint4 out;
        R* raw = reinterpret_cast<R*>(&out);
#pragma unroll
        for (int k = 0; k < V; ++k) raw[k] = static_cast<R>(tile[ov * V + k][o]);
        *reinterpret_cast<uint4*>(dst + (n * HW + s) * Cp + c) = out;
      }
    }
    __syncthreads();
  }
  pdl_allow_dependents();
}

// dst (packed N x C x HW) = write_out of buf (packed N x HW x Cb, Cb a multiple of V, 16-byte aligned; its first C
// channels). Tile rows are pixels, columns channels. vec_out: HW a multiple of V and dst 16-byte aligned (16-byte
// loads of y for beta != 0 and 16-byte stores); otherwise scalar ones. z_div: the fused z's (h, w) strides are not
// those of a packed plane, so h and w are computed per element (otherwise f.zv was rewritten on the host to take
// (h, w) = (0, s)). kFused: f is on (the fused epilogue); otherwise f is ignored (alpha/beta blend).
// Registers: ~64 blended (3+ blocks per SM), capped at 128 fused (2 blocks; float spills a few bytes to L1).
template <class S, bool kFused>
__global__ void __launch_bounds__(kVBlock, kFused ? 2 : 3)
    from_nhwc_vec_kernel(const S* buf, int64_t N, int64_t C, int64_t Cb, int64_t HW, int64_t W, bool vec_out,
                         bool z_div, S* dst, float alpha, float beta, FusedDev f) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using R = Raw<S>;
  FusedDev g;  // f, or (plain blend) a known-off epilogue: the blend-only instance keeps none of f in registers
  if constexpr (kFused) g = f;
  constexpr int V = VecShape<S>::V, kVpr = VecShape<S>::kVpr, kPer = VecShape<S>::kPer;
  __shared__ uint32_t tile[kVT][kVT + 1];
  const int64_t s0 = int64_t(blockIdx.x) * kVT, c0 = int64_t(blockIdx.y) * kVT;
  for (int64_t n = blockIdx.z; n < N; n += gridDim.z) {
    uint4 v[kPer];
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int e = threadIdx.x + u * kVBlock, r = e / kVpr, cv = e % kVpr;  // pixel s0 + r, channels c0 + cv * V ..
      const int64_t s = s0 + r, c = c0 + cv * V;
      v[u] = make_uint4(0u, 0u, 0u, 0u);
      if (s < HW && c < C) v[u] = *reinterpret_cast<const uint4*>(buf + (n * HW + s) * Cb + c);  // c + V <= Cb
    }
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int e = threadIdx.x + u * kVBlock, r = e / kVpr, cv = e % kVpr;
      const R* raw = reinterpret_cast<const R*>(&v[u]);
#pragma unroll
      for (int k = 0; k < V; ++k) tile[r][cv * V + k] = raw[k];
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int e = threadIdx.x + u * kVBlock, oc = e / kVpr, ov = e % kVpr;  // channel c0 + oc, pixels s0 + ov * V ..
      const int64_t c = c0 + oc, s = s0 + ov * V;
      if (c < C && s < HW) {
        S* p = dst + (n * C + c) * HW + s;
        const int cnt = vec_out || HW - s >= V ? V : static_cast<int>(HW - s);
        uint4 in, prior = make_uint4(0u, 0u, 0u, 0u), out;
        R* xr = reinterpret_cast<R*>(&in);
        R* pr = reinterpret_cast<R*>(&prior);
        R* orr = reinterpret_cast<R*>(&out);
#pragma unroll
        for (int k = 0; k < V; ++k) xr[k] = static_cast<R>(tile[ov * V + k][oc]);
        if (!kFused && beta != 0.f) {  // the prior y that write_out blends with
          if (vec_out) {
            prior = *reinterpret_cast<const uint4*>(p);
          } else {
#pragma unroll
            for (int k = 0; k < V; ++k)
              if (k < cnt) pr[k] = reinterpret_cast<const R*>(p)[k];
          }
        }
#pragma unroll
        for (int k = 0; k < V; ++k) {
          orr[k] = 0;
          if (k < cnt) {
            int64_t h = 0, w = s + k;
            if (kFused && z_div) split_hw<uint32_t>(s + k, W, h, w);
            S y1[1] = {of_raw<S>(pr[k])};  // write_out on a one-element y holding the prior value
            write_out<S, float>(y1, 0, widen(of_raw<S>(xr[k])), alpha, beta, g, n, c, 0, h, w);
            orr[k] = raw_of(y1[0]);
          }
        }
        if (vec_out) {
          *reinterpret_cast<uint4*>(p) = out;
        } else {
#pragma unroll
          for (int k = 0; k < V; ++k)
            if (k < cnt) reinterpret_cast<R*>(p)[k] = orr[k];
        }
      }
    }
    __syncthreads();
  }
  pdl_allow_dependents();
}

// dst (N, C, H, W through its view) = blend of buf (packed NHWC with Cb >= C channels, the first C of them used):
// the scalar tiling the other way round (the general strided fallback).
template <class S, class I>
__global__ void from_nhwc_tiled_kernel(const S* buf, int64_t N, int64_t C, int64_t Cb, int64_t H, int64_t W, View5 v,
                                       S* dst, float alpha, float beta, FusedDev f) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  __shared__ S tile[kTile][kTile + 1];
  const int64_t hw = H * W, s0 = int64_t(blockIdx.x) * kTile, c0 = int64_t(blockIdx.y) * kTile;
  for (int64_t n = blockIdx.z; n < N; n += gridDim.z) {
    for (int j = threadIdx.y; j < kTile; j += kRows) {
      const int64_t s = s0 + j, c = c0 + threadIdx.x;
      if (c < C && s < hw) tile[j][threadIdx.x] = buf[(n * hw + s) * Cb + c];
    }
    __syncthreads();
    for (int j = threadIdx.y; j < kTile; j += kRows) {
      const int64_t c = c0 + j, s = s0 + threadIdx.x;
      if (c < C && s < hw) {
        int64_t h, w;
        split_hw<I>(s, W, h, w);
        write_out<S, float>(dst, v.at(n, c, 0, h, w), widen(tile[threadIdx.x][j]), alpha, beta, f, n, c, 0, h, w);
      }
    }
    __syncthreads();
  }
  pdl_allow_dependents();
}

// The same for outputs whose channels are innermost (NHWC order, any padding): one thread per output element in
// NHWC order. With buf == dst (packed NHWC, Cb == C) it finishes an output in place (each element is read, then
// written, by one thread).
template <class S, class I>
__global__ void from_nhwc_linear_kernel(const S* buf, int64_t total, int64_t C, int64_t Cb, int64_t H, int64_t W,
                                        View5 v, S* dst, float alpha, float beta, FusedDev f) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const I t = static_cast<I>(i) / static_cast<I>(C), t2 = t / static_cast<I>(W), n = t2 / static_cast<I>(H);
    const int64_t c = static_cast<I>(i) - t * static_cast<I>(C), w = t - t2 * static_cast<I>(W),
                  h = t2 - n * static_cast<I>(H);
    write_out<S, float>(dst, v.at(n, c, 0, h, w), widen(buf[int64_t(t) * Cb + c]), alpha, beta, f, n, c, 0, h, w);
  }
  pdl_allow_dependents();
}

// The fused epilogue's last step on a packed NHWC y that already holds alpha1 * conv (+ alpha2 * z):
// y = act(y + bias[c]) (write_out's activation rule).
template <class S>
__device__ __forceinline__ float bias_act(float v, const S* bias, int64_t c, int64_t bias_stride, bool relu,
                                          bool propagate_nan) {
  return fused_act(v + widen(bias[c * bias_stride]), relu, propagate_nan);
}

// 16 bytes per thread: C a multiple of the vector width and y 16-byte aligned.
template <class S, class I>
__global__ void bias_act_nhwc_kernel(S* y, int64_t vecs, int64_t C, const S* bias, int64_t bias_stride, bool relu,
                                     bool propagate_nan) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int V = 16 / sizeof(S);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < vecs; i += int64_t(gridDim.x) * blockDim.x) {
    uint4 raw = reinterpret_cast<const uint4*>(y)[i];
    S* e = reinterpret_cast<S*>(&raw);
    const int64_t c0 = static_cast<I>(i * V) % static_cast<I>(C);
#pragma unroll
    for (int j = 0; j < V; ++j) store(e, j, bias_act(widen(e[j]), bias, c0 + j, bias_stride, relu, propagate_nan));
    reinterpret_cast<uint4*>(y)[i] = raw;
  }
  pdl_allow_dependents();
}

// One element per thread: any C (the float FMA forward's K need not be a multiple of 4), any alignment.
template <class S, class I>
__global__ void bias_act_nhwc_scalar_kernel(S* y, int64_t count, int64_t C, const S* bias, int64_t bias_stride,
                                            bool relu, bool propagate_nan) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = static_cast<I>(i) % static_cast<I>(C);
    store(y, i, bias_act(widen(y[i]), bias, c, bias_stride, relu, propagate_nan));
  }
  pdl_allow_dependents();
}

// Calls f(uint32_t{}) when every index below `extent` fits in 31 bits, else f(int64_t{}).
template <class F>
void with_index(int64_t extent, F&& f) {
  if (fits32(extent))
    f(uint32_t{});
  else
    f(int64_t{});
}

dim3 tile_grid(int64_t N, int64_t C, int64_t H, int64_t W) {
  return dim3(static_cast<unsigned>(ceil_div(H * W, kTile)), static_cast<unsigned>(ceil_div(C, kTile)),
              static_cast<unsigned>(std::min<int64_t>(N, 65535)));
}

// The 64 x 64 vector tiles' grid, or false when it does not fit the launch limits.
bool vec_grid(int64_t N, int64_t C, int64_t HW, dim3* g) {
  const int64_t gx = ceil_div(HW, kVT), gy = ceil_div(C, kVT);
  if (gx < 1 || gx > INT_MAX || gy < 1 || gy > 65535 || N < 1) return false;
  *g = dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy), static_cast<unsigned>(std::min<int64_t>(N, 65535)));
  return true;
}

}  // namespace

cudnnStatus_t to_nhwc(cudaStream_t st, int dev, cudnnDataType_t dt, const cudnnTensorStruct& t, const void* src,
                      void* dst, int64_t Np, int64_t Cp) {
  const int64_t N = t.dims[0], C = t.dims[1], H = t.dims[2], W = t.dims[3], HW = H * W;
  const bool channels_inner = C == 1 || t.strides[1] == 1;
  const bool pdl = ops_pdl(dev);  // a dependent of the kernel before it (the previous call's, or the convolution's)
  with_tensor_core_storage(dt, [&](auto tag) {
    using S = decltype(tag);
    constexpr int64_t V = 16 / static_cast<int64_t>(sizeof(S));
    dim3 vg;
    if (channels_inner || Cp * static_cast<int64_t>(sizeof(S)) <= 16) {
      const int64_t total = Np * HW * Cp, vecs = ceil_div(total, V);
      with_index(total + V, [&](auto itag) {
        (void)launch_pdl(pdl, to_nhwc_flat_kernel<S, decltype(itag)>, dim3(grid_size(vecs, kBlock, dev)),
                         dim3(kBlock), 0, st, view5(t), static_cast<const S*>(src), N, C, H, W, Cp, total,
                         static_cast<S*>(dst));
      });
    } else if (packed_nchw(t) && Cp % V == 0 && aligned16(dst) && vec_grid(Np, Cp, HW, &vg)) {
      const bool vec_in = HW % V == 0 && aligned16(src);
      (void)launch_pdl(pdl, to_nhwc_vec_kernel<S>, vg, dim3(kVBlock), 0, st, static_cast<const S*>(src), N, C, HW, Np,
                       Cp, vec_in, static_cast<S*>(dst));
    } else {
      with_index(HW, [&](auto itag) {
        (void)launch_pdl(pdl, to_nhwc_tiled_kernel<S, decltype(itag)>, tile_grid(Np, Cp, H, W), dim3(kTile, kRows), 0,
                         st, view5(t), static_cast<const S*>(src), N, C, H, W, Np, Cp, static_cast<S*>(dst));
      });
    }
  });
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t from_nhwc(cudaStream_t st, int dev, cudnnDataType_t dt, const void* buf, int64_t Cb,
                        const cudnnTensorStruct& t, void* dst, float alpha, float beta,
                        const fd::conv::FusedEpilogue* fused) {
  FusedDev f = fused_dev(fused);
  const int64_t N = t.dims[0], C = t.dims[1], H = t.dims[2], W = t.dims[3], HW = H * W;
  const bool channels_inner = C == 1 || t.strides[1] == 1;
  const bool pdl = ops_pdl(dev);  // a dependent of the kernel before it (the previous call's, or the convolution's)
  with_tensor_core_storage(dt, [&](auto tag) {
    using S = decltype(tag);
    constexpr int64_t V = 16 / static_cast<int64_t>(sizeof(S));
    dim3 vg;
    if (channels_inner) {
      const int64_t total = N * C * H * W;
      with_index(total, [&](auto itag) {
        (void)launch_pdl(pdl, from_nhwc_linear_kernel<S, decltype(itag)>, dim3(grid_size(total, kBlock, dev)),
                         dim3(kBlock), 0, st, static_cast<const S*>(buf), total, C, Cb, H, W, view5(t),
                         static_cast<S*>(dst), alpha, beta, f);
      });
    } else if (packed_nchw(t) && buf != dst && Cb % V == 0 && aligned16(buf) && fits32(HW) &&
               vec_grid(N, C, HW, &vg)) {
      const bool vec_out = HW % V == 0 && aligned16(dst);
      // z's offset from the pixel index s = h * W + w: with packed (h, w) strides, h * st3 + w * st4 == s, so the
      // kernel passes (h, w) = (0, s) to a view with strides (0, 1) and divides nothing.
      bool z_div = false;
      if (f.on && f.alpha2 != 0.0) {
        const bool lin = (W == 1 || f.zv.st[4] == 1) && (H == 1 || f.zv.st[3] == W) && f.zv.vect == 1;
        if (lin) {
          f.zv.st[3] = 0;
          f.zv.st[4] = 1;
        } else {
          z_div = true;
        }
      }
      auto* kernel = f.on ? from_nhwc_vec_kernel<S, true> : from_nhwc_vec_kernel<S, false>;
      (void)launch_pdl(pdl, kernel, vg, dim3(kVBlock), 0, st, static_cast<const S*>(buf), N, C, Cb, HW, W, vec_out,
                       z_div, static_cast<S*>(dst), alpha, beta, f);
    } else {
      with_index(HW, [&](auto itag) {
        (void)launch_pdl(pdl, from_nhwc_tiled_kernel<S, decltype(itag)>, tile_grid(N, C, H, W), dim3(kTile, kRows), 0,
                         st, static_cast<const S*>(buf), N, C, Cb, H, W, view5(t), static_cast<S*>(dst), alpha, beta,
                         f);
      });
    }
  });
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t bias_act_nhwc(cudaStream_t st, int dev, cudnnDataType_t dt, void* y, int64_t count, int64_t C,
                            const fd::conv::FusedEpilogue& e) {
  const FusedDev f = fused_dev(&e);
  with_tensor_core_storage(dt, [&](auto tag) {
    using S = decltype(tag);
    constexpr int64_t V = 16 / static_cast<int64_t>(sizeof(S));
    const auto* bias = static_cast<const S*>(e.bias_data);
    with_index(count + 16, [&](auto itag) {
      using I = decltype(itag);
      if (C % V == 0 && aligned16(y)) {
        const int64_t vecs = count / V;
        (void)launch_pdl(ops_pdl(dev), bias_act_nhwc_kernel<S, I>, dim3(grid_size(vecs, kBlock, dev)), dim3(kBlock),
                         0, st, static_cast<S*>(y), vecs, C, bias, e.bias->strides[1], f.relu, f.propagate_nan);
      } else {  // found by review: the vector kernel dropped the tail and misplaced channels when V did not divide C
        (void)launch_pdl(ops_pdl(dev), bias_act_nhwc_scalar_kernel<S, I>, dim3(grid_size(count, kBlock, dev)),
                         dim3(kBlock), 0, st, static_cast<S*>(y), count, C, bias, e.bias->strides[1], f.relu,
                         f.propagate_nan);
      }
    });
  });
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv
