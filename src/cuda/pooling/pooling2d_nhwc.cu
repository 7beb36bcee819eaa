// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Max pooling of channels-last 4-D tensors (NHWC and alike: unit channel stride, C a multiple of the 16-byte
// vector V = 16 / sizeof(S), the other strides multiples of V, 16-byte aligned pointers) with the square windows
// of pooling2d_planar.cu (3x3 s2 p1, 2x2 s2 p0, 3x3 s2 p0, 3x3 s1 p1), float / double / half / bfloat16, from
// registers; and the backward of global average pooling (the window is the whole plane) as a broadcast. Semantics
// as src/cpu/pooling/pooling.h: ties to the first element in window scan order; PROPAGATE_NAN: the first NaN
// wins; NOT_PROPAGATE_NAN: NaNs skipped (NaN when the window reads only NaNs, no gradient then); a window that
// reads nothing gives 0 (no gradient); y / dx blended with alpha / beta, not read when beta == 0. No atomics.
//
// Forward (nhwc_max_rows<kArg = false>): one thread per (image, strip of kRows output rows, output column,
// channel vector), channel vectors innermost in thread order, so a warp's loads of one input row are one
// contiguous run (C = 64 halves: 4 output columns x 2 input columns x 128 bytes). The thread walks the
// (kRows - 1) * St + K input rows of its strip; per row it loads the last min(K, St) columns of its window (its
// "body", one 16-byte vector each) and takes the K - St columns its window shares with the left neighbour's from
// the lane C / V below by warp shuffles (a direct load, issued with the body loads, only for the first output
// column of a warp or of a row). Row maxima (window columns in order) are folded into the outputs whose windows
// hold the row (rows in order: the same value, ties and NaN rules as the scan-order maximum); an output is stored
// as soon as its last row is folded, so only ceil(K / St) accumulators are live.
//   Bytes (3x3 s2 p1): x once (+ the input row shared by two strips, 1/8, from L2) and y once: ResNet-50 pool1
//   f16 NHWC 64x64x112x112 -> 56x56: 102.8 + 25.7 MB; measured on the H200 0.0376 ms (bf16 0.039, f32 0.068;
//   3.6 TB/s). The staged tile kernel (pooling2d.cu), which reads every window vector from shared memory (9 per
//   output) plus halos: 0.073 ms (bf16 0.077, f32 0.113).
// Backward, two passes (the recomputed argmax of one output serves every dx element under its window):
//   1. nhwc_max_rows<kArg = true>: the forward walk, writing per output and channel the position of its argmax in
//      the window (row * K + column; 0xFF: none) as one byte to the handle's scratch memory, [n][oh][ow][c].
//   2. nhwc_max_gather: one thread per (image, block of kGatherRows(St) dx rows x St dx columns, channel vector);
//      it reads the codes and dy of the outputs whose windows cover the block (3 x 2 for 3x3 s2 p1, the shared
//      ones from L1 / L2) and sums per dx element, in output order, the dy of those whose code is the element's
//      (compile-time) position in the window: the CPU's sum order.
//   Bytes (3x3 s2 p1, f16, pool1): x 102.8 + codes 2 x 12.8 + dy 25.7 + dx 102.8 = 257 MB; measured 0.094 ms
//   (pass 1: 0.049 ms, instruction-bound; pass 2: 0.041 ms; bf16 0.099, f32 0.137; the tile kernel: 0.281 ms,
//   cuDNN 9.19: 0.396 ms).
// Global average backward (global_avg_bwd): dx[n, c, spatial] = blend(dy[n, c] / (H * W)) over a packed NCHW-like
//   (4-D or 5-D; runs of H * W equal values) or packed channels-last dx, one thread per 16-byte vector of dx (the
//   dy values from L1 / L2), dx written once: f32 NCHW 64x2048x7x7: 25.7 MB, measured 0.0106 ms (the tile kernel:
//   0.092 ms). Channels-last dx with 16-byte channel vectors in dy too stays on pooling2d.cu's broadcast (faster).
// FREEDNN_POOL_NO_NHWC=1 sends the max pooling problems to pooling2d.cu's tiles, FREEDNN_POOL_NO_GLOBAL_BWD=1 the
// global average backward to its previous kernels (A/B measurements).
#include <cstdint>
#include <type_traits>

#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/index.cuh"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/pooling/pool_nhwc.cuh"
#include "cuda/pooling/pool_windows.cuh"
#include "cuda/pooling/pooling.h"

