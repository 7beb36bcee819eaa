// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batch normalization kernels. Data is viewed, as on the CPU, as N x S x inner: S statistics (channels, or
// C*spatial per activation) each reducing over N batch items and `inner` elements.
//   training forward: stats (pass 1 over x: per block shifted sums) -> finalize (per statistic) -> apply (pass 2)
//   backward:         stats (pass 1 over x, dy)                       -> finalize                -> apply (pass 2)
//   inference:        finalize (coefficients from the estimates)       -> apply (one pass); FREEDNN_BN_INFER=2|4:
//                     one lean kernel (bn_infer.cuh)
// Training and backward in one kernel where the shape allows: a block per channel (bn_channel.cuh, NCHW with many
// channels), a cluster per channel group with x kept on chip (bn_cluster.cuh, small channels-last tensors), or the
// cooperative kernel (bn_coop.cuh, opt-in). docs/developing.md says which call takes which.
// Shifted sums: each statistic k subtracts a shift K_k (x[0,k,0], or the saved mean in backward) before
// summing, so that var = (S2 - S1^2/m)/m does not cancel catastrophically.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/api_context.h"
#include "core/env.h"
#include "core/handle.h"
#include "core/log.h"
#include "cuda/batchnorm/batchnorm.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/index.cuh"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "core/dtype.h"
#include "cuda/common/dyn_tensor.cuh"

