// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batch normalization pass 1 over rows (included by batchnorm.cu only, after bn_fast.cuh): statistic k of row r
// at r * s + k (NHWC-like packed x, per-activation statistics of a row-major x, or NCHW with small planes as
// [N x (C * HW)] columns folded per channel by finalize_kernel). Bytes per element: x (+ dy) read once; partials
// nq * s * splits values.
// Block (split, chunk): thread (row group tr, vector column tc) of an R x cw arrangement (cw a power of two,
// R = kBlock / cw) sums the rows tr, tr + R, ... of its split, four rows in flight. The grid is one resident wave
// (splits * chunks blocks that all run at once: no partial second wave). Sums, in a fixed order: lanes of a warp
// that share columns (cw < 32) by a shuffle butterfly, then the block's row slots in slot order through shared
// memory; partial[(q * s + k) * splits + split] (a statistic's splits contiguous, for finalize_kernel's coalesced
// split_inner reads).
#pragma once

namespace fd::cuda {
namespace {

// The block's sums of one quantity per column, in a fixed order (rows_sums and bn_cluster: the same bits): thread
// (row group tr, vector column tc) of the R x cw arrangement holds q[V] for columns tc * V ..; lanes of a warp that
// share columns (cw < 32) add by a shuffle butterfly, then the row slots are added in slot order through red
// (kBlock * V values of shared memory); out(c, sum) for each of the nvec * V columns c. Every thread calls it.
template <class C, int V, class Out>
__device__ __forceinline__ void block_column_sums(const C* q, int cw, int nvec, C* red, Out&& out) {
  const int tc = threadIdx.x % cw, tr = threadIdx.x / cw, R = kBlock / cw;
  // Row slots after the butterfly: a warp's lanes tc < cw hold its 32 / cw row groups (cw <= 32); with cw >= 32
  // every row group is its own slot.
  const int lane = threadIdx.x & 31;
  const bool narrow = cw < 32;
  const int slots = narrow ? kBlock / 32 : R;
  const int slot = narrow ? int(threadIdx.x >> 5) : tr;
  const bool writer = (narrow ? lane < cw : true) && tc < nvec;
  const int ncol = nvec * V, stride = cw * V;
  C v[V];
#pragma unroll
  for (int t = 0; t < V; ++t) v[t] = q[t];
  if (narrow) {
    for (int o = cw; o < 32; o <<= 1) {
#pragma unroll
      for (int t = 0; t < V; ++t) v[t] += __shfl_xor_sync(0xffffffffu, v[t], o);
    }
  }
  __syncthreads();  // the previous quantity's reads of red are done
  if (writer) {
#pragma unroll
    for (int t = 0; t < V; ++t) red[slot * stride + tc * V + t] = v[t];
  }
  __syncthreads();
  for (int c = threadIdx.x; c < ncol; c += kBlock) {
    C sum = red[c];
    for (int w = 1; w < slots; ++w) sum += red[w * stride + c];
    out(c, sum);
  }
}

// The body of stats_rows_w, shared with the one-kernel path (bn_coop.cuh) so that both compute the same partial
// sums bit for bit. red: kBlock * V values of shared memory; K: the thread's V shifts (read back by bn_coop).
template <class S, int V, bool bwd>
__device__ __forceinline__ void rows_sums(int64_t rows, int64_t s, int64_t fold, int cw, const S* x, const S* dy,
                                          const uint8_t* mask, TensorView mv, const Comp<S>* shift,
                                          int64_t per_split, Comp<S>* partial, Comp<S>* red, Comp<S>* K) {
  using C = Comp<S>;
  constexpr int kU = 4;
  const int64_t splits = gridDim.x, split = blockIdx.x;
  const int64_t k0 = int64_t(blockIdx.y) * cw * V;
  const int nvec = static_cast<int>(min(int64_t(cw), (s - k0) / V));  // vectors of this chunk
  const int R = kBlock / cw;
  const int tc = threadIdx.x % cw, tr = threadIdx.x / cw;
  const bool active = tc < nvec;
  const int64_t k = k0 + int64_t(tc) * V;
  C q0[V], q1[V], q2[V], q3[V];
#pragma unroll
  for (int t = 0; t < V; ++t) {
    q0[t] = q1[t] = q2[t] = q3[t] = C(0);
    K[t] = C(0);
  }
  const int64_t lo = split * per_split;
  const int64_t hi = lo + per_split < rows ? lo + per_split : rows;
  if (active) {
    if (shift != nullptr) {
#pragma unroll
      for (int t = 0; t < V; ++t) K[t] = shift[mv.offset((k + t) / fold)];
    } else if (fold == 1) {
      load_vec<S, V>(x + k, K);
    } else {
#pragma unroll
      for (int t = 0; t < V; ++t) K[t] = Storage<S>::load(x, (k + t) / fold * fold);
    }
    for (int64_t r = lo + tr; r < hi; r += int64_t(kU) * R) {
      RawT<S, V> xv[kU], dv[kU];
      unsigned mb[kU];
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        const int64_t rr = r + int64_t(u) * R;
        mb[u] = ~0u;
        if (rr < hi) {
          const int64_t off = rr * s + k;
          xv[u] = raw_load<S, V>(x + off);
          if (bwd) {
            dv[u] = raw_load<S, V>(dy + off);
            if (mask != nullptr) mb[u] = mask_bits<V>(mask, off);
          }
        }
      }
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        if (r + int64_t(u) * R >= hi) continue;
#pragma unroll
        for (int t = 0; t < V; ++t) {
          const C v = raw_elem<S, V>(xv[u], t) - K[t];
          q0[t] += v;
          q1[t] += v * v;
          if (bwd) {
            const C d = (mb[u] >> t) & 1u ? raw_elem<S, V>(dv[u], t) : C(0);
            q2[t] += d;
            q3[t] += d * v;
          }
        }
      }
    }
  }
  const int nq = bwd ? 4 : 2;
#pragma unroll
  for (int qi = 0; qi < 4; ++qi) {
    if (qi >= nq) break;
    C* q = qi == 0 ? q0 : qi == 1 ? q1 : qi == 2 ? q2 : q3;  // compile-time choice (unrolled)
    block_column_sums<C, V>(q, cw, nvec, red,
                            [&](int c, C sum) { partial[(qi * s + k0 + c) * splits + split] = sum; });
  }
}

template <class S, int V, bool bwd>
__global__ void __launch_bounds__(kBlock) stats_rows_w(int64_t rows, int64_t s, int64_t fold, int cw, const S* x,
                                                       const S* dy, const uint8_t* mask, TensorView mv,
                                                       const Comp<S>* shift, int64_t per_split, Comp<S>* partial) {
  __shared__ Comp<S> red[kBlock * V];
  pdl_allow_dependents();  // the finalize (FREEDNN_BN_PDL) starts once this grid's last blocks do, and waits
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  Comp<S> K[V];
  rows_sums<S, V, bwd>(rows, s, fold, cw, x, dy, mask, mv, shift, per_split, partial, red, K);
}

}  // namespace
}  // namespace fd::cuda
