// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:winograd: 2-D 3x3 stride-1 convolutions by Winograd's minimal filtering F(m x m, 3x3), m = 4 (36 points
// per 4x4 output tile: 4x fewer products than direct) or, with FREEDNN_WINOGRAD_TILE=2, m = 2 (16 points per 2x2
// tile: 2.25x), in three kernels and a*a batched GEMMs (a = m + 2, one per point of the transformed tile), over a
// chunk of images at a time:
//   filter   U[e][co][ci]  = (G g G^T)[e]                         (once per call)
//   input    V[e][c][t]    = (B^T d_t B)[e]                       d_t: the a x a input patch of m x m output tile t
//   GEMM     M[e][k][t]    = sum_c U[e][k][c] V[e][c][t]          cublasGemmStridedBatchedEx, batch a*a (per group)
//   output   y tile t      = A^T M_t A, with alpha/beta or the fused bias + activation epilogue
// F(4x4) also moves 1.78x fewer bytes of transformed tiles (V and M: 2.25x the input / output size against 4x),
// which bound the F(2x2) version (run 11: FMA 3x3 at 56x56 0.40 ms, NVIDIA's FFT_TILING 0.23). Its transform
// coefficients (up to 8, and 1/24) cost some float accuracy: errors of a few 1e-6 of the output's size.
// Backward data is the same computation (a stride-1 3x3 backward data is a forward convolution of dy with the
// filter transposed (k <-> c) and rotated by 180 degrees, padding 2 - p; negative padding is an offset).
// Backward filter transposes the forward tile product: with Z_t = A dy_t A^T (the m x m dy tile lifted to a x a),
//   P[e][k][c] = sum over tiles t of Z_t[e] V_t[e]   (a*a GEMMs over the tiles, accumulated chunk after chunk)
//   dw[k][c]   = G^T P[k][c] G.
// (With FREEDNN_WINOGRAD_WGRAD_SPLIT the tile sum runs in parts, each its own batch of GEMMs, added in order.)
// Transforms and GEMM sums are in float (double for DOUBLE data); half/bf16 are widened when read. Float data use
// TF32 in the GEMMs only when the math type allows it (as cuda:im2col_gemm). Any layout (strided reads), groups
// (one GEMM call per group). Both the WINOGRAD and WINOGRAD_NONFUSED enums map to this three-kernel path: there
// is no single fused kernel here. Deterministic: fixed-order GEMMs, no atomics.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/dtype.h"
#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/cublas_util.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/impls.h"

namespace fd::cuda::conv {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr size_t kAlign = 256;

// Bytes of transformed tiles (V and M, or V and Z) per chunk of images: FREEDNN_WINOGRAD_CHUNK_MB (default 256), read
// once (the workspace query and the call must agree). Chunks small enough to stay in L2 (16-64 MB) were 1.08-1.28x
// slower on ResNet-50's FMA layers (run 42): the GEMMs shrink more than the DRAM traffic helps.
size_t chunk_budget() {
  static const auto mb = static_cast<size_t>(std::clamp(fd::env_int("FREEDNN_WINOGRAD_CHUNK_MB", 256), 1LL, 65536LL));
  return mb << 20;
}

size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }
size_t compute_size(const ConvProblem& p) { return p.xdt == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float); }

bool tf32_allowed(const ConvProblem& p) {
  if (p.xdt != CUDNN_DATA_FLOAT || p.math == CUDNN_FMA_MATH) return false;
  const char* e = std::getenv("NVIDIA_TF32_OVERRIDE");
  return !(e != nullptr && std::strcmp(e, "0") == 0);
}

// The forward-like computation of a problem: input `in` (cin channels, hin x win) -> output (cout channels,
// hout x wout), padding pad (may be negative for backward data), filter transposed for backward data.
struct Shape {
  int64_t cin = 1, cout = 1, cin_g = 1, cout_g = 1;
  int64_t hin = 1, win = 1, hout = 1, wout = 1, pad_h = 0, pad_w = 0;
  int64_t th = 1, tw = 1;  // tiles per image
  bool transpose = false, rot = false;
};