namespace fd::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kRows = 4;  // output rows per thread (forward, argmax pass)
// dx rows per thread (gather pass): two window periods for stride 2, 2 rows for stride 1
constexpr int kGatherRows(int stride) { return stride == 1 ? 2 : 2 * stride; }

// Forward (kArg false: y) or argmax codes (kArg true: codes[(((n * out_h + oh) * out_w + ow) * cvecs + cv) * V]).
// A grid-stride loop over whole blocks: every lane of a warp runs the row loop (the halo shuffles need the whole
// warp); items past the end read nothing. kProp: CUDNN_PROPAGATE_NAN.
template <class S, int K, int St, int P, bool kProp, bool kArg>
__global__ void __launch_bounds__(kThreads) nhwc_max_rows(Geo g, Items it, Str xt, const S* __restrict__ x, Str yt,
                                                          S* __restrict__ y, uint8_t* __restrict__ codes,
                                                          double alpha, double beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using C = Comp<S>;
  if (kArg) pdl_allow_dependents();  // the gather (FREEDNN_POOL_PDL) starts with this grid's last blocks, and waits
  constexpr int V = 16 / static_cast<int>(sizeof(S));
  constexpr int NB = K < St ? K : St;  // body columns: the last NB of the window
  constexpr int H = K - NB;            // columns shared with the left neighbour's window
  constexpr int NR = (kRows - 1) * St + K;
  static_assert(P < K && H <= 2 * St, "register pooling geometry");
  static_assert(!kArg || K * K < 255, "codes fit a byte");
  const C neutral = kProp ? C(-INFINITY) : C(NAN);
  const int lane = threadIdx.x & 31;
  for (int base = blockIdx.x * kThreads; base < it.total; base += gridDim.x * kThreads) {
    const int i = base + threadIdx.x;
    const bool active = i < it.total;
    int n = 0, grp = 0, ow = 0, cv = 0;
    if (active) it.split(i, &n, &grp, &ow, &cv);
    // lane - cvecs holds output column ow - 1 of the same strip when ow > 0 (channel vectors are innermost)
    const bool left_ok = active && lane >= it.cv && ow > 0;
    const int c0 = ow * St - P;          // input column of window column 0
    const int r0 = grp * kRows * St - P;  // input row of strip row 0
    const S* xb = x + (n * xt.n + cv * V);
    bool colv[K];
#pragma unroll
    for (int t = 0; t < K; ++t) colv[t] = active && static_cast<unsigned>(c0 + t) < static_cast<unsigned>(g.in_w);

    C acc[kRows][V];
    int arg[kRows][V];
#pragma unroll
    for (int m = 0; m < kRows; ++m)
#pragma unroll
      for (int k = 0; k < V; ++k) {
        acc[m][k] = neutral;
        arg[m][k] = -1;
      }

#pragma unroll
    for (int r = 0; r < NR; ++r) {
      const int ih = r0 + r;
      const bool rv = active && static_cast<unsigned>(ih) < static_cast<unsigned>(g.in_h);
      const int roff = ih * xt.h;  // dereferenced only when rv
      uint4 raw[K];
#pragma unroll
      for (int t = 0; t < K; ++t) {
        raw[t] = neutral_bits<S, kProp>();
        // body columns always; shared columns only where no neighbour lane has them
        const bool load = rv && colv[t] && (t >= H || !left_ok);
        if (load) raw[t] = *reinterpret_cast<const uint4*>(xb + (roff + (c0 + t) * xt.w));
      }
#pragma unroll
      for (int t = H - 1; t >= 0; --t) {  // column c0 + t: the left neighbour's window column t + St
        const uint4 nb = shfl_up4(raw[t + St], it.cv);
        if (left_ok) raw[t] = nb;
      }
      // the row's K values per lane (the neutral value where not read: the neighbour lane filled the same
      // positions with it)
      C v[K][V];
#pragma unroll
      for (int t = 0; t < K; ++t) load_vec<S, V>(reinterpret_cast<const S*>(&raw[t]), v[t]);
      // Row maximum hv of each lane; kArg: and its column ht (-1: none): the first column holding the maximum
      // (max_skip_nan skips NaNs; PROPAGATE_NAN: the first NaN instead when the row has one).
      C hv[V];
      int ht[V];
      if constexpr (kArg) {
        row_arg<C, K, V, kProp>(v, rv, colv, hv, ht);
      } else {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          hv[k] = v[0][k];
#pragma unroll
          for (int t = 1; t < K; ++t) max_fold(hv[k], v[t][k], kProp);
        }
      }
#pragma unroll
      for (int m = 0; m < kRows; ++m) {
        if (r < m * St || r >= m * St + K) continue;  // rows of output m: m*St .. m*St + K - 1
#pragma unroll
        for (int k = 0; k < V; ++k) {
          if constexpr (kArg) {
            arg_fold(acc[m][k], arg[m][k], hv[k], ht[k] >= 0, (r - m * St) * K + ht[k], kProp);
          } else if (r == m * St) {
            acc[m][k] = hv[k];
          } else {
            max_fold(acc[m][k], hv[k], kProp);
          }
        }
        if (r != m * St + K - 1) continue;
        // output m complete
        const int oh = grp * kRows + m;
        if (!active || oh >= g.out_h) continue;
        if constexpr (kArg) {
          uint32_t w[(V + 3) / 4] = {};
#pragma unroll
          for (int k = 0; k < V; ++k)
            w[k / 4] |= static_cast<uint32_t>(arg[m][k] >= 0 ? arg[m][k] : 0xFF) << (8 * (k % 4));
          store_codes<V>(codes + ((((n * g.out_h + oh) * g.out_w + ow) * it.cv + cv) * V), w);
        } else {
          const int wr = r0 + m * St;  // first input row of the window
          const bool any = wr + K > 0 && wr < g.in_h && c0 + K > 0 && c0 < g.in_w;
          C out[V];
#pragma unroll
          for (int k = 0; k < V; ++k) out[k] = any ? acc[m][k] : C(0);
          blend_store_vec<S, V>(y + (n * yt.n + oh * yt.h + ow * yt.w + cv * V), out, alpha, beta);
        }
      }
    }
  }
  if (!kArg) pdl_allow_dependents();
}

