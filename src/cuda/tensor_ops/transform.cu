// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cudnnTransformTensor(Ex) / cudnnTransformFilter on the GPU: y = alpha * T(x) + beta * y.
// Paths: a device-to-device copy (same packed layout and type, alpha 1, beta 0); a dense blend (same packed
// layout and type); a tiled shared-memory transpose for packed NCHW <-> NHWC (both reads and writes coalesced;
// with C and H*W multiples of 16 bytes' elements and the data aligned, 16-byte accesses: bank-conflict-free slab
// tiles or transpose_vec, a raw-copy instance for alpha 1, beta 0, and opt-in variants of the raw copy behind
// FREEDNN_TRANSFORM_NCHW2NHWC / _NHWC2NCHW; else 32 x 32 scalar tiles); and a generic strided kernel for everything
// else (any types, vector layouts, padding, folding).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "core/env.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/dyn_tensor.cuh"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/tensor_ops/tensor_ops.h"

namespace fd::cuda {
namespace {

constexpr int kBlock = 256;

// Source logical element of destination element `i`, or -1 for padding (the CPU backend's Mapper).
struct Map {
  int nb = 0;
  bool identity = true, unfold = false;
  int64_t F = 1;
  int64_t xdims[CUDNN_DIM_MAX] = {}, ydims[CUDNN_DIM_MAX] = {};
  int64_t pad[CUDNN_DIM_MAX] = {}, fold[CUDNN_DIM_MAX] = {};

  __device__ int64_t operator()(int64_t i) const {
    if (identity) return i;
    int64_t q[CUDNN_DIM_MAX], s[CUDNN_DIM_MAX];
    for (int d = nb - 1; d >= 0; --d) {
      const int64_t t = i / ydims[d];
      q[d] = i - t * ydims[d];
      i = t;
    }
    if (!unfold) {
      int64_t phase = q[1] % F;
      s[1] = q[1] / F - pad[1];
      s[0] = q[0] - pad[0];
      for (int d = nb - 1; d >= 2; --d) {
        const int64_t f = fold[d];
        s[d] = q[d] * f + phase % f - pad[d];
        phase /= f;
      }
    } else {
      int64_t phase = 0;
      s[0] = q[0] + pad[0];
      for (int d = 2; d < nb; ++d) {
        const int64_t f = fold[d];
        const int64_t p = q[d] + pad[d];
        s[d] = p / f;
        phase = phase * f + p % f;
      }
      s[1] = (q[1] + pad[1]) * F + phase;
    }
    int64_t l = 0;
    for (int d = 0; d < nb; ++d) {
      if (s[d] < 0 || s[d] >= xdims[d]) return -1;
      l = l * xdims[d] + s[d];
    }
    return l;
  }
};

template <class C>
__global__ void transform_generic(Map m, BView xv, cudnnDataType_t xt, const void* xp, BView yv, cudnnDataType_t yt,
                                  void* yp, int64_t n, C alpha, C beta) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t s = m(i);
    const C v = s < 0 ? C(0) : load_dyn<C>(xt, xp, xv.offset(s));
    blend_dyn<C>(yt, yp, yv.offset(i), v, alpha, beta);
  }
}

// Zeroes the lanes past C of the last channel vector: `outer` positions (every dim but the channel) times
// `lanes` lanes.
__global__ void zero_lanes(BView yv, cudnnDataType_t yt, void* yp, int64_t outer, int64_t c0, int64_t lanes) {
  const int64_t n = outer * lanes;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t o = i / lanes;
    const int64_t c = c0 + (i - o * lanes);
    // Offset of (outer position o, channel c): walk the dims but the channel.
    int64_t off = 0;
    for (int d = yv.nb - 1; d >= 0; --d) {
      if (d == 1) continue;
      const int64_t q = o / yv.dims[d];
      off += (o - q * yv.dims[d]) * yv.strides[d];
      o = q;
    }
    off += (c / yv.vect) * yv.strides[1];
    store_dyn<float>(yt, yp, off * yv.vect + c % yv.vect, 0.f);
  }
}

// Same packed layout and type: y[k] = alpha * x[k] + beta * y[k] over storage order, 16 bytes at a time when both
// bases are 16-byte aligned.
template <class S, class C>
__global__ void blend_dense(const S* xp, S* yp, int64_t n, bool vec, C alpha, C beta) {
  pdl_wait();  // launched as a dependent (ops_pdl.h): the previous kernel's writes first
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t t0 = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  int64_t done = 0;
  if (vec) {
    constexpr int kPer = 16 / sizeof(S);
    const int64_t chunks = n / kPer;
    for (int64_t i = t0; i < chunks; i += stride) {
      const uint4 xr = reinterpret_cast<const uint4*>(xp)[i];
      uint4 yr = beta != C(0) ? reinterpret_cast<const uint4*>(yp)[i] : uint4{};
      const S* xs = reinterpret_cast<const S*>(&xr);
      S* ys = reinterpret_cast<S*>(&yr);
#pragma unroll
      for (int k = 0; k < kPer; ++k) {
        C r = alpha * Storage<S>::load(xs, k);
        if (beta != C(0)) r += beta * Storage<S>::load(ys, k);
        Storage<S>::store(ys, k, r);
      }
      reinterpret_cast<uint4*>(yp)[i] = yr;
    }
    done = chunks * kPer;
  }
  for (int64_t i = done + t0; i < n; i += stride) {
    C r = alpha * Storage<S>::load(xp, i);
    if (beta != C(0)) r += beta * Storage<S>::load(yp, i);
    Storage<S>::store(yp, i, r);
  }
  pdl_allow_dependents();
}

