// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batch normalization fast paths (included by batchnorm.cu only). Passes and bytes per element of x:
//   training forward: stats (read x) + apply (read x [, z], write y [, ReLU mask bit]): two passes over x,
//                     (2 + z) reads and 1 write per element;
//   backward:         stats (read x, dy [, mask bit]) + apply (read x, dy [, mask bit], write dx [, dz]): two
//                     passes over x and dy, 4 reads and 1 (2 with dz) writes per element;
//   inference:        apply only: one pass, 1 (2 with z) reads and 1 write.
// Kernels:
//   stats_planes  pass 1 when each statistic's elements are contiguous planes (NCHW-like: n * sn + k * sk + j),
//                 V elements per 16-byte load, four loads in flight per thread;
//   stats_rows_w  pass 1 when the statistic is the unit-stride index (NHWC-like, or per activation on NCHW),
//                 and NCHW with small planes: in bn_rows.cuh;
//   apply_fwd / apply_bwd  pass 2 (and inference's single pass) when x, y (dy, dx, z, dz) share one packed
//                 layout: a plain walk over memory with 16-byte accesses, the statistic of an element from its
//                 offset (NHWC: offset % C, V consecutive channels per vector; NCHW: (offset / HW) % C, one channel
//                 per vector when HW % V == 0, else per element), the ReLU mask bits in memory order.
// Partial sums as the generic kernels (partial[(q * splits + split) * s + k]), so finalize_kernel serves both.
// Every reduction has a fixed order (per thread, then per block in thread order, then per statistic in split
// order): results are deterministic.
#pragma once
#include "cuda/common/aligned.h"

