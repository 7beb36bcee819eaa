// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Max pooling of planar (NCHW-like: unit column stride) 4-D tensors with a small square window, from registers:
// windows K x K, strides St x St, paddings P x P for (K, St, P) in {(3, 2, 1), (2, 2, 0), (3, 2, 0), (3, 1, 1)};
// float, double, half, bfloat16; both max modes. Everything else takes pooling2d.cu (tiles / direct kernels).
// Semantics as src/cpu/pooling/pooling.h: ties to the first element in window scan order; PROPAGATE_NAN: the first
// NaN wins; NOT_PROPAGATE_NAN: NaNs skipped (NaN when the window reads only NaNs, no gradient then); a window that
// reads nothing gives 0 (no gradient); y / dx blended with alpha / beta, not read when beta == 0. No atomics.
//
// Forward (max_rows<kArg = false>): one thread takes a block of kRowsOut (4) output rows x KO = B / St output
// columns, B = 16 / sizeof(S) (4 floats, 8 halves, 2 doubles), i.e. the input columns [q*B - P, q*B + B + RH) of
// the (kRowsOut - 1) * St + K input rows under it. Per input row: one 16-byte load of the B body columns (aligned:
// q*B is a multiple of B), the P left / RH = max(K - St - P, 0) right halo columns from the neighbouring lanes'
// bodies by warp shuffles (a direct load only for the first lane of a warp or of a row), then the row maximum of
// each of the KO windows (separable: the row maxima folded over the window's rows in row order give the maximum
// in scan order, with the same tie and NaN rules), folded into the outputs whose windows hold that row. Column
// groups are innermost in thread order, so a warp's body loads are one contiguous run of 512 bytes.
//   Bytes per output: St * St x elements + 1 y element (+ 1 y read when beta != 0); x rows shared by two row
//   groups (St * kRowsOut + K - St rows for St * kRowsOut) are re-read from L2, 9/8 for 3x3 s2.
//   ResNet-50 pool1, f32 64x64x112x112 -> 56x56, 3x3 s2 p1: x 205.5 MB + y 51.4 MB = 257 MB of DRAM traffic,
//   ~0.065-0.075 ms at 3.5-4 TB/s on the H200 (the tile kernel: 0.194 ms; cuDNN 9.19: 0.135 ms). About 40
//   instructions per output (memory-bound with room to spare).
// Backward, two passes (no atomics, no x re-reads for overlapping windows):
//   1. max_rows<kArg = true>: the forward walk, writing per output the position of its argmax inside the window
//      (row * K + column, 0xFF: none) as one byte to the handle's scratch memory (rows padded to 8 bytes).
//   2. max_bwd_gather: one thread per rows_in(St) x B block of dx (4 x B for St 2); it reads the codes and dy of
//      the windows that cover the block (3 x 3 for 3x3 s2 f32) and sums, in output order, the dy of those whose
//      argmax is the element: a compare with a compile-time position and a predicated add per covering window.
//   Bytes per output (3x3 s2): pass 1: 4 x elements + 1 code byte; pass 2: 1 code + 1 dy + 4 dx elements (codes
//   and dy of the overlapping windows re-read from L1/L2). ResNet-50 pool1 f32: x 205.5 + codes 2 x 12.8 + dy 51.4
//   + dx 205.5 = 488 MB, ~0.13-0.14 ms on the H200 (the tile kernel: 0.92 ms; cuDNN 9.19: 0.37 ms).
// FREEDNN_POOL_NO_PLANAR=1 sends these problems to pooling2d.cu (A/B measurements).
#include <cstdint>
#include <type_traits>

#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/index.cuh"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/pooling/pool_folds.cuh"
#include "cuda/pooling/pool_windows.cuh"
#include "cuda/common/word.cuh"
#include "cuda/pooling/pooling.h"

namespace fd::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kRowsOut = 4;  // output rows per thread (forward, argmax pass)
// dx rows per thread (gather pass): 4 for stride 2; 2 for stride 1, whose blocks need (R + 2) x (B + 2) windows
constexpr int rows_in(int stride) { return stride == 1 ? 2 : 4; }

constexpr int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
constexpr int ceil_div(int a, int b) { return -floor_div(-a, b); }

struct Strides {
  int n = 0, c = 0, h = 0, w = 0;
};

struct Planar {
  int in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  bool propagate = false;
};