// dx from the argmax codes: one thread per kGatherRows(St) x St block of dx and channel vector; items are
// (n, row block, column block, channel vector).
template <class S, int K, int St, int P>
__global__ void __launch_bounds__(kThreads) nhwc_max_gather(Geo g, Items it, Str dyt, const S* __restrict__ dy,
                                                            const uint8_t* __restrict__ codes, Str dxt,
                                                            S* __restrict__ dx, double alpha, double beta) {
  using C = Comp<S>;
  pdl_wait();  // the codes of the argmax pass before it (FREEDNN_POOL_PDL)
  constexpr int V = 16 / static_cast<int>(sizeof(S));
  constexpr int R = kGatherRows(St);
  constexpr int NW = (V + 3) / 4;
  static_assert(R % St == 0, "blocks start on a window grid line");
  // covering outputs, relative to (grp * R / St, q): rows OH_LO .. OH_HI, columns OW_LO .. OW_HI
  constexpr int OH_LO = ceil_div(P - K + 1, St), OH_HI = floor_div(R - 1 + P, St), NOH = OH_HI - OH_LO + 1;
  constexpr int OW_LO = ceil_div(P - K + 1, St), OW_HI = floor_div(St - 1 + P, St), NOW = OW_HI - OW_LO + 1;
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < it.total; i += gridDim.x * kThreads) {
    int n, grp, q, cv;
    it.split(i, &n, &grp, &q, &cv);
    const int oh0 = grp * (R / St) + OH_LO, ow0 = q + OW_LO;
    uint32_t cw[NOH][NOW][NW];
    uint4 draw[NOH][NOW];
#pragma unroll
    for (int a = 0; a < NOH; ++a)
#pragma unroll
      for (int b = 0; b < NOW; ++b) {
        const int oh = oh0 + a, ow = ow0 + b;
        const bool ok = static_cast<unsigned>(oh) < static_cast<unsigned>(g.out_h) &&
                        static_cast<unsigned>(ow) < static_cast<unsigned>(g.out_w);
#pragma unroll
        for (int w = 0; w < NW; ++w) cw[a][b][w] = 0xFFFFFFFFu;
        draw[a][b] = make_uint4(0, 0, 0, 0);
        if (ok) {
          load_codes<V>(codes + ((((n * g.out_h + oh) * g.out_w + ow) * it.cv + cv) * V), cw[a][b]);
          draw[a][b] = *reinterpret_cast<const uint4*>(dy + (n * dyt.n + oh * dyt.h + ow * dyt.w + cv * V));
        }
      }
#pragma unroll
    for (int ii = 0; ii < R; ++ii) {
      const int ih = grp * R + ii;
      if (ih >= g.in_h) break;
#pragma unroll
      for (int j = 0; j < St; ++j) {
        const int iw = q * St + j;
        if (iw >= g.in_w) break;
        C acc[V];
#pragma unroll
        for (int k = 0; k < V; ++k) acc[k] = C(0);
        // windows in output order; (ti, tj): the element's position inside window (a, b), compile-time
#pragma unroll
        for (int a = 0; a < NOH; ++a) {
          const int ti = ii - (OH_LO + a) * St + P;
          if (ti < 0 || ti >= K) continue;
#pragma unroll
          for (int b = 0; b < NOW; ++b) {
            const int tj = j - (OW_LO + b) * St + P;
            if (tj < 0 || tj >= K) continue;
            C d[V];
            load_vec<S, V>(reinterpret_cast<const S*>(&draw[a][b]), d);
#pragma unroll
            for (int k = 0; k < V; ++k)
              if (((cw[a][b][k / 4] >> (8 * (k % 4))) & 0xFFu) == static_cast<uint32_t>(ti * K + tj)) acc[k] += d[k];
          }
        }
        blend_store_vec<S, V>(dx + (n * dxt.n + ih * dxt.h + iw * dxt.w + cv * V), acc, alpha, beta);
      }
    }
  }
}