namespace fd::cuda {
namespace {

constexpr int kBlock = 256;
constexpr int kColsX = 32;  // "cols" reduction: 32 statistics per block, kBlock / 32 rows at a time

// Offsets of element (n, k, j) of one tensor.
struct BnMap {
  int64_t sn = 0;
  DimGroup stat, in;
  __device__ __forceinline__ int64_t off(int64_t n, int64_t k, int64_t j) const {
    return n * sn + stat.offset(k) + in.offset(j);
  }
};

BnMap make_map(const cudnnTensorStruct& d, bool per_act) {
  BnMap m;
  m.sn = d.strides[0];
  const int nd = d.nb_dims;
  if (per_act) {
    m.stat = DimGroup::make(d.dims + 1, d.strides + 1, nd - 1);
    m.in = DimGroup::make(d.dims, d.strides, 0);
  } else {
    m.stat = DimGroup::make(d.dims + 1, d.strides + 1, 1);
    m.in = DimGroup::make(d.dims + 2, d.strides + 2, nd - 2);
  }
  return m;
}

struct Geo {
  int64_t n = 0, s = 0, inner = 0, m = 0, count = 0;
  Divider inner_div;  // for e in [0, m) -> (n, j), and r in [0, s*inner) -> (k, j)
  Divider per_n_div;  // i in [0, count) -> n
};

Geo make_geo(const NormCall& c) {
  Geo g;
  g.n = c.x_desc->dims[0];
  g.s = c.stat_count();
  g.inner = c.inner_count();
  g.m = c.reduce_count();
  g.count = c.x_desc->element_count();
  g.inner_div = Divider(g.inner, g.m > g.s * g.inner ? g.m : g.s * g.inner);
  g.per_n_div = Divider(g.s * g.inner, g.count);
  return g;
}

__device__ __forceinline__ bool mask_bit(const uint32_t* mask, int64_t i) { return (mask[i >> 5] >> (i & 31)) & 1u; }

// The arithmetic every batch norm kernel shares. nvcc contracts a product into a later add of the same basic block,
// and what shares a block depends on the kernel the code is inlined into (unrolling, a branch on alpha == 1
// duplicated or not): one expression could round one way in bn_coop and another in the three-kernel path. So
// wherever a product meets an add the rounding is spelled out: mul_rn / add_rn (the __f*_rn / __d*_rn intrinsics,
// never contracted) or fma_rn (one rounding wherever it is inlined).
template <class C>
__device__ __forceinline__ C mul_rn(C a, C b) {
  if constexpr (std::is_same_v<C, double>) return __dmul_rn(a, b);
  else return __fmul_rn(a, b);
}
template <class C>
__device__ __forceinline__ C add_rn(C a, C b) {
  if constexpr (std::is_same_v<C, double>) return __dadd_rn(a, b);
  else return __fadd_rn(a, b);
}
template <class C>
__device__ __forceinline__ C fma_rn(C a, C b, C c) {
  if constexpr (std::is_same_v<C, double>) return __fma_rn(a, b, c);
  else return __fmaf_rn(a, b, c);
}

// 1 / sqrt(var + eps): training, inference, apply_fwd's inline coefficients. The division and the square root are
// IEEE (nvcc's default -prec-div / -prec-sqrt): correctly rounded, so the same bits in every kernel.
template <class C>
__device__ __forceinline__ C bn_inv_std(C var, C eps) {
  return C(1) / sqrt(add_rn(var, eps));
}

// Forward coefficients: y = A x + B with A = scale * inv, B = bias - A * mean.
template <class C>
__device__ __forceinline__ void bn_fwd_coefs(C scale, C bias, C mean, C inv, C* A, C* B) {
  const C a = mul_rn(scale, inv);
  *A = a;
  *B = fma_rn(-a, mean, bias);
}

// The forward output of one element before the blend: A x + B (+ z), then the ReLU; pos: its mask bit.
template <class C>
__device__ __forceinline__ C bn_fwd_value(C A, C B, C x, bool has_z, C z, bool relu, bool keep_nan, bool* pos) {
  C r = fma_rn(A, x, B);
  if (has_z) r += z;
  *pos = false;
  if (relu) {
    *pos = r > C(0);
    if (!*pos && !(keep_nan && isnan(r))) r = C(0);
  }
  return r;
}

// dx of one element before the blend, from the backward coefficients (finalize_stat) and the masked dy' = d:
// A (d - Dm - (x - M) I Dx).
template <class C>
__device__ __forceinline__ C bn_bwd_value(C A, C M, C Dm, C Dx, C I, C x, C d) {
  const C xhat = (x - M) * I;
  return mul_rn(A, fma_rn(-xhat, Dx, d - Dm));
}

// alpha * v + beta * p[k] stored at p for V elements (p read only when beta != 0): alpha * v rounded, then one fma;
// every batch norm output but the parameter gradients (blend_store) goes through it.
template <class S, int V>
__device__ __forceinline__ void bn_store(S* p, const Comp<S>* v, double alpha, double beta) {
  using C = Comp<S>;
  C r[V];
#pragma unroll
  for (int k = 0; k < V; ++k) r[k] = alpha == 1.0 ? v[k] : mul_rn(static_cast<C>(alpha), v[k]);
  if (beta != 0.0) {
    C old[V];
    load_vec<S, V>(p, old);
#pragma unroll
    for (int k = 0; k < V; ++k) r[k] = fma_rn(static_cast<C>(beta), old[k], r[k]);
  }
  store_vec<S, V>(p, r);
}

// Pass 1: per block of (statistics, split of the m reduced elements), the shifted sums
//   q0 = sum(x - K), q1 = sum((x - K)^2) and, backward, q2 = sum(dy'), q3 = sum(dy' * (x - K)),
// dy' = dy masked by the ReLU. partial[(q * splits + split) * s + k].
template <class S>
__global__ void __launch_bounds__(kBlock) stats_kernel(Geo g, BnMap xm, const S* x, BnMap dym, const S* dy,
                                                       const uint32_t* mask, bool mask_by_offset, TensorView mv,
                                                       const Comp<S>* shift, bool bwd, bool cols, int64_t per_split,
                                                       Comp<S>* partial) {
  using C = Comp<S>;
  __shared__ C sh[4][kBlock];
  pdl_allow_dependents();  // as stats_rows_w
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  const int tid = threadIdx.x;
  const int64_t splits = gridDim.y, split = blockIdx.y;
  int64_t k, e, step;
  if (cols) {
    k = int64_t(blockIdx.x) * kColsX + (tid % kColsX);
    e = tid / kColsX;
    step = kBlock / kColsX;
  } else {
    k = blockIdx.x;
    e = tid;
    step = kBlock;
  }
  const int64_t lo = split * per_split;
  const int64_t hi = lo + per_split < g.m ? lo + per_split : g.m;
  C q0 = 0, q1 = 0, q2 = 0, q3 = 0;
  if (k < g.s) {
    const C K = shift != nullptr ? shift[mv.offset(k)] : Storage<S>::load(x, xm.off(0, k, 0));
    const int64_t xs = xm.stat.offset(k), dys = bwd ? dym.stat.offset(k) : 0;
    e += lo;
    const int64_t step_n = step / g.inner, step_j = step - step_n * g.inner;
    int64_t n = g.inner_div.div(e), j = e - n * g.inner;
    for (; e < hi; e += step) {
      const int64_t xo = n * xm.sn + xs + xm.in.offset(j);
      const C v = Storage<S>::load(x, xo) - K;
      q0 += v;
      q1 += v * v;
      if (bwd) {
        C d = Storage<S>::load(dy, n * dym.sn + dys + dym.in.offset(j));
        if (mask != nullptr && !mask_bit(mask, mask_by_offset ? xo : (n * g.s + k) * g.inner + j)) d = C(0);
        q2 += d;
        q3 += d * v;
      }
      n += step_n;
      j += step_j;
      if (j >= g.inner) {
        j -= g.inner;
        ++n;
      }
    }
  }
  sh[0][tid] = q0;
  sh[1][tid] = q1;
  sh[2][tid] = q2;
  sh[3][tid] = q3;
  __syncthreads();
  const int nq = bwd ? 4 : 2;
  if (cols) {
    if (tid < kColsX && k < g.s) {
      for (int q = 0; q < nq; ++q) {
        C t = 0;
        for (int r = 0; r < kBlock / kColsX; ++r) t += sh[q][r * kColsX + tid];
        partial[(q * splits + split) * g.s + k] = t;
      }
    }
    return;
  }
  for (int w = kBlock / 2; w > 0; w >>= 1) {
    if (tid < w)
      for (int q = 0; q < nq; ++q) sh[q][tid] += sh[q][tid + w];
    __syncthreads();
  }
  if (tid == 0)
    for (int q = 0; q < nq; ++q) partial[(q * splits + split) * g.s + k] = sh[q][0];
}

template <class C>
struct FinalArgs {
  int dir = 0;  // 0 inference, 1 training, 2 backward
  TensorView sb, mv;
  const C* scale = nullptr;
  const C* bias = nullptr;
  const C* est_mean = nullptr;
  const C* est_var = nullptr;
  C* running_mean = nullptr;
  C* running_var = nullptr;
  C* save_mean = nullptr;
  C* save_inv = nullptr;
  const C* saved_mean = nullptr;
  const C* saved_inv = nullptr;
  C* dscale = nullptr;
  C* dbias = nullptr;
  double eps = 0, factor = 0, alpha_param = 1, beta_param = 0;
};

// bn_store for the parameter gradients (compute-type arrays).
template <class C>
__device__ __forceinline__ void blend_store(C* p, int64_t off, C v, double alpha, double beta) {
  C r = alpha == 1.0 ? v : mul_rn(C(alpha), v);
  if (beta != 0.0) r = fma_rn(C(beta), p[off], r);
  p[off] = r;
}

// The statistics outputs of statistic k and the coefficients of its apply pass, from its shifted sums q (unused
// for inference), written to co[0], co[cs], ... co[4 * cs]:
//   forward: A = scale * inv, B = bias - A * mean                    (y = A x + B)
//   backward: A = scale * inv, B = mean, C = mean(dy'), D = mean(dy' xhat), E = inv
// kbuf (bn_coop.cuh, bn_cluster.cuh): the shifts x[0,k,0] saved by pass 1 (x may be overwritten by then), of
// statistics kbase on; outputs = false: the coefficients only (another block writes the statistics outputs).
template <class S>
__device__ __forceinline__ void finalize_stat(const FinalArgs<Comp<S>>& a, const Geo& g, const BnMap& xm, const S* x,
                                              int64_t k, const Comp<S>* q, Comp<S>* co, int64_t cs,
                                              const Comp<S>* kbuf = nullptr, bool outputs = true,
                                              int64_t kbase = 0) {
  using C = Comp<S>;
  auto shift0 = [&]() { return kbuf != nullptr ? kbuf[k - kbase] : Storage<S>::load(x, xm.off(0, k, 0)); };
  const int64_t po = a.sb.offset(k), mo = a.mv.offset(k);
  const C rm = C(1) / static_cast<C>(g.m);
  C mean, var, inv;
  if (a.dir == 0) {
    mean = a.est_mean[mo];
    var = a.est_var[mo];
    inv = bn_inv_std(var, static_cast<C>(a.eps));
  } else if (a.dir == 2 && a.saved_mean != nullptr) {
    mean = a.saved_mean[mo];
    inv = a.saved_inv[mo];
    var = 0;
  } else {
    const C K = shift0();
    const C d = mul_rn(q[0], rm);  // mean - K
    mean = add_rn(K, d);
    var = mul_rn(fma_rn(-q[0], d, q[1]), rm);
    if (var < C(0)) var = C(0);
    inv = bn_inv_std(var, static_cast<C>(a.eps));
  }
  const C sc = a.scale[po];
  if (a.dir == 2) {
    // shift K of pass 1: the saved mean, or x[0,k,0]
    const C K = a.saved_mean != nullptr ? mean : shift0();
    const C sdy = q[2];
    const C sdyx = fma_rn(K - mean, q[2], q[3]);  // sum dy' (x - mean)
    const C ds = mul_rn(sdyx, inv);
    co[0] = mul_rn(sc, inv);
    co[cs] = mean;
    co[2 * cs] = mul_rn(sdy, rm);
    co[3 * cs] = mul_rn(ds, rm);
    co[4 * cs] = inv;
    if (!outputs) return;
    blend_store(a.dscale, po, ds, a.alpha_param, a.beta_param);
    blend_store(a.dbias, po, sdy, a.alpha_param, a.beta_param);
    return;
  }
  bn_fwd_coefs(sc, a.bias[po], mean, inv, co, co + cs);
  if (a.dir != 1 || !outputs) return;
  if (a.save_mean != nullptr) {
    a.save_mean[mo] = mean;
    a.save_inv[mo] = inv;
  }
  if (a.running_mean != nullptr) {
    const C unbias = g.m > 1 ? static_cast<C>(g.m) / static_cast<C>(g.m - 1) : C(1);
    const C uv = mul_rn(var, unbias);
    if (a.factor == 1.0) {
      a.running_mean[mo] = mean;
      a.running_var[mo] = uv;
    } else {
      const C f = static_cast<C>(a.factor);
      a.running_mean[mo] = fma_rn(f, mean, mul_rn(C(1) - f, a.running_mean[mo]));
      a.running_var[mo] = fma_rn(f, uv, mul_rn(C(1) - f, a.running_var[mo]));
    }
  }
}

// Pulls into L1 what finalize_stat(k, ..., outputs) reads from global memory, for a kernel that can ask before the
// barrier its finalize waits on (bn_cluster): after the barrier those reads then hit L1, not a round trip to L2.
template <class C>
__device__ __forceinline__ void prefetch_stat_inputs(const FinalArgs<C>& a, int64_t k, bool outputs) {
  const int64_t po = a.sb.offset(k), mo = a.mv.offset(k);
  prefetch_l1(a.scale + po);
  if (a.dir == 1) {
    prefetch_l1(a.bias + po);
    if (outputs && a.running_mean != nullptr && a.factor != 1.0) {
      prefetch_l1(a.running_mean + mo);
      prefetch_l1(a.running_var + mo);
    }
  } else if (a.dir == 2) {
    if (a.saved_mean != nullptr) {
      prefetch_l1(a.saved_mean + mo);
      prefetch_l1(a.saved_inv + mo);
    }
    if (outputs && a.beta_param != 0.0) {
      prefetch_l1(a.dscale + po);
      prefetch_l1(a.dbias + po);
    }
  }
}

// Lane `lane`'s share of the n split_inner partials at p: p[lane], p[lane + 32], ... in order (then warp_sum).
template <class C>
__device__ __forceinline__ C lane_sum(const C* p, int64_t n, int lane) {
  C t = C(0);
#pragma unroll 8
  for (int64_t sp = lane; sp < n; sp += 32) t += p[sp];
  return t;
}

// lane_sum and warp_sum in one thread: the same additions in the same order (warp_sum's butterfly is a balanced
// tree whose every lane ends with the same value), so that a thread reproduces the warp's sum bit for bit. n <= 64.
template <class C>
__device__ __forceinline__ C thread_sum64(const C* p, int64_t n) {
  C t[32];
#pragma unroll
  for (int l = 0; l < 32; ++l) {
    t[l] = C(0);
    if (l < n) t[l] += p[l];
    if (l + 32 < n) t[l] += p[l + 32];
  }
  // the butterfly's levels 16, 8, 4, 2, 1 (written out: constant indices keep t in registers)
#pragma unroll
  for (int l = 0; l < 16; ++l) t[l] += t[l + 16];
#pragma unroll
  for (int l = 0; l < 8; ++l) t[l] += t[l + 8];
#pragma unroll
  for (int l = 0; l < 4; ++l) t[l] += t[l + 4];
  t[0] += t[2];
  t[1] += t[3];
  return t[0] + t[1];
}

// One warp per statistic: lane l adds splits l, l + 32, ... in order, then a fixed shuffle tree; lane 0 finishes
// (finalize_stat), writing coef[q * s + k].
// Partial sums of statistic k: partial[(q * splits + sp) * ps + k * fold + j], j < fold (fold > 1: per-column
// sums of NCHW planes), added in (sp, j) order per lane; split_inner: partial[(q * s + k) * splits + sp] (the
// splits of a statistic contiguous: coalesced reads).
template <class S>
__global__ void finalize_kernel(FinalArgs<Comp<S>> a, Geo g, BnMap xm, const S* x, int64_t splits, int64_t ps,
                                int64_t fold, bool split_inner, const Comp<S>* partial, Comp<S>* coef) {
  using C = Comp<S>;
  pdl_wait();  // the partial sums of the stats kernel before it (FREEDNN_BN_PDL)
  pdl_allow_dependents();
  const int lane = threadIdx.x & 31;
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x >> 5);
  for (int64_t k = blockIdx.x * int64_t(blockDim.x >> 5) + (threadIdx.x >> 5); k < g.s; k += warps) {
    C q[4] = {0, 0, 0, 0};
    if (a.dir != 0) {
      const int nq = a.dir == 2 ? 4 : 2;
      for (int i = 0; i < nq; ++i) {
        C t = C(0);
        if (split_inner) {
          t = lane_sum(partial + (i * g.s + k) * splits, splits, lane);
        } else if (fold == 1) {
          for (int64_t sp = lane; sp < splits; sp += 32) t += partial[(i * splits + sp) * ps + k];
        } else {
          for (int64_t e = lane; e < splits * fold; e += 32) {
            const int64_t sp = e / fold;
            t += partial[(i * splits + sp) * ps + k * fold + (e - sp * fold)];
          }
        }
        q[i] = warp_sum(t);
      }
    }
    if (lane == 0) finalize_stat<S>(a, g, xm, x, k, q, coef + k, g.s);
  }
}

// finalize_kernel for partial sums laid out split_inner with many splits (stats_rows_w over few channels: 500+):
// a block per statistic, thread t adds splits t, t + kBlock, ... in order, then a fixed-order block reduction;
// thread 0 finishes. A warp per statistic would walk 16+ dependent loads per lane. wide_stat: statistic k (every
// thread of the block calls it; red: 32 values of shared memory), also run by bn_coop.cuh.
template <class S>
__device__ __forceinline__ void wide_stat(const FinalArgs<Comp<S>>& a, const Geo& g, const BnMap& xm, const S* x,
                                          int64_t splits, const Comp<S>* partial, int64_t k, Comp<S>* red,
                                          Comp<S>* coef) {
  using C = Comp<S>;
  const int nq = a.dir == 2 ? 4 : 2;
  C t[4] = {0, 0, 0, 0};
  for (int64_t sp = threadIdx.x; sp < splits; sp += kBlock) {
#pragma unroll
    for (int i = 0; i < 4; ++i)
      if (i < nq) t[i] += partial[(i * g.s + k) * splits + sp];
  }
  C q[4];
  auto add = [](C u, C v) { return u + v; };
#pragma unroll
  for (int i = 0; i < 4; ++i) q[i] = i < nq ? block_reduce(t[i], red, add, C(0)) : C(0);
  if (threadIdx.x == 0) finalize_stat<S>(a, g, xm, x, k, q, coef + k, g.s);
}

template <class S>
__global__ void __launch_bounds__(kBlock) finalize_wide(FinalArgs<Comp<S>> a, Geo g, BnMap xm, const S* x,
                                                        int64_t splits, const Comp<S>* partial, Comp<S>* coef) {
  __shared__ Comp<S> red[32];
  pdl_wait();  // as finalize_kernel
  pdl_allow_dependents();
  wide_stat<S>(a, g, xm, x, splits, partial, blockIdx.x, red, coef);
}

// Writes the 32-bit mask word of the warp's 32 consecutive elements starting at `base` (lane 0), and the zero
// upper half of the last 64-bit word when the elements end in its lower half (as the CPU path writes it).
__device__ __forceinline__ void store_mask(uint32_t* mask, int64_t base, bool bit, int64_t count) {
  const unsigned bits = __ballot_sync(0xffffffffu, bit);
  if ((threadIdx.x & 31) == 0) {
    const int64_t w = base >> 5;
    mask[w] = bits;
    if ((w & 1) == 0 && base + 32 >= count) mask[w + 1] = 0u;
  }
}

struct ApplyMaps {
  BnMap x, z, y;  // forward: x, z, y; backward: x, dy (z slot), dx (y slot)
  BnMap dz;
};

// Pass 2, one thread per element in logical order (warps cover 32 consecutive elements, for the mask words).
template <class S>
__global__ void __launch_bounds__(kBlock) fwd_apply(Geo g, ApplyMaps mp, const S* x, const S* z, S* y,
                                                    const Comp<S>* coef, bool relu, bool keep_nan, uint32_t* mask,
                                                    bool mask_by_offset, double alpha, double beta) {
  using C = Comp<S>;
  pdl_wait();  // as apply_fwd
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; (i & ~int64_t(31)) < g.count; i += stride) {
    bool pos = false;
    if (i < g.count) {
      const int64_t n = g.per_n_div.div(i);
      const int64_t r = i - n * g.s * g.inner;
      const int64_t k = g.inner_div.div(r);
      const int64_t j = r - k * g.inner;
      const int64_t xo = mp.x.off(n, k, j);
      const C v = bn_fwd_value(coef[k], coef[g.s + k], Storage<S>::load(x, xo), z != nullptr,
                               z != nullptr ? Storage<S>::load(z, mp.z.off(n, k, j)) : C(0), relu, keep_nan, &pos);
      // mask bits at x's offsets (packed x): set with atomics into the zeroed mask. Only training writes a mask:
      // inference with a fused ReLU has pos set but no reserve space (mask == nullptr).
      if (mask != nullptr && mask_by_offset && pos) atomicOr(mask + (xo >> 5), 1u << (xo & 31));
      bn_store<S, 1>(y + mp.y.off(n, k, j), &v, alpha, beta);
    }
    if (mask != nullptr && !mask_by_offset) store_mask(mask, i & ~int64_t(31), pos, g.count);
  }
}