// The output tile m (FREEDNN_WINOGRAD_TILE=2|4, read once: the workspace query and the call must agree).
int tile_m() {
  static const int m = fd::env_int("FREEDNN_WINOGRAD_TILE", 4) == 2 ? 2 : 4;
  return m;
}
int points() { return (tile_m() + 2) * (tile_m() + 2); }  // a * a

Shape shape(const ConvProblem& p) {
  Shape s;
  const bool flip = p.mode == CUDNN_CONVOLUTION;
  if (p.dir == ConvDir::bwd_data) {
    s.cin = p.oc, s.cout = p.ic, s.cin_g = p.ocg(), s.cout_g = p.icg();
    s.hin = p.oh, s.win = p.ow, s.hout = p.ih, s.wout = p.iw;
    s.pad_h = 2 - p.ph, s.pad_w = 2 - p.pw;
    s.transpose = true, s.rot = !flip;
  } else {  // fwd, and bwd_filter (x in, dy tiles)
    s.cin = p.ic, s.cout = p.oc, s.cin_g = p.icg(), s.cout_g = p.ocg();
    s.hin = p.ih, s.win = p.iw, s.hout = p.oh, s.wout = p.ow;
    s.pad_h = p.ph, s.pad_w = p.pw;
    s.rot = flip;
  }
  s.th = (s.hout + tile_m() - 1) / tile_m();
  s.tw = (s.wout + tile_m() - 1) / tile_m();
  return s;
}

struct Layout {
  int64_t chunk = 1;           // images per chunk
  int64_t splits = 1;          // backward filter: the tile sums split in this many parts (wgrad_splits)
  size_t u = 0, v = 0, m = 0;  // offsets: filter transforms (or P), input transforms, products (or Z)
  size_t total = 0;
};

// Backward filter's GEMMs are cin_g x cout_g with the tiles as K (56x56x64 at N = 64: 36 GEMMs of 64 x 64 x 12544,
// 144 CTAs of 32 x 32 on 132 SMs, 9.5 TFLOP/s in run 42). Split over K, they run 36 * splits GEMMs into as many
// partial P, summed in order by filter_grad_kernel. FREEDNN_WINOGRAD_WGRAD_SPLIT: 0 (the default since run 43: a
// split sized for two waves of 64 x 64 tiles, at least 256 tiles each; 56x56x64 at N = 64 in 0.60x the time of no
// split, 28x28x128 0.87x, H100), 1 (no split) or a power of two (at most that); the split always divides every
// chunk's tile count. Read once (the workspace query and the call must agree).
int64_t wgrad_splits(const ConvProblem& p, const Shape& s, int64_t chunk, int64_t tiles) {
  static const long long knob = std::clamp(fd::env_int("FREEDNN_WINOGRAD_WGRAD_SPLIT", 0), 0LL, 256LL);
  if (p.dir != ConvDir::bwd_filter || knob == 1) return 1;
  int64_t want = knob;
  if (knob == 0) {
    const int64_t mn = p.g * ((s.cin_g + 63) / 64) * ((s.cout_g + 63) / 64) * points();
    const int64_t target = 2 * int64_t(std::max(1, current_sm_count()));
    want = 1;
    while (want < 64 && mn * want < target && chunk * tiles / (2 * want) >= 256) want *= 2;
  }
  const int64_t t_full = chunk * tiles, t_last = (p.mb - (p.mb - 1) / chunk * chunk) * tiles;
  int64_t sp = 1;
  while (sp * 2 <= want && t_full % (sp * 2) == 0 && t_last % (sp * 2) == 0) sp *= 2;
  return sp;
}