namespace fd::cuda {
namespace {

// Channels of the V elements of vector i (elements i*V ..) of a packed tensor whose statistic stride is cs:
//   mode 0, NHWC-like (cs == 1, C % V == 0): V consecutive channels from (i % (C/V)) * V;
//   mode 1, cs % V == 0: one channel (i / (cs/V)) % C for the whole vector;
//   mode 2, otherwise: each element's own channel ((i*V + k) / cs) % C.
struct ChanMap {
  int mode = 1;
  bool fixed = false;  // mode 0 with C / V dividing kBlock: every vector a thread visits has the same channels
  Divider d1, d2;
  int64_t c2 = 1;
  __device__ __forceinline__ int64_t chan(int64_t e) const {  // modes 1, 2: e is a vector or element index
    const int64_t q = d1.div(e);
    return q - d2.div(q) * c2;
  }
};

// coef[q*s + channel] for the V elements of vector i (p = coef + q*s; channels from chans()).
template <class C, int V>
__device__ __forceinline__ void coef_load(const C* p, int mode, const int64_t* ch, C* out) {
  if (mode == 1 || V == 1) {
    const C v = __ldg(p + ch[0]);
#pragma unroll
    for (int k = 0; k < V; ++k) out[k] = v;
    return;
  }
  if constexpr ((V * sizeof(C)) % 16 == 0) {
    if (mode == 0) {  // V consecutive coefficients, aligned: ch[0] % V == 0, s % V == 0, coef 256-byte aligned
#pragma unroll
      for (int u = 0; u < int(V * sizeof(C) / 16); ++u)
        reinterpret_cast<uint4*>(out)[u] = __ldg(reinterpret_cast<const uint4*>(p + ch[0]) + u);
      return;
    }
  }
#pragma unroll
  for (int k = 0; k < V; ++k) out[k] = __ldg(p + ch[k]);
}

template <int V>
__device__ __forceinline__ void chans(const ChanMap& cm, int64_t i, int64_t* ch) {
  if (cm.mode == 0) {
    const int64_t c0 = (i - cm.d2.div(i) * cm.c2) * V;
#pragma unroll
    for (int k = 0; k < V; ++k) ch[k] = c0 + k;
  } else if (cm.mode == 1) {
    ch[0] = cm.chan(i);
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k) ch[k] = cm.chan(i * V + k);
  }
}

// The V mask bits of elements e .. e+V-1 (e % V == 0, V divides 8: inside one byte).
template <int V>
__device__ __forceinline__ unsigned mask_bits(const uint8_t* m, int64_t e) {
  return (static_cast<unsigned>(m[e >> 3]) >> (e & 7)) & ((1u << V) - 1u);
}

// Writes the V mask bits of elements e = i*V .. of the lane's vector i; the whole warp calls it with consecutive
// i (i % 32 == lane). V == 1: one 32-bit word per warp; V < 8: the lanes of a byte combine their bits; V == 8: a
// byte per lane.
template <int V>
__device__ __forceinline__ void put_mask_bits(uint8_t* m, int64_t e, unsigned bits, bool valid) {
  const int lane = threadIdx.x & 31;
  if constexpr (V == 1) {
    const unsigned w = __ballot_sync(0xffffffffu, valid && bits != 0u);
    if (lane == 0 && valid) reinterpret_cast<uint32_t*>(m)[e >> 5] = w;
  } else if constexpr (V >= 8) {
    static_assert(V == 8, "at most 8 bits per vector");
    if (valid) m[e >> 3] = static_cast<uint8_t>(bits);
  } else {
    constexpr int kG = 8 / V;  // lanes per byte
    unsigned w = valid ? bits << ((lane % kG) * V) : 0u;
#pragma unroll
    for (int o = 1; o < kG; o <<= 1) w |= __shfl_xor_sync(0xffffffffu, w, o);
    if (valid && lane % kG == 0) m[e >> 3] = static_cast<uint8_t>(w);
  }
}

// Raw loads of V elements (one 16-byte vector, or one scalar), converted where used: fewer live registers
// than converted values while several loads are in flight.
template <class S, int V>
using RawT = std::conditional_t<V == 1, S, uint4>;
template <class S, int V>
__device__ __forceinline__ RawT<S, V> raw_load(const S* p) {
  return *reinterpret_cast<const RawT<S, V>*>(p);
}
template <class S, int V>
__device__ __forceinline__ Comp<S> raw_elem(const RawT<S, V>& r, int k) {
  return Storage<S>::load(reinterpret_cast<const S*>(&r), k);
}

// Fast elementwise plan: the n tensors `others` (null: absent) share x's packed layout; ptrs: their n data
// pointers then x's. V and the statistic map; s statistics at stride cs (spatial: C at x's channel stride; per
// activation on a row-major packed x: C*H*W at stride 1).
struct EwPlan {
  bool ok = false;
  int v = 1;
  int64_t nvec = 0;
  ChanMap map;
};

EwPlan plan_ew(const cudnnTensorStruct& x, int64_t C, int64_t cs, const cudnnTensorStruct* const* others,
               const void* const* ptrs, int n, int vmax) {
  EwPlan p;
  if (!x.is_packed() || x.vect() != 1) return p;
  for (int i = 0; i < n; ++i)
    if (others[i] != nullptr && !same_packed_layout(x, *others[i])) return p;
  const int64_t count = x.element_count();
  if (C <= 1) cs = count;
  bool aligned = true;
  for (int i = 0; i <= n; ++i)
    if (!aligned16(ptrs[i])) aligned = false;
  const int v = aligned && count % vmax == 0 ? vmax : 1;
  p.v = v;
  p.nvec = count / v;
  if (cs == 1 && C % v == 0) {
    p.map.mode = 0;
    p.map.c2 = C / v;
    p.map.d2 = Divider(C / v, p.nvec);
    p.map.fixed = kBlock % (C / v) == 0;  // the grid-stride step (blocks * kBlock) is a multiple of C / V
  } else if (cs % v == 0) {
    p.map.mode = 1;
    p.map.c2 = C;
    p.map.d1 = Divider(cs / v, p.nvec);
    p.map.d2 = Divider(C, p.nvec);
  } else {
    p.map.mode = 2;
    p.map.c2 = C;
    p.map.d1 = Divider(cs, count);
    p.map.d2 = Divider(C, count);
  }
  p.ok = true;
  return p;
}

// Inference coefficients computed where they are used (no finalize launch): the scale, bias, mean and variance
// arrays indexed by channel (packed 1xCx1x1 parameters, 16-byte aligned), with apply_fwd<S, V, true>.
template <class C>
struct InferCoef {
  const C* scale = nullptr;
  const C* bias = nullptr;
  const C* mean = nullptr;
  const C* var = nullptr;
  C eps = 0;
};

// y = relu?(A x + B [+ z]) blended; mask (training with an activation): bit e set where the pre-activation of
// the element at offset e was positive. Loop bounds are warp-uniform (the mask writes are warp-collective).
template <class S, int V, bool kInline>
__global__ void __launch_bounds__(kBlock) apply_fwd(int64_t nvec, ChanMap cm, int64_t s, const S* x, const S* z, S* y,
                                                    const Comp<S>* coef, InferCoef<Comp<S>> ic, bool relu,
                                                    bool keep_nan, uint8_t* mask, double alpha, double beta) {
  using C = Comp<S>;
  pdl_wait();  // launched after the finalize as its programmatic dependent (FREEDNN_BN_PDL): coef, y
  alignas(16) C a[V];
  alignas(16) C b[V];
  auto coefs = [&](int64_t i) {
    int64_t ch[V];
    chans<V>(cm, i, ch);
    if constexpr (kInline) {  // as finalize_stat's inference coefficients
      alignas(16) C me[V];
      alignas(16) C va[V];
      coef_load<C, V>(ic.scale, cm.mode, ch, a);
      coef_load<C, V>(ic.bias, cm.mode, ch, b);
      coef_load<C, V>(ic.mean, cm.mode, ch, me);
      coef_load<C, V>(ic.var, cm.mode, ch, va);
#pragma unroll
      for (int k = 0; k < V; ++k) bn_fwd_coefs(a[k], b[k], me[k], bn_inv_std(va[k], ic.eps), &a[k], &b[k]);
    } else {
      coef_load<C, V>(coef, cm.mode, ch, a);
      coef_load<C, V>(coef + s, cm.mode, ch, b);
    }
  };
  // One vector: the loads (x, z), then y and the mask bits of its V elements.
  auto load = [&](int64_t i, C* v, C* zz) {
    load_vec<S, V>(x + i * V, v);
    if (z != nullptr) load_vec<S, V>(z + i * V, zz);
  };
  auto finish = [&](int64_t i, C* v, const C* zz) {
    unsigned bits = 0;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      bool pos;
      v[k] = bn_fwd_value(a[k], b[k], v[k], z != nullptr, z != nullptr ? zz[k] : C(0), relu, keep_nan, &pos);
      if (pos) bits |= 1u << k;
    }
    bn_store<S, V>(y + i * V, v, alpha, beta);
    return bits;
  };
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t first = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  const int lane = threadIdx.x & 31;
  if (cm.fixed && first < nvec) coefs(first);  // threads past the end have nothing to load
  for (int64_t i = first; i - lane < nvec; i += stride) {
    const bool valid = i < nvec;
    unsigned bits = 0;
    if (valid) {
      if (!cm.fixed) coefs(i);
      C v[V], zz[V];
      load(i, v, zz);
      bits = finish(i, v, zz);
    }
    if (mask != nullptr) put_mask_bits<V>(mask, i * V, bits, valid);
  }
}