// Work items i -> (n, c, row group, column group), column groups innermost.
struct Items {
  int total = 0, nq = 1, ng = 1, C = 1;
  Divider d_nq, d_ng, d_c;
  __device__ __forceinline__ void split(int i, int* n, int* c, int* plane, int* g, int* q) const {
    const int r = static_cast<int>(d_nq.div(i));
    *q = i - r * nq;
    *plane = static_cast<int>(d_ng.div(r));
    *g = r - *plane * ng;
    *n = static_cast<int>(d_c.div(*plane));
    *c = *plane - *n * C;
  }
};

Items make_items(int64_t planes, int64_t C, int64_t ng, int64_t nq) {
  Items it;
  const int64_t total = planes * ng * nq;
  it.total = static_cast<int>(total);
  it.nq = static_cast<int>(nq);
  it.ng = static_cast<int>(ng);
  it.C = static_cast<int>(C);
  it.d_nq = Divider(nq, total);
  it.d_ng = Divider(ng, total);
  it.d_c = Divider(C, total);
  return it;
}

// p[k] = alpha * v[k] + beta * p[k] for the N elements at p, one N * sizeof(S)-byte access (p aligned to it);
// p not read when beta == 0. The arithmetic of blend_store_vec.
template <class S, int N>
__device__ __forceinline__ void blend_store_n(S* p, const Comp<S>* v, double alpha, double beta) {
  using C = Comp<S>;
  using W = word_t<N * sizeof(S)>;
  C r[N];
#pragma unroll
  for (int k = 0; k < N; ++k) r[k] = alpha == 1.0 ? v[k] : static_cast<C>(alpha) * v[k];
  if (beta != 0.0) {
    alignas(16) S o[N];
    *reinterpret_cast<W*>(o) = *reinterpret_cast<const W*>(p);
#pragma unroll
    for (int k = 0; k < N; ++k) r[k] += static_cast<C>(beta) * Storage<S>::load(o, k);
  }
  alignas(16) S a[N];
#pragma unroll
  for (int k = 0; k < N; ++k) Storage<S>::store(a, k, r[k]);
  *reinterpret_cast<W*>(p) = *reinterpret_cast<const W*>(a);
}

