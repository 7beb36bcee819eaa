// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batch normalization inference on lean kernels (FREEDNN_BN_INFER=2|4; included by batchnorm.cu only, after
// bn_fast.cuh): y = blend(relu?(A[c] x + B[c] (+ z))) over a packed x that y (and z) share, one pass, U vectors in
// flight per thread (16-byte ones where aligned). apply_fwd serves training too: its registers (the mask, the inline
// coefficients' four arrays, 54-64) left half the occupancy of act_dense (32) with one vector in flight. Here each
// block first computes the coefficients it needs into shared memory (finalize_stat's formulas: the same bits as the
// default path), once per channel rather than once per thread, and the loop holds only its loads and V (A, B) pairs:
//   infer_nhwc    channels innermost, V consecutive channels per vector (cv = C / V groups): the grid stride is a
//                 multiple of cv, so a thread's channels never change and its A, B stay in registers;
//   infer_tiles   channels innermost, a block per (channel tile, row split): its table only its tile's channels;
//   infer_planes  planes of cs elements per channel (NCHW: cs = H * W): block b takes one run of vectors and its
//                 table the planes of that run; a thread follows its position with a counter (no divisions per
//                 element); a vector may straddle two planes (cs % V != 0, cs >= V).
#pragma once

#include <numeric>

namespace fd::cuda {
namespace {

constexpr size_t kInferTableMax = 16 * 1024;  // bytes of (A, B) table per block

// Resident blocks of 256 to budget registers for: 6 (40 registers) with 2 vectors in flight, 5 (48) with 4, where
// ptxas fits that without spilling (-Xptxas -v): float data, 16-bit planes with 2. The 16-bit NHWC kernel keeps 16
// coefficients in registers (47 / 56 registers unbounded: 5 / 4 blocks; bounded it spilled 48-144 bytes).
// 0: no bound (an explicit 1 lets ptxas spend more registers than none does).
constexpr int infer_min_blocks(size_t s_bytes, bool planes, int u, bool z) {
  if (z) return 0;
  if (s_bytes == 4) return u >= 4 ? 5 : 6;
  return planes && u == 2 ? 6 : 0;
}

template <class C>
__device__ __forceinline__ void infer_coefs(const InferCoef<C>& ic, int ch, C* A, C* B) {
  bn_fwd_coefs(ic.scale[ch], ic.bias[ch], ic.mean[ch], bn_inv_std(ic.var[ch], ic.eps), A, B);
}

// One vector of y, element by element (no array of V results alive at once): bn_fwd_value, then bn_store's blend
// and rounding (alpha * v rounded, then one fma with beta * y).
template <class S, int V, bool kZ>
__device__ __forceinline__ void infer_vec(S* y, const RawT<S, V>& xr, const RawT<S, V>& zr, const Comp<S>* A,
                                          const Comp<S>* B, bool relu, bool keep_nan, double alpha, double beta) {
  using C = Comp<S>;
  RawT<S, V> old;
  if (beta != 0.0) old = raw_load<S, V>(y);
  alignas(16) S out[V];
#pragma unroll
  for (int k = 0; k < V; ++k) {
    bool pos;
    C r = bn_fwd_value(A[k], B[k], raw_elem<S, V>(xr, k), kZ, kZ ? raw_elem<S, V>(zr, k) : C(0), relu, keep_nan, &pos);
    if (alpha != 1.0) r = mul_rn(static_cast<C>(alpha), r);
    if (beta != 0.0) r = fma_rn(static_cast<C>(beta), raw_elem<S, V>(old, k), r);
    Storage<S>::store(out, k, r);
  }
  *reinterpret_cast<RawT<S, V>*>(y) = *reinterpret_cast<const RawT<S, V>*>(out);
}

// Vectors i0 + u * step (u < U, i < end) of x (and z) into registers.
template <class S, int V, int U, bool kZ>
__device__ __forceinline__ void infer_load(const S* x, const S* z, int i0, int step, int end, RawT<S, V>* xr,
                                           RawT<S, V>* zr) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int i = i0 + u * step;
    if (i < end) {
      xr[u] = raw_load<S, V>(x + int64_t(i) * V);
      if constexpr (kZ) zr[u] = raw_load<S, V>(z + int64_t(i) * V);
    }
  }
}

