// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The channel path of cudnnReduceTensor (channel_reduce.h). Passes and bytes per element of A:
//   planes_kernel   one pass: each element of A read once with 16-byte loads (4 in flight per thread; 8 scalar
//                   loads when A is off the 16-byte grid or L % V != 0), one partial result per block;
//   columns_kernel  one pass: each element of A read once, the same loads, the block's I-wide row of partial
//                   results written once (parts * outputs * 4 bytes in all, a few % of A for 1xCx1x1);
//   combine_kernel  reads the partials once (they are still in L2), writes each output of C once.
//   columns_wave    (FREEDNN_REDUCE_COLUMNS=wave|fused) columns_kernel's pass as one wave of one unit per block, 8
//                   loads in flight per thread; "fused" folds the partials after a grid barrier (one launch).
// With one part per output (small problems) the first kernel writes C itself and no workspace is needed.
// Every sum is in a fixed order set by the shape and the SM count: bitwise reproducible from run to run.
#include "cuda/tensor_ops/channel_reduce.h"

#include <cooperative_groups.h>

#include <algorithm>
#include <string>
#include <type_traits>

#include "core/dtype.h"
#include "core/env.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/index.cuh"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"

namespace fd::cuda {
namespace {

constexpr int kBlock = 256;
constexpr int kWaves = 2;                     // blocks for about this many waves of a full SM
constexpr int kBlocksPerSm = 2048 / kBlock;   // the split assumes full occupancy
constexpr int kUnroll = 4;                    // 16-byte loads in flight per thread (twice as many scalar ones)

// The element functions of one op, at compile time: identity, per-element map, and an associative, commutative
// combine (the order is still fixed, so sums are reproducible).
enum Kind : int { kSum, kSumAbs, kSumSq, kProd, kProdNz, kMax, kMin, kAmax };

__device__ __forceinline__ float nan_of(float) { return __int_as_float(0x7fc00000); }
__device__ __forceinline__ double nan_of(double) { return __longlong_as_double(0x7ff8000000000000LL); }
__device__ __forceinline__ float inf_of(float) { return __int_as_float(0x7f800000); }
__device__ __forceinline__ double inf_of(double) { return __longlong_as_double(0x7ff0000000000000LL); }
__device__ __forceinline__ float abs_of(float v) { return fabsf(v); }
__device__ __forceinline__ double abs_of(double v) { return fabs(v); }
__device__ __forceinline__ float max_of(float a, float b) { return fmaxf(a, b); }  // NaN loses
__device__ __forceinline__ double max_of(double a, double b) { return fmax(a, b); }
__device__ __forceinline__ float min_of(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ double min_of(double a, double b) { return fmin(a, b); }

constexpr bool extreme(int k) { return k == kMax || k == kMin || k == kAmax; }

template <class T, int K, bool kProp>
struct Op {
  __device__ __forceinline__ static T identity() {
    if constexpr (K == kProd || K == kProdNz) {
      return T(1);
    } else if constexpr (extreme(K)) {
      // NOT_PROPAGATE: NaN loses to every number (and an all-NaN slice stays NaN); PROPAGATE: the far end.
      if constexpr (!kProp) return nan_of(T(0));
      else return K == kMin ? inf_of(T(0)) : -inf_of(T(0));
    } else {
      return T(0);
    }
  }
  __device__ __forceinline__ static T map(T v) {
    if constexpr (K == kSumAbs || K == kAmax) return abs_of(v);
    else if constexpr (K == kSumSq) return v * v;
    else if constexpr (K == kProdNz) return v == T(0) ? T(1) : v;
    else return v;
  }
  __device__ __forceinline__ static T comb(T a, T b) {
    if constexpr (K == kProd || K == kProdNz) {
      return a * b;
    } else if constexpr (extreme(K)) {
      if constexpr (kProp) {
        const bool a_wins = (K == kMin ? a < b : a > b) || a != a;  // a NaN wins
        return a_wins ? a : b;
      } else {
        return K == kMin ? min_of(a, b) : max_of(a, b);  // a number wins over NaN
      }
    } else {
      return a + b;
    }
  }
};

// The output side: AVG's division, NORM2's root, the alpha / beta blend into C (C not read when beta == 0) at C's
// offset of output j (j row-major over C's dims > 1, merged where contiguous; 32-bit divisions, few registers).
template <class T>
struct Fin {
  int nd;
  uint32_t dims[CUDNN_DIM_MAX];
  int64_t strides[CUDNN_DIM_MAX];
  cudnnDataType_t ct;  // FLOAT, DOUBLE, HALF or BFLOAT16 (A's type or FLOAT)
  void* cp;
  T alpha, beta, divisor;
  bool root;
  __device__ __forceinline__ int64_t offset(uint32_t j) const {
    int64_t off = 0;
    for (int i = nd - 1; i > 0; --i) {
      const uint32_t q = j / dims[i];
      off += int64_t(j - q * dims[i]) * strides[i];
      j = q;
    }
    return off + int64_t(j) * strides[0];
  }
  __device__ __forceinline__ T load(int64_t o) const {
    switch (ct) {
      case CUDNN_DATA_DOUBLE: return static_cast<T>(static_cast<const double*>(cp)[o]);
      case CUDNN_DATA_HALF: return static_cast<T>(__half2float(static_cast<const __half*>(cp)[o]));
      case CUDNN_DATA_BFLOAT16: return static_cast<T>(__bfloat162float(static_cast<const __nv_bfloat16*>(cp)[o]));
      default: return static_cast<T>(static_cast<const float*>(cp)[o]);
    }
  }
  __device__ __forceinline__ void store(int64_t o, T v) const {
    switch (ct) {
      case CUDNN_DATA_DOUBLE: static_cast<double*>(cp)[o] = static_cast<double>(v); break;
      case CUDNN_DATA_HALF: static_cast<__half*>(cp)[o] = __float2half_rn(static_cast<float>(v)); break;
      case CUDNN_DATA_BFLOAT16:
        static_cast<__nv_bfloat16*>(cp)[o] = __float2bfloat16_rn(static_cast<float>(v));
        break;
      default: static_cast<float*>(cp)[o] = static_cast<float>(v); break;
    }
  }
  __device__ __forceinline__ void put(int64_t j, T v) const {
    if (divisor != T(1)) v /= divisor;
    if (root) v = sqrt(v);
    const int64_t o = offset(static_cast<uint32_t>(j));
    T r = alpha == T(1) ? v : alpha * v;
    if (beta != T(0)) r += beta * load(o);
    store(o, r);
  }
};

// V consecutive elements of storage type S: one 16-byte word (V > 1) or one element.
template <class S, int V>
struct Vec {
  using Raw = std::conditional_t<V == 1, S, uint4>;
  __device__ __forceinline__ static Raw load(const S* p) {
    if constexpr (V == 1) return *p;
    else return *reinterpret_cast<const uint4*>(p);
  }
  __device__ __forceinline__ static void unpack(const Raw& w, Comp<S>* out) {
    if constexpr (V == 1) {
      out[0] = Storage<S>::load(&w, 0);
    } else {
      static_assert(V * sizeof(S) == 16, "16-byte vectors");
      alignas(16) S e[V];
      *reinterpret_cast<uint4*>(e) = w;
#pragma unroll
      for (int k = 0; k < V; ++k) out[k] = Storage<S>::load(e, k);
    }
  }
};

// Fold of every thread's v; the result in thread 0 (fixed shuffle / shared-memory order).
template <class O, class T>
__device__ __forceinline__ T block_fold(T v, T* smem) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v = O::comb(v, __shfl_xor_sync(0xFFFFFFFFu, v, off));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kBlock / 32 ? smem[lane] : O::identity();
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = O::comb(v, __shfl_xor_sync(0xFFFFFFFFu, v, off));
  }
  __syncthreads();  // smem free for the next unit
  return v;
}

// Planes: A is [N][C][L] (V-element vectors: [N][C][LV]). Unit u = (part p, channel c), c fastest (neighbouring
// blocks read neighbouring planes): the vectors [p * chunk, min(tv, (p + 1) * chunk)) of channel c's slice, vector
// t of the slice at plane n = t / LV, offset t % LV. Result: C itself (parts == 1) or partial[c * parts + p].
template <class S, int V, class O>
__global__ void __launch_bounds__(kBlock)
    planes_kernel(const S* __restrict__ a, int64_t C, int64_t LV, Divider dlv, int64_t tv, int64_t chunk,
                  int64_t parts, Comp<S>* __restrict__ partial, Fin<Comp<S>> fin) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using T = Comp<S>;
  using W = Vec<S, V>;
  constexpr int U = V == 1 ? 2 * kUnroll : kUnroll;
  __shared__ T smem[kBlock / 32];
  const int64_t units = C * parts, nstride = C * LV;
  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const int64_t p = uint32_t(u) / uint32_t(C), c = u - p * C;  // the plan keeps units below 2^31
    // slice vectors t0 + threadIdx.x + i * kBlock, i < cnt (the plan keeps slices below 2^31 elements)
    const int t0 = static_cast<int>(p * chunk) + static_cast<int>(threadIdx.x);
    const int t1 = static_cast<int>(min(tv, (p + 1) * chunk));
    const int cnt = t0 < t1 ? (t1 - t0 + kBlock - 1) / kBlock : 0;
    const S* base = a + c * LV * V;
    T acc = O::identity();
    for (int i = 0; i < cnt; i += U) {
      typename W::Raw w[U];
#pragma unroll
      for (int k = 0; k < U; ++k) {
        if (i + k < cnt) {
          const int tk = t0 + (i + k) * kBlock;
          const int n = static_cast<int>(dlv.div(tk));
          w[k] = W::load(base + (n * nstride + (tk - n * LV)) * V);
        }
      }
#pragma unroll
      for (int k = 0; k < U; ++k) {
        if (i + k < cnt) {
          T e[V];
          W::unpack(w[k], e);
#pragma unroll
          for (int v = 0; v < V; ++v) e[v] = O::map(e[v]);
#pragma unroll
          for (int s = 1; s < V; s *= 2)  // pairwise within the vector
#pragma unroll
            for (int v = 0; v + s < V; v += 2 * s) e[v] = O::comb(e[v], e[v + s]);
          acc = O::comb(acc, e[0]);
        }
      }
    }
    acc = block_fold<O>(acc, smem);
    if (threadIdx.x == 0) {
      if (parts == 1) fin.put(c, acc);
      else partial[c * parts + p] = acc;
    }
  }
  pdl_allow_dependents();
}