// Batched transpose: in[b][r][k] (rows x cols, packed) -> out[b][k][r]. 32 x 32 tiles through shared memory, one
// padding column against bank conflicts; block 32 x 8.
constexpr int kTile = 32;
template <class S, class C>
__global__ void transpose_tiled(const S* in, S* out, int64_t batch, int64_t rows, int64_t cols, int64_t tiles_c,
                                C alpha, C beta) {
  __shared__ C tile[kTile][kTile + 1];
  const int64_t tr = blockIdx.x / tiles_c, tc = blockIdx.x - tr * tiles_c;
  const int64_t r0 = tr * kTile, c0 = tc * kTile;
  const int64_t plane = rows * cols;
  for (int64_t b = blockIdx.y; b < batch; b += gridDim.y) {
    const S* src = in + b * plane;
    S* dst = out + b * plane;
    for (int j = threadIdx.y; j < kTile; j += blockDim.y) {
      const int64_t r = r0 + j, c = c0 + threadIdx.x;
      if (r < rows && c < cols) tile[j][threadIdx.x] = Storage<S>::load(src, r * cols + c);
    }
    __syncthreads();
    for (int j = threadIdx.y; j < kTile; j += blockDim.y) {
      const int64_t c = c0 + j, r = r0 + threadIdx.x;  // out row c, out col r
      if (r < rows && c < cols) {
        const int64_t o = c * rows + r;
        C v = alpha * tile[threadIdx.x][j];
        if (beta != C(0)) v += beta * Storage<S>::load(dst, o);
        Storage<S>::store(dst, o, v);
      }
    }
    __syncthreads();
  }
}

// Batched transpose with 16-byte global accesses (V = 16 / sizeof(S) elements): rows and cols multiples of V,
// both pointers 16-byte aligned. 64 x 64 tiles: every thread first issues all of its tile loads (16 / V
// vectors), the raw bits go through shared memory cells of 4 bytes (8 for 8-byte types) with one padding column,
// then each thread gathers V cells of one output row into a 16-byte store; a warp writes whole 128-byte lines.
// alpha 1, beta 0: the raw bits are copied (exact for every type); otherwise y = alpha * x + beta * y in Comp<S>
// (y read only when beta != 0).
template <int N> struct RawUint;
template <> struct RawUint<1> { using T = uint8_t; };
template <> struct RawUint<2> { using T = uint16_t; };
template <> struct RawUint<4> { using T = uint32_t; };
template <> struct RawUint<8> { using T = uint64_t; };

constexpr int kVTile = 64;
constexpr int kVBlock = 256;
template <class S>
__global__ void __launch_bounds__(kVBlock) transpose_vec(const S* in, S* out, int64_t batch, int64_t rows, int64_t cols,
                                                       int64_t tiles_c, double alpha, double beta) {
  using R = typename RawUint<sizeof(S)>::T;
  using Cell = std::conditional_t<sizeof(S) == 8, uint64_t, uint32_t>;
  using C = Comp<S>;
  constexpr int V = 16 / sizeof(S);
  constexpr int kVpr = kVTile / V;                  // vectors per tile row
  constexpr int kPer = kVTile * kVpr / kVBlock;     // vectors per thread
  static_assert(kPer >= 1 && kVTile * kVpr % kVBlock == 0, "tile / block shape");
  __shared__ Cell tile[kVTile][kVTile + 1];
  const bool plain = alpha == 1.0 && beta == 0.0;
  const int64_t tr = blockIdx.x / tiles_c, tc = blockIdx.x - tr * tiles_c;
  const int64_t r0 = tr * kVTile, c0 = tc * kVTile;
  const int64_t plane = rows * cols;
  for (int64_t b = blockIdx.y; b < batch; b += gridDim.y) {
    const S* src = in + b * plane;
    S* dst = out + b * plane;
    uint4 v[kPer];
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int e = threadIdx.x + u * kVBlock;
      const int r = e / kVpr, cv = e % kVpr;
      if (r0 + r < rows && c0 + cv * V < cols)
        v[u] = *reinterpret_cast<const uint4*>(src + (r0 + r) * cols + c0 + cv * V);
    }
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int e = threadIdx.x + u * kVBlock;
      const int r = e / kVpr, cv = e % kVpr;
      if (r0 + r < rows && c0 + cv * V < cols) {
        alignas(16) R raw[V];
        *reinterpret_cast<uint4*>(raw) = v[u];
#pragma unroll
        for (int k = 0; k < V; ++k) tile[r][cv * V + k] = static_cast<Cell>(raw[k]);
      }
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int e = threadIdx.x + u * kVBlock;
      const int oc = e / kVpr, rv = e % kVpr;  // output row c0 + oc, output columns r0 + rv * V ..
      if (c0 + oc < cols && r0 + rv * V < rows) {
        alignas(16) R o[V];
#pragma unroll
        for (int k = 0; k < V; ++k) o[k] = static_cast<R>(tile[rv * V + k][oc]);
        S* p = dst + (c0 + oc) * rows + r0 + rv * V;
        if (plain) {
          *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(o);
        } else {
          C val[V];
#pragma unroll
          for (int k = 0; k < V; ++k) val[k] = Storage<S>::load(reinterpret_cast<const S*>(o), k);
          blend_store_vec<S, V>(p, val, alpha, beta);
        }
      }
    }
    __syncthreads();
  }
}

