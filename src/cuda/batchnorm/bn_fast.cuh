// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batch normalization fast paths (included by batchnorm.cu only), per-channel statistics:
//   stats_planes  pass 1 when each channel's elements are contiguous planes (NCHW-like: n * sn + k * sk + j),
//                 V elements per 16-byte load, four loads in flight per thread;
//   apply_fwd / apply_bwd  pass 2 (and inference's single pass) when x, y (dy, dx) share one packed layout:
//                 a plain walk over memory with 16-byte accesses, the channel of an element from its offset
//                 (NHWC: offset % C, V consecutive channels per vector; NCHW: (offset / HW) % C, one channel
//                 per vector when HW % V == 0, else per element). No ReLU mask (that needs the logical element order): the generic kernels do it.
// Same arithmetic and partial-sum layout as the generic kernels, so finalize_kernel serves both.
#pragma once

namespace fd::cuda {
namespace {

template <class S, int V>
__device__ __forceinline__ void bn_load(const S* p, Comp<S>* v) {
  if constexpr (V == 1) {
    v[0] = Storage<S>::load(p, 0);
  } else {
    static_assert(V * sizeof(S) == 16, "16-byte vectors");
    alignas(16) S a[V];
    *reinterpret_cast<uint4*>(a) = *reinterpret_cast<const uint4*>(p);
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = Storage<S>::load(a, k);
  }
}

template <class S, int V>
__device__ __forceinline__ void bn_store(S* p, const Comp<S>* v, double alpha, double beta) {
  using C = Comp<S>;
  C r[V];
#pragma unroll
  for (int k = 0; k < V; ++k) r[k] = alpha == 1.0 ? v[k] : static_cast<C>(alpha) * v[k];
  if (beta != 0.0) {
    C old[V];
    bn_load<S, V>(p, old);
#pragma unroll
    for (int k = 0; k < V; ++k) r[k] += static_cast<C>(beta) * old[k];
  }
  if constexpr (V == 1) {
    Storage<S>::store(p, 0, r[0]);
  } else {
    alignas(16) S a[V];
#pragma unroll
    for (int k = 0; k < V; ++k) Storage<S>::store(a, k, r[k]);
    *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(a);
  }
}

// Channels of the V elements of vector i (elements i*V ..) of a packed tensor whose channel stride is cs:
//   mode 0, NHWC-like (cs == 1, C % V == 0): V consecutive channels from (i % (C/V)) * V;
//   mode 1, cs % V == 0: one channel (i / (cs/V)) % C for the whole vector;
//   mode 2, otherwise: each element's own channel ((i*V + k) / cs) % C.
struct ChanMap {
  int mode = 1;
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

// Fast elementwise plan: the n tensors `others` (null: absent) share x's packed layout; ptrs: their n data
// pointers then x's. V and the channel map.
struct EwPlan {
  bool ok = false;
  int v = 1;
  int64_t nvec = 0;
  ChanMap map;
};

EwPlan plan_ew(const cudnnTensorStruct& x, const cudnnTensorStruct* const* others, const void* const* ptrs, int n,
               int vmax) {
  EwPlan p;
  if (!x.is_packed() || x.vect() != 1) return p;
  for (int i = 0; i < n; ++i)
    if (others[i] != nullptr && !same_packed_layout(x, *others[i])) return p;
  const int64_t count = x.element_count();
  const int64_t C = x.dims[1], cs = C > 1 ? x.strides[1] : count;
  bool aligned = true;
  for (int i = 0; i <= n; ++i)
    if (ptrs[i] != nullptr && reinterpret_cast<uintptr_t>(ptrs[i]) % 16 != 0) aligned = false;
  const int v = aligned && count % vmax == 0 ? vmax : 1;
  p.v = v;
  p.nvec = count / v;
  if (cs == 1 && C % v == 0) {
    p.map.mode = 0;
    p.map.c2 = C / v;
    p.map.d2 = Divider(C / v, p.nvec);
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

template <class S, int V>
__global__ void __launch_bounds__(kBlock) apply_fwd(int64_t nvec, ChanMap cm, int64_t s, const S* x, const S* z, S* y,
                                                    const Comp<S>* coef, bool relu, bool keep_nan, double alpha,
                                                    double beta) {
  using C = Comp<S>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < nvec; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t ch[V];
    chans<V>(cm, i, ch);
    alignas(16) C a[V];
    alignas(16) C b[V];
    C v[V];
    bn_load<S, V>(x + i * V, v);
    coef_load<C, V>(coef, cm.mode, ch, a);
    coef_load<C, V>(coef + s, cm.mode, ch, b);
    C zz[V];
    if (z != nullptr) bn_load<S, V>(z + i * V, zz);
#pragma unroll
    for (int k = 0; k < V; ++k) {
      C r = a[k] * v[k] + b[k];
      if (z != nullptr) r += zz[k];
      if (relu && !(r > C(0)) && !(keep_nan && isnan(r))) r = C(0);
      v[k] = r;
    }
    bn_store<S, V>(y + i * V, v, alpha, beta);
  }
}

template <class S, int V>
__global__ void __launch_bounds__(kBlock) apply_bwd(int64_t nvec, ChanMap cm, int64_t s, const S* x, const S* dy, S* dx,
                                                    const Comp<S>* coef, double alpha, double beta) {
  using C = Comp<S>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < nvec; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t ch[V];
    chans<V>(cm, i, ch);
    C xv[V], d[V];
    alignas(16) C A[V];
    alignas(16) C M[V];
    alignas(16) C Dm[V];
    alignas(16) C Dx[V];
    alignas(16) C I[V];
    bn_load<S, V>(x + i * V, xv);
    bn_load<S, V>(dy + i * V, d);
    coef_load<C, V>(coef, cm.mode, ch, A);
    coef_load<C, V>(coef + s, cm.mode, ch, M);
    coef_load<C, V>(coef + 2 * s, cm.mode, ch, Dm);
    coef_load<C, V>(coef + 3 * s, cm.mode, ch, Dx);
    coef_load<C, V>(coef + 4 * s, cm.mode, ch, I);
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const C xhat = (xv[k] - M[k]) * I[k];
      xv[k] = A[k] * (d[k] - Dm[k] - xhat * Dx[k]);
    }
    bn_store<S, V>(dx + i * V, xv, alpha, beta);
  }
}

// Pass 1 over contiguous channel planes: element j of plane (n, k) at n * sn + k * sk + j (units of S; sn, sk
// and inner multiples of V). Block (k, split) sums the vectors [lo, hi) of channel k's N * inner / V.
template <class S, int V>
__global__ void __launch_bounds__(kBlock) stats_planes(int64_t inner_v, int64_t m_v, int64_t s, int64_t xsn,
                                                       int64_t xsk, const S* x, int64_t dsn, int64_t dsk, const S* dy,
                                                       TensorView mv, const Comp<S>* shift, bool bwd,
                                                       int64_t per_split, Comp<S>* partial) {
  using C = Comp<S>;
  constexpr int kU = 4;
  __shared__ C red[32];
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
    C xv[kU][V], dv[kU][V];
    bool ok[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      ok[u] = e + u * step < hi;
      if (ok[u]) {
        bn_load<S, V>(xk + n * xsn + j * V, xv[u]);
        if (bwd) bn_load<S, V>(dk + n * dsn + j * V, dv[u]);
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
        const C v = xv[u][t] - K;
        q0 += v;
        q1 += v * v;
        if (bwd) {
          q2 += dv[u][t];
          q3 += dv[u][t] * v;
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
  return reinterpret_cast<uintptr_t>(p) % 16 == 0 && inner % v == 0 && (d.dims[0] == 1 || m.sn % v == 0) &&
         m.stat.strides[0] % v == 0;
}

}  // namespace
}  // namespace fd::cuda