template <class S>
__global__ void __launch_bounds__(kBlock) bwd_apply(Geo g, ApplyMaps mp, const S* x, const S* dy, S* dx, S* dz,
                                                    const Comp<S>* coef, const uint32_t* mask, bool mask_by_offset,
                                                    double alpha, double beta) {
  using C = Comp<S>;
  pdl_wait();  // as apply_fwd
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < g.count; i += stride) {
    const int64_t n = g.per_n_div.div(i);
    const int64_t r = i - n * g.s * g.inner;
    const int64_t k = g.inner_div.div(r);
    const int64_t j = r - k * g.inner;
    C d = Storage<S>::load(dy, mp.z.off(n, k, j));
    if (mask != nullptr && !mask_bit(mask, mask_by_offset ? mp.x.off(n, k, j) : i)) d = C(0);
    if (dz != nullptr) bn_store<S, 1>(dz + mp.dz.off(n, k, j), &d, alpha, beta);
    const C v = bn_bwd_value(coef[k], coef[g.s + k], coef[2 * g.s + k], coef[3 * g.s + k], coef[4 * g.s + k],
                             Storage<S>::load(x, mp.x.off(n, k, j)), d);
    bn_store<S, 1>(dx + mp.y.off(n, k, j), &v, alpha, beta);
  }
}