// Channels innermost: vector i holds channels (i % cv) * V ..; gridDim.x * kBlock is a multiple of cv. Table: the
// block's groups, all cv of them (cv <= kBlock) or its threads' kBlock groups from g0 (mod cv). 32-bit indices (the
// caller keeps x below 2^31 elements).
template <class S, int V, int U, bool kZ>
__global__ void __launch_bounds__(kBlock, infer_min_blocks(sizeof(S), false, U, kZ))
    infer_nhwc(int nvec, int cv, const S* __restrict__ x, const S* __restrict__ z, S* __restrict__ y,
               InferCoef<Comp<S>> ic, bool relu, bool keep_nan, double alpha, double beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using C = Comp<S>;
  extern __shared__ uint4 bn_infer_smem[];
  C* tab = reinterpret_cast<C*>(bn_infer_smem);  // A[n], then B[n]
  const int stride = gridDim.x * kBlock;
  const int first = blockIdx.x * kBlock + threadIdx.x;
  RawT<S, V> xr[U], zr[U];
  infer_load<S, V, U, kZ>(x, z, first, stride, nvec, xr, zr);  // in flight while the table is built
  const bool all = cv <= kBlock;
  const int n = (all ? cv : kBlock) * V;
  const unsigned g0 = all ? 0u : blockIdx.x * unsigned(kBlock) % unsigned(cv);
  for (int t = threadIdx.x; t < n; t += kBlock) {
    unsigned grp = g0 + t / V;
    if (grp >= unsigned(cv)) grp -= cv;
    infer_coefs(ic, static_cast<int>(grp) * V + t % V, &tab[t], &tab[n + t]);
  }
  __syncthreads();
  const int slot = all ? static_cast<int>(unsigned(first) % unsigned(cv)) : static_cast<int>(threadIdx.x);
  C A[V], B[V];
#pragma unroll
  for (int k = 0; k < V; ++k) {
    A[k] = tab[slot * V + k];
    B[k] = tab[n + slot * V + k];
  }
  for (int i0 = first; i0 < nvec;) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = i0 + u * stride;
      if (i < nvec) infer_vec<S, V, kZ>(y + int64_t(i) * V, xr[u], zr[u], A, B, relu, keep_nan, alpha, beta);
    }
    i0 += U * stride;
    infer_load<S, V, U, kZ>(x, z, i0, stride, nvec, xr, zr);
  }
  pdl_allow_dependents();
}

// Channels innermost, in tiles (FREEDNN_BN_INFER=8): block (chunk, split) takes tg consecutive channel groups (tg * V
// channels; tg a power of two <= 32) of the rows of its split; thread (tr, gi) walks rows lo + tr, lo + tr + RB, ...
// (RB = kBlock / tg), U rows in flight. Its table holds the block's tg * V channels only (one coefficient per thread
// where tg * V == kBlock), where infer_nhwc's holds a whole row's (64x2048x7x7: 8 per thread, each an IEEE square
// root and division, for about 4 vectors of data per thread).
template <class S, int V, int U, bool kZ>
__global__ void __launch_bounds__(kBlock, infer_min_blocks(sizeof(S), false, U, kZ))
    infer_tiles(int64_t rows, int cv, int tg, int64_t per_split, const S* __restrict__ x, const S* __restrict__ z,
                S* __restrict__ y, InferCoef<Comp<S>> ic, bool relu, bool keep_nan, double alpha, double beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using C = Comp<S>;
  extern __shared__ uint4 bn_infer_smem[];
  C* tab = reinterpret_cast<C*>(bn_infer_smem);  // A[n], then B[n]
  const int rb = kBlock / tg;
  const int gi = static_cast<int>(threadIdx.x) % tg, tr = static_cast<int>(threadIdx.x) / tg;
  const int grp = static_cast<int>(blockIdx.x) * tg + gi;
  const bool active = grp < cv;
  // vector index of row r: r * cv + grp (32-bit: the caller keeps x below 2^31 elements)
  const int64_t lo = int64_t(blockIdx.y) * per_split, hi = min(rows, lo + per_split);
  const int step = rb * cv, first = static_cast<int>((lo + tr) * cv) + grp;
  const int end = active ? static_cast<int>(hi * cv) : 0;
  RawT<S, V> xr[U], zr[U];
  infer_load<S, V, U, kZ>(x, z, first, step, end, xr, zr);  // in flight while the table is built
  const int n = tg * V, c0 = static_cast<int>(blockIdx.x) * n, nch = cv * V;
  for (int t = threadIdx.x; t < n; t += kBlock)
    if (c0 + t < nch) infer_coefs(ic, c0 + t, &tab[t], &tab[n + t]);
  __syncthreads();
  if (!active) return;
  C A[V], B[V];
#pragma unroll
  for (int k = 0; k < V; ++k) {
    A[k] = tab[gi * V + k];
    B[k] = tab[n + gi * V + k];
  }
  for (int i0 = first; i0 < end;) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = i0 + u * step;
      if (i < end) infer_vec<S, V, kZ>(y + int64_t(i) * V, xr[u], zr[u], A, B, relu, keep_nan, alpha, beta);
    }
    i0 += U * step;
    infer_load<S, V, U, kZ>(x, z, i0, step, end, xr, zr);
  }
  pdl_allow_dependents();
}