// Global average backward over a packed dx of `count` elements: element e has (n, c) = (e / (R * C), (e / R) % C)
// (kPlanar: NCHW-like) or (e / (R * C), e % C) (channels-last); dx[e] = blend(dy[n * dysn + c * dysc] / R). V elements
// per thread (one 16-byte access; dx aligned to 16 bytes when V > 1); the last partial vector by element. Planar
// with R >= V: a vector spans at most two planes, elements k < R - e0 % R in the first (two dy reads and divisions,
// selects). dy_linear: dysn == C * dysc (plane q at q * dysc).
template <class S, int V, bool kPlanar>
__global__ void __launch_bounds__(kThreads) global_avg_bwd(int count, int R, int C, Divider d_r, Divider d_c,
                                                           Divider d_rc, int dysn, int dysc, bool dy_linear,
                                                           const S* __restrict__ dy, S* __restrict__ dx,
                                                           double alpha, double beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using T = Comp<S>;
  const int nvec = (count + V - 1) / V;
  const T div = static_cast<T>(R);
  auto plane_value = [&](int q) {
    int off;
    if (dy_linear) {
      off = q * dysc;
    } else {
      const int n = static_cast<int>(d_c.div(q));
      off = n * dysn + (q - n * C) * dysc;
    }
    return Storage<S>::load(dy, off) / div;
  };
  // 64-bit steps: count may come within one grid's stride of 2^31 (the host takes up to kMaxItems)
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < nvec; i += int64_t(gridDim.x) * kThreads) {
    const int e0 = static_cast<int>(i) * V;
    T out[V];
    if constexpr (kPlanar) {
      int q = static_cast<int>(d_r.div(e0));  // plane n * C + c
      int r = e0 - q * R;
      if (R >= V) {
        const int b = R - r;  // elements of plane q
        const T v0 = plane_value(q);
        T v1 = v0;
        if (b < V && e0 + b < count) v1 = plane_value(q + 1);
#pragma unroll
        for (int k = 0; k < V; ++k) out[k] = k < b ? v0 : v1;
      } else {
        T v = plane_value(q);
#pragma unroll
        for (int k = 0; k < V; ++k) {
          if (k > 0 && ++r == R) {
            r = 0;
            ++q;
            if (e0 + k < count) v = plane_value(q);
          }
          out[k] = v;
        }
      }
    } else {
      int n = static_cast<int>(d_rc.div(e0));
      int c = e0 - static_cast<int>(d_c.div(e0)) * C;
#pragma unroll
      for (int k = 0; k < V; ++k) {
        if (k > 0 && ++c == C) {
          c = 0;
          n = static_cast<int>(d_rc.div(e0 + k));
        }
        out[k] = e0 + k < count ? Storage<S>::load(dy, n * dysn + c * dysc) / div : T(0);
      }
    }
    if (V == 1 || e0 + V <= count) {
      blend_store_vec<S, V>(dx + e0, out, alpha, beta);
    } else {
      for (int k = 0; k < V && e0 + k < count; ++k) blend_store_vec<S, 1>(dx + e0 + k, &out[k], alpha, beta);
    }
  }
  pdl_allow_dependents();
}

// ---- host side ----

constexpr int64_t kMaxItems = (int64_t{1} << 31) - 2 * kThreads;

}  // namespace