// The fold of a columns block: thread (g, x) holds the V sums acc of row group g, vector column x; the G row groups
// of each of the block's width = bc * V columns are folded in shared memory (G <= 32: one thread per output; more:
// runs of about sqrt(G) row groups first, then the runs, both in order) and emit(o, v) gets column o < valid.
template <class O, int V, class T, class Emit>
__device__ __forceinline__ void fold_columns(const T* acc, int g, int x, int bc, int G, int valid, T* red, T* red2,
                                             Emit emit) {
  const int width = bc * V;
  int subs = 1;  // runs of about sqrt(G) row groups when G is large (tiny I)
  if (G > 32 && width < kBlock) {
    while (subs * subs < G) ++subs;
    subs = min(subs, kBlock / width);
  }
  const int run = (G + subs - 1) / subs;
  __syncthreads();  // the previous unit's reads of red / red2 are done
  if (g < G) {
#pragma unroll
    for (int i = 0; i < V; ++i) red[g * width + x * V + i] = acc[i];
  }
  __syncthreads();
  if (subs == 1) {
    for (int o = threadIdx.x; o < valid; o += kBlock) {
      T v = red[o];
      for (int k = 1; k < G; ++k) v = O::comb(v, red[k * width + o]);
      emit(o, v);
    }
  } else {
    if (int(threadIdx.x) < width * subs) {
      const int o = threadIdx.x % width, s = threadIdx.x / width;
      const int k1 = min(G, (s + 1) * run);
      T v = O::identity();
      for (int k = s * run; k < k1; ++k) v = O::comb(v, red[k * width + o]);
      red2[s * width + o] = v;
    }
    __syncthreads();
    if (int(threadIdx.x) < valid) {
      T v = red2[threadIdx.x];
      for (int s = 1; s < subs; ++s) v = O::comb(v, red2[s * width + threadIdx.x]);
      emit(threadIdx.x, v);
    }
  }
}