// dy' = dy masked by the ReLU bits (mask: bit e for the element at offset e); dz = blend(dy'); dx from dy', x and
// the coefficients of finalize_kernel.
template <class S, int V>
__global__ void __launch_bounds__(kBlock) apply_bwd(int64_t nvec, ChanMap cm, int64_t s, const S* x, const S* dy, S* dx,
                                                    S* dz, const uint8_t* mask, const Comp<S>* coef, double alpha,
                                                    double beta) {
  using C = Comp<S>;
  pdl_wait();  // as apply_fwd
  alignas(16) C A[V];
  alignas(16) C M[V];
  alignas(16) C Dm[V];
  alignas(16) C Dx[V];
  alignas(16) C I[V];
  auto coefs = [&](int64_t i) {
    int64_t ch[V];
    chans<V>(cm, i, ch);
    coef_load<C, V>(coef, cm.mode, ch, A);
    coef_load<C, V>(coef + s, cm.mode, ch, M);
    coef_load<C, V>(coef + 2 * s, cm.mode, ch, Dm);
    coef_load<C, V>(coef + 3 * s, cm.mode, ch, Dx);
    coef_load<C, V>(coef + 4 * s, cm.mode, ch, I);
  };
  // One vector: the loads (x, dy, the mask bits), then dy' = masked dy, dz, dx.
  auto load = [&](int64_t i, C* xv, C* d, unsigned* bits) {
    load_vec<S, V>(x + i * V, xv);
    load_vec<S, V>(dy + i * V, d);
    *bits = mask != nullptr ? mask_bits<V>(mask, i * V) : 0u;
  };
  auto finish = [&](int64_t i, C* xv, C* d, unsigned bits) {
    if (mask != nullptr) {
#pragma unroll
      for (int k = 0; k < V; ++k)
        if (!((bits >> k) & 1u)) d[k] = C(0);
      if (dz != nullptr) bn_store<S, V>(dz + i * V, d, alpha, beta);
    }
#pragma unroll
    for (int k = 0; k < V; ++k) xv[k] = bn_bwd_value(A[k], M[k], Dm[k], Dx[k], I[k], xv[k], d[k]);
    bn_store<S, V>(dx + i * V, xv, alpha, beta);
  };
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t first = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if constexpr (V > 1) {
    if (cm.fixed) {
      // The coefficients stay in registers (5 x V of them: 90 registers for 16-bit V = 8, 2 blocks of 256 per SM),
      // so each thread keeps two vectors of x and dy in flight (i and i + stride share the channels) to cover the
      // memory latency that the low occupancy leaves uncovered (102 registers then, still 2 blocks; f32 V = 4:
      // 52 -> 62, 4 blocks). The scalar V = 1 kernels keep one vector: there it would cost occupancy.
      if (first < nvec) coefs(first);  // threads past the end have nothing to load
      for (int64_t i = first; i < nvec; i += 2 * stride) {
        const int64_t j = i + stride;
        C xa[V], da[V], xb[V], db[V];
        unsigned ba = 0, bb = 0;
        load(i, xa, da, &ba);
        if (j < nvec) load(j, xb, db, &bb);
        finish(i, xa, da, ba);
        if (j < nvec) finish(j, xb, db, bb);
      }
      return;
    }
  }
  if (cm.fixed && first < nvec) coefs(first);
  for (int64_t i = first; i < nvec; i += stride) {
    if (!cm.fixed) coefs(i);
    C xv[V], d[V];
    unsigned bits = 0;
    load(i, xv, d, &bits);
    finish(i, xv, d, bits);
  }
}