// Forward (kArg false: y) or argmax codes (kArg true: codes[(plane * out_h + oh) * code_ld + ow]). Every thread of
// a block runs the row loop (the halo shuffles need the whole warp); threads past the end read nothing.
// x_vec: x 16-byte aligned with unit column stride and the other strides multiples of B. y_vec: y aligned to
// KO elements, unit column stride, the other strides multiples of KO.
template <class S, int K, int St, int P, bool kArg>
__global__ void __launch_bounds__(kThreads) max_rows(Planar pg, Items it, Strides xt, const S* __restrict__ x,
                                                     bool x_vec, Strides yt, S* __restrict__ y, bool y_vec,
                                                     uint8_t* __restrict__ codes, int code_ld, double alpha,
                                                     double beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using C = Comp<S>;
  if (kArg) pdl_allow_dependents();  // the gather (FREEDNN_POOL_PDL) starts with this grid's last blocks, and waits
  constexpr int B = 16 / static_cast<int>(sizeof(S));  // body columns per thread: one 16-byte vector
  constexpr int KO = B / St;                           // output columns per thread
  constexpr int M = kRowsOut;                          // output rows per thread
  constexpr int LH = P;                                // left halo columns
  constexpr int RH = K - St - P > 0 ? K - St - P : 0;  // right halo columns
  constexpr int E = LH + B + RH;                       // columns held per row
  constexpr int NR = (M - 1) * St + K;                 // input rows per thread
  static_assert(B % St == 0 && P < K && LH <= B && RH <= B, "register pooling geometry");
  static_assert(!kArg || K * K < 255, "codes fit a byte");

  const int i = blockIdx.x * kThreads + threadIdx.x;
  const bool active = i < it.total;
  int n = 0, c = 0, plane = 0, grp = 0, q = 0;
  if (active) it.split(i, &n, &c, &plane, &grp, &q);
  const int lane = threadIdx.x & 31;
  // Lane l - 1 holds column group q - 1 of the same rows when q > 0 (column groups are innermost in thread order);
  // lane l + 1 holds q + 1 when q + 1 < nq (that item exists: the row group is complete).
  const bool left_ok = lane > 0 && q > 0;
  const bool right_ok = lane < 31 && q + 1 < it.nq;
  const int c0 = q * B - LH;            // input column of v[0]
  const int r0 = grp * M * St - P;      // input row of relative row 0
  const int xbase = n * xt.n + c * xt.c;
  const bool body_vec = x_vec && q * B + B <= pg.in_w;
  const bool propagate = pg.propagate;
  const C neutral = propagate ? C(-INFINITY) : C(NAN);
  bool colv[E];
#pragma unroll
  for (int e = 0; e < E; ++e) colv[e] = active && static_cast<unsigned>(c0 + e) < static_cast<unsigned>(pg.in_w);

  C acc[M][KO];
  int arg[M][KO];
#pragma unroll
  for (int m = 0; m < M; ++m)
#pragma unroll
    for (int k = 0; k < KO; ++k) {
      acc[m][k] = neutral;
      arg[m][k] = -1;
    }

  // The 16-byte body loads of every row first, in one basic block, so that all NR are in flight at once: rows
  // outside the plane read a row inside it (clamped; replaced by the neutral value below).
  uint4 raw[NR];
  if (body_vec) {
#pragma unroll
    for (int r = 0; r < NR; ++r) {
      const int ih = min(max(r0 + r, 0), pg.in_h - 1);
      raw[r] = *reinterpret_cast<const uint4*>(x + (xbase + ih * xt.h + q * B));
    }
  }

#pragma unroll
  for (int r = 0; r < NR; ++r) {
    const int ih = r0 + r;
    const bool rv = active && static_cast<unsigned>(ih) < static_cast<unsigned>(pg.in_h);
    const int roff = xbase + ih * xt.h;  // used only when rv
    C v[E];                              // columns c0 .. c0 + E - 1 of row ih; neutral where not read
    if (body_vec) {
      C u[B];
      load_vec<S, B>(reinterpret_cast<const S*>(&raw[r]), u);
#pragma unroll
      for (int b = 0; b < B; ++b) v[LH + b] = rv ? u[b] : neutral;
    } else {
#pragma unroll
      for (int b = 0; b < B; ++b)
        v[LH + b] = rv && colv[LH + b] ? Storage<S>::load(x, roff + (q * B + b) * xt.w) : neutral;
    }
#pragma unroll
    for (int e = 0; e < LH; ++e) {  // column c0 + e: the left neighbour's v[B + e]
      const C nb = __shfl_up_sync(0xffffffffu, v[B + e], 1);
      v[e] = left_ok ? nb : (rv && colv[e] ? Storage<S>::load(x, roff + (c0 + e) * xt.w) : neutral);
    }
#pragma unroll
    for (int e = 0; e < RH; ++e) {  // column q*B + B + e: the right neighbour's v[LH + e]
      const C nb = __shfl_down_sync(0xffffffffu, v[LH + e], 1);
      v[LH + B + e] =
          right_ok ? nb : (rv && colv[LH + B + e] ? Storage<S>::load(x, roff + (c0 + LH + B + e) * xt.w) : neutral);
    }
    // Row maxima of the KO windows (window k: v[k*St .. k*St + K - 1]), folded into the outputs holding row r.
    C hv[KO];
    int ht[KO];
#pragma unroll
    for (int k = 0; k < KO; ++k) {
      if constexpr (kArg) {
        hv[k] = neutral;
        ht[k] = -1;
#pragma unroll
        for (int t = 0; t < K; ++t) arg_fold(hv[k], ht[k], v[k * St + t], rv && colv[k * St + t], t, propagate);
      } else {
        hv[k] = v[k * St];
#pragma unroll
        for (int t = 1; t < K; ++t) max_fold(hv[k], v[k * St + t], propagate);
      }
    }
#pragma unroll
    for (int m = 0; m < M; ++m) {
      if (r < m * St || r >= m * St + K) continue;  // window rows of output row m: relative m*St .. m*St + K - 1
#pragma unroll
      for (int k = 0; k < KO; ++k) {
        if constexpr (kArg) {
          arg_fold(acc[m][k], arg[m][k], hv[k], ht[k] >= 0, (r - m * St) * K + ht[k], propagate);
        } else if (r == m * St) {
          acc[m][k] = hv[k];
        } else {
          max_fold(acc[m][k], hv[k], propagate);
        }
      }
    }
  }
  if (!active) return;

  const int ow0 = q * KO;
#pragma unroll
  for (int m = 0; m < M; ++m) {
    const int oh = grp * M + m;
    if (oh >= pg.out_h) break;
    if constexpr (kArg) {
      // KO bytes at a multiple of KO inside the padded row (code_ld: a multiple of 8 >= nq * KO)
      uint64_t w = 0;
#pragma unroll
      for (int k = 0; k < KO; ++k) w |= uint64_t(arg[m][k] >= 0 ? arg[m][k] : 0xFF) << (8 * k);
      uint8_t* p = codes + (plane * pg.out_h + oh) * code_ld + ow0;
      if constexpr (KO == 1) *p = static_cast<uint8_t>(w);
      else if constexpr (KO == 2) *reinterpret_cast<uint16_t*>(p) = static_cast<uint16_t>(w);
      else if constexpr (KO == 4) *reinterpret_cast<uint32_t*>(p) = static_cast<uint32_t>(w);
      else *reinterpret_cast<uint64_t*>(p) = w;
    } else {
      const int wr = r0 + m * St;  // first input row of the window
      const bool rany = wr + K > 0 && wr < pg.in_h;
      C out[KO];
#pragma unroll
      for (int k = 0; k < KO; ++k) {
        const int wc = c0 + k * St;  // first input column of the window
        out[k] = rany && wc + K > 0 && wc < pg.in_w ? acc[m][k] : C(0);
      }
      S* yrow = y + (n * yt.n + c * yt.c + oh * yt.h);
      if (y_vec && ow0 + KO <= pg.out_w) {
        blend_store_n<S, KO>(yrow + ow0, out, alpha, beta);
      } else {
#pragma unroll
        for (int k = 0; k < KO; ++k)
          if (ow0 + k < pg.out_w) blend_store_vec<S, 1>(yrow + (ow0 + k) * yt.w, &out[k], alpha, beta);
      }
    }
  }
  if (!kArg) pdl_allow_dependents();
}