// Planes: element e's channel is (e / cs) % nc. Block b: vectors [b * per_block, ...) (per_block a multiple of
// kBlock), thread t the vectors t, t + kBlock, ... of them; table entry t: plane p0 + t (channel (p0 + t) % nc; mod nc
// when the run spans more than nc planes). Counter: j = the place of the vector's first element in its plane, r =
// its table entry; each step (kBlock vectors) adds dj = kBlock * V % cs to j and dr = kBlock * V / cs % nc to r.
template <class S, int V, int U, bool kZ>
__global__ void __launch_bounds__(kBlock, infer_min_blocks(sizeof(S), true, U, kZ))
    infer_planes(int nvec, int per_block, int cs, int nc, int dj, int dr, const S* __restrict__ x,
                 const S* __restrict__ z, S* __restrict__ y, InferCoef<Comp<S>> ic, bool relu, bool keep_nan,
                 double alpha, double beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using C = Comp<S>;
  extern __shared__ uint4 bn_infer_smem[];
  C* tab = reinterpret_cast<C*>(bn_infer_smem);
  const int v0 = blockIdx.x * per_block, v1 = min(nvec, v0 + per_block);
  RawT<S, V> xr[U], zr[U];
  infer_load<S, V, U, kZ>(x, z, v0 + threadIdx.x, kBlock, v1, xr, zr);
  const unsigned p0 = unsigned(v0) * V / unsigned(cs);
  const int n = min(nc, static_cast<int>((unsigned(v1) * V - 1) / unsigned(cs) - p0 + 1));
  for (int t = threadIdx.x; t < n; t += kBlock)
    infer_coefs(ic, static_cast<int>((p0 + t) % unsigned(nc)), &tab[t], &tab[n + t]);
  __syncthreads();
  const unsigned e = unsigned(v0 + threadIdx.x) * V, pe = e / unsigned(cs);
  int j = static_cast<int>(e - pe * unsigned(cs));
  int r = static_cast<int>((pe - p0) % unsigned(nc));
  for (int i0 = v0 + threadIdx.x; i0 < v1;) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = i0 + u * kBlock;
      if (i < v1) {
        C A[V], B[V];
        const C a0 = tab[r], b0 = tab[n + r];
        const int split = cs - j;  // elements of the vector in plane r; the rest in the next one
        if (V == 1 || split >= V) {
#pragma unroll
          for (int k = 0; k < V; ++k) {
            A[k] = a0;
            B[k] = b0;
          }
        } else {
          const int r1 = r + 1 < n ? r + 1 : 0;
          const C a1 = tab[r1], b1 = tab[n + r1];
#pragma unroll
          for (int k = 0; k < V; ++k) {
            A[k] = k < split ? a0 : a1;
            B[k] = k < split ? b0 : b1;
          }
        }
        infer_vec<S, V, kZ>(y + int64_t(i) * V, xr[u], zr[u], A, B, relu, keep_nan, alpha, beta);
      }
      j += dj;
      r += dr;
      if (j >= cs) {
        j -= cs;
        ++r;
      }
      if (r >= nc) r -= nc;
    }
    i0 += U * kBlock;
    infer_load<S, V, U, kZ>(x, z, i0, kBlock, v1, xr, zr);
  }
  pdl_allow_dependents();
}

// FREEDNN_BN_INFER (read at every call): 2 or 4, the vectors in flight per thread of the lean kernels; 8: channels-
// innermost tensors in tiles (infer_tiles, 4 in flight; planes as 4); 0: the default path (apply_fwd, or finalize +
// the generic kernel); unset (-1): auto_variant's choice.
int infer_variant() {
  const long long u = env_int("FREEDNN_BN_INFER", -1);
  return u == 2 || u == 4 || u == 8 || u == 0 ? static_cast<int>(u) : -1;
}