Layout layout(const ConvProblem& p) {
  const Shape s = shape(p);
  const size_t e = compute_size(p);
  const int64_t tiles = s.th * s.tw;
  const auto pts = static_cast<size_t>(points());
  const size_t per_image = pts * static_cast<size_t>((s.cin + s.cout) * tiles) * e;
  Layout l;
  l.chunk = static_cast<int64_t>(chunk_budget() / std::max<size_t>(per_image, 1));
  l.chunk = std::min<int64_t>(l.chunk, INT_MAX / std::max<int64_t>(tiles, 1));
  l.chunk = std::max<int64_t>(1, std::min<int64_t>(l.chunk, p.mb));
  const auto T = static_cast<size_t>(l.chunk * tiles);
  l.splits = wgrad_splits(p, s, l.chunk, tiles);
  l.u = 0;
  l.v = align_up(pts * static_cast<size_t>(l.splits * s.cout * s.cin_g) * e);
  l.m = l.v + align_up(pts * static_cast<size_t>(s.cin) * T * e);
  l.total = kAlign + l.m + align_up(pts * static_cast<size_t>(s.cout) * T * e);
  return l;
}

// --- kernels (grid-stride loops) ------------------------------------------------------------------------------

// The transform matrices of F(m x m, 3x3) (Lavin and Gray's): B^T (a x a), G (a x 3), A^T (m x a). Used in fully
// unrolled loops, so every coefficient is a constant and madd drops the zeros and the +-1 products.
template <int M>
struct Wino;
template <>
struct Wino<2> {
  __host__ __device__ static constexpr double bt(int i, int j) {
    constexpr double v[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
    return v[i][j];
  }
  __host__ __device__ static constexpr double g(int i, int j) {
    constexpr double v[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
    return v[i][j];
  }
  __host__ __device__ static constexpr double at(int i, int j) {
    constexpr double v[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
    return v[i][j];
  }
};
template <>
struct Wino<4> {
  __host__ __device__ static constexpr double bt(int i, int j) {
    constexpr double v[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                                {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
    return v[i][j];
  }
  __host__ __device__ static constexpr double g(int i, int j) {
    constexpr double v[6][3] = {{1.0 / 4, 0, 0},           {-1.0 / 6, -1.0 / 6, -1.0 / 6}, {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                {1.0 / 24, 1.0 / 12, 1.0 / 6}, {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};
    return v[i][j];
  }
  __host__ __device__ static constexpr double at(int i, int j) {
    constexpr double v[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
    return v[i][j];
  }
};

// acc += c * v for a constant c: nothing for 0, an add or subtract for +-1.
template <class E>
__device__ __forceinline__ void madd(E& acc, double c, E v) {
  if (c == 0.0) return;
  if (c == 1.0) {
    acc += v;
  } else if (c == -1.0) {
    acc -= v;
  } else {
    acc += static_cast<E>(c) * v;
  }
}

// U[e][co][ci] = (G g G^T)[e], g the 3x3 filter of (co, ci): w[co][ci] or, transposed, w[k][c] with
// k = group * cin_g + ci and c = co % cout_g; read rotated by 180 degrees when `rot`.
template <int M, class S, class E>
__global__ void filter_transform_kernel(View5 wv, const S* w, int64_t cout, int64_t cin_g, int64_t cout_g,
                                        bool transpose, bool rot, E* U) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int A = M + 2;
  using W = Wino<M>;
  const int64_t total = cout * cin_g;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t co = i / cin_g, ci = i % cin_g;
    int64_t wk = co, wc = ci;
    if (transpose) wk = (co / cout_g) * cin_g + ci, wc = co % cout_g;
    E g[3][3];
#pragma unroll
    for (int a = 0; a < 3; ++a)
#pragma unroll
      for (int b = 0; b < 3; ++b) g[a][b] = load_as<E>(w, wv.at(wk, wc, 0, rot ? 2 - a : a, rot ? 2 - b : b));
    E t[A][3];
#pragma unroll
    for (int r = 0; r < A; ++r)
#pragma unroll
      for (int j = 0; j < 3; ++j) {
        t[r][j] = E(0);
#pragma unroll
        for (int k = 0; k < 3; ++k) madd(t[r][j], W::g(r, k), g[k][j]);
      }
#pragma unroll
    for (int r = 0; r < A; ++r)
#pragma unroll
      for (int c = 0; c < A; ++c) {
        E u = E(0);
#pragma unroll
        for (int k = 0; k < 3; ++k) madd(u, W::g(c, k), t[r][k]);
        U[(r * A + c) * total + i] = u;
      }
  }
  pdl_allow_dependents();
}

// V[e][c][t] = (B^T d B)[e] for the a x a patch d at (m ty - pad_h, m tx - pad_w) of image n0 + img (0 outside).
// With the tiles split in parts of Ts (backward filter, wgrad_splits): V[e][part][c][t % Ts], part = t / Ts.
template <int M, class S, class E>
__global__ void input_transform_kernel(View5 v, const S* in, int64_t n0, int64_t cin, int64_t hin, int64_t win,
                                       int64_t pad_h, int64_t pad_w, int64_t th, int64_t tw, int64_t T, int64_t Ts,
                                       E* V) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int A = M + 2;
  using W = Wino<M>;
  const int64_t total = cin * T;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t t = i % T, c = i / T;
    const int64_t tx = t % tw, ty = (t / tw) % th, n = n0 + t / (tw * th);
    const int64_t h0 = ty * M - pad_h, w0 = tx * M - pad_w;
    const int64_t parts = T / Ts, part = Ts == T ? 0 : t / Ts;  // one part but for a split backward filter
    E d[A][A];
#pragma unroll
    for (int a = 0; a < A; ++a)
#pragma unroll
      for (int b = 0; b < A; ++b) {
        const int64_t hh = h0 + a, ww = w0 + b;
        d[a][b] = hh >= 0 && hh < hin && ww >= 0 && ww < win ? load_as<E>(in, v.at(n, c, 0, hh, ww)) : E(0);
      }
    E r[A][A];
#pragma unroll
    for (int a = 0; a < A; ++a)
#pragma unroll
      for (int b = 0; b < A; ++b) {
        r[a][b] = E(0);
#pragma unroll
        for (int k = 0; k < A; ++k) madd(r[a][b], W::bt(a, k), d[k][b]);
      }
#pragma unroll
    for (int a = 0; a < A; ++a)
#pragma unroll
      for (int b = 0; b < A; ++b) {
        E o = E(0);
#pragma unroll
        for (int k = 0; k < A; ++k) madd(o, W::bt(b, k), r[a][k]);
        V[(((a * A + b) * parts + part) * cin + c) * Ts + (t - part * Ts)] = o;
      }
  }
  pdl_allow_dependents();
}

// Output tile t of channel k: A^T M A (m x m), written where inside hout x wout. `rows`: each of the tile's rows
// is one 16-byte store (float data, F(4x4), no fused epilogue, a packed 16-byte aligned row of wout % 4 == 0
// elements: out_rows_ok) instead of m 4-byte stores 16 bytes apart from the next thread's.
template <int M, class S, class E>
__global__ void output_transform_kernel(const E* Mt, int64_t n0, int64_t cout, int64_t hout, int64_t wout, int64_t th,
                                        int64_t tw, int64_t T, View5 ov, S* out, E alpha, E beta, FusedDev f,
                                        bool rows) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int A = M + 2;
  using W = Wino<M>;
  const int64_t total = cout * T;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t t = i % T, k = i / T;
    const int64_t tx = t % tw, ty = (t / tw) % th, n = n0 + t / (tw * th);
    E m[A][A];
#pragma unroll
    for (int e = 0; e < A * A; ++e) m[e / A][e % A] = Mt[(e * cout + k) * T + t];
    E r[M][A];
#pragma unroll
    for (int a = 0; a < M; ++a)
#pragma unroll
      for (int b = 0; b < A; ++b) {
        r[a][b] = E(0);
#pragma unroll
        for (int q = 0; q < A; ++q) madd(r[a][b], W::at(a, q), m[q][b]);
      }
    E y[M][M];
#pragma unroll
    for (int a = 0; a < M; ++a)
#pragma unroll
      for (int b = 0; b < M; ++b) {
        y[a][b] = E(0);
#pragma unroll
        for (int q = 0; q < A; ++q) madd(y[a][b], W::at(b, q), r[a][q]);
      }
    if constexpr (M == 4 && std::is_same_v<S, float> && std::is_same_v<E, float>) {
      if (rows) {  // write_out's plain form, four elements at a time
#pragma unroll
        for (int a = 0; a < M; ++a) {
          const int64_t oh = ty * M + a;
          if (oh >= hout) continue;
          float4* dst = reinterpret_cast<float4*>(out + ov.at(n, k, 0, oh, tx * M));
          float4 o = make_float4(alpha * y[a][0], alpha * y[a][1], alpha * y[a][2], alpha * y[a][3]);
          if (beta != E(0)) {
            const float4 old = *dst;
            o.x += beta * old.x, o.y += beta * old.y, o.z += beta * old.z, o.w += beta * old.w;
          }
          *dst = o;
        }
        continue;
      }
    }
#pragma unroll
    for (int a = 0; a < M; ++a)
#pragma unroll
      for (int b = 0; b < M; ++b) {
        const int64_t oh = ty * M + a, ow = tx * M + b;
        if (oh < hout && ow < wout)
          write_out<S, E>(out, ov.at(n, k, 0, oh, ow), y[a][b], alpha, beta, f, n, k, 0, oh, ow);
      }
  }
  pdl_allow_dependents();
}

// Whether output_transform_kernel may store the tile rows whole (its `rows`): unless FREEDNN_WINOGRAD_ROW_STORES=0
// (run 43, H100: 0.87-0.88x the time of element stores on the 56x56 / 28x28 forward and backward data), float
// data, F(4x4), no fused epilogue, rows of a multiple of 4 elements at stride 1 and every other stride a multiple
// of 4, a 16-byte aligned base.
bool out_rows_ok(const ConvProblem& p, int m, const View5& ov, const void* out, const FusedDev& f, int64_t wout) {
  static const bool on = fd::env_int("FREEDNN_WINOGRAD_ROW_STORES", 1) == 1;
  if (!on || m != 4 || p.xdt != CUDNN_DATA_FLOAT || f.on || ov.vect != 1 || wout % 4 != 0) return false;
  if (ov.st[4] != 1 || ov.st[0] % 4 != 0 || ov.st[1] % 4 != 0 || ov.st[3] % 4 != 0) return false;
  return reinterpret_cast<uintptr_t>(out) % 16 == 0;
}

// Z[e][k][t] = (A dy_t A^T)[e] for the m x m dy tile t of channel k (0 outside hout x wout).
template <int M, class S, class E>
__global__ void dy_transform_kernel(View5 v, const S* dy, int64_t n0, int64_t cout, int64_t hout, int64_t wout,
                                    int64_t th, int64_t tw, int64_t T, int64_t Ts, E* Z) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int A = M + 2;
  using W = Wino<M>;
  const int64_t total = cout * T;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t t = i % T, k = i / T;
    const int64_t tx = t % tw, ty = (t / tw) % th, n = n0 + t / (tw * th);
    const int64_t parts = T / Ts, part = Ts == T ? 0 : t / Ts;  // the layout of input_transform_kernel
    E d[M][M];
#pragma unroll
    for (int a = 0; a < M; ++a)
#pragma unroll
      for (int b = 0; b < M; ++b) {
        const int64_t oh = ty * M + a, ow = tx * M + b;
        d[a][b] = oh < hout && ow < wout ? load_as<E>(dy, v.at(n, k, 0, oh, ow)) : E(0);
      }
    E r[A][M];  // A dy, with A = (A^T)^T
#pragma unroll
    for (int a = 0; a < A; ++a)
#pragma unroll
      for (int b = 0; b < M; ++b) {
        r[a][b] = E(0);
#pragma unroll
        for (int q = 0; q < M; ++q) madd(r[a][b], W::at(q, a), d[q][b]);
      }
#pragma unroll
    for (int a = 0; a < A; ++a)
#pragma unroll
      for (int b = 0; b < A; ++b) {
        E z = E(0);
#pragma unroll
        for (int q = 0; q < M; ++q) madd(z, W::at(q, b), r[a][q]);
        Z[(((a * A + b) * parts + part) * cout + k) * Ts + (t - part * Ts)] = z;
      }
  }
  pdl_allow_dependents();
}