// acc[i] = acc[i] (+) map(row r's vector) for `rows` vectors of V elements `step` elements apart from ptr, U loads in
// flight before their sums (in row order).
template <class S, int V, class O, int U>
__device__ __forceinline__ void accumulate_rows(const S* ptr, int rows, int64_t step, Comp<S> (&acc)[V]) {
  using W = Vec<S, V>;
  for (int r = 0; r < rows; r += U, ptr += U * step) {
    typename W::Raw w[U];
#pragma unroll
    for (int k = 0; k < U; ++k)
      if (r + k < rows) w[k] = W::load(ptr + k * step);
#pragma unroll
    for (int k = 0; k < U; ++k) {
      if (r + k < rows) {
        Comp<S> e[V];
        W::unpack(w[k], e);
#pragma unroll
        for (int i = 0; i < V; ++i) acc[i] = O::comb(acc[i], O::map(e[i]));
      }
    }
  }
}

// Columns: A is [Q][R][IV] vectors. Unit u = (part p, q, column tile ct), ct fastest: rows [p * chunk, ...) of
// the bc vector columns ct * bc + x. Thread (g, x) (x fastest: a warp reads consecutive 16-byte words) sums rows
// g, g + G, ... of column x, then fold_columns. Output j = q * I + i: C itself (parts == 1) or
// partial[j * parts + p].
template <class S, int V, class O>
__global__ void __launch_bounds__(kBlock)
    columns_kernel(const S* __restrict__ a, int64_t Q, int64_t R, int64_t IV, int bc, int G, int64_t ct_count,
                   int64_t chunk, int64_t parts, Comp<S>* __restrict__ partial, Fin<Comp<S>> fin) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using T = Comp<S>;
  constexpr int U = V == 1 ? 2 * kUnroll : kUnroll;
  __shared__ T red[kBlock * V];  // [G][width]
  __shared__ T red2[kBlock];     // [subs][width] when the fold runs in two stages
  const int x = static_cast<int>(threadIdx.x) % bc, g = static_cast<int>(threadIdx.x) / bc;
  const bool active = g < G;
  const int width = bc * V;
  const int64_t units = ct_count * Q * parts, I = IV * V;
  const int64_t step = int64_t(G) * I;  // elements from one of a thread's rows to its next
  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const int64_t rest = uint32_t(u) / uint32_t(ct_count), ct = u - rest * ct_count;  // units below 2^31
    const int64_t p = uint32_t(rest) / uint32_t(Q), q = rest - p * Q;
    const int64_t col = ct * bc + x;
    const int64_t r0 = p * chunk, r1 = min(R, r0 + chunk);
    T acc[V];