// V raw words R (one per 4- or 8-byte cell) packed into 16 bytes, lowest address first, and stored as one 16-byte
// store. Copied through a local array reinterpreted as uint4 (or built with make_uint4), the compiler split
// transpose_slab's raw-copy stores into 4-byte ones (PTX: 16 st.global.u32 per thread for f32, 8 st.global.v2.u16
// for 16-bit types); the inline store keeps them whole (nothing in these kernels reads y, so no memory clobber).
template <class R, class Cell>
__device__ __forceinline__ uint4 pack16(const Cell* o) {
  if constexpr (sizeof(R) == 4) {
    return make_uint4(o[0], o[1], o[2], o[3]);
  } else if constexpr (sizeof(R) == 2) {
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) w[i] = (uint32_t(o[2 * i]) & 0xffffu) | uint32_t(o[2 * i + 1]) << 16;
    return make_uint4(w[0], w[1], w[2], w[3]);
  } else {
    return make_uint4(static_cast<uint32_t>(o[0]), static_cast<uint32_t>(o[0] >> 32), static_cast<uint32_t>(o[1]),
                      static_cast<uint32_t>(o[1] >> 32));
  }
}
__device__ __forceinline__ void st_global16(void* p, uint4 w) {
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(w.x), "r"(w.y), "r"(w.z), "r"(w.w));
}

