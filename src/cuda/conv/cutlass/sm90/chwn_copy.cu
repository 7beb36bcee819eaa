// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The transposing copy of chwn_copy.h, through shared memory, writes along n (128 bytes per row of 32 elements):
// - plane tiles (float sources whose (u, v) plane is contiguous, a multiple of 4 elements and 16-byte aligned:
//   NCHW's x and dy): 32 rows of n x up to 128 elements of one a's plane (or, flat, as many adjacent rows as fill
//   4096 elements), read and written (along n) as 16-byte vectors. Why: run 22's ncu had the 32 x 32 tiles of
//   single 4-byte loads (4 KB per block) at about 2 TB/s on the TF32 NCHW backward data's copy of dy (25.7 us of a
//   59 us layer); FREEDNN_CHWN_PLANE_TILES=0 keeps every copy on them (A/B).
// - channel tiles (16-bit sources contiguous along a, the 16-bit dgrad's sub-filters of a KRSC filter): 64 a x 64 n
//   of one (u, v) tap, read along a and written along n as 16-byte vectors. Why: on the 32 x 32 tiles of 2-byte
//   accesses the 2048 x 1024 1x1 filter of ResNet's 14 -> 7 stride-2 dgrad took 12.7 us (H100 ncu, run 28), a
//   quarter of the layer.
// - 32 x 32 tiles otherwise (a flipped float filter's negative strides, channels-last float sources): reads
//   coalesced along the source's contiguous dim.
#include "cuda/conv/cutlass/sm90/chwn_copy.h"

#include <climits>
#include <cstdint>
#include <cstdlib>

#include "core/env.h"
#include "core/status.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/common/digits.cuh"