#pragma unroll
    for (int i = 0; i < V; ++i) acc[i] = O::identity();
    const int rows = active && col < IV && r0 + g < r1 ? static_cast<int>((r1 - r0 - g + G - 1) / G) : 0;
    if (rows > 0) accumulate_rows<S, V, O, U>(a + (q * R + r0 + g) * I + col * V, rows, step, acc);
    const int64_t j0 = q * I + ct * bc * V;  // output of tile element 0
    const int valid = static_cast<int>(min(int64_t(width), I - ct * bc * V));
    fold_columns<O, V>(acc, g, x, bc, G, valid, red, red2, [&](int o, T v) {
      if (parts == 1) fin.put(j0 + o, v);
      else partial[(j0 + o) * parts + p] = v;
    });
  }
  pdl_allow_dependents();
}

// partial is [M][parts]: tp = a power of two <= min(parts, kBlock) adjacent threads read the parts of one output
// (coalesced), a block takes kBlock / tp outputs, tiles first, first + step, ...; fixed-order fold (shuffles, then
// the warps of one output).
template <class O, class T>
__device__ __forceinline__ void combine_tiles(const T* __restrict__ partial, int64_t M, int64_t parts, int tp,
                                              const Fin<T>& fin, T* smem, int64_t first, int64_t step) {
  const int per_block = kBlock / tp;
  const int o = threadIdx.x / tp, s = threadIdx.x % tp;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t tiles = (M + per_block - 1) / per_block;
  for (int64_t tile = first; tile < tiles; tile += step) {
    const int64_t j = tile * per_block + o;
    T acc = O::identity();
    if (j < M) {
      const T* src = partial + j * parts;
      for (int64_t k = s; k < parts; k += kUnroll * tp) {
        T v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
          if (k + u * tp < parts) v[u] = src[k + u * tp];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
          if (k + u * tp < parts) acc = O::comb(acc, v[u]);
      }
    }
    for (int off = min(tp, 32) >> 1; off > 0; off >>= 1) acc = O::comb(acc, __shfl_xor_sync(0xFFFFFFFFu, acc, off));
    if (tp > 32) {
      if (lane == 0) smem[warp] = acc;
      __syncthreads();
      if (s == 0 && j < M) {
        for (int w = 1; w < tp / 32; ++w) acc = O::comb(acc, smem[warp + w]);
        fin.put(j, acc);
      }
      __syncthreads();
    } else if (s == 0 && j < M) {
      fin.put(j, acc);
    }
  }
}