// Batched transpose, second version, for 2-, 4- and 8-byte types: 64 x 64 element tiles, 256 threads, 16-byte
// global accesses of V = 16 / sizeof(S) elements (rows and cols multiples of V, pointers 16-byte aligned). A warp
// moves one slab per step: on the way in RL tile rows x (32 / RL) vectors, on the way out RL output rows x (32 / RL)
// vectors (lane l: row l % RL, vector l / RL), so every row segment a warp touches is at least 128 bytes (RL = V for
// 4- and 8-byte types, 4 for 16-bit ones). Cells of 4 bytes (8 for 8-byte types), row pitch 65 cells: with RL = V
// the cell of lane l, element k sits in bank (l + k) % 32 in both phases; for 16-bit types cell (r, c) is stored at
// column c ^ (4 * ((c / 32 + r / 32) % 2)), which makes both phases conflict-free as well (a lane's eight elements
// span 64 columns or rows; the swap of bit 2 separates the two 32-cell halves that would share banks). Every thread
// issues all of its loads before the first shared-memory store. Plain (alpha 1, beta 0): the raw bits move (exact
// for every type, no blend code: 48 registers for f32, 5 blocks per SM, against transpose_vec's 86 and 2);
// otherwise y = alpha * x + beta * y in Comp<S> (y read only when beta != 0). Tile rows vary fastest across
// blockIdx.x (the 64-element output segments of one output row come from adjacent blocks).
// Measured on the H200 (64 x 256 x 56 x 56, copy bandwidth 4.22 TB/s): f32 NCHW -> NHWC 0.109 ms against
// transpose_vec's 0.122 (the blend alpha 1, beta 1: 0.170 against 0.215); f32 NHWC -> NCHW 0.125 against 0.122 and
// f16 / bf16 either way 0.070..0.081 against 0.059, so by default only 4-byte types to NHWC-like output (rows = C)
// take it (a cp.async pipeline of resident blocks, transpose_pipe, measured 1.15-1.30x slower than this kernel
// on f32 to NHWC and 1.2-2x slower on 16-bit types, run 11, was removed);
// FREEDNN_TRANSFORM_SLAB_ALL=1 sends every 2-, 4- and 8-byte case here, FREEDNN_TRANSFORM_NO_TILED2=1 none.
// Those timings are of raw-copy stores split into 4-byte pieces (see pack16) and, for 16-bit types, 2-way bank
// conflicts on the way in (the swizzle swaps values, not store columns); kSt16 (opt-in, FREEDNN_TRANSFORM_NCHW2NHWC /
// _NHWC2NCHW=slab) fixes both.
template <class S>
constexpr int slab_rows() {
  return sizeof(S) == 2 ? 4 : 16 / static_cast<int>(sizeof(S));
}
template <class S, bool kPlain, bool kSt16 = false>
__global__ void __launch_bounds__(kVBlock) transpose_slab(const S* in, S* out, int64_t batch, int64_t rows,
                                                        int64_t cols, int64_t tiles_r, double alpha, double beta) {
  using R = typename RawUint<sizeof(S)>::T;
  using Cell = std::conditional_t<sizeof(S) == 8, uint64_t, uint32_t>;
  constexpr int TR = kVTile, TC = kVTile;
  constexpr int V = 16 / sizeof(S);
  constexpr int RL = slab_rows<S>();  // rows per slab
  constexpr int SC = 32 / RL * V;     // columns per slab
  constexpr bool kSwz = sizeof(S) == 2;
  constexpr int kWarps = kVBlock / 32;
  constexpr int kInSlabs = (TR / RL) * (TC / SC);
  constexpr int kOutSlabs = (TC / RL) * (TR / SC);
  constexpr int kPer = kInSlabs / kWarps;
  static_assert(sizeof(S) >= 2 && TR % SC == 0 && TC % SC == 0 && kInSlabs == kOutSlabs && kPer >= 1 &&
                    kInSlabs % kWarps == 0,
                "tile / block shape");
  __shared__ Cell tile[TR][TC + 1];
  // The swizzle of a vector's cells: 4 (swap bit 2 of the column) or 0; c a multiple of 8, so within a vector's
  // row (way in) or column (way out) it is one value.
  auto swz = [](int r, int c) { return kSwz ? (((c >> 5) ^ (r >> 5)) & 1) << 2 : 0; };
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int sub = lane % RL, vec = lane / RL;
  const int64_t tc = blockIdx.x / tiles_r, tr = blockIdx.x - tc * tiles_r;
  const int64_t r0 = tr * TR, c0 = tc * TC;
  const int64_t plane = rows * cols;
  for (int64_t b = blockIdx.y; b < batch; b += gridDim.y) {
    const S* src = in + b * plane;
    S* dst = out + b * plane;
    uint4 v[kPer];
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int s = warp + u * kWarps;
      const int r = (s % (TR / RL)) * RL + sub, c = (s / (TR / RL)) * SC + vec * V;
      if (r0 + r < rows && c0 + c < cols) v[u] = *reinterpret_cast<const uint4*>(src + (r0 + r) * cols + c0 + c);
    }
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int s = warp + u * kWarps;
      const int r = (s % (TR / RL)) * RL + sub, c = (s / (TR / RL)) * SC + vec * V;
      if (r0 + r < rows && c0 + c < cols) {
        alignas(16) R raw[V];
        if constexpr (kSt16) {
          // element k at column c + (k ^ sw), each store's column swizzled per lane (see transpose_stream)
          *reinterpret_cast<uint4*>(raw) = v[u];
          const int sw = swz(r, c);
#pragma unroll
          for (int k = 0; k < V; ++k) tile[r][k < 4 ? c + sw + k : c - sw + k] = static_cast<Cell>(raw[k]);
        } else {
          uint4 w = v[u];
          if (swz(r, c) != 0) w = make_uint4(w.z, w.w, w.x, w.y);  // element k goes to column c + (k ^ 4)
          *reinterpret_cast<uint4*>(raw) = w;
#pragma unroll
          for (int k = 0; k < V; ++k) tile[r][c + k] = static_cast<Cell>(raw[k]);
        }
      }
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int s = warp + u * kWarps;
      const int oc = (s % (TC / RL)) * RL + sub, orr = (s / (TC / RL)) * SC + vec * V;  // output row c0 + oc, cols r0 + orr
      if (c0 + oc < cols && r0 + orr < rows) {
        alignas(16) R o[V];
        const int col = oc ^ swz(orr, oc);
#pragma unroll
        for (int k = 0; k < V; ++k) o[k] = static_cast<R>(tile[orr + k][col]);
        S* p = dst + (c0 + oc) * rows + r0 + orr;
        if constexpr (kPlain && kSt16) {
          st_global16(p, pack16<R>(o));
        } else if constexpr (kPlain) {
          *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(o);
        } else {
          Comp<S> val[V];
#pragma unroll
          for (int k = 0; k < V; ++k) val[k] = Storage<S>::load(reinterpret_cast<const S*>(o), k);
          blend_store_vec<S, V>(p, val, alpha, beta);
        }
      }
    }
    __syncthreads();
  }
}