// Where the lean kernels measured faster on the H200 (docs/perf/ops-h200.md): 16-bit channels-innermost tensors
// of 24 MB and more (run 14: 0.91-0.95x the time of the default path; 1.19x on the 12.8 MB 64x2048x7x7 one), below
// 32 MB in channel tiles (run 25: 0.87x the 7x7's default time, 0.93x the 14x14's lean time; 1.00x at 28x28, then
// 1.04-1.07x), and float planes of at most 28 x 28 (0.98x at 28 x 28, 0.90x at 14 x 14, 0.77x at 7 x 7; 1.02x on
// larger planes). Shapes not measured keep the default path.
template <class S>
int auto_variant(int64_t count, int cs) {
  if (sizeof(S) == 2 && cs == 1) return count * 2 < (int64_t{32} << 20) ? 8 : 2;
  if (sizeof(S) == 4 && cs > 1) return cs <= 28 * 28 ? 2 : 0;
  return 0;
}

template <class S, int V, int U, bool kZ>
cudnnStatus_t launch_infer(cudnnContext* h, const NormCall& c, const InferCoef<Comp<S>>& ic, int nc, int cs,
                           bool tiles, bool* done) {
  using C = Comp<S>;
  const DeviceInfo& di = device_info(h->device);
  const int nvec = static_cast<int>(c.x_desc->element_count() / V);
  const S* x = static_cast<const S*>(c.x);
  const S* z = kZ ? static_cast<const S*>(c.z) : nullptr;
  S* y = static_cast<S*>(c.y);
  const bool relu = c.has_activation(), keep_nan = c.act.nan == CUDNN_PROPAGATE_NAN;
  if (cs == 1 && tiles) {
    const int cv = nc / V;
    int tg = 32;
    while (tg > 1 && tg > cv) tg /= 2;
    const int64_t chunks = (cv + tg - 1) / tg, rows = nvec / cv;
    const size_t smem = 2 * sizeof(C) * static_cast<size_t>(tg * V);
    constexpr int kU = 4;  // four rows in flight whatever U: one instantiation per type, V and z
    const void* k = reinterpret_cast<const void*>(infer_tiles<S, V, kU, kZ>);
    const int64_t wave = resident_grid(k, nvec, int64_t(kBlock) * kU, kBlock, smem, h->device);
    int64_t splits = std::max<int64_t>(1, wave / chunks);
    const int64_t per_split = (rows + splits - 1) / splits;
    splits = (rows + per_split - 1) / per_split;
    if (chunks > 65535 || splits > 65535) return CUDNN_STATUS_SUCCESS;
    if (int64_t(kBlock) * cv * kU + nvec >= (int64_t{1} << 31)) return CUDNN_STATUS_SUCCESS;  // 32-bit indices
    (void)launch_pdl(ops_pdl(h->device), infer_tiles<S, V, kU, kZ>,
                     dim3(static_cast<unsigned>(chunks), static_cast<unsigned>(splits)), dim3(kBlock), smem, h->stream,
                     rows, cv, tg, per_split, x, z, y, ic, relu, keep_nan, c.alpha, c.beta);
  } else if (cs == 1) {
    const int cv = nc / V;
    const size_t smem = 2 * sizeof(C) * static_cast<size_t>(std::min(cv, kBlock) * V);
    const void* k = reinterpret_cast<const void*>(infer_nhwc<S, V, U, kZ>);
    const int m = cv / std::gcd(cv, kBlock);  // the grid a multiple of m: stride % cv == 0
    int grid = resident_grid(k, nvec, int64_t(kBlock) * U, kBlock, smem, h->device) / m * m;
    if (grid == 0) grid = m;
    if (grid > di.sm_count * resident_blocks(k, kBlock, smem, h->device)) return CUDNN_STATUS_SUCCESS;
    (void)launch_pdl(ops_pdl(h->device), infer_nhwc<S, V, U, kZ>, dim3(static_cast<unsigned>(grid)), dim3(kBlock),
                     smem, h->stream, nvec, cv, x, z, y, ic, relu, keep_nan, c.alpha, c.beta);
  } else {
    const void* k = reinterpret_cast<const void*>(infer_planes<S, V, U, kZ>);
    const int64_t wave = resident_grid(k, nvec, int64_t(kBlock) * U, kBlock, kInferTableMax, h->device);
    const int64_t per_block = (nvec + wave * kBlock - 1) / (wave * kBlock) * kBlock;
    const int64_t grid = (nvec + per_block - 1) / per_block;
    const int64_t entries = std::min<int64_t>(nc, (per_block * V - 1) / cs + 2);  // planes a block's run can touch
    const size_t smem = 2 * sizeof(C) * static_cast<size_t>(entries);
    if (smem > kInferTableMax) return CUDNN_STATUS_SUCCESS;
    const int64_t step = int64_t(kBlock) * V;
    (void)launch_pdl(ops_pdl(h->device), infer_planes<S, V, U, kZ>, dim3(static_cast<unsigned>(grid)), dim3(kBlock),
                     smem, h->stream, nvec, static_cast<int>(per_block), cs, nc, static_cast<int>(step % cs),
                     static_cast<int>(step / cs % nc), x, z, y, ic, relu, keep_nan, c.alpha, c.beta);
  }
  FD_CUDA_LAUNCHED();
  *done = true;
  return CUDNN_STATUS_SUCCESS;
}