// Launch shape of pass 1: "cols" when the statistics are the fastest-varying index in memory (NHWC, per
// activation), so that a warp reads 32 neighbouring statistics; "rows" (a block per statistic) otherwise.
struct StatsPlan {
  bool cols = false;
  int64_t blocks_k = 1, splits = 1, per_split = 1;
};

StatsPlan plan_stats(const Geo& g, const BnMap& xm, int device) {
  StatsPlan p;
  p.cols = !(g.inner > 1 && xm.in.innermost_stride() == 1);
  p.blocks_k = p.cols ? (g.s + kColsX - 1) / kColsX : g.s;
  const DeviceInfo& di = device_info(device);
  const int64_t target = int64_t(di.sm_count) * (di.max_threads_per_sm / kBlock) * 2;
  const int64_t min_chunk = p.cols ? (kBlock / kColsX) * 16 : kBlock * 8;
  int64_t splits = target / p.blocks_k;
  const int64_t by_size = (g.m + min_chunk - 1) / min_chunk;
  if (splits > by_size) splits = by_size;
  if (splits > 65535) splits = 65535;
  if (splits < 1) splits = 1;
  p.per_split = (g.m + splits - 1) / splits;
  p.splits = (g.m + p.per_split - 1) / p.per_split;
  return p;
}

// Whether a per-channel output (the saved or running statistics, dScale, dBias) is also a per-channel input that
// every block finalizing a channel reads (scale, bias, the saved statistics). The kernels where several blocks
// finalize the same channels and one of them writes the outputs (bn_coop's own finalize, bn_cluster) refuse such a
// call: that block's stores could reach another's loads. The other paths read each channel's inputs before its
// outputs are written.
bool param_outputs_alias_inputs(const NormCall& c) {
  const void* const ins[] = {c.scale, c.bias, c.saved_mean, c.saved_inv_var};
  const void* const outs[] = {c.save_mean, c.save_inv_var, c.running_mean, c.running_var, c.dscale, c.dbias};
  for (const void* o : outs)
    for (const void* i : ins)
      if (o != nullptr && o == i) return true;
  return false;
}

}  // namespace
}  // namespace fd::cuda

#include "cuda/batchnorm/bn_fast.cuh"
#include "cuda/batchnorm/bn_channel.cuh"
#include "cuda/batchnorm/bn_rows.cuh"