// Opt-in variant of transpose_slab for raw copies (alpha 1, beta 0) of 2-, 4- and 8-byte types (R: the raw word):
// FREEDNN_TRANSFORM_NCHW2NHWC / FREEDNN_TRANSFORM_NHWC2NCHW = stream | wide | wider, read at every call; written
// 2026-12-02, not yet run on a GPU. The slab lanes and bank layout of transpose_slab on TR x TC tiles (multiples of
// the slab width; cells in dynamic shared memory). A grid of resident blocks walks the tiles; each thread issues its
// loads of the block's next tile as soon as the current one is in shared memory, so they are in flight while the
// current tile is written out. Channel tiles vary fastest, so consecutive tiles cover whole NHWC rows (transpose_slab
// to NHWC and transpose_vec to NCHW walk that way, each the faster one there), and the NCHW side, where a tile
// touches one row segment per channel, gets the longer extent (wide: 128 elements, 512 B of f32).
struct StreamGrid {
  int64_t rows = 0, cols = 0;
  uint32_t tiles_r = 0, tiles_c = 0, tiles = 0;
  bool c_rows = false;  // rows are the channels (to NHWC): row tiles vary fastest, else column tiles
};

template <class R, int TR, int TC>
__global__ void __launch_bounds__(kVBlock) transpose_stream(const R* in, R* out, StreamGrid g) {
  using Cell = std::conditional_t<sizeof(R) == 8, uint64_t, uint32_t>;
  constexpr int V = 16 / sizeof(R);
  constexpr int RL = sizeof(R) == 2 ? 4 : V;  // rows per slab
  constexpr int SC = 32 / RL * V;             // columns per slab
  constexpr bool kSwz = sizeof(R) == 2;
  constexpr int kWarps = kVBlock / 32;
  constexpr int A = TR / RL / kWarps, B = TC / RL / kWarps;  // slabs per warp down a column of slabs, in and out
  constexpr int kPer = A * (TC / SC);
  static_assert(sizeof(R) >= 2 && TR % SC == 0 && TC % SC == 0 && A >= 1 && B >= 1 && A * kWarps * RL == TR &&
                    B * kWarps * RL == TC && kPer == B * (TR / SC),
                "tile / block shape");
  extern __shared__ __align__(16) unsigned char stream_smem[];
  Cell(*tile)[TC + 1] = reinterpret_cast<Cell(*)[TC + 1]>(stream_smem);
  auto swz = [](int r, int c) { return kSwz ? (((c >> 5) ^ (r >> 5)) & 1) << 2 : 0; };
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  // Slab u of this warp: tile row r1 + kWarps * RL * (u % A), column c1 + u / A * SC on the way in; output row (tile
  // column) r1 + kWarps * RL * (u % B), column (tile row) c1 + u / B * SC on the way out.
  const int r1 = warp * RL + lane % RL, c1 = lane / RL * V;
  const int64_t plane = g.rows * g.cols;
  struct Tile {
    int64_t in = 0, out = 0;  // offsets of the tile's first element
    int nr = 0, nc = 0;       // rows and columns inside the matrix
  };
  auto locate = [&](uint32_t t) {
    const uint32_t nf = g.c_rows ? g.tiles_r : g.tiles_c, ns = g.c_rows ? g.tiles_c : g.tiles_r;
    const uint32_t q = t / nf, f = t - q * nf, b = q / ns, s = q - b * ns;
    const int64_t r0 = int64_t(g.c_rows ? f : s) * TR, c0 = int64_t(g.c_rows ? s : f) * TC;
    Tile x;
    x.in = b * plane + r0 * g.cols + c0;
    x.out = b * plane + c0 * g.rows + r0;
    x.nr = static_cast<int>(std::min<int64_t>(g.rows - r0, TR));
    x.nc = static_cast<int>(std::min<int64_t>(g.cols - c0, TC));
    return x;
  };
  auto load = [&](const Tile& x, uint4* v) {
    const R* p = in + x.in + r1 * g.cols + c1;
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int drow = kWarps * RL * (u % A), dcol = u / A * SC;
      if (r1 + drow < x.nr && c1 + dcol < x.nc) v[u] = *reinterpret_cast<const uint4*>(p + drow * g.cols + dcol);
    }
  };
  uint32_t t = blockIdx.x;
  if (t >= g.tiles) return;
  Tile cur = locate(t);
  uint4 v[kPer];
  load(cur, v);
  for (;;) {
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int r = r1 + kWarps * RL * (u % A), c = c1 + u / A * SC;
      if (r < cur.nr && c < cur.nc) {
        // Element k at column c + (k ^ sw): the swizzle moves each store's address, not just its value (swapping the
        // halves of the vector instead, as transpose_slab does, leaves lanes c and c + 32 on one bank: 2-way
        // conflicts on the way in for 16-bit types).
        alignas(16) R raw[V];
        *reinterpret_cast<uint4*>(raw) = v[u];
        const int sw = swz(r, c);
#pragma unroll
        for (int k = 0; k < V; ++k) tile[r][k < 4 ? c + sw + k : c - sw + k] = static_cast<Cell>(raw[k]);  // k ^ sw
      }
    }
    __syncthreads();
    const uint32_t nt = t + gridDim.x;
    const bool more = nt < g.tiles;
    Tile nxt;
    if (more) {
      nxt = locate(nt);
      load(nxt, v);
    }
    R* p = out + cur.out + r1 * g.rows + c1;
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int drow = kWarps * RL * (u % B), dcol = u / B * SC;
      const int oc = r1 + drow, orr = c1 + dcol;  // output row c0 + oc, columns r0 + orr ..
      if (oc < cur.nc && orr < cur.nr) {
        const int col = oc ^ swz(orr, oc);
        Cell o[V];
#pragma unroll
        for (int k = 0; k < V; ++k) o[k] = tile[orr + k][col];
        st_global16(p + drow * g.rows + dcol, pack16<R>(o));
      }
    }
    if (!more) break;
    __syncthreads();
    t = nt;
    cur = nxt;
  }
}