// dx from the argmax codes: one thread per rows_in(St) x B block of dx. dx_vec: dx 16-byte aligned with unit column
// stride and the other strides multiples of B.
template <class S, int K, int St, int P>
__global__ void __launch_bounds__(kThreads) max_bwd_gather(Planar pg, Items it, Strides dyt, const S* __restrict__ dy,
                                                           const uint8_t* __restrict__ codes, int code_ld,
                                                           Strides dxt, S* __restrict__ dx, bool dx_vec, double alpha,
                                                           double beta) {
  using C = Comp<S>;
  pdl_wait();  // the codes of the argmax pass before it (FREEDNN_POOL_PDL)
  constexpr int B = 16 / static_cast<int>(sizeof(S));
  constexpr int R = rows_in(St);
  static_assert(R % St == 0 && B % St == 0, "blocks start on a window grid line");
  // Covering outputs, relative to (grp * R / St, q * B / St): rows OH_LO .. OH_HI, columns OW_LO .. OW_HI.
  constexpr int OH_LO = ceil_div(P - K + 1, St), OH_HI = floor_div(R - 1 + P, St), NOH = OH_HI - OH_LO + 1;
  constexpr int OW_LO = ceil_div(P - K + 1, St), OW_HI = floor_div(B - 1 + P, St), NOW = OW_HI - OW_LO + 1;

  const int i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= it.total) return;
  int n, c, plane, grp, q;
  it.split(i, &n, &c, &plane, &grp, &q);
  const int oh0 = grp * (R / St) + OH_LO, ow0 = q * (B / St) + OW_LO;
  const int dbase = n * dyt.n + c * dyt.c;
  int cd[NOH][NOW];
  C d[NOH][NOW];
#pragma unroll
  for (int a = 0; a < NOH; ++a)
#pragma unroll
    for (int b = 0; b < NOW; ++b) {
      const int oh = oh0 + a, ow = ow0 + b;
      const bool ok = static_cast<unsigned>(oh) < static_cast<unsigned>(pg.out_h) &&
                      static_cast<unsigned>(ow) < static_cast<unsigned>(pg.out_w);
      cd[a][b] = ok ? static_cast<int>(codes[(plane * pg.out_h + oh) * code_ld + ow]) : 0xFF;
      d[a][b] = ok ? Storage<S>::load(dy, dbase + oh * dyt.h + ow * dyt.w) : C(0);
    }
  const int iw0 = q * B;