// Pass 1 over contiguous channel planes: element j of plane (n, k) at n * sn + k * sk + j (units of S; sn, sk
// and inner multiples of V). Block (k, split) sums the vectors [lo, hi) of channel k's N * inner / V. Backward
// with a mask: the bit of element (n, k, j) is n * msn + k * msk + j.
template <class S, int V, bool bwd>
__global__ void __launch_bounds__(kBlock) stats_planes(int64_t inner_v, int64_t m_v, int64_t s, int64_t xsn,
                                                       int64_t xsk, const S* x, int64_t dsn, int64_t dsk, const S* dy,
                                                       const uint8_t* mask, int64_t msn, int64_t msk, TensorView mv,
                                                       const Comp<S>* shift, int64_t per_split, Comp<S>* partial) {
  using C = Comp<S>;
  constexpr int kU = 4;
  __shared__ C red[32];
  pdl_allow_dependents();  // as stats_rows_w
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  const int64_t k = blockIdx.x, splits = gridDim.y, split = blockIdx.y;
  const S* xk = x + k * xsk;
  const S* dk = bwd ? dy + k * dsk : nullptr;
  const C K = shift != nullptr ? shift[mv.offset(k)] : Storage<S>::load(xk, 0);
  const int64_t lo = split * per_split;
  const int64_t hi = lo + per_split < m_v ? lo + per_split : m_v;
  const int64_t step = kBlock, step_n = step / inner_v, step_j = step - step_n * inner_v;
  int64_t e = lo + threadIdx.x;
  int64_t n = e / inner_v, j = e - n * inner_v;
  C q0 = 0, q1 = 0, q2 = 0, q3 = 0;
  for (; e < hi; e += kU * step) {
    RawT<S, V> xv[kU], dv[kU];
    unsigned mb[kU];
    bool ok[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      ok[u] = e + u * step < hi;
      mb[u] = ~0u;
      if (ok[u]) {
        xv[u] = raw_load<S, V>(xk + n * xsn + j * V);
        if (bwd) {
          dv[u] = raw_load<S, V>(dk + n * dsn + j * V);
          if (mask != nullptr) mb[u] = mask_bits<V>(mask, n * msn + k * msk + j * V);
        }
      }
      n += step_n;
      j += step_j;
      if (j >= inner_v) {
        j -= inner_v;
        ++n;
      }
    }
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      if (!ok[u]) continue;
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
  q0 = block_reduce(q0, red, add, C(0));
  q1 = block_reduce(q1, red, add, C(0));
  if (bwd) {
    q2 = block_reduce(q2, red, add, C(0));
    q3 = block_reduce(q3, red, add, C(0));
  }
  if (threadIdx.x == 0) {
    partial[(0 * splits + split) * s + k] = q0;
    partial[(1 * splits + split) * s + k] = q1;
    if (bwd) {
      partial[(2 * splits + split) * s + k] = q2;
      partial[(3 * splits + split) * s + k] = q3;
    }
  }
}

// Whether pass 1 can read d as contiguous planes of `inner` elements with V-element vectors.
bool planes_ok(const cudnnTensorStruct& d, const BnMap& m, int64_t inner, const void* p, int v) {
  if (d.vect() != 1 || m.in.innermost_stride() != 1 || m.in.nd != 1) return false;
  if (v == 1) return true;
  return aligned16(p) && inner % v == 0 && (d.dims[0] == 1 || m.sn % v == 0) &&
         m.stat.strides[0] % v == 0;
}

}  // namespace
}  // namespace fd::cuda