namespace fd::cuda {
namespace {

size_t align_up(size_t v) { return (v + 255) / 256 * 256; }

// Vector columns per stats_rows_w block (256 bytes of a row): wide enough for whole 32-byte sectors, narrow enough
// that many channels give several chunks. Blocks = splits * chunks is a wave either way, and the partial sums are
// nq * s * splits values: wide blocks over 1024-2048 channels made them as large as a quarter of the data
// (measured on the H200: 7x7x2048 f16 1.4x slower than with 256 columns).
constexpr int kRowsCw = 16;
constexpr int64_t kMaxGridY = 65535;  // CUDA's limit on gridDim.y

// Blocks of stats_rows_w<S, V, bwd> resident on the whole device at once.
template <class S>
int64_t rows_wave(int rv, bool bwd, int device) {
  constexpr int kV = 16 / sizeof(S);
  const void* k = rv > 1 ? (bwd ? reinterpret_cast<const void*>(stats_rows_w<S, kV, true>)
                                : reinterpret_cast<const void*>(stats_rows_w<S, kV, false>))
                         : (bwd ? reinterpret_cast<const void*>(stats_rows_w<S, 1, true>)
                                : reinterpret_cast<const void*>(stats_rows_w<S, 1, false>));
  return int64_t(resident_blocks(k, kBlock, 0, device)) * device_info(device).sm_count;
}

// Inference parameters that apply_fwd can index by channel: packed 1xCx1x1 views, 16-byte aligned.
// FREEDNN_BN_NO_INLINE_INFER=1: the finalize kernel computes them (A/B measurements).
template <class C>
bool infer_inline_ok(const NormCall& c, const FinalArgs<C>& fa) {
  static const bool off = env_flag("FREEDNN_BN_NO_INLINE_INFER");
  return !off && !c.per_activation() && fa.sb.row_major_packed && fa.mv.row_major_packed && aligned16(fa.scale) &&
         aligned16(fa.bias) && aligned16(fa.est_mean) && aligned16(fa.est_var);
}

// The one-kernel path (bn_channel.cuh): spatial statistics over contiguous planes of a packed x that every other
// tensor shares, at least three blocks' worth of channels per SM (fewer channels: too few blocks, each with too
// much data, for one block per channel), no ReLU mask to write. FREEDNN_BN_NO_CHANNEL_BLOCK=1: the three-kernel
// path (A/B measurements).
bool channel_block_ok(cudnnContext* h, const NormCall& c, const Geo& g, const BnMap& xm, bool per_act,
                      bool writes_mask) {
  static const bool off = env_flag("FREEDNN_BN_NO_CHANNEL_BLOCK");
  if (off || per_act || writes_mask || c.dir == NormDir::inference || g.inner < 1) return false;
  if (g.s < 3 * int64_t(device_info(h->device).sm_count)) return false;
  const cudnnTensorStruct& xd = *c.x_desc;
  if (!xd.is_packed() || xd.vect() != 1 || xm.in.nd != 1 || (g.inner > 1 && xm.in.innermost_stride() != 1))
    return false;
  if (c.dir == NormDir::backward) {
    if (!same_packed_layout(xd, *c.dy_desc) || !same_packed_layout(xd, *c.dx_desc)) return false;
    if (c.has_add() && !same_packed_layout(xd, *c.z_desc)) return false;
  } else if (!same_packed_layout(xd, *c.y_desc)) {
    return false;
  }
  return true;
}

template <class S>
cudnnStatus_t run_channel_block(cudnnContext* h, const NormCall& c, const FinalArgs<Comp<S>>& fa, const Geo& g,
                                const BnMap& xm) {
  constexpr int kV = 16 / sizeof(S);
  const bool bwd = c.dir == NormDir::backward;
  const void* out = bwd ? c.dx : c.y;
  const void* dz = bwd && c.has_add() ? c.dz : nullptr;
  const int64_t sn = xm.sn, sk = xm.stat.strides[0];
  const bool vec = g.inner % kV == 0 && sn % kV == 0 && sk % kV == 0 && aligned16(c.x) && aligned16(out) &&
                   (!bwd || aligned16(c.dy)) && (dz == nullptr || aligned16(dz));
  const int v = vec ? kV : 1;
  const S* x = static_cast<const S*>(c.x);
  const S* dy = static_cast<const S*>(c.dy);
  const uint8_t* mask = bwd && c.has_activation() ? static_cast<const uint8_t*>(c.reserve) : nullptr;
  auto launch = [&](auto kern) {
    (void)launch_pdl(ops_pdl(h->device), kern, dim3(static_cast<unsigned>(g.s)), dim3(kBlock), 0, h->stream, fa, g,
                     xm, g.inner / v, sn, sk, x, dy, static_cast<S*>(const_cast<void*>(out)),
                     static_cast<S*>(const_cast<void*>(dz)), mask, c.alpha, c.beta);
  };
  if (bwd) vec ? launch(channel_block<S, kV, true>) : launch(channel_block<S, 1, true>);
  else vec ? launch(channel_block<S, kV, false>) : launch(channel_block<S, 1, false>);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace
}  // namespace fd::cuda

#include "cuda/batchnorm/bn_coop.cuh"
#include "cuda/batchnorm/bn_cluster.cuh"
#include "cuda/batchnorm/bn_infer.cuh"

namespace fd::cuda {
namespace {

// The bytes a path's passes move (add_api_bytes_moved, freednnGetLastCallBytesMoved): x, and dy and the backward's
// ReLU bits, `reads` times; z once; each output once, or twice with beta != 0 (read, then written); the forward's
// ReLU bits once; the parameters and statistics once each (running statistics read and written).
void note_bn_bytes(const NormCall& c, size_t elem, size_t comp, int reads) {
  const bool bwd = c.dir == NormDir::backward, train = c.dir == NormDir::training;
  const double n = static_cast<double>(c.x_desc->element_count());
  const double e = n * static_cast<double>(elem), bits = n / 8;
  const double out = c.beta != 0.0 ? 2 * e : e;
  double b = reads * e + out;
  if (bwd) b += reads * e + (c.has_add() ? out : 0) + (c.has_activation() ? reads * bits : 0);
  else if (c.has_add()) b += e;
  if (train && c.has_activation()) b += bits;
  const double s = static_cast<double>(c.stat_count()) * static_cast<double>(comp);
  int arrays = 0;
  if (c.dir == NormDir::inference) arrays = 4;
  if (train) arrays = 2 + (c.running_mean != nullptr ? 4 : 0) + (c.save_mean != nullptr ? 2 : 0);
  if (bwd) arrays = 1 + (c.beta_param != 0.0 ? 4 : 2) + (c.saved_mean != nullptr ? 2 : 0);
  add_api_bytes_moved(b + arrays * s, reads);
}

template <class S>
cudnnStatus_t run(cudnnContext* h, const NormCall& c) {
  using C = Comp<S>;
  if (c.dir == NormDir::inference) {  // FREEDNN_BN_INFER: the lean kernels of bn_infer.cuh
    bool done = false;
    FD_TRY(run_infer<S>(h, c, &done));
    if (done) {
      note_bn_bytes(c, sizeof(S), sizeof(C), 1);
      return CUDNN_STATUS_SUCCESS;
    }
  }
  const bool per_act = c.per_activation();
  const bool bwd = c.dir == NormDir::backward;
  const bool train = c.dir == NormDir::training;
  const Geo g = make_geo(c);
  const cudnnTensorStruct& xd = *c.x_desc;
  const BnMap xm = make_map(xd, per_act);
  const bool need_stats = train || bwd;
  const int nq = bwd ? 4 : 2;
  constexpr int kV = 16 / sizeof(S);
  const DeviceInfo& di = device_info(h->device);
  const int64_t target_blocks = int64_t(di.sm_count) * (di.max_threads_per_sm / kBlock) * 2;
  // ReLU mask (reserve space): the bit of an element is its offset in x when x is packed (spatial modes), else
  // its logical index; for NCHW the two agree. Forward and backward see the same x descriptor.
  const bool mask_by_offset = !per_act && xd.is_packed() && xd.vect() == 1;
  const uint32_t* in_mask = bwd && c.has_activation() ? static_cast<const uint32_t*>(c.reserve) : nullptr;
  uint32_t* out_mask = train && c.has_activation() ? static_cast<uint32_t*>(c.reserve) : nullptr;
  // Statistic index innermost in memory ("rows": statistic k of row r at r * s + k): spatial modes with a packed,
  // channels-last x; per activation with a row-major packed x. The statistic map of the elementwise passes.
  const bool row_major = make_view(xd).row_major_packed;
  const bool stat_inner = per_act ? row_major : (xd.is_packed() && xd.vect() == 1 && xd.strides[1] == 1);
  const int64_t ew_cs = per_act ? 1 : xd.strides[1];
  const bool ew_stats = !per_act || row_major;  // the elementwise passes know the statistic of an offset

  const S* x = static_cast<const S*>(c.x);
  const S* dy = static_cast<const S*>(c.dy);
  BnMap dym;
  if (bwd) dym = make_map(*c.dy_desc, per_act);

  // Pass 1 plan: rows, planes, or the generic kernel.
  const bool same_dy = !bwd || same_packed_layout(xd, *c.dy_desc);
  // NCHW with small planes: rows of C * HW columns, per-column sums folded per channel by finalize.
  const int64_t fold = need_stats && !per_act && row_major && g.inner > 1 && g.inner < 512 && same_dy ? g.inner : 1;
  bool rows = need_stats && ((stat_inner && g.s > 1) || fold > 1) && same_dy;
  const int64_t rs = g.s * fold;  // columns of a row
  int rv = 1, cw = 1;
  int64_t chunks = 1, nrows = 1;
  if (rows) {
    const bool al = aligned16(c.x) && (!bwd || aligned16(c.dy));
    rv = al && rs % kV == 0 ? kV : 1;
    cw = 1;  // stats_rows_w: a power of two, at most kRowsCw
    while (cw < kRowsCw && cw < rs / rv) cw *= 2;
    chunks = (rs / rv + cw - 1) / cw;
    nrows = g.count / rs;
    if (chunks > kMaxGridY) {  // stats_rows_w's grid.y (per activation, ~1M statistics): the generic kernel's plan
      rows = false;
      rv = cw = 1;
      chunks = nrows = 1;
    }
  }
  const bool planes = need_stats && !rows && !per_act && g.inner > 1 && planes_ok(xd, xm, g.inner, c.x, 1) &&
                      (!bwd || planes_ok(*c.dy_desc, dym, g.inner, c.dy, 1));
  const int pv = planes && planes_ok(xd, xm, g.inner, c.x, kV) && (!bwd || planes_ok(*c.dy_desc, dym, g.inner, c.dy, kV))
                     ? kV
                     : 1;
  const StatsPlan plan = plan_stats(g, xm, h->device);
  int64_t splits = plan.splits, per_split = plan.per_split;
  const bool chan_block = channel_block_ok(h, c, g, xm, per_act, out_mask != nullptr);
  // The rows plan in one cooperative kernel (bn_coop.cuh) where it applies: its grid is bounded by its own wave.
  bool coop = rows && !chan_block && coop_wanted(h->device, c, sizeof(S), rv, cw, rs, out_mask != nullptr);
  if (rows) {
    const int R = kBlock / cw;
    auto plan_rows = [&](int64_t wave) {  // one resident wave of blocks
      int64_t sp = wave / chunks;
      const int64_t by_size = (nrows + int64_t(R) * 16 - 1) / (int64_t(R) * 16);  // >= 16 rows per thread
      sp = std::max<int64_t>(1, std::min<int64_t>({sp, by_size, 4096}));
      per_split = (nrows + sp - 1) / sp;
      splits = (nrows + per_split - 1) / per_split;
    };
    const int64_t wave = rows_wave<S>(rv, bwd, h->device);  // stats_rows_w's
    const int64_t coop_cap = coop ? coop_wave<S>(rv, bwd, h->device) : 0;
    plan_rows(coop ? std::min(wave, coop_cap) : wave);
    if (coop && splits * chunks > coop_cap) {  // more chunks than resident blocks
      coop = false;
      plan_rows(wave);
    }
  } else if (planes) {
    const int64_t m_v = g.m / pv;
    int64_t sp = target_blocks / g.s;
    const int64_t by_size = (m_v + kBlock * 4 - 1) / (kBlock * 4);
    sp = std::max<int64_t>(1, std::min<int64_t>({sp, by_size, 65535}));
    per_split = (m_v + sp - 1) / sp;
    splits = (m_v + per_split - 1) / per_split;
  }

  const size_t coef_bytes = align_up(sizeof(C) * 5 * static_cast<size_t>(g.s));
  const int64_t ps = rows ? rs : g.s;  // partial sums per (q, split)
  size_t partial_bytes = need_stats ? sizeof(C) * nq * static_cast<size_t>(splits * ps) : 0;
  const bool cluster_kind = rows && fold == 1 && rv == kV && !c.has_add() && !c.has_activation();
  size_t cluster_partial_bytes = 0;  // bn_cluster's grid form (bn_cluster.cuh)
  if constexpr (!std::is_same_v<S, double>)
    if (cluster_kind)
      cluster_partial_bytes = cluster_grid_partial_bytes<C, kV>(h->device, g.count * sizeof(S) * (bwd ? 2 : 1));
  partial_bytes = std::max(partial_bytes, cluster_partial_bytes);
  const size_t kbuf_bytes = coop ? sizeof(C) * static_cast<size_t>(g.s) : 0;  // bn_coop's own-mode shifts
  void* scratch = nullptr;
  FD_TRY(handle_scratch(h, coef_bytes + align_up(partial_bytes) + kbuf_bytes, &scratch));
  C* coef = static_cast<C*>(scratch);
  C* partial = reinterpret_cast<C*>(static_cast<char*>(scratch) + coef_bytes);
  C* kbuf = reinterpret_cast<C*>(static_cast<char*>(scratch) + coef_bytes + align_up(partial_bytes));

  FinalArgs<C> fa;
  fa.dir = c.dir == NormDir::inference ? 0 : train ? 1 : 2;
  fa.sb = make_view(*c.scale_bias_desc);
  fa.mv = make_view(*c.mean_var_desc);
  fa.scale = static_cast<const C*>(c.scale);
  fa.bias = static_cast<const C*>(c.bias);
  fa.est_mean = static_cast<const C*>(c.est_mean);
  fa.est_var = static_cast<const C*>(c.est_var);
  fa.running_mean = static_cast<C*>(c.running_mean);
  fa.running_var = static_cast<C*>(c.running_var);
  fa.save_mean = static_cast<C*>(c.save_mean);
  fa.save_inv = static_cast<C*>(c.save_inv_var);
  fa.saved_mean = static_cast<const C*>(c.saved_mean);
  fa.saved_inv = static_cast<const C*>(c.saved_inv_var);
  fa.dscale = static_cast<C*>(c.dscale);
  fa.dbias = static_cast<C*>(c.dbias);
  fa.eps = c.epsilon;
  fa.factor = c.factor;
  fa.alpha_param = c.alpha_param;
  fa.beta_param = c.beta_param;

  cudaStream_t st = h->stream;
  if (chan_block) {
    note_bn_bytes(c, sizeof(S), sizeof(C), 2);  // both passes in one kernel
    return run_channel_block<S>(h, c, fa, g, xm);
  }
  const C* shift = bwd ? fa.saved_mean : nullptr;
  const uint8_t* in_mask8 = reinterpret_cast<const uint8_t*>(in_mask);
  // Small channels-last tensors: one kernel, a cluster of blocks per channel group, x (and dy) kept on chip.
  if constexpr (!std::is_same_v<S, double>) {
    if (cluster_kind) {
      bool launched = false;
      FD_TRY(run_cluster<S>(h, c, fa, g, xm, nrows, rs, shift, partial, cluster_partial_bytes, &launched));
      if (launched) {
        note_bn_bytes(c, sizeof(S), sizeof(C), 1);  // x and dy read once, kept on chip for the apply
        return CUDNN_STATUS_SUCCESS;
      }
    }
  }
  if (coop) {
    CoopArgs<S> ca;
    ca.fa = fa;
    ca.g = g;
    ca.xm = xm;
    ca.rows = nrows;
    ca.rs = rs;
    ca.fold = fold;
    ca.per_split = per_split;
    ca.per_stat = splits * fold;
    ca.cw = cw;
    ca.own = coop_own(c, ca.per_stat, int64_t(cw) * rv, fold, splits * chunks, di.sm_count, sizeof(C));
    ca.x = x;
    ca.dy = dy;
    ca.out = static_cast<S*>(bwd ? c.dx : c.y);
    if (c.has_add()) {
      if (bwd) ca.dz = static_cast<S*>(c.dz);
      else ca.z = static_cast<const S*>(c.z);
    }
    ca.relu = !bwd && c.has_activation();
    ca.keep_nan = c.act.nan == CUDNN_PROPAGATE_NAN;
    ca.mask_in = in_mask8;
    ca.mask_out = reinterpret_cast<uint8_t*>(out_mask);
    ca.shift = shift;
    ca.partial = partial;
    ca.coef = coef;
    ca.kbuf = ca.own && shift == nullptr ? kbuf : nullptr;
    ca.alpha = c.alpha;
    ca.beta = c.beta;
    bool launched = false;
    const dim3 grid(static_cast<unsigned>(splits), static_cast<unsigned>(chunks));
    FD_TRY(launch_coop<S>(ca, rv, bwd, grid, st, h->device, &launched));
    if (launched) {
      note_bn_bytes(c, sizeof(S), sizeof(C), 2);
      return CUDNN_STATUS_SUCCESS;
    }
  }
  note_bn_bytes(c, sizeof(S), sizeof(C), need_stats ? 2 : 1);  // the statistics pass (if any), then the apply pass
  const bool split_inner = rows;  // stats_rows_w's partial layout
  if (rows) {
    const dim3 grid(static_cast<unsigned>(splits), static_cast<unsigned>(chunks));
    auto launch = [&](auto kern) {
      (void)launch_pdl(ops_pdl(h->device), kern, grid, dim3(kBlock), 0, st, nrows, rs, fold, cw, x, dy, in_mask8, fa.mv,
                       shift, per_split, partial);
    };
    if (rv > 1) bwd ? launch(stats_rows_w<S, kV, true>) : launch(stats_rows_w<S, kV, false>);
    else bwd ? launch(stats_rows_w<S, 1, true>) : launch(stats_rows_w<S, 1, false>);
    FD_CUDA_LAUNCHED();
  } else if (planes) {
    const dim3 grid(static_cast<unsigned>(g.s), static_cast<unsigned>(splits));
    const int64_t inner_v = g.inner / pv, m_v = g.m / pv;
    const int64_t dsn = bwd ? dym.sn : 0, dsk = bwd ? dym.stat.strides[0] : 0;
    // mask bit of (n, k, j): x's offset, or the logical index
    const int64_t msn = mask_by_offset ? xm.sn : g.s * g.inner, msk = mask_by_offset ? xm.stat.strides[0] : g.inner;
    auto launch = [&](auto kern) {
      (void)launch_pdl(ops_pdl(h->device), kern, grid, dim3(kBlock), 0, st, inner_v, m_v, g.s, xm.sn,
                       xm.stat.strides[0], x, dsn, dsk, dy, in_mask8, msn, msk, fa.mv, shift, per_split, partial);
    };
    if (pv > 1) bwd ? launch(stats_planes<S, kV, true>) : launch(stats_planes<S, kV, false>);
    else bwd ? launch(stats_planes<S, 1, true>) : launch(stats_planes<S, 1, false>);
    FD_CUDA_LAUNCHED();
  } else if (need_stats) {
    const dim3 grid(static_cast<unsigned>(plan.blocks_k), static_cast<unsigned>(plan.splits));
    (void)launch_pdl(ops_pdl(h->device), stats_kernel<S>, grid, dim3(kBlock), 0, st, g, xm, x, dym, dy, in_mask,
                     mask_by_offset, fa.mv, shift, bwd, plan.cols, plan.per_split, partial);
    FD_CUDA_LAUNCHED();
  }
  // Inference with channel-indexed, aligned parameters computes its coefficients in the apply pass (below).
  InferCoef<C> ic;
  if (!need_stats && infer_inline_ok(c, fa)) {
    ic.scale = fa.scale;
    ic.bias = fa.bias;
    ic.mean = fa.est_mean;
    ic.var = fa.est_var;
    ic.eps = static_cast<C>(c.epsilon);
  }
  // The forward apply pass's plan (memory-order kernel when every tensor shares x's packed layout).
  EwPlan fwd_ew;
  if (!bwd && ew_stats) {
    const cudnnTensorStruct* others[2] = {c.y_desc, c.has_add() ? c.z_desc : nullptr};
    const void* ptrs[3] = {c.y, c.has_add() ? c.z : nullptr, c.x};
    fwd_ew = plan_ew(xd, g.s, ew_cs, others, ptrs, 2, kV);
  }
  // Only where apply_fwd loads each thread's coefficients once (NHWC-like, cm.fixed): computed per vector, they
  // cost more than the finalize launch saves (measured on the H200: NCHW f32 1.1x, NHWC f16 1.7x slower).
  const bool inline_coef = ic.scale != nullptr && fwd_ew.ok && fwd_ew.map.mode == 0 && fwd_ew.map.fixed;
  // Where the device runs the build's 9.x code (sm90_code) the finalize and the apply pass launch as programmatic
  // dependents of the kernel before them (cuda/common/pdl.cuh), their launches overlapping its tail (H200 run 19:
  // 0.95-0.98x the time of 16-bit NHWC training passes on 28x28 .. 7x7 planes, 1.00 elsewhere); FREEDNN_BN_PDL=0
  // (read at every call): plain launches.
  const bool pdl = need_stats && env_flag_or("FREEDNN_BN_PDL", true) && device_info(h->device).sm90_code;
  if (!inline_coef) {
    const int64_t per_stat = split_inner ? splits * fold : splits;
    if (split_inner && per_stat > 64)
      (void)launch_pdl(pdl, finalize_wide<S>, dim3(static_cast<unsigned>(g.s)), dim3(kBlock), 0, st, fa, g, xm, x,
                       per_stat, partial, coef);
    else
      (void)launch_pdl(pdl, finalize_kernel<S>, dim3(grid_size(g.s * 32, kBlock, h->device, 1)), dim3(kBlock), 0, st,
                       fa, g, xm, x, per_stat, ps, fold, split_inner, partial, coef);
    FD_CUDA_LAUNCHED();
  }
  const bool pdl_apply = pdl && !inline_coef;  // its predecessor is the finalize

  // Pass 2 (inference: the only pass): memory-order elementwise kernels when every tensor shares x's packed layout.
  if (bwd && ew_stats) {
    const cudnnTensorStruct* others[3] = {c.dy_desc, c.dx_desc, c.has_add() ? c.z_desc : nullptr};
    const void* ptrs[4] = {c.dy, c.dx, c.has_add() ? c.dz : nullptr, c.x};
    const EwPlan ew = plan_ew(xd, g.s, ew_cs, others, ptrs, 3, kV);
    if (ew.ok) {
      S* dx = static_cast<S*>(c.dx);
      S* dz = c.has_add() ? static_cast<S*>(c.dz) : nullptr;
      auto kern = ew.v > 1 ? apply_bwd<S, kV> : apply_bwd<S, 1>;
      const int grid = resident_grid(reinterpret_cast<const void*>(kern), ew.nvec, kBlock, kBlock, 0, h->device);
      (void)launch_pdl(pdl_apply, kern, dim3(grid), dim3(kBlock), 0, st, ew.nvec, ew.map, g.s, x, dy, dx, dz, in_mask8,
                       coef, c.alpha, c.beta);
      FD_CUDA_LAUNCHED();
      return CUDNN_STATUS_SUCCESS;
    }
  }
  if (fwd_ew.ok) {
    const EwPlan& ew = fwd_ew;
    const S* z = c.has_add() ? static_cast<const S*>(c.z) : nullptr;
    S* y = static_cast<S*>(c.y);
    uint8_t* mask8 = reinterpret_cast<uint8_t*>(out_mask);
    const bool relu = c.has_activation(), keep_nan = c.act.nan == CUDNN_PROPAGATE_NAN;
    auto kern = inline_coef ? (ew.v > 1 ? apply_fwd<S, kV, true> : apply_fwd<S, 1, true>)
                            : (ew.v > 1 ? apply_fwd<S, kV, false> : apply_fwd<S, 1, false>);
    const int grid = resident_grid(reinterpret_cast<const void*>(kern), ew.nvec, kBlock, kBlock, 0, h->device);
    (void)launch_pdl(pdl_apply, kern, dim3(grid), dim3(kBlock), 0, st, ew.nvec, ew.map, g.s, x, z, y, coef, ic, relu,
                     keep_nan, mask8, c.alpha, c.beta);
    FD_CUDA_LAUNCHED();
    return CUDNN_STATUS_SUCCESS;
  }
  ApplyMaps mp;
  mp.x = xm;
  const int blocks = grid_size(g.count, kBlock, h->device);
  if (bwd) {
    mp.z = dym;
    mp.y = make_map(*c.dx_desc, per_act);
    S* dz = nullptr;
    if (c.has_add()) {
      mp.dz = make_map(*c.z_desc, per_act);
      dz = static_cast<S*>(c.dz);
    }
    (void)launch_pdl(pdl_apply, bwd_apply<S>, dim3(blocks), dim3(kBlock), 0, st, g, mp, x, dy, static_cast<S*>(c.dx),
                     dz, coef, in_mask, mask_by_offset, c.alpha, c.beta);
    FD_CUDA_LAUNCHED();
  } else {
    mp.y = make_map(*c.y_desc, per_act);
    const S* z = nullptr;
    if (c.has_add()) {
      mp.z = make_map(*c.z_desc, per_act);
      z = static_cast<const S*>(c.z);
    }
    const bool memset = out_mask != nullptr && mask_by_offset;  // then the memset, not the finalize, is before it
    if (memset) FD_CUDA_CHECK(cudaMemsetAsync(out_mask, 0, norm_reserve_size(xd, c.op), st));
    (void)launch_pdl(pdl_apply && !memset, fwd_apply<S>, dim3(blocks), dim3(kBlock), 0, st, g, mp, x, z,
                     static_cast<S*>(c.y), coef, c.has_activation(), c.act.nan == CUDNN_PROPAGATE_NAN, out_mask,
                     mask_by_offset, c.alpha, c.beta);
    FD_CUDA_LAUNCHED();
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t dispatch(cudnnContext* h, const NormCall& c) {
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  bool known = false;
  switch (c.x_desc->dtype) {
    case CUDNN_DATA_FLOAT: known = true; status = run<float>(h, c); break;
    case CUDNN_DATA_DOUBLE: known = true; status = run<double>(h, c); break;
    case CUDNN_DATA_HALF: known = true; status = run<__half>(h, c); break;
    case CUDNN_DATA_BFLOAT16: known = true; status = run<__nv_bfloat16>(h, c); break;
    default: break;
  }
  FD_CHECK_SUPPORTED(known, "no CUDA batch normalization for %s", dtype_short_name(c.x_desc->dtype));
  return status;
}

}  // namespace

cudnnStatus_t norm_forward(cudnnContext* h, const NormCall& c) { return dispatch(h, c); }
cudnnStatus_t norm_backward(cudnnContext* h, const NormCall& c) { return dispatch(h, c); }

}  // namespace fd::cuda