#pragma unroll
  for (int ii = 0; ii < R; ++ii) {
    const int ih = grp * R + ii;
    if (ih >= pg.in_h) break;
    C acc[B];
#pragma unroll
    for (int j = 0; j < B; ++j) {
      acc[j] = C(0);
      // windows in output order; (ti, tj): the element's position inside window (a, b), compile-time
#pragma unroll
      for (int a = 0; a < NOH; ++a) {
        const int ti = ii - (OH_LO + a) * St + P;
        if (ti < 0 || ti >= K) continue;
#pragma unroll
        for (int b = 0; b < NOW; ++b) {
          const int tj = j - (OW_LO + b) * St + P;
          if (tj < 0 || tj >= K) continue;
          if (cd[a][b] == ti * K + tj) acc[j] += d[a][b];
        }
      }
    }
    S* row = dx + (n * dxt.n + c * dxt.c + ih * dxt.h);
    if (dx_vec && iw0 + B <= pg.in_w) {
      blend_store_n<S, B>(row + iw0, acc, alpha, beta);
    } else {
#pragma unroll
      for (int j = 0; j < B; ++j)
        if (iw0 + j < pg.in_w) blend_store_vec<S, 1>(row + (iw0 + j) * dxt.w, &acc[j], alpha, beta);
    }
  }
}

// ---- host side ----

// pool_tensor_fits, and no empty dimension.
bool small_4d(const cudnnTensorStruct& d) {
  if (!pool_tensor_fits(d)) return false;
  for (int i = 0; i < 4; ++i)
    if (d.dims[i] < 1) return false;
  return true;
}

Strides strides_of(const cudnnTensorStruct& d) {
  Strides s;
  s.n = static_cast<int>(d.strides[0]);
  s.c = static_cast<int>(d.strides[1]);
  s.h = static_cast<int>(d.strides[2]);
  s.w = static_cast<int>(d.strides[3]);
  return s;
}

// Groups of `v` elements along W are aligned accesses of v * es bytes: pointer aligned, unit column stride, the
// other strides (of dims > 1) multiples of v.
bool rows_vec(const cudnnTensorStruct& d, const void* p, int v, int es) {
  if (reinterpret_cast<uintptr_t>(p) % (uintptr_t(v) * es) != 0 || d.strides[3] != 1) return false;
  for (int i = 0; i < 3; ++i)
    if (d.dims[i] > 1 && d.strides[i] % v != 0) return false;
  return true;
}

bool planar_ok(const cudnnPoolingStruct& p, const cudnnTensorStruct& xd, const cudnnTensorStruct& od) {
  static const bool off = fd::env_flag("FREEDNN_POOL_NO_PLANAR");
  if (off) return false;
  if (p.mode != CUDNN_POOLING_MAX && p.mode != CUDNN_POOLING_MAX_DETERMINISTIC) return false;
  if (!small_4d(xd) || !small_4d(od)) return false;
  // planar x: unit column stride (a width-1 plane has no columns to step over)
  return xd.dims[3] == 1 || xd.strides[3] == 1;
}

Planar make_planar(const cudnnPoolingStruct& p, const cudnnTensorStruct& xd, const cudnnTensorStruct& od) {
  Planar g;
  g.in_h = static_cast<int>(xd.dims[2]);
  g.in_w = static_cast<int>(xd.dims[3]);
  g.out_h = static_cast<int>(od.dims[2]);
  g.out_w = static_cast<int>(od.dims[3]);
  g.propagate = p.nan_opt == CUDNN_PROPAGATE_NAN;
  return g;
}

// Work items of the forward / argmax pass (kRowsOut x KO outputs each), or 0 when they do not fit in 31 bits.
int64_t rows_items(const cudnnTensorStruct& od, int ko) {
  const int64_t t = od.dims[0] * od.dims[1] * cdiv64(od.dims[2], kRowsOut) * cdiv64(od.dims[3], ko);
  return t < (int64_t{1} << 31) - kThreads ? t : 0;
}

}  // namespace

bool pooling2d_planar_forward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                              const cudnnTensorStruct& xd, const void* x, double beta, const cudnnTensorStruct& yd,
                              void* y, cudnnStatus_t* status) {
  if (!planar_ok(p, xd, yd)) return false;
  const Planar pg = make_planar(p, xd, yd);
  const Strides xt = strides_of(xd), yt = strides_of(yd);
  bool launched = false;
  with_float_storage(xd.dtype, [&](auto tag) {
    using S = decltype(tag);
    constexpr int B = 16 / static_cast<int>(sizeof(S));
    with_cfg(p, [&](auto cfg) {
      using F = decltype(cfg);
      constexpr int KO = B / F::St;
      const int64_t total = rows_items(yd, KO);
      if (total == 0) return;
      const Items it = make_items(yd.dims[0] * yd.dims[1], yd.dims[1], cdiv64(yd.dims[2], kRowsOut),
                                  cdiv64(yd.dims[3], KO));
      const bool x_vec = rows_vec(xd, x, B, sizeof(S)), y_vec = rows_vec(yd, y, KO, sizeof(S));
      const int grid = static_cast<int>(cdiv64(total, kThreads));
      (void)launch_pdl(ops_pdl(device), max_rows<S, F::K, F::St, F::P, false>, dim3(grid), dim3(kThreads), 0, stream,
                       pg, it, xt, static_cast<const S*>(x), x_vec, yt, static_cast<S*>(y), y_vec, nullptr, 0, alpha,
                       beta);
      launched = true;
    });
  });
  if (!launched) return false;
  *status = FD_LAUNCH_STATUS(CUDNN_STATUS_SUCCESS);
  return true;
}