template <class O, class T>
__global__ void __launch_bounds__(kBlock)
    combine_kernel(const T* __restrict__ partial, int64_t M, int64_t parts, int tp, Fin<T> fin) {
  __shared__ T smem[kBlock / 32];
  combine_tiles<O>(partial, M, parts, tp, fin, smem, blockIdx.x, gridDim.x);
}

// Columns in one wave (FREEDNN_REDUCE_COLUMNS): block u is unit u = (part p, q, column tile ct), ct fastest, and every
// unit is resident at once (the grid is at most one wave: no tail of half-busy SMs, no per-unit fold between runs
// of loads). The rows of part p are [R p / parts, R (p + 1) / parts) (parts differ by at most one row), kWaveUnroll
// 16-byte loads in flight per thread. Partials as columns_kernel's. fused (a cooperative launch): after a grid
// barrier the grid runs combine_kernel's fold itself, the same sums in the same order (the same bits), one launch.
constexpr int kWaveUnroll = 8;

template <class S, int V, class O>
__global__ void __launch_bounds__(kBlock)
    columns_wave(const S* __restrict__ a, int64_t Q, int64_t R, int64_t IV, int bc, int G, int64_t ct_count,
                 int64_t parts, Comp<S>* __restrict__ partial, Fin<Comp<S>> fin, bool fused, int tp) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using T = Comp<S>;
  constexpr int U = V == 1 ? 2 * kWaveUnroll : kWaveUnroll;
  __shared__ T red[kBlock * V];
  __shared__ T red2[kBlock];
  const int x = static_cast<int>(threadIdx.x) % bc, g = static_cast<int>(threadIdx.x) / bc;
  const int64_t I = IV * V, step = int64_t(G) * I;
  const int64_t u = blockIdx.x;
  const int64_t rest = uint32_t(u) / uint32_t(ct_count), ct = u - rest * ct_count;
  const int64_t p = uint32_t(rest) / uint32_t(Q), q = rest - p * Q;
  const int64_t col = ct * bc + x;
  const int64_t r0 = p * R / parts, r1 = (p + 1) * R / parts;
  T acc[V];
#pragma unroll
  for (int i = 0; i < V; ++i) acc[i] = O::identity();
  const int rows = g < G && col < IV && r0 + g < r1 ? static_cast<int>((r1 - r0 - g + G - 1) / G) : 0;
  accumulate_rows<S, V, O, U>(a + (q * R + r0 + g) * I + col * V, rows, step, acc);
  const int64_t j0 = q * I + ct * bc * V;
  const int valid = static_cast<int>(min(int64_t(bc * V), I - ct * bc * V));
  fold_columns<O, V>(acc, g, x, bc, G, valid, red, red2, [&](int o, T v) {
    if (parts == 1) fin.put(j0 + o, v);
    else partial[(j0 + o) * parts + p] = v;
  });
  if (!fused) return;
  cooperative_groups::this_grid().sync();  // every partial written and visible
  combine_tiles<O>(partial, Q * I, parts, tp, fin, red, blockIdx.x, gridDim.x);
  pdl_allow_dependents();
}