// dw[k][c] = G^T P[k][c] G (3x3), flipped back for CUDNN_CONVOLUTION, blended into w.
template <int M, class S, class E>
__global__ void filter_grad_kernel(const E* P, int64_t parts, int64_t cout, int64_t cin_g, bool flip, View5 wv, S* w,
                                   E alpha, E beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int A = M + 2;
  using W = Wino<M>;
  const int64_t total = cout * cin_g;
  const FusedDev none;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t k = i / cin_g, c = i % cin_g;
    E q[A][A];
#pragma unroll
    for (int e = 0; e < A * A; ++e) {
      E sum = P[e * parts * total + i];
      for (int64_t part = 1; part < parts; ++part) sum += P[(e * parts + part) * total + i];  // in order
      q[e / A][e % A] = sum;
    }
    E s[3][A];  // G^T q
#pragma unroll
    for (int a = 0; a < 3; ++a)
#pragma unroll
      for (int b = 0; b < A; ++b) {
        s[a][b] = E(0);
#pragma unroll
        for (int r = 0; r < A; ++r) madd(s[a][b], W::g(r, a), q[r][b]);
      }
#pragma unroll
    for (int a = 0; a < 3; ++a)
#pragma unroll
      for (int b = 0; b < 3; ++b) {
        E o = E(0);
#pragma unroll
        for (int r = 0; r < A; ++r) madd(o, W::g(r, b), s[a][r]);
        const int fa = flip ? 2 - a : a, fb = flip ? 2 - b : b;
        write_out<S, E>(w, wv.at(k, c, 0, fa, fb), o, alpha, beta, none, k, c, 0, fa, fb);
      }
  }
  pdl_allow_dependents();
}