// transpose_stream<R, TR, TC> over `batch` rows x cols matrices on a grid of resident blocks (as many as fit, spread
// so that every block takes the same number of tiles give or take one). NOT_SUPPORTED, nothing queued and nothing
// logged, when the tile count overflows 32 bits.
template <class R, int TR, int TC>
cudnnStatus_t launch_stream(cudaStream_t stream, int device, const void* xp, void* yp, int64_t batch, int64_t rows,
                            int64_t cols, bool c_rows) {
  using Cell = std::conditional_t<sizeof(R) == 8, uint64_t, uint32_t>;
  const int64_t tr = (rows + TR - 1) / TR, tc = (cols + TC - 1) / TC;
  if (batch * tr * tc > INT32_MAX) return CUDNN_STATUS_NOT_SUPPORTED;
  StreamGrid g;
  g.rows = rows;
  g.cols = cols;
  g.tiles_r = static_cast<uint32_t>(tr);
  g.tiles_c = static_cast<uint32_t>(tc);
  g.tiles = static_cast<uint32_t>(batch * tr * tc);
  g.c_rows = c_rows;
  const auto kern = transpose_stream<R, TR, TC>;
  const size_t smem = sizeof(Cell) * TR * (TC + 1);
  FD_TRY(allow_dynamic_smem(reinterpret_cast<const void*>(kern), smem, device));
  const int64_t resident = int64_t(resident_blocks(reinterpret_cast<const void*>(kern), kVBlock, smem, device)) *
                           std::max(1, device_info(device).sm_count);
  const int64_t rounds = (g.tiles + resident - 1) / resident;
  const auto grid = static_cast<unsigned>((g.tiles + rounds - 1) / rounds);
  kern<<<grid, kVBlock, smem, stream>>>(static_cast<const R*>(xp), static_cast<R*>(yp), g);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

// The kernel FREEDNN_TRANSFORM_NCHW2NHWC (to_nhwc) / FREEDNN_TRANSFORM_NHWC2NCHW asks for: 4 "slab" (transpose_slab
// with whole 16-byte stores), or transpose_stream tiles of channels x spatial positions: 1 "stream" 64 x 64, 2 "wide"
// 64 x 128, 3 "wider" 32 x 256 (64 x 256 for 16-bit types, whose slabs are 64 wide); 0 for "legacy" or an unknown
// name (the kernels below). Unset: "slab" to NHWC and for 4-byte types to NCHW (on the H200, time over the old
// default on the large ResNet-50 shapes: f32 to NHWC 0.86x in run 14, f32 to NCHW 0.84-0.89x and 16-bit to NHWC
// 0.93-1.00x in run 15), the kernels below for 16-bit types to NCHW (not measured yet).
int transpose_variant(bool to_nhwc, size_t esize) {
  const char* v = std::getenv(to_nhwc ? "FREEDNN_TRANSFORM_NCHW2NHWC" : "FREEDNN_TRANSFORM_NHWC2NCHW");
  if (v == nullptr) return to_nhwc || esize == 4 ? 4 : 0;
  const char* names[] = {"stream", "wide", "wider", "slab"};
  for (int i = 0; i < 4; ++i)
    if (std::strcmp(v, names[i]) == 0) return i + 1;
  return 0;
}

template <int N>
using Int = std::integral_constant<int, N>;

// The opt-in kernel `variant` (transpose_variant) for a raw copy of S; NOT_SUPPORTED (nothing queued) when it
// declines.
template <class S>
cudnnStatus_t launch_variant(cudaStream_t stream, int device, int variant, const void* xp, void* yp, int64_t batch,
                             int64_t rows, int64_t cols, bool to_nhwc) {
  using R = typename RawUint<sizeof(S)>::T;
  if (variant == 4) {
    const int64_t tr = (rows + kVTile - 1) / kVTile, tc = (cols + kVTile - 1) / kVTile;
    if (tr * tc > INT32_MAX) return CUDNN_STATUS_NOT_SUPPORTED;
    const dim3 grid(static_cast<unsigned>(tr * tc), static_cast<unsigned>(std::min<int64_t>(batch, 65535)));
    transpose_slab<S, true, true><<<grid, kVBlock, 0, stream>>>(static_cast<const S*>(xp), static_cast<S*>(yp), batch,
                                                                rows, cols, tr, 1.0, 0.0);
    FD_CUDA_LAUNCHED();
    return CUDNN_STATUS_SUCCESS;
  }
  auto go = [&](auto tr, auto tc) {
    return launch_stream<R, decltype(tr)::value, decltype(tc)::value>(stream, device, xp, yp, batch, rows, cols,
                                                                        to_nhwc);
  };
  using Narrow = Int<sizeof(R) == 2 ? 64 : 32>;
  // rows are the channels to NHWC, the spatial positions to NCHW
  switch (variant) {
    case 1: return go(Int<64>{}, Int<64>{});
    case 2: return to_nhwc ? go(Int<64>{}, Int<128>{}) : go(Int<128>{}, Int<64>{});
    default: return to_nhwc ? go(Narrow{}, Int<256>{}) : go(Int<256>{}, Narrow{});
  }
}
}  // namespace