bool float_storage(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

int kind_of(cudnnReduceTensorOp_t op) {
  switch (op) {
    case CUDNN_REDUCE_TENSOR_NORM1: return kSumAbs;
    case CUDNN_REDUCE_TENSOR_NORM2: return kSumSq;
    case CUDNN_REDUCE_TENSOR_MUL: return kProd;
    case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS: return kProdNz;
    case CUDNN_REDUCE_TENSOR_MAX: return kMax;
    case CUDNN_REDUCE_TENSOR_MIN: return kMin;
    case CUDNN_REDUCE_TENSOR_AMAX: return kAmax;
    default: return kSum;  // ADD, AVG
  }
}

// Calls f(Op<T, kind, prop>{}); prop only matters for MIN / MAX / AMAX.
template <class T, class F>
void with_op(int kind, bool prop, F&& f) {
  switch (kind) {
    case kSumAbs: f(Op<T, kSumAbs, false>{}); break;
    case kSumSq: f(Op<T, kSumSq, false>{}); break;
    case kProd: f(Op<T, kProd, false>{}); break;
    case kProdNz: f(Op<T, kProdNz, false>{}); break;
    case kMax: prop ? f(Op<T, kMax, true>{}) : f(Op<T, kMax, false>{}); break;
    case kMin: prop ? f(Op<T, kMin, true>{}) : f(Op<T, kMin, false>{}); break;
    case kAmax: prop ? f(Op<T, kAmax, true>{}) : f(Op<T, kAmax, false>{}); break;
    default: f(Op<T, kSum, false>{}); break;
  }
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool channel_disabled() {
  static const bool off = fd::env_flag("FREEDNN_REDUCE_NO_CHANNEL");
  return off;
}

// FREEDNN_REDUCE_COLUMNS (read at every call): 1 "wave" (columns_wave, then combine_kernel), 2 "fused" (columns_wave
// with its combine, one cooperative launch); 0 "legacy" or unknown: columns_kernel. Unset: wave for 2-byte types
// (run 14 on the H200: 0.91-0.92x the time of columns_kernel on the 103 MB f16 NHWC reductions to 1xCx1x1),
// columns_kernel for the others (not measured).
int columns_variant(size_t esize) {
  const std::string v = fd::env_string("FREEDNN_REDUCE_COLUMNS");
  if (v.empty()) return esize == 2 ? 1 : 0;
  return v == "fused" ? 2 : v == "wave" ? 1 : 0;
}

// Threads per output of combine_kernel: a power of two <= min(parts, kBlock).
int combine_tp(int64_t parts) {
  int tp = 1;
  while (tp * 2 <= std::min<int64_t>(parts, kBlock)) tp *= 2;
  return tp;
}

// columns_wave fused, as a cooperative launch (cudaLaunchKernelEx with the attribute; a stream capture records a
// cooperative kernel node). *launched = false when the driver refuses it (no cooperative launch, or fewer SMs than the
// occupancy query saw): the caller runs the two launches instead.
template <class S, int V, class O>
cudnnStatus_t launch_fused(cudaStream_t stream, int64_t grid, const S* a, const ChannelPlan& pl, int64_t iv, int bc,
                           int G, int64_t ct, int64_t parts, Comp<S>* partial, const Fin<Comp<S>>& fin,
                           bool* launched) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(grid));
  cfg.blockDim = dim3(kBlock);
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeCooperative;
  attr[0].val.cooperative = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  const cudaError_t e = cudaLaunchKernelEx(&cfg, columns_wave<S, V, O>, a, pl.q, pl.r, iv, bc, G, ct, parts, partial,
                                           fin, true, combine_tp(parts));
  *launched = e == cudaSuccess;
  if (e == cudaErrorCooperativeLaunchTooLarge || e == cudaErrorNotSupported) {
    (void)cudaGetLastError();
    return CUDNN_STATUS_SUCCESS;
  }
  FD_CUDA_CHECK(e);
  return CUDNN_STATUS_SUCCESS;
}