// Spatial inference on the lean kernels where they apply (FREEDNN_BN_INFER or auto_variant; float, half, bfloat16; x packed,
// y and z in its layout; channel-indexed parameters). *done = false: the caller runs the default path.
template <class S>
cudnnStatus_t run_infer(cudnnContext* h, const NormCall& c, bool* done) {
  *done = false;
  if constexpr (std::is_same_v<S, double>) {
    return CUDNN_STATUS_SUCCESS;
  } else {
    using C = Comp<S>;
    int u = infer_variant();
    const cudnnTensorStruct& xd = *c.x_desc;
    if (u == 0 || c.dir != NormDir::inference || c.per_activation() || !xd.is_packed() || xd.vect() != 1 ||
        !same_packed_layout(xd, *c.y_desc) || (c.has_add() && !same_packed_layout(xd, *c.z_desc)) ||
        !make_view(*c.scale_bias_desc).row_major_packed || !make_view(*c.mean_var_desc).row_major_packed)
      return CUDNN_STATUS_SUCCESS;
    const int64_t count = xd.element_count();
    const int nc = xd.dims[1];
    // 32-bit indices, which also step a grid's stride (up to U * grid * kBlock elements) past the end before the
    // loops stop: 2^24 elements of room (found by review: 4096 was less than one step)
    if (count >= (int64_t{1} << 31) - (int64_t{1} << 24)) return CUDNN_STATUS_SUCCESS;
    if (count == 0) {
      *done = true;
      return CUDNN_STATUS_SUCCESS;
    }
    const int cs = static_cast<int>(nc > 1 ? xd.strides[1] : count);  // one channel: a single plane
    constexpr int kV = 16 / sizeof(S);
    const bool al = aligned16(c.x) && aligned16(c.y) && (!c.has_add() || aligned16(c.z));
    const bool vec = al && count % kV == 0 && (cs == 1 ? nc % kV == 0 : cs >= kV);
    if (u < 0) u = vec ? auto_variant<S>(count, cs) : 0;  // the measured (vector) cases only
    if (u == 0) return CUDNN_STATUS_SUCCESS;
    InferCoef<C> ic;
    ic.scale = static_cast<const C*>(c.scale);
    ic.bias = static_cast<const C*>(c.bias);
    ic.mean = static_cast<const C*>(c.est_mean);
    ic.var = static_cast<const C*>(c.est_var);
    ic.eps = static_cast<C>(c.epsilon);
    const bool tiles = u == 8;
    if (tiles) u = 4;
    auto go = [&](auto vt, auto ut, auto zt) {
      return launch_infer<S, decltype(vt)::value, decltype(ut)::value, decltype(zt)::value>(h, c, ic, nc, cs, tiles,
                                                                                            done);
    };
    using I2 = std::integral_constant<int, 2>;
    using I4 = std::integral_constant<int, 4>;
    using V8 = std::integral_constant<int, kV>;
    using V1 = std::integral_constant<int, 1>;
    using Z1 = std::true_type;
    using Z0 = std::false_type;
    if (!vec) return c.has_add() ? go(V1{}, I4{}, Z1{}) : go(V1{}, I4{}, Z0{});  // scalar: 4 in flight either way
    if (u == 2) return c.has_add() ? go(V8{}, I2{}, Z1{}) : go(V8{}, I2{}, Z0{});
    return c.has_add() ? go(V8{}, I4{}, Z1{}) : go(V8{}, I4{}, Z0{});
  }
}

}  // namespace
}  // namespace fd::cuda