bool pooling2d_nhwc_forward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                            const cudnnTensorStruct& xd, const void* x, double beta, const cudnnTensorStruct& yd,
                            void* y, cudnnStatus_t* status) {
  if (!nhwc_on(p) || xd.nb_dims != 4 || yd.nb_dims != 4) return false;
  bool launched = false;
  with_float_storage(xd.dtype, [&](auto tag) {
    using S = decltype(tag);
    constexpr int V = 16 / static_cast<int>(sizeof(S));
    if (!nhwc_vec(xd, x, V) || !nhwc_vec(yd, y, V)) return;
    with_cfg(p, [&](auto cfg) {
      using F = decltype(cfg);
      const int64_t cvecs = xd.dims[1] / V;
      const int64_t total = yd.dims[0] * cdiv64(yd.dims[2], kRows) * yd.dims[3] * cvecs;
      if (total >= kMaxItems) return;
      const Items it = make_items(yd.dims[0], cdiv64(yd.dims[2], kRows), yd.dims[3], cvecs);
      const int grid = grid_size(total, kThreads, device);
      auto kern = p.nan_opt == CUDNN_PROPAGATE_NAN ? nhwc_max_rows<S, F::K, F::St, F::P, true, false>
                                                   : nhwc_max_rows<S, F::K, F::St, F::P, false, false>;
      (void)launch_pdl(ops_pdl(device), kern, dim3(grid), dim3(kThreads), 0, stream, make_geo(p, xd, yd), it,
                       str_of(xd), static_cast<const S*>(x), str_of(yd), static_cast<S*>(y), nullptr, alpha, beta);
      launched = true;
    });
  });
  if (!launched) return false;
  *status = FD_LAUNCH_STATUS(CUDNN_STATUS_SUCCESS);
  return true;
}

bool pooling2d_nhwc_backward(cudnnContext* h, const cudnnPoolingStruct& p, double alpha,
                             const cudnnTensorStruct& dyd, const void* dy, const cudnnTensorStruct& xd, const void* x,
                             double beta, const cudnnTensorStruct& dxd, void* dx, cudnnStatus_t* status) {
  if (!nhwc_on(p) || xd.nb_dims != 4 || dyd.nb_dims != 4 || dxd.nb_dims != 4) return false;
  bool launched = false;
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  with_float_storage(dxd.dtype, [&](auto tag) {
    using S = decltype(tag);
    constexpr int V = 16 / static_cast<int>(sizeof(S));
    if (!nhwc_vec(xd, x, V) || !nhwc_vec(dyd, dy, V) || !nhwc_vec(dxd, dx, V)) return;
    with_cfg(p, [&](auto cfg) {
      using F = decltype(cfg);
      constexpr int R = kGatherRows(F::St);
      const int64_t cvecs = xd.dims[1] / V;
      const int64_t code_bytes = dyd.dims[0] * dyd.dims[2] * dyd.dims[3] * xd.dims[1];
      const int64_t total1 = dyd.dims[0] * cdiv64(dyd.dims[2], kRows) * dyd.dims[3] * cvecs;
      const int64_t total2 = dxd.dims[0] * cdiv64(dxd.dims[2], R) * cdiv64(dxd.dims[3], F::St) * cvecs;
      if (code_bytes >= (int64_t{1} << 31) || total1 >= kMaxItems || total2 >= kMaxItems) return;
      launched = true;
      void* scratch = nullptr;
      st = handle_scratch(h, static_cast<size_t>(code_bytes), &scratch);
      if (st != CUDNN_STATUS_SUCCESS) return;
      auto* codes = static_cast<uint8_t*>(scratch);
      const Geo g = make_geo(p, xd, dyd);
      const Items it1 = make_items(dyd.dims[0], cdiv64(dyd.dims[2], kRows), dyd.dims[3], cvecs);
      auto arg_kern = p.nan_opt == CUDNN_PROPAGATE_NAN ? nhwc_max_rows<S, F::K, F::St, F::P, true, true>
                                                       : nhwc_max_rows<S, F::K, F::St, F::P, false, true>;
      (void)launch_pdl(ops_pdl(h->device), arg_kern, dim3(grid_size(total1, kThreads, h->device)), dim3(kThreads), 0,
                       h->stream, g, it1, str_of(xd), static_cast<const S*>(x), Str{}, nullptr, codes, 1.0, 0.0);
      const Items it2 = make_items(dxd.dims[0], cdiv64(dxd.dims[2], R), cdiv64(dxd.dims[3], F::St), cvecs);
      // (a launch error reaches FD_CUDA_LAUNCHED below through cudaGetLastError)
      (void)launch_pdl(pool_pdl(h->device), nhwc_max_gather<S, F::K, F::St, F::P>,
                       dim3(grid_size(total2, kThreads, h->device)), dim3(kThreads), 0, h->stream, g, it2,
                       str_of(dyd), static_cast<const S*>(dy), static_cast<const uint8_t*>(codes), str_of(dxd),
                       static_cast<S*>(dx), alpha, beta);
      note_pool_backward_bytes(xd, dyd, dxd, beta, 2.0 * static_cast<double>(code_bytes), 2);  // codes out, then in
    });
  });
  if (!launched) return false;
  *status = FD_LAUNCH_STATUS(st);
  return true;
}