template <class S, class O>
cudnnStatus_t run(cudaStream_t stream, int device, const ChannelPlan& pl, const S* a, const Fin<Comp<S>>& fin,
                  Comp<S>* partial) {
  using T = Comp<S>;
  constexpr int kV = 16 / sizeof(S);
  const int64_t sms = std::max(1, device_info(device).sm_count);
  const bool vec = aligned16(a) && (pl.planes ? pl.l : pl.i) % kV == 0;
  auto combine = [&](int64_t parts) -> cudnnStatus_t {
    const int tp = combine_tp(parts);
    const int64_t tiles = cdiv(pl.outputs, kBlock / tp);
    const int64_t grid = std::min(tiles, sms * kBlocksPerSm);
    combine_kernel<O, T><<<static_cast<int>(grid), kBlock, 0, stream>>>(partial, pl.outputs, parts, tp, fin);
    FD_CUDA_LAUNCHED();
    return CUDNN_STATUS_SUCCESS;
  };
  auto go = [&](auto vtag) -> cudnnStatus_t {
    constexpr int V = decltype(vtag)::value;
    int64_t parts = 1;
    if (pl.planes) {
      const int64_t lv = pl.l / V, tv = pl.n * lv;
      const int64_t chunk = cdiv(tv, pl.parts);
      parts = cdiv(tv, chunk);
      const void* k = reinterpret_cast<const void*>(planes_kernel<S, V, O>);
      const int64_t grid = std::min(pl.c * parts, sms * resident_blocks(k, kBlock, 0, device));
      (void)launch_pdl(ops_pdl(device), planes_kernel<S, V, O>, dim3(static_cast<unsigned>(grid)), dim3(kBlock), 0,
                       stream, a, pl.c, lv, Divider(lv, tv), tv, chunk, parts, partial, fin);
    } else {
      const int64_t iv = pl.i / V;
      const int bc = static_cast<int>(std::min<int64_t>(iv, kBlock)), G = kBlock / bc;
      const int64_t ct = cdiv(iv, bc);
      const int variant = columns_variant(sizeof(S));
      const void* kw = reinterpret_cast<const void*>(columns_wave<S, V, O>);
      const int64_t wave = variant != 0 ? sms * resident_blocks(kw, kBlock, 0, device) : 0;
      if (ct * pl.q <= wave) {  // every column tile at least one block of the wave
        parts = std::clamp<int64_t>(wave / (ct * pl.q), 1, pl.parts);  // pl.parts: the workspace, >= 16 rows a thread
        const int64_t grid = ct * pl.q * parts;
        bool launched = false;
        if (variant == 2 && parts > 1)
          FD_TRY((launch_fused<S, V, O>(stream, grid, a, pl, iv, bc, G, ct, parts, partial, fin, &launched)));
        if (launched) return CUDNN_STATUS_SUCCESS;
        (void)launch_pdl(ops_pdl(device), columns_wave<S, V, O>, dim3(static_cast<unsigned>(grid)), dim3(kBlock), 0,
                         stream, a, pl.q, pl.r, iv, bc, G, ct, parts, partial, fin, false, 1);
        FD_CUDA_LAUNCHED();
        return parts > 1 ? combine(parts) : CUDNN_STATUS_SUCCESS;
      }
      const int64_t chunk = cdiv(pl.r, pl.parts);
      parts = cdiv(pl.r, chunk);
      const void* k = reinterpret_cast<const void*>(columns_kernel<S, V, O>);
      const int64_t grid = std::min(ct * pl.q * parts, sms * resident_blocks(k, kBlock, 0, device));
      (void)launch_pdl(ops_pdl(device), columns_kernel<S, V, O>, dim3(static_cast<unsigned>(grid)), dim3(kBlock), 0,
                       stream, a, pl.q, pl.r, iv, bc, G, ct, chunk, parts, partial, fin);
    }
    FD_CUDA_LAUNCHED();
    return parts > 1 ? combine(parts) : CUDNN_STATUS_SUCCESS;
  };
  return vec ? go(std::integral_constant<int, kV>{}) : go(std::integral_constant<int, 1>{});
}

}  // namespace

bool channel_plan(int device, const cudnnReduceTensorStruct& r, const cudnnTensorStruct& a,
                  const cudnnTensorStruct& c, ChannelPlan* plan) {
  (void)r;  // every op; the caller keeps indices to the other paths
  if (channel_disabled()) return false;
  if (a.vect() != 1 || c.vect() != 1 || a.nb_dims != c.nb_dims || !float_storage(a.dtype)) return false;
  // A's dims > 1 in memory order (outermost first); A must be packed.
  int idx[CUDNN_DIM_MAX];
  int n = 0;
  for (int k = 0; k < a.nb_dims; ++k)
    if (a.dims[k] > 1) idx[n++] = k;
  std::sort(idx, idx + n, [&](int x, int y) { return a.strides[x] > a.strides[y]; });
  int64_t s = 1;
  for (int k = n - 1; k >= 0; --k) {
    if (a.strides[idx[k]] != s) return false;
    s *= a.dims[idx[k]];
  }
  // Runs of kept / reduced dims in memory order; kept dims in logical order (output j = row-major index over
  // them is then their memory order).
  bool kept[CUDNN_DIM_MAX];
  int64_t size[CUDNN_DIM_MAX];
  int groups = 0, last_kept = -1;
  for (int k = 0; k < n; ++k) {
    const int d = idx[k];
    const bool kd = c.dims[d] != 1;
    if (kd) {
      if (d < last_kept) return false;
      last_kept = d;
    }
    if (groups > 0 && kept[groups - 1] == kd) {
      size[groups - 1] *= a.dims[d];
    } else {
      kept[groups] = kd;
      size[groups++] = a.dims[d];
    }
  }
  ChannelPlan p;
  if (groups == 1 && !kept[0]) {  // everything into one output: one plane
    p.planes = true;
    p.l = size[0];
  } else if (groups == 2 && kept[0]) {  // [C][L]
    p.planes = true;
    p.c = size[0];
    p.l = size[1];
  } else if (groups == 3 && !kept[0]) {  // [N][C][L]
    p.planes = true;
    p.n = size[0];
    p.c = size[1];
    p.l = size[2];
  } else if (groups == 2) {  // [R][I]
    p.r = size[0];
    p.i = size[1];
  } else if (groups == 3) {  // [Q][R][I]
    p.q = size[0];
    p.r = size[1];
    p.i = size[2];
  } else {
    return false;
  }
  // 32-bit slice, unit and output indices
  if (a.element_count() / std::max<int64_t>(1, c.element_count()) >= (int64_t{1} << 31)) return false;
  const int64_t es = static_cast<int64_t>(dtype_size(a.dtype)), vw = 16 / es;
  const int64_t target = int64_t(kWaves) * std::max(1, device_info(device).sm_count) * kBlocksPerSm;
  p.comp_size = a.dtype == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float);
  if (p.planes) {
    p.outputs = p.c;
    p.slice = p.n * p.l;
    // Long slices only, made of planes of at least one 32-byte sector (shorter ones: the per-warp plans).
    if (p.slice < 2048 || (p.n > 1 && p.l * es < 32)) return false;
    const int64_t max_parts = std::max<int64_t>(1, p.slice / (vw * 8 * kBlock));  // >= 8 vectors per thread
    p.parts = std::clamp<int64_t>(cdiv(target, p.c), 1, max_parts);
  } else {
    p.outputs = p.q * p.i;
    p.slice = p.r;
    if (p.r < 64) return false;  // short columns: plane_sum and the per-thread plan do well
    const int64_t iv = cdiv(p.i, vw), bc = std::min<int64_t>(iv, kBlock), G = kBlock / bc;
    const int64_t ct = cdiv(iv, bc);
    // At least 16 rows per thread (64 in all): the partials stay a few % of the bytes of A.
    const int64_t max_parts = std::max<int64_t>(1, p.r / std::max<int64_t>(64, 16 * G));
    p.parts = std::clamp<int64_t>(cdiv(target, p.q * ct), 1, max_parts);
  }
  if (p.outputs * p.parts >= (int64_t{1} << 31)) return false;
  *plan = p;
  return true;
}