namespace fd::cuda::conv::sm90 {
namespace {

constexpr int kT = 32, kRows = 8;  // 32 x 32 elements, 32 x 8 threads
constexpr int kThreads = kT * kRows;
constexpr int kPlane = 128;  // plane tiles: kT rows of n x kPlane elements of the plane
constexpr int kCh = 64;      // channel tiles: kCh a x kCh n elements of one tap (16-bit)
constexpr int kChPitch = kCh + 2;  // shared row of a tile (elements): 33 words, so the column reads spread over banks

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// i runs over (a, u, v) of dst: with v fastest (dst's own order) when the source is contiguous along v (NCHW), or
// with a fastest (u, v, a) when it is contiguous along a (NHWC's channels): reads along i are then coalesced.
template <class E>
struct ChwnArgs {
  const E* src = nullptr;
  E* dst = nullptr;
  int64_t sn = 0, sa = 0, su = 0, sv = 0;  // source element strides
  int64_t N = 0, A = 0, Ap = 0, U = 0, V = 0, Np = 0;
  bool a_inner = false;
  Divider d_fast, d_mid;  // v-fastest: V, U; a-fastest: Ap, V
  int tiles_i = 0;        // 32-row tiles along i: the copy's blocks are (tile of i) + tiles_i * (tile of n)
  // plane tiles: blocks (tile of the plane) + tiles_p * ((tile of n) + tiles_n * a), rows_n rows of n each
  bool plane = false, flat = false;
  int rows_n = 32;
  // channel tiles: blocks (tile of a) + tiles_a * ((tile of n) + tiles_n * (u * V + v))
  bool channel = false;
  int tiles_a = 0;
  int64_t P = 0;
  int tiles_p = 0, tiles_n = 0;
  int64_t blocks = 0;
};

// Several copies in one grid: copy j has blocks [first[j], first[j + 1]).
template <class E>
struct ChwnBatch {
  ChwnArgs<E> copy[kMaxChwnCopies];
  int first[kMaxChwnCopies + 1] = {};
  int count = 0;
};

template <class E>
__device__ __forceinline__ void chwn_split(const ChwnArgs<E>& g, int64_t i, int64_t& a, int64_t& u, int64_t& v) {
  if (g.a_inner) {
    const Digits3 d = digits3(i, g.d_fast, g.Ap, g.d_mid, g.V);
    a = d.lo, v = d.mid, u = d.hi;
  } else {
    const Digits3 d = digits3(i, g.d_fast, g.V, g.d_mid, g.U);
    v = d.lo, u = d.mid, a = d.hi;
  }
}

// One plane tile: rows n0 .. n0 + rows_n - 1 (zeros past N) of a's plane elements p0 .. p0 + pw - 1 into shared
// memory, then dst rows a * P + p, rows_n n each, as 16-byte stores (with 32 rows, 8 threads per row p: a warp
// writes four 128-byte pieces and, at an odd shared row stride, reads 32 banks). a >= A: zero rows. Shared rows
// kPlane + 1 apart (32 rows of n), or (flat: the rows of n adjacent in memory, sn == P <= kPlane) P apart, the
// tile's nw * P elements loaded as one run of 16-byte vectors whatever P, with up to as many rows as fill the tile
// (a 3x3 filter's taps: up to 448 rows of 9, not 32).
__device__ __forceinline__ void plane_tile(const ChwnArgs<float>& g, int local) {
  __shared__ float sm[kT * (kPlane + 1)];
  const int pt = local % g.tiles_p;
  local /= g.tiles_p;
  const int nt = local % g.tiles_n;
  const int64_t a = local / g.tiles_n;
  const int64_t p0 = int64_t(pt) * kPlane, n0 = int64_t(nt) * g.rows_n;
  const int pw = static_cast<int>(min(int64_t(kPlane), g.P - p0));
  const int nw = a < g.A ? static_cast<int>(max(int64_t(0), min(int64_t(g.rows_n), g.N - n0))) : 0;  // rows read
  const int tid = static_cast<int>(threadIdx.y) * kT + static_cast<int>(threadIdx.x);
  const float* base = g.src + a * g.sa + n0 * g.sn + p0;
  const int rs = g.flat ? pw : kPlane + 1;  // shared row stride
  // at most kT * kPlane / 4 / kThreads = 4 vectors per thread, all loads issued first
  constexpr int kIt = kT * kPlane / 4 / kThreads;
  float4 v[kIt];
  if (g.flat) {  // pw == P: the nw rows are one run of nw * P elements, 16-byte aligned (sa, P * n0: multiples of 4)
    const int total = nw * pw, q4 = total / 4;
#pragma unroll
    for (int it = 0; it < kIt; ++it) {
      const int f = tid + it * kThreads;
      if (f < q4) v[it] = *reinterpret_cast<const float4*>(base + 4 * f);
    }
#pragma unroll
    for (int it = 0; it < kIt; ++it) {
      const int f = tid + it * kThreads;
      if (f < q4) sm[4 * f] = v[it].x, sm[4 * f + 1] = v[it].y, sm[4 * f + 2] = v[it].z, sm[4 * f + 3] = v[it].w;
    }
    for (int e = 4 * q4 + tid; e < total; e += kThreads) sm[e] = base[e];
  } else {  // pw % 4 == 0: 16-byte vectors along each row
    const int q = pw / 4;
#pragma unroll
    for (int it = 0; it < kIt; ++it) {
      const int f = tid + it * kThreads, r = f / q, c = f - r * q;
      if (r < nw) v[it] = *reinterpret_cast<const float4*>(base + r * g.sn + 4 * c);
    }
#pragma unroll
    for (int it = 0; it < kIt; ++it) {
      const int f = tid + it * kThreads, r = f / q, c = f - r * q;
      if (r < nw) {
        float* row = sm + r * rs + 4 * c;
        row[0] = v[it].x, row[1] = v[it].y, row[2] = v[it].z, row[3] = v[it].w;
      }
    }
  }
  __syncthreads();
  const int quads = static_cast<int>(min(int64_t(g.rows_n), g.Np - n0)) / 4;  // Np % 4 == 0
  float* out = g.dst + (a * g.P + p0) * g.Np + n0;
  // (with rows_n above 32 a warp's lanes share pp: its shared reads are 4-way bank conflicts at an odd row stride)
  for (int f = tid; f < pw * quads; f += kThreads) {
    const int pp = f / quads, n = 4 * (f - pp * quads);
    float4 o;
    o.x = n < nw ? sm[n * rs + pp] : 0.0f;
    o.y = n + 1 < nw ? sm[(n + 1) * rs + pp] : 0.0f;
    o.z = n + 2 < nw ? sm[(n + 2) * rs + pp] : 0.0f;
    o.w = n + 3 < nw ? sm[(n + 3) * rs + pp] : 0.0f;
    *reinterpret_cast<float4*>(out + pp * g.Np + n) = o;
  }
}

// One channel tile: a0 .. a0 + 63 (zeros from A) x n0 .. n0 + 63 (zeros from N) of tap (u, v). Loads: 8 threads
// per row of n (128 bytes along a); shared rows of n, kChPitch elements apart (4-byte stores: the rows are not
// 16-byte aligned); stores: 8 threads per dst row a, each gathering 8 n of one column into a 16-byte vector.
// Needs sa == 1, A, Ap, N, Np multiples of 8, sn, su, sv multiples of 8 and 16-byte aligned src and dst.
__device__ __forceinline__ void channel_tile(const ChwnArgs<uint16_t>& g, int local) {
  __shared__ uint32_t sm[kCh * kChPitch / 2];
  const int at = local % g.tiles_a;
  local /= g.tiles_a;
  const int nt = local % g.tiles_n;
  const int tap = local / g.tiles_n;
  const int64_t u = tap / g.V, v = tap - u * g.V;
  const int64_t a0 = int64_t(at) * kCh, n0 = int64_t(nt) * kCh;
  const int tid = static_cast<int>(threadIdx.y) * kT + static_cast<int>(threadIdx.x);
  constexpr int kIt = kCh * kCh / 8 / kThreads;  // 16-byte vectors per thread: 2
  uint4 val[kIt];
#pragma unroll
  for (int it = 0; it < kIt; ++it) {
    const int f = tid + it * kThreads, r = f / 8, c = f % 8;  // row n0 + r, elements a0 + 8c ..
    const int64_t n = n0 + r, a = a0 + 8 * c;
    val[it] = n < g.N && a < g.A ? *reinterpret_cast<const uint4*>(g.src + n * g.sn + u * g.su + v * g.sv + a)
                                 : make_uint4(0, 0, 0, 0);
  }
#pragma unroll
  for (int it = 0; it < kIt; ++it) {
    const int f = tid + it * kThreads, r = f / 8, c = f % 8;
    uint32_t* w = sm + (r * kChPitch + 8 * c) / 2;
    w[0] = val[it].x, w[1] = val[it].y, w[2] = val[it].z, w[3] = val[it].w;
  }
  __syncthreads();
  const uint16_t* t = reinterpret_cast<const uint16_t*>(sm);
#pragma unroll
  for (int it = 0; it < kIt; ++it) {
    const int f = tid + it * kThreads, r = f / 8, c = f % 8;  // dst row a0 + r, elements n0 + 8c ..
    const int64_t a = a0 + r, n = n0 + 8 * c;
    if (a >= g.Ap || n >= g.Np) continue;
    uint32_t o[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      o[k] = uint32_t(t[(8 * c + 2 * k) * kChPitch + r]) | uint32_t(t[(8 * c + 2 * k + 1) * kChPitch + r]) << 16;
    *reinterpret_cast<uint4*>(g.dst + ((a * g.U + u) * g.V + v) * g.Np + n) = make_uint4(o[0], o[1], o[2], o[3]);
  }
}

// One 32 (i) x 32 (n) tile of one copy through shared memory: reads coalesced along i, writes along n (128 bytes
// per row of 32 channels). Zeros for n >= N and a >= A (the padding of N and K).
// E: the element moved as bits (float, or a 16-bit type's uint16_t).
template <class E>
__global__ void __launch_bounds__(kT * kRows) to_chwn_kernel(const __grid_constant__ ChwnBatch<E> batch) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  __shared__ E tile[kT][kT + 1];
  const int b = static_cast<int>(blockIdx.x);
  int j = 0;
  while (j + 1 < batch.count && b >= batch.first[j + 1]) ++j;
  const ChwnArgs<E>& g = batch.copy[j];
  const int local = b - batch.first[j];
  if constexpr (sizeof(E) == 4) {
    if (g.plane) {
      plane_tile(g, local);
      return;
    }
  } else {
    if (g.channel) {
      channel_tile(g, local);
      return;
    }
  }
  const int64_t I = g.Ap * g.U * g.V;
  const int64_t i0 = int64_t(local % g.tiles_i) * kT, n0 = int64_t(local / g.tiles_i) * kT;
  const int tx = threadIdx.x, ty = threadIdx.y;
  {
    const int64_t i = i0 + tx;
    int64_t a = 0, u = 0, v = 0;
    if (i < I) chwn_split(g, i, a, u, v);
    const bool live = i < I && a < g.A;
    const int64_t base = a * g.sa + u * g.su + v * g.sv;
#pragma unroll
    for (int r = 0; r < kT / kRows; ++r) {
      const int64_t n = n0 + ty + r * kRows;
      tile[ty + r * kRows][tx] = live && n < g.N ? g.src[base + n * g.sn] : E(0);
    }
  }
  __syncthreads();
  const int64_t n = n0 + tx;
  if (n >= g.Np) return;
#pragma unroll
  for (int r = 0; r < kT / kRows; ++r) {
    const int64_t i = i0 + ty + r * kRows;
    if (i >= I) break;
    int64_t row = i;  // dst row (a * U + u) * V + v
    if (g.a_inner) {
      int64_t a = 0, u = 0, v = 0;
      chwn_split(g, i, a, u, v);
      row = (a * g.U + u) * g.V + v;
    }
    g.dst[row * g.Np + n] = tile[tx][ty + r * kRows];
  }
  pdl_allow_dependents();
}

// The kernel's arguments for dst (packed Ap x U x V x Np elements) from src with element strides (sn, sa, su, sv)
// of its (n, a, u, v) dims.
template <class E>
ChwnArgs<E> chwn_args(const ChwnCopy<E>& c) {
  ChwnArgs<E> g;
  g.src = c.src, g.dst = c.dst;
  g.sn = c.strides[0], g.sa = c.strides[1], g.su = c.strides[2], g.sv = c.strides[3];
  g.N = c.N, g.A = c.A, g.Ap = c.Ap, g.U = c.U, g.V = c.V, g.Np = c.Np;
  // the stride the v-fastest order reads along (magnitudes: a flipped filter's taps step backwards)
  const int64_t along_v = g.V > 1 ? std::abs(g.sv) : g.U > 1 ? std::abs(g.su) : INT64_MAX;
  g.a_inner = g.A > 1 && std::abs(g.sa) < along_v;
  const int64_t I = g.Ap * g.U * g.V;
  if (g.a_inner) {
    g.d_fast = Divider(g.Ap, I), g.d_mid = Divider(g.V, I / g.Ap);
  } else {
    g.d_fast = Divider(g.V, I), g.d_mid = Divider(g.U, I / g.V);
  }
  g.tiles_i = static_cast<int>(ceil_div(I, kT));
  g.blocks = int64_t(g.tiles_i) * ceil_div(g.Np, kT);
  // plane tiles: float, the (u, v) plane contiguous and read forwards, rows of n and a at non-negative strides,
  // 16-byte aligned stores along n
  g.P = g.U * g.V;
  static const bool plane_on = fd::env_flag_or("FREEDNN_CHWN_PLANE_TILES", true);
  // and 16-byte loads: along the plane (P % 4 == 0), or (flat; FREEDNN_CHWN_FLAT=0, read at every call, turns it
  // off) over whole tiles where the rows of n are adjacent planes of at most kPlane elements (NCHW's dy in the dgrad
  // at 7 x 7: run 24 timed the two 7x7 1x1 TF32 dgrads at 0.92 and 0.97 of the 32 x 32 tiles' layer time). Run 23
  // timed a 4-byte-load form of the plane tiles at 1.5x the 32 x 32 tiles' time on 7x7 planes. Flat tiles take
  // small odd planes too (a KCRS filter's 3x3 taps, staged for the TF32 forward, went through 32 x 32 tiles of 4-byte
  // loads: run 40's ncu had the 7x7 3x3 forward's staging copy at 15.7 us for 16 MB in); planes along rows of n
  // need 16 elements or more
  const bool base_ok = plane_on && sizeof(E) == 4 && !g.a_inner && g.sv == 1 && (g.U == 1 || g.su == g.V) &&
                       g.sn >= 0 && g.sa >= 0 && g.Np % 4 == 0 &&
                       aligned16(g.dst) && g.sa % 4 == 0 &&
                       aligned16(g.src);
  const bool rows_vec = g.P % 4 == 0 && g.sn % 4 == 0 && g.P >= 16;
  // (below 16 elements only odd planes: at an even row stride the stores' shared reads conflict 16- to 32-way)
  g.flat = base_ok && !rows_vec && g.sn == g.P && g.P <= kPlane && (g.P >= 16 || g.P % 2 == 1) &&
           fd::env_flag_or("FREEDNN_CHWN_FLAT", true);
  // channel tiles: 16-bit, contiguous along a, everything on the 8-element (16-byte) grid; FREEDNN_CHWN_CHANNEL=0
  // (read at every call) keeps such copies on the 32 x 32 tiles (A/B)
  const auto grid8 = [](int64_t x) { return x % 8 == 0; };
  g.channel = sizeof(E) == 2 && g.sa == 1 && grid8(g.A) && grid8(g.Ap) && grid8(g.N) && grid8(g.Np) && grid8(g.sn) &&
              grid8(g.su) && grid8(g.sv) && aligned16(g.src) &&
              aligned16(g.dst) && fd::env_flag_or("FREEDNN_CHWN_CHANNEL", true);
  if (g.channel) {
    g.tiles_a = static_cast<int>(ceil_div(g.Ap, kCh));
    g.tiles_n = static_cast<int>(ceil_div(g.Np, kCh));
    g.blocks = int64_t(g.tiles_a) * g.tiles_n * g.U * g.V;
  }
  if (base_ok && (rows_vec || g.flat)) {
    g.plane = true;
    g.tiles_p = static_cast<int>(ceil_div(g.P, kPlane));
    if (g.flat) {  // as many rows of n (a multiple of 32) as the tile holds, spread evenly over the tiles of n
      const int64_t most = kT * kPlane / g.P / kT * kT;
      g.rows_n = static_cast<int>(ceil_div(ceil_div(g.Np, ceil_div(g.Np, most)), kT) * kT);
    }
    g.tiles_n = static_cast<int>(ceil_div(g.Np, g.rows_n));
    g.blocks = int64_t(g.tiles_p) * g.tiles_n * g.Ap;
  }
  return g;
}

template <class E>
cudnnStatus_t to_chwn_batch(cudaStream_t st, const ChwnCopy<E>* copies, int count) {
  for (int c0 = 0; c0 < count; c0 += kMaxChwnCopies) {
    ChwnBatch<E> b;
    int64_t blocks = 0;
    for (int j = c0; j < count && b.count < kMaxChwnCopies; ++j) {
      const ChwnCopy<E>& c = copies[j];
      if (c.Ap * c.U * c.V == 0 || c.Np == 0) continue;  // nothing to write
      const ChwnArgs<E> g = chwn_args(c);
      const int64_t more = g.blocks;
      FD_CHECK(blocks + more < INT_MAX, CUDNN_STATUS_NOT_SUPPORTED, "to_chwn: %lld tiles exceed one grid",
               static_cast<long long>(blocks + more));
      b.copy[b.count] = g;
      b.first[b.count] = static_cast<int>(blocks);
      blocks += more;
      b.first[++b.count] = static_cast<int>(blocks);
    }
    if (b.count == 0) continue;
    (void)launch_pdl(ops_pdl_current(), to_chwn_kernel<E>, dim3(static_cast<unsigned>(blocks)), dim3(kT, kRows), 0, st,
                     b);
    FD_CUDA_LAUNCHED();
  }
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

cudnnStatus_t to_chwn(cudaStream_t st, const ChwnCopy<float>* copies, int count) {
  return to_chwn_batch(st, copies, count);
}

cudnnStatus_t to_chwn(cudaStream_t st, const ChwnCopy<uint16_t>* copies, int count) {
  return to_chwn_batch(st, copies, count);
}

}  // namespace fd::cuda::conv::sm90