bool pooling_global_avg_backward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                                 const cudnnTensorStruct& dyd, const void* dy, double beta,
                                 const cudnnTensorStruct& dxd, void* dx, cudnnStatus_t* status) {
  static const bool off = fd::env_flag("FREEDNN_POOL_NO_GLOBAL_BWD");
  if (off) return false;
  if (p.mode != CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING && p.mode != CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING)
    return false;
  if (dxd.vect() != 1 || dyd.vect() != 1 || dxd.nb_dims != dyd.nb_dims || dxd.dtype != dyd.dtype) return false;
  const int ns = dxd.nb_dims - 2;
  if (ns < 1 || p.nb_dims != ns) return false;
  int64_t R = 1;
  for (int d = 0; d < ns; ++d) {
    if (p.padding[d] != 0 || p.window[d] != dxd.dims[2 + d] || dyd.dims[2 + d] != 1) return false;
    R *= dxd.dims[2 + d];
  }
  const int64_t N = dxd.dims[0], C = dxd.dims[1], count = dxd.element_count();
  if (count == 0 || count >= kMaxItems || N < 1 || C < 1) return false;
  const int64_t dysn = dyd.strides[0], dysc = dyd.strides[1];
  if (dysn < 0 || dysc < 0 || (N - 1) * dysn + (C - 1) * dysc >= (int64_t{1} << 31)) return false;
  // packed NCHW-like unless C == 1 or the planes are single elements (then both orders agree: take channels-last)
  const bool planar = dxd.is_packed_as(CUDNN_TENSOR_NCHW) && R > 1 && C > 1;
  if (!planar && !dxd.is_packed_as(CUDNN_TENSOR_NHWC)) return false;
  bool launched = false;
  with_float_storage(dxd.dtype, [&](auto tag) {
    using S = decltype(tag);
    constexpr int V = 16 / static_cast<int>(sizeof(S));
    const bool vec = aligned16(dx);
    // channels-last with 16-byte vectors of channels in dy too: pooling2d.cu's broadcast reads dy as vectors
    // (measured faster there: f16 64x2048x7x7 0.0075 ms against 0.0113 ms by element)
    if (!planar && vec && dxd.nb_dims == 4 && C % V == 0 && dysc == 1 && (N == 1 || dysn % V == 0) &&
        aligned16(dy))
      return;
    launched = true;
    const int64_t nvec = vec ? cdiv64(count, V) : count;
    const int grid = grid_size(nvec, kThreads, device);
    const Divider d_r(R, count), d_c(C, count), d_rc(R * C, count);
    const auto* dyp = static_cast<const S*>(dy);
    auto* dxp = static_cast<S*>(dx);
    const int cnt = static_cast<int>(count), r = static_cast<int>(R), c = static_cast<int>(C);
    const int sn = static_cast<int>(dysn), sc = static_cast<int>(dysc);
    const bool lin = N == 1 || dysn == C * dysc;
    auto launch = [&](auto kern) {
      (void)launch_pdl(ops_pdl(device), kern, dim3(grid), dim3(kThreads), 0, stream, cnt, r, c, d_r, d_c, d_rc, sn, sc,
                       lin, dyp, dxp, alpha, beta);
    };
    if (planar) {
      if (vec) launch(global_avg_bwd<S, V, true>);
      else launch(global_avg_bwd<S, 1, true>);
    } else {
      if (vec) launch(global_avg_bwd<S, V, false>);
      else launch(global_avg_bwd<S, 1, false>);
    }
  });
  if (!launched) return false;
  *status = FD_LAUNCH_STATUS(CUDNN_STATUS_SUCCESS);
  return true;
}

}  // namespace fd::cuda