cudnnStatus_t transform_tensor(cudaStream_t stream, int device, const cudnnTensorTransformStruct* t,
                               const cudnnTensorStruct& x, const void* xp, const cudnnTensorStruct& y, void* yp,
                               double alpha, double beta) {
  const bool identity = t == nullptr || t->is_identity();
  const int64_t n = y.element_count();
  if (n == 0) return CUDNN_STATUS_SUCCESS;
  const bool same_type = x.dtype == y.dtype;
  const bool dbl = needs_double(x.dtype) || needs_double(y.dtype);
  // 1. Same packed layout and type: a copy, or a dense blend.
  if (identity && same_type && same_packed_layout(x, y)) {
    if (alpha == 1.0 && beta == 0.0) {
      if (xp != yp) FD_CUDA_CHECK(cudaMemcpyAsync(yp, xp, y.size_in_bytes(), cudaMemcpyDefault, stream));
      return CUDNN_STATUS_SUCCESS;
    }
    const bool vec = aligned16(xp) && aligned16(yp);
    const bool known = with_storage_type(y.dtype, [&](auto tag) {
      using S = decltype(tag);
      using C = decltype(Storage<S>::load(nullptr, 0));
      (void)launch_pdl(ops_pdl(device), blend_dense<S, C>, dim3(grid_size(n / (vec ? 16 / sizeof(S) : 1) + 1, kBlock,
                       device)), dim3(kBlock), 0, stream, static_cast<const S*>(xp), static_cast<S*>(yp), n, vec,
                       static_cast<C>(alpha), static_cast<C>(beta));
    });
    if (known) {
      FD_CUDA_LAUNCHED();
      return CUDNN_STATUS_SUCCESS;
    }
  }
  // 2. Packed NCHW <-> NHWC of one type: batched tiled transposes.
  if (identity && same_type && x.nb_dims >= 3 && xp != yp) {
    const bool to_nhwc = x.is_packed_as(CUDNN_TENSOR_NCHW) && y.is_packed_as(CUDNN_TENSOR_NHWC);
    const bool to_nchw = x.is_packed_as(CUDNN_TENSOR_NHWC) && y.is_packed_as(CUDNN_TENSOR_NCHW);
    if (to_nhwc || to_nchw) {
      int64_t spatial = 1;
      for (int i = 2; i < x.nb_dims; ++i) spatial *= x.dims[i];
      const int64_t batch = x.dims[0], ch = x.dims[1];
      const int64_t rows = to_nhwc ? ch : spatial, cols = to_nhwc ? spatial : ch;
      const size_t esize = dtype_size(y.dtype);
      const int64_t vw = esize >= 1 && esize <= 8 ? static_cast<int64_t>(16 / esize) : 0;
      const int64_t vt_r = (rows + kVTile - 1) / kVTile, vt_c = (cols + kVTile - 1) / kVTile;
      const bool vec_ok = vw > 0 && rows % vw == 0 && cols % vw == 0 && aligned16(xp) &&
                          aligned16(yp);
      // Raw copies on transpose_variant's kernel (read at every call so that tests can switch them).
      const int variant = vec_ok && alpha == 1.0 && beta == 0.0 ? transpose_variant(to_nhwc, esize) : 0;
      if (variant != 0) {
        cudnnStatus_t st = CUDNN_STATUS_NOT_SUPPORTED;
        with_storage_type(y.dtype, [&](auto tag) {
          using S = decltype(tag);
          if constexpr (sizeof(S) >= 2)
            st = launch_variant<S>(stream, device, variant, xp, yp, batch, rows, cols, to_nhwc);
        });
        if (st != CUDNN_STATUS_NOT_SUPPORTED) return st;
      }
      static const bool no_tiled2 = fd::env_flag("FREEDNN_TRANSFORM_NO_TILED2");
      static const bool slab_all = fd::env_flag("FREEDNN_TRANSFORM_SLAB_ALL");
      // transpose_slab: 4-byte types to NHWC-like output by default (see its comment), every 2-, 4- and 8-byte case
      // with FREEDNN_TRANSFORM_SLAB_ALL.
      const bool slab = vec_ok && !no_tiled2 && (slab_all ? esize >= 2 : esize == 4 && to_nhwc);
      if (slab && vt_r * vt_c <= INT32_MAX) {
        const dim3 grid(static_cast<unsigned>(vt_r * vt_c), static_cast<unsigned>(std::min<int64_t>(batch, 65535)));
        const bool plain = alpha == 1.0 && beta == 0.0;
        const bool known = with_storage_type(y.dtype, [&](auto tag) {
          using S = decltype(tag);
          if constexpr (sizeof(S) >= 2) {
            const S* xs = static_cast<const S*>(xp);
            S* ys = static_cast<S*>(yp);
            if (plain)
              transpose_slab<S, true><<<grid, kVBlock, 0, stream>>>(xs, ys, batch, rows, cols, vt_r, alpha, beta);
            else
              transpose_slab<S, false><<<grid, kVBlock, 0, stream>>>(xs, ys, batch, rows, cols, vt_r, alpha, beta);
          }
        });
        if (known) {
          FD_CUDA_LAUNCHED();
          return CUDNN_STATUS_SUCCESS;
        }
      }
      if (vec_ok && vt_r * vt_c <= INT32_MAX) {
        const dim3 grid(static_cast<unsigned>(vt_r * vt_c), static_cast<unsigned>(std::min<int64_t>(batch, 65535)));
        const bool known = with_storage_type(y.dtype, [&](auto tag) {
          using S = decltype(tag);
          transpose_vec<S><<<grid, kVBlock, 0, stream>>>(static_cast<const S*>(xp), static_cast<S*>(yp), batch, rows,
                                                        cols, vt_c, alpha, beta);
        });
        if (known) {
          FD_CUDA_LAUNCHED();
          return CUDNN_STATUS_SUCCESS;
        }
      }
      const int64_t tiles_r = (rows + kTile - 1) / kTile, tiles_c = (cols + kTile - 1) / kTile;
      if (tiles_r * tiles_c <= INT32_MAX) {
        const dim3 grid(static_cast<unsigned>(tiles_r * tiles_c),
                        static_cast<unsigned>(std::min<int64_t>(batch, 65535)));
        const bool known = with_storage_type(y.dtype, [&](auto tag) {
          using S = decltype(tag);
          using C = decltype(Storage<S>::load(nullptr, 0));
          transpose_tiled<S, C><<<grid, dim3(kTile, 8), 0, stream>>>(static_cast<const S*>(xp), static_cast<S*>(yp),
                                                                     batch, rows, cols, tiles_c, static_cast<C>(alpha),
                                                                     static_cast<C>(beta));
        });
        if (known) {
          FD_CUDA_LAUNCHED();
          return CUDNN_STATUS_SUCCESS;
        }
      }
    }
  }
  // 3. Generic.
  Map m;
  m.nb = y.nb_dims;
  m.identity = identity;
  for (int i = 0; i < y.nb_dims; ++i) {
    m.xdims[i] = x.dims[i];
    m.ydims[i] = y.dims[i];
  }
  if (!identity) {
    m.F = t->fold_product();
    m.unfold = t->direction == CUDNN_TRANSFORM_UNFOLD;
    for (int i = 0; i < y.nb_dims; ++i) {
      m.pad[i] = t->pad_before[i];
      m.fold[i] = i >= 2 ? t->fold[i - 2] : 1;
    }
  }
  const BView xv = make_bview(x), yv = make_bview(y);
  const cudnnDataType_t xt = dtype_scalar(x.dtype), yt = dtype_scalar(y.dtype);
  const int grid = grid_size(n, kBlock, device);
  if (dbl)
    transform_generic<double><<<grid, kBlock, 0, stream>>>(m, xv, xt, xp, yv, yt, yp, n, alpha, beta);
  else
    transform_generic<float><<<grid, kBlock, 0, stream>>>(m, xv, xt, xp, yv, yt, yp, n, static_cast<float>(alpha),
                                                          static_cast<float>(beta));
  FD_CUDA_LAUNCHED();
  const int v = y.vect();
  if (v > 1 && y.dims[1] % v != 0) {
    const int64_t lanes = y.stored_dim(1) * v - y.dims[1];
    const int64_t outer = n / y.dims[1];
    zero_lanes<<<grid_size(outer * lanes, kBlock, device), kBlock, 0, stream>>>(yv, yt, yp, outer, y.dims[1], lanes);
    FD_CUDA_LAUNCHED();
  }
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda
