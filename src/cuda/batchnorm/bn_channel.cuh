// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batch normalization in one kernel per call, a block per channel (included by batchnorm.cu only, after
// bn_fast.cuh). For packed NCHW-like tensors with many channels of small planes (ResNet-50's 14x14x1024 and
// 7x7x2048): the three-kernel path (statistics, finalize, apply) spends a launch and a latency-bound finalize on
// little data per channel, and its per-column partial sums of small planes are another pass through memory.
// Block k:
//   pass 1  the shifted sums of channel k over its N planes (16-byte vectors when the plane length allows, four
//           loads in flight per thread), a fixed-order block reduction;
//   thread 0 finalizes channel k (finalize_stat: saved / running statistics, dscale / dbias) into shared memory;
//   pass 2  the apply pass over the same planes, read microseconds earlier (mostly from L2).
// Bytes per element: forward x read twice (the second mostly from L2), y written once; backward x and dy read
// twice, dx (and dz) written once. Forward training with an activation (the ReLU mask) is not taken here.
#pragma once

namespace fd::cuda {
namespace {

// (n, j) of consecutive vector indices e over channel planes of inner_v vectors, advanced by a fixed step.
struct PlaneWalk {
  int64_t n, j;
  __device__ __forceinline__ void next(int64_t step_n, int64_t step_j, int64_t inner_v) {
    n += step_n;
    j += step_j;
    if (j >= inner_v) {
      j -= inner_v;
      ++n;
    }
  }
};

// Every tensor shares x's packed layout: element (n, k, vector j) at n * sn + k * sk + j * V. mask: the ReLU bits
// of the forward (backward only; bit = the element's offset).
template <class S, int V, bool bwd>
__global__ void __launch_bounds__(kBlock) channel_block(FinalArgs<Comp<S>> fa, Geo g, BnMap xm, int64_t inner_v,
                                                        int64_t sn, int64_t sk, const S* x, const S* dy, S* out,
                                                        S* dz, const uint8_t* mask, double alpha, double beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using C = Comp<S>;
  constexpr int kU = 4;
  __shared__ C red[32];
  __shared__ C co[5];
  const int64_t k = blockIdx.x;
  const int64_t m_v = g.n * inner_v;
  const int64_t step = kBlock, step_n = step / inner_v, step_j = step - step_n * inner_v;
  const S* xk = x + k * sk;
  const S* dk = bwd ? dy + k * sk : nullptr;
  const C K = bwd && fa.saved_mean != nullptr ? fa.saved_mean[fa.mv.offset(k)] : Storage<S>::load(xk, 0);
  const PlaneWalk start{int64_t(threadIdx.x) / inner_v, int64_t(threadIdx.x) % inner_v};

  C q0 = 0, q1 = 0, q2 = 0, q3 = 0;
  PlaneWalk w = start;
  for (int64_t e = threadIdx.x; e < m_v; e += kU * step) {
    RawT<S, V> xv[kU], dv[kU];
    unsigned mb[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      mb[u] = ~0u;
      if (e + u * step < m_v) {
        const int64_t off = w.n * sn + w.j * V;
        xv[u] = raw_load<S, V>(xk + off);
        if (bwd) {
          dv[u] = raw_load<S, V>(dk + off);
          if (mask != nullptr) mb[u] = mask_bits<V>(mask, k * sk + off);
        }
      }
      w.next(step_n, step_j, inner_v);
    }
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      if (e + u * step >= m_v) continue;
#pragma unroll
      for (int t = 0; t < V; ++t) {
        const C v = raw_elem<S, V>(xv[u], t) - K;
        q0 += v;
        q1 += v * v;
        if (bwd) {
          const C d = (mb[u] >> t) & 1u ? raw_elem<S, V>(dv[u], t) : C(0);
          q2 += d;
          q3 += d * v;
        }
      }
    }
  }
  auto add = [](C a, C b) { return a + b; };
  C q[4];
  q[0] = block_reduce(q0, red, add, C(0));
  q[1] = block_reduce(q1, red, add, C(0));
  q[2] = bwd ? block_reduce(q2, red, add, C(0)) : C(0);
  q[3] = bwd ? block_reduce(q3, red, add, C(0)) : C(0);
  if (threadIdx.x == 0) finalize_stat<S>(fa, g, xm, x, k, q, co, 1);
  __syncthreads();
  const C A = co[0], B = co[1];
  const C Dm = bwd ? co[2] : C(0), Dx = bwd ? co[3] : C(0), I = bwd ? co[4] : C(0);

  S* yk = out + k * sk;
  S* dzk = bwd && dz != nullptr ? dz + k * sk : nullptr;
  // Two vectors per thread per step, both loaded before anything is stored (the stores might alias the loads as
  // far as the compiler knows, so it would not hoist the next step's loads above them).
  w = start;
  for (int64_t e = threadIdx.x; e < m_v; e += 2 * step) {
    int64_t off[2];
    bool ok[2];
    C v[2][V], d[2][V];
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      ok[u] = e + u * step < m_v;
      off[u] = w.n * sn + w.j * V;
      w.next(step_n, step_j, inner_v);
      if (ok[u]) {
        load_vec<S, V>(xk + off[u], v[u]);
        if (bwd) load_vec<S, V>(dk + off[u], d[u]);
      }
    }
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      if (!ok[u]) continue;
      if (!bwd) {
#pragma unroll
        for (int t = 0; t < V; ++t) v[u][t] = fma_rn(A, v[u][t], B);
      } else {
        if (mask != nullptr) {
          const unsigned bits = mask_bits<V>(mask, k * sk + off[u]);
#pragma unroll
          for (int t = 0; t < V; ++t)
            if (!((bits >> t) & 1u)) d[u][t] = C(0);
          if (dzk != nullptr) bn_store<S, V>(dzk + off[u], d[u], alpha, beta);
        }
#pragma unroll
        for (int t = 0; t < V; ++t) v[u][t] = bn_bwd_value(A, B, Dm, Dx, I, v[u][t], d[u][t]);
      }
      bn_store<S, V>(yk + off[u], v[u], alpha, beta);
    }
  }
  pdl_allow_dependents();
}

}  // namespace
}  // namespace fd::cuda