size_t channel_workspace(const ChannelPlan& plan) {
  return plan.parts > 1 ? static_cast<size_t>(plan.outputs * plan.parts) * plan.comp_size : 0;
}

bool channel_can_run(const ChannelPlan& plan, const cudnnTensorStruct& a, const void* ap, const void* workspace,
                     size_t workspace_bytes) {
  if (reinterpret_cast<uintptr_t>(ap) % dtype_size(a.dtype) != 0) return false;
  const size_t need = channel_workspace(plan);
  if (need == 0) return true;
  return workspace != nullptr && workspace_bytes >= need && aligned16(workspace);
}

cudnnStatus_t channel_reduce(cudaStream_t stream, int device, const ChannelPlan& plan,
                             const cudnnReduceTensorStruct& r, const cudnnTensorStruct& a, const void* ap,
                             const cudnnTensorStruct& c, void* cp, double alpha, double beta, void* workspace) {
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  const bool prop = r.nan_opt == CUDNN_PROPAGATE_NAN;
  const int kind = kind_of(r.op);
  with_float_storage(a.dtype, [&](auto tag) {
    using S = decltype(tag);
    using T = Comp<S>;
    Fin<T> fin;
    fin.nd = 0;
    for (int k = 0; k < c.nb_dims; ++k) {  // C's dims > 1 in logical order, merged where contiguous
      if (c.dims[k] == 1) continue;
      if (fin.nd > 0 && fin.strides[fin.nd - 1] == c.strides[k] * c.dims[k]) {
        fin.dims[fin.nd - 1] *= static_cast<uint32_t>(c.dims[k]);
        fin.strides[fin.nd - 1] = c.strides[k];
      } else {
        fin.dims[fin.nd] = static_cast<uint32_t>(c.dims[k]);
        fin.strides[fin.nd++] = c.strides[k];
      }
    }
    if (fin.nd == 0) {
      fin.nd = 1;
      fin.dims[0] = 1;
      fin.strides[0] = 0;
    }
    fin.ct = dtype_scalar(c.dtype);
    fin.cp = cp;
    fin.alpha = static_cast<T>(alpha);
    fin.beta = static_cast<T>(beta);
    fin.divisor = r.op == CUDNN_REDUCE_TENSOR_AVG ? static_cast<T>(plan.slice) : T(1);
    fin.root = r.op == CUDNN_REDUCE_TENSOR_NORM2 && !r.sum_of_squares;
    with_op<T>(kind, prop, [&](auto op) {
      st = run<S, decltype(op)>(stream, device, plan, static_cast<const S*>(ap), fin, static_cast<T*>(workspace));
    });
  });
  return st;
}

}  // namespace fd::cuda