// --- host side ----------------------------------------------------------------------------------------------

struct Gemm {
  cublasHandle_t cb;
  cudaDataType_t type;
  cublasComputeType_t ct;
  int batch;  // the a * a tile points
  // Column-major C (m x n) = op(A) op(B) + beta C, batched over the tile points.
  template <class E>
  cudnnStatus_t operator()(cublasOperation_t ta, int64_t m, int64_t n, int64_t k, const E* A, int64_t lda, int64_t sa,
                           const E* B, int64_t ldb, int64_t sb, E beta, E* C, int64_t ldc, int64_t sc) const {
    const E one = E(1);
    FD_CUBLAS_CHECK(cublasGemmStridedBatchedEx(cb, ta, CUBLAS_OP_N, static_cast<int>(m), static_cast<int>(n),
                                               static_cast<int>(k), &one, A, type, static_cast<int>(lda), sa, B, type,
                                               static_cast<int>(ldb), sb, &beta, C, type, static_cast<int>(ldc), sc,
                                               batch, ct, CUBLAS_GEMM_DEFAULT));
    return CUDNN_STATUS_SUCCESS;
  }
};

template <int Mt, class S>
cudnnStatus_t run_typed(const ConvProblem& p, const ConvArgs& a) {
  using E = ComputeOf<S>;
  cudnnContext* h = a.handle;
  const cudaStream_t st = h->stream;
  const int dev = h->device;
  const Layout l = layout(p);
  const Shape s = shape(p);
  FD_CHECK_PARAM(a.workspace != nullptr && a.workspace_size >= l.total, "cuda:winograd needs %zu bytes of workspace",
                 l.total);
  auto base = reinterpret_cast<uintptr_t>(a.workspace);
  base = (base + kAlign - 1) / kAlign * kAlign;
  char* ws = reinterpret_cast<char*>(base);
  E* U = reinterpret_cast<E*>(ws + l.u);  // P for backward filter
  E* V = reinterpret_cast<E*>(ws + l.v);
  E* M = reinterpret_cast<E*>(ws + l.m);  // Z for backward filter
  Gemm gemm{};
  FD_TRY(cublas_handle(h, &gemm.cb));
  const bool dbl = std::is_same_v<E, double>;
  gemm.type = dbl ? CUDA_R_64F : CUDA_R_32F;
  gemm.ct = dbl ? CUBLAS_COMPUTE_64F : tf32_allowed(p) ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  gemm.batch = (Mt + 2) * (Mt + 2);
  auto grid = [&](int64_t n) { return grid_size(n, kBlock, dev); };
  const bool pdl = ops_pdl(dev);  // each transform a dependent of the kernel before it (a GEMM's, or the last call's)
  const E alpha = static_cast<E>(a.alpha), beta = static_cast<E>(a.beta);
  const View5 xv = view5(*p.x), yv = view5(*p.y), wv = view5(p.w->as_tensor);
  const int64_t tiles = s.th * s.tw;
  const int64_t G = p.g, cin_g = s.cin_g, cout_g = s.cout_g;

  if (p.dir != ConvDir::bwd_filter) {
    const bool fwd = p.dir == ConvDir::fwd;
    const View5 iv = fwd ? xv : yv, ov = fwd ? yv : xv;
    const S* in = static_cast<const S*>(a.in);
    S* out = static_cast<S*>(a.out);
    (void)launch_pdl(pdl, filter_transform_kernel<Mt, S, E>, dim3(grid(s.cout * cin_g)), dim3(kBlock), 0, st, wv,
                     static_cast<const S*>(a.in2), s.cout, cin_g, cout_g, s.transpose, s.rot, U);
    FD_CUDA_LAUNCHED();
    const FusedDev f = fwd ? fused_dev(a.fused) : FusedDev{};
    const bool rows = out_rows_ok(p, Mt, ov, a.out, f, s.wout);
    for (int64_t n0 = 0; n0 < p.mb; n0 += l.chunk) {
      const int64_t T = std::min(l.chunk, p.mb - n0) * tiles;
      (void)launch_pdl(pdl, input_transform_kernel<Mt, S, E>, dim3(grid(s.cin * T)), dim3(kBlock), 0, st, iv, in, n0,
                       s.cin, s.hin, s.win, s.pad_h, s.pad_w, s.th, s.tw, T, T, V);
      FD_CUDA_LAUNCHED();
      // M_e (T x cout_g, per group) = V_e (T x cin_g) * U_e (cin_g x cout_g)
      for (int64_t g = 0; g < G; ++g)
        FD_TRY(gemm(CUBLAS_OP_N, T, cout_g, cin_g, V + g * cin_g * T, T, s.cin * T, U + g * cout_g * cin_g, cin_g,
                    s.cout * cin_g, E(0), M + g * cout_g * T, T, s.cout * T));
      (void)launch_pdl(pdl, output_transform_kernel<Mt, S, E>, dim3(grid(s.cout * T)), dim3(kBlock), 0, st,
                       static_cast<const E*>(M), n0, s.cout, s.hout, s.wout, s.th, s.tw, T, ov, out, alpha, beta, f,
                       rows);
      FD_CUDA_LAUNCHED();
    }
    return CUDNN_STATUS_SUCCESS;
  }
  // backward filter: s is the forward shape (x in, dy = the output tiles), the tiles in l.splits parts of Ts
  gemm.batch *= static_cast<int>(l.splits);
  for (int64_t n0 = 0; n0 < p.mb; n0 += l.chunk) {
    const int64_t T = std::min(l.chunk, p.mb - n0) * tiles, Ts = T / l.splits;
    (void)launch_pdl(pdl, input_transform_kernel<Mt, S, E>, dim3(grid(s.cin * T)), dim3(kBlock), 0, st, xv,
                     static_cast<const S*>(a.in), n0, s.cin, s.hin, s.win, s.pad_h, s.pad_w, s.th, s.tw, T, Ts, V);
    FD_CUDA_LAUNCHED();
    (void)launch_pdl(pdl, dy_transform_kernel<Mt, S, E>, dim3(grid(s.cout * T)), dim3(kBlock), 0, st, yv,
                     static_cast<const S*>(a.in2), n0, s.cout, s.hout, s.wout, s.th, s.tw, T, Ts, M);
    FD_CUDA_LAUNCHED();
    // P_(e, part) (cin_g x cout_g, per group) (+)= V_(e, part)^T (cin_g x Ts) * Z_(e, part) (Ts x cout_g)
    for (int64_t g = 0; g < G; ++g)
      FD_TRY(gemm(CUBLAS_OP_T, cin_g, cout_g, Ts, V + g * cin_g * Ts, Ts, s.cin * Ts, M + g * cout_g * Ts, Ts,
                  s.cout * Ts, E(n0 == 0 ? 0 : 1), U + g * cout_g * cin_g, cin_g, s.cout * cin_g));
  }
  (void)launch_pdl(pdl, filter_grad_kernel<Mt, S, E>, dim3(grid(s.cout * cin_g)), dim3(kBlock), 0, st,
                   static_cast<const E*>(U), l.splits, s.cout, cin_g, p.mode == CUDNN_CONVOLUTION, wv,
                   static_cast<S*>(a.out), alpha, beta);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

class Winograd final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cuda:winograd"; }
  fd::Backend backend() const override { return fd::Backend::cuda; }
  bool serves(ConvDir dir, int algo) const override {
    switch (dir) {
      case ConvDir::fwd:
        return algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD || algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
      case ConvDir::bwd_data:
        return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD ||
               algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
      case ConvDir::bwd_filter: return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
    }
    return false;
  }
  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    using V = fd::conv::Verdict;
    if (p.nsp != 2) return V{CUDNN_STATUS_NOT_SUPPORTED, "Winograd F(m x m, 3x3) is 2-D only"};
    if (p.kh != 3 || p.kw != 3) return V{CUDNN_STATUS_NOT_SUPPORTED, "Winograd F(m x m, 3x3) needs a 3x3 filter"};
    if (p.sh != 1 || p.sw != 1 || p.dh != 1 || p.dw != 1)
      return V{CUDNN_STATUS_NOT_SUPPORTED, "Winograd F(m x m, 3x3) needs stride 1 and dilation 1"};
    const bool floatish = p.xdt == CUDNN_DATA_FLOAT || p.xdt == CUDNN_DATA_DOUBLE || p.xdt == CUDNN_DATA_HALF ||
                          p.xdt == CUDNN_DATA_BFLOAT16;
    if (!floatish || p.wdt != p.xdt || p.ydt != p.xdt)
      return V{CUDNN_STATUS_NOT_SUPPORTED, std::string("Winograd transforms are not exact for ") +
                                               dtype_short_name(p.xdt) + " data; cuda:winograd takes float types only"};
    const Shape s = shape(p);
    if (std::max({s.cin, s.cout, s.th * s.tw}) > INT_MAX)
      return V{CUDNN_STATUS_NOT_SUPPORTED, "a GEMM dimension exceeds cuBLAS's 32-bit sizes"};
    return {};
  }
  size_t workspace_size(const ConvProblem& p) const override { return layout(p).total; }
  bool deterministic() const override { return true; }
  cudnnMathType_t math_type(const ConvProblem& p) const override {
    return p.math == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
  }
  double cost_estimate(const ConvProblem& p) const override {
    const Shape s = shape(p);
    const Layout l = layout(p);
    const double tiles = static_cast<double>(p.mb * s.th * s.tw);
    const double e = static_cast<double>(compute_size(p));
    // transforms: the input read and V written, M (or Z) written and read, the output written
    const double pts = points(), m = tile_m();
    const double bytes = e * (static_cast<double>(p.mb * s.cin * s.hin * s.win) + pts * tiles * (s.cin + 2.0 * s.cout) +
                              static_cast<double>(p.mb * s.cout * s.hout * s.wout));
    const double chunks = static_cast<double>((p.mb + l.chunk - 1) / l.chunk);
    const double saving = 9.0 * m * m / pts;  // products of direct over Winograd per output tile: 2.25 or 4
    return p.flops() / saving / 150e12 + bytes / 3e12 + chunks * static_cast<double>(2 + p.g) * 4e-6 + 4e-6;
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:winograd called without a handle");
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    const bool known = with_float_storage(p.xdt, [&](auto tag) {
      st = tile_m() == 2 ? run_typed<2, decltype(tag)>(p, a) : run_typed<4, decltype(tag)>(p, a);
    });
    FD_CHECK_SUPPORTED(known, "cuda:winograd has no kernels for %s", dtype_short_name(p.xdt));
    return st;
  }
};

}  // namespace

const fd::conv::ConvImpl* winograd_impl() {
  static const Winograd impl;
  return &impl;
}

}  // namespace fd::cuda::conv