bool pooling2d_planar_backward(cudnnContext* h, const cudnnPoolingStruct& p, double alpha,
                               const cudnnTensorStruct& dyd, const void* dy, const cudnnTensorStruct& xd,
                               const void* x, double beta, const cudnnTensorStruct& dxd, void* dx,
                               cudnnStatus_t* status) {
  if (!planar_ok(p, xd, dyd) || !small_4d(dxd)) return false;
  const Planar pg = make_planar(p, xd, dyd);
  const Strides xt = strides_of(xd), dyt = strides_of(dyd), dxt = strides_of(dxd);
  // codes: one byte per output, rows padded to a multiple of 8 bytes
  const int64_t code_ld = cdiv64(dyd.dims[3], 8) * 8;
  const int64_t code_bytes = dyd.dims[0] * dyd.dims[1] * dyd.dims[2] * code_ld;
  if (code_bytes >= (int64_t{1} << 31)) return false;
  bool launched = false;
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  with_float_storage(dxd.dtype, [&](auto tag) {
    using S = decltype(tag);
    constexpr int B = 16 / static_cast<int>(sizeof(S));
    with_cfg(p, [&](auto cfg) {
      using F = decltype(cfg);
      constexpr int KO = B / F::St;
      const int64_t total1 = rows_items(dyd, KO);
      const int64_t total2 = dxd.dims[0] * dxd.dims[1] * cdiv64(dxd.dims[2], rows_in(F::St)) * cdiv64(dxd.dims[3], B);
      if (total1 == 0 || total2 >= (int64_t{1} << 31) - kThreads) return;
      launched = true;
      void* scratch = nullptr;
      st = handle_scratch(h, static_cast<size_t>(code_bytes), &scratch);
      if (st != CUDNN_STATUS_SUCCESS) return;
      auto* codes = static_cast<uint8_t*>(scratch);
      const Items it1 = make_items(dyd.dims[0] * dyd.dims[1], dyd.dims[1], cdiv64(dyd.dims[2], kRowsOut),
                                   cdiv64(dyd.dims[3], KO));
      const bool x_vec = rows_vec(xd, x, B, sizeof(S));
      (void)launch_pdl(ops_pdl(h->device), max_rows<S, F::K, F::St, F::P, true>,
                       dim3(static_cast<unsigned>(cdiv64(total1, kThreads))), dim3(kThreads), 0, h->stream, pg, it1, xt,
                       static_cast<const S*>(x), x_vec, Strides{}, nullptr, false, codes, static_cast<int>(code_ld),
                       1.0, 0.0);
      const Items it2 = make_items(dxd.dims[0] * dxd.dims[1], dxd.dims[1], cdiv64(dxd.dims[2], rows_in(F::St)),
                                   cdiv64(dxd.dims[3], B));
      const bool dx_vec = rows_vec(dxd, dx, B, sizeof(S));
      // (a launch error reaches FD_CUDA_LAUNCHED below through cudaGetLastError)
      (void)launch_pdl(pool_pdl(h->device), max_bwd_gather<S, F::K, F::St, F::P>,
                       dim3(static_cast<unsigned>(cdiv64(total2, kThreads))), dim3(kThreads), 0, h->stream, pg, it2,
                       dyt, static_cast<const S*>(dy), static_cast<const uint8_t*>(codes), static_cast<int>(code_ld),
                       dxt, static_cast<S*>(dx), dx_vec, alpha, beta);
      note_pool_backward_bytes(xd, dyd, dxd, beta, 2.0 * static_cast<double>(code_bytes), 2);  // codes out, then in
    });
  });
  if (!launched) return false;
  *status = FD_LAUNCH_STATUS(st);
  return true;
}

}  // namespace fd::cuda
