// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cudnnOpTensor and cudnnAddTensor on the GPU, one pass over the output:
//   C = blend(op(a1 * A, a2 * B)), B broadcast; cudnnAddTensor is the case "result = a2 * B" (A its broadcast
//   input in the B slot, no first operand).
// A dense kernel serves one storage type with A and C in the same packed layout (any dim order) and B either in
// that layout too, or a per-channel bias (1 x C x 1 ...), or a single value: 16-byte accesses when aligned. For the
// float types a broadcast B (bias or single value) with aligned A and C of whole 16-byte vectors goes to a one-pass
// broadcast kernel instead (each vector's B values from its channels, op and type compiled in). A generic strided
// kernel (runtime storage types, any broadcast, vector layouts) serves the rest.
#include "core/dtype.h"
#include "core/env.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/dyn_tensor.cuh"
#include "cuda/common/index.cuh"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/tensor_ops/tensor_ops.h"

namespace fd::cuda {
namespace {

constexpr int kBlock = 256;
constexpr int kCopyB = -1;  // internal op: the result is a2 * B (cudnnAddTensor)

template <class C>
__device__ __forceinline__ C apply(int op, bool prop, C x, C y) {
  switch (op) {
    case CUDNN_OP_TENSOR_ADD: return x + y;
    case CUDNN_OP_TENSOR_MUL: return x * y;
    case CUDNN_OP_TENSOR_MIN:
      if (prop && (x != x || y != y)) return x != x ? x : y;
      return x < y ? x : (y < x ? y : (x != x ? y : x));  // fmin: a NaN operand gives the other one
    case CUDNN_OP_TENSOR_MAX:
      if (prop && (x != x || y != y)) return x != x ? x : y;
      return x > y ? x : (y > x ? y : (x != x ? y : x));
    case CUDNN_OP_TENSOR_SQRT: return sqrt(x);
    case CUDNN_OP_TENSOR_NOT: return C(1) - x;
    default: return y;  // kCopyB
  }
}

template <class C>
__global__ void binary_generic(int op, bool prop, BView av, cudnnDataType_t at, const void* ap, C a1, BView bv,
                               cudnnDataType_t bt, const void* bp, C a2, BView cv, cudnnDataType_t ct, void* cp,
                               int64_t n, C beta) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const C x = ap ? a1 * load_dyn<C>(at, ap, av.offset(i)) : C(0);
    const C y = bp ? a2 * load_dyn<C>(bt, bp, bv.offset(i)) : C(0);
    blend_dyn<C>(ct, cp, cv.offset(i), apply<C>(op, prop, x, y), C(1), beta);
  }
}

enum BMode : int { kNoB = 0, kSameB = 1, kChannelB = 2 };

// One storage type; element k of A and C at the same offset k. B: kSameB at k, kChannelB at
// ((k / inner) % cdim) * bstride (cdim 1: a single value).
template <class S, class C>
__global__ void binary_dense(int op, bool prop, const S* ap, C a1, const S* bp, C a2, int bmode, int64_t inner,
                             int64_t cdim, int64_t bstride, S* cp, int64_t n, bool vec, C beta) {
  constexpr int kPer = 16 / sizeof(S);
  pdl_wait();  // launched as a dependent (ops_pdl.h): the previous kernel's writes first
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t t0 = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  auto bval = [&](int64_t k, int64_t ch) -> C {
    if (bmode == kNoB) return C(0);
    return a2 * Storage<S>::load(bp, bmode == kSameB ? k : ch * bstride);
  };
  int64_t done = 0;
  if (vec) {
    const int64_t chunks = n / kPer;
    for (int64_t i = t0; i < chunks; i += stride) {
      const int64_t k0 = i * kPer;
      uint4 ar = ap ? reinterpret_cast<const uint4*>(ap)[i] : uint4{};
      uint4 br = bmode == kSameB ? reinterpret_cast<const uint4*>(bp)[i] : uint4{};
      uint4 cr = beta != C(0) ? reinterpret_cast<const uint4*>(cp)[i] : uint4{};
      const S* as = reinterpret_cast<const S*>(&ar);
      const S* bs = reinterpret_cast<const S*>(&br);
      S* cs = reinterpret_cast<S*>(&cr);
      int64_t q = k0 / inner, ch = q % cdim, r = k0 - q * inner;
#pragma unroll
      for (int k = 0; k < kPer; ++k) {
        const C x = ap ? a1 * Storage<S>::load(as, k) : C(0);
        const C y = bmode == kSameB ? a2 * Storage<S>::load(bs, k) : bval(k0 + k, ch);
        C res = apply<C>(op, prop, x, y);
        if (beta != C(0)) res += beta * Storage<S>::load(cs, k);
        Storage<S>::store(cs, k, res);
        if (++r == inner) {
          r = 0;
          if (++ch == cdim) ch = 0;
        }
      }
      reinterpret_cast<uint4*>(cp)[i] = cr;
    }
    done = chunks * kPer;
  }
  for (int64_t k = done + t0; k < n; k += stride) {
    const C x = ap ? a1 * Storage<S>::load(ap, k) : C(0);
    const C y = bval(k, (k / inner) % cdim);
    C res = apply<C>(op, prop, x, y);
    if (beta != C(0)) res += beta * Storage<S>::load(cp, k);
    Storage<S>::store(cp, k, res);
  }
  pdl_allow_dependents();
}

// Broadcast B (a per-channel bias or a single value) over A and C of one packed layout, one float-family storage
// type: vector i of C (V = 16 / sizeof(S) elements at offsets i*V ..) takes its B values from its channels:
//   kNhwc      channel stride 1, C % V == 0: V consecutive channels from (i % (C/V)) * V (one 16-byte load of B
//              when B's channels are contiguous and aligned, else V loads);
//   kPlanar    channel stride cs with cs % V == 0 (NCHW with H*W % V == 0): the one channel (i / (cs/V)) % C;
//   kPerElem   any other packed layout: element e's channel (e / cs) % C;
//   kScalar    B a single value.
// B's few values stay in L1 (read-only loads); A and C move as 16-byte vectors, one pass. C is read only when
// beta != 0. Same arithmetic as binary_dense: res = op(a1 * A, a2 * B) [+ beta * C] in Comp<S>. Measured on the
// H200 (64 x 256 x 56 x 56, B 1 x 256 x 1 x 1): MUL f32 NCHW 0.104 ms (94 % of copy bandwidth) against binary_dense's
// 0.131, f16 / bf16 NHWC 0.055 against 0.098; cudnnAddTensor (beta 1) f32 NCHW 0.105 against 0.118, f16 / bf16
// NHWC 0.054 against 0.078. FREEDNN_OPTENSOR_NO_BCAST=1 restores binary_dense.
enum BcastMode : int { kNhwc = 0, kPlanar = 1, kPerElem = 2, kScalar = 3 };
struct BcastMap {
  int mode = kScalar;
  Divider d1, d2;  // kNhwc: d2 by C/V; kPlanar: d1 by cs/V, d2 by C; kPerElem: d1 by cs, d2 by C
  int64_t c2 = 1;  // the second divisor
  int64_t bstride = 0;
  bool bvec = false;  // kNhwc: B's V channels as one aligned 16-byte load
  __device__ __forceinline__ int64_t chan(int64_t e) const {
    const int64_t q = d1.div(e);
    return q - d2.div(q) * c2;
  }
};

template <class S, int V, int kOp>
__global__ void __launch_bounds__(kBlock) binary_bcast(const S* ap, Comp<S> a1, const S* bp, Comp<S> a2, BcastMap m,
                                                       S* cp, int64_t nvec, bool prop, Comp<S> beta) {
  using C = Comp<S>;
  constexpr int U = 2;  // vectors per thread and step, their loads issued together
  pdl_wait();           // launched as a dependent (ops_pdl.h): the previous kernel's writes first
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i0 = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i0 < nvec; i0 += U * stride) {
    // Raw 16-byte vectors while the loads are in flight (fewer live registers than converted values).
    uint4 xr[U], cr[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int64_t i = i0 + u * stride;
      if (i >= nvec) continue;
      if constexpr (kOp != kCopyB) xr[u] = *reinterpret_cast<const uint4*>(ap + i * V);
      if (beta != C(0)) cr[u] = *reinterpret_cast<const uint4*>(cp + i * V);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int64_t i = i0 + u * stride;
      if (i >= nvec) continue;
      C y[V];
      if (m.mode == kNhwc) {
        const int64_t c0 = (i - m.d2.div(i) * m.c2) * V;
        if (m.bvec) {
          alignas(16) S raw[V];
          *reinterpret_cast<uint4*>(raw) = __ldg(reinterpret_cast<const uint4*>(bp + c0));
#pragma unroll
          for (int k = 0; k < V; ++k) y[k] = Storage<S>::load(raw, k);
        } else {
#pragma unroll
          for (int k = 0; k < V; ++k) y[k] = Storage<S>::load(bp, (c0 + k) * m.bstride);
        }
      } else if (m.mode == kPerElem) {
#pragma unroll
        for (int k = 0; k < V; ++k) y[k] = Storage<S>::load(bp, m.chan(i * V + k) * m.bstride);
      } else {
        const C v = Storage<S>::load(bp, m.mode == kPlanar ? m.chan(i) * m.bstride : 0);
#pragma unroll
        for (int k = 0; k < V; ++k) y[k] = v;
      }
      C r[V];
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const C x = kOp != kCopyB ? a1 * Storage<S>::load(reinterpret_cast<const S*>(&xr[u]), k) : C(0);
        C res = apply<C>(kOp, prop, x, a2 * y[k]);
        if (beta != C(0)) res += beta * Storage<S>::load(reinterpret_cast<const S*>(&cr[u]), k);
        r[k] = res;
      }
      store_vec<S, V>(cp + i * V, r);
    }
  }
  pdl_allow_dependents();
}

// The broadcast plan for C (packed, n elements, channel stride cs, cdim channels; cdim 1: a single value), or
// false when binary_bcast cannot take it (n % V != 0, or A / C off the 16-byte grid: the dense kernel's scalar walk).
bool plan_bcast(const cudnnTensorStruct& c, const void* ap, const void* bp, int64_t bstride, const void* cp,
                int64_t cs, int64_t cdim, int V, BcastMap* m) {
  const int64_t n = c.element_count();
  if (n % V != 0 || !aligned16(cp) || (ap && !aligned16(ap))) return false;
  const int64_t nvec = n / V;
  m->bstride = bstride;
  if (cdim <= 1) {
    m->mode = kScalar;
  } else if (cs == 1 && cdim % V == 0) {
    m->mode = kNhwc;
    m->c2 = cdim / V;
    m->d2 = Divider(cdim / V, nvec);
    m->bvec = bstride == 1 && aligned16(bp);
  } else if (cs % V == 0) {
    m->mode = kPlanar;
    m->c2 = cdim;
    m->d1 = Divider(cs / V, nvec);
    m->d2 = Divider(cdim, nvec);
  } else {
    m->mode = kPerElem;
    m->c2 = cdim;
    m->d1 = Divider(cs, n);
    m->d2 = Divider(cdim, n);
  }
  return true;
}

template <class S>
void launch_bcast(cudaStream_t stream, int device, int op, bool prop, const S* ap, double a1, const S* bp, double a2,
                  const BcastMap& m, S* cp, int64_t n, double beta) {
  using C = Comp<S>;
  constexpr int V = 16 / sizeof(S);
  const int64_t nvec = n / V;
  const int grid = grid_size((nvec + 1) / 2, kBlock, device);  // two vectors per thread and step
  const C ca1 = static_cast<C>(a1), ca2 = static_cast<C>(a2), cb = static_cast<C>(beta);
  const bool pdl = ops_pdl(device);
  auto go = [&](auto kern) {
    (void)launch_pdl(pdl, kern, dim3(grid), dim3(kBlock), 0, stream, ap, ca1, bp, ca2, m, cp, nvec, prop, cb);
  };
  switch (op) {
    case CUDNN_OP_TENSOR_ADD: go(binary_bcast<S, V, CUDNN_OP_TENSOR_ADD>); break;
    case CUDNN_OP_TENSOR_MUL: go(binary_bcast<S, V, CUDNN_OP_TENSOR_MUL>); break;
    case CUDNN_OP_TENSOR_MIN: go(binary_bcast<S, V, CUDNN_OP_TENSOR_MIN>); break;
    case CUDNN_OP_TENSOR_MAX: go(binary_bcast<S, V, CUDNN_OP_TENSOR_MAX>); break;
    default: go(binary_bcast<S, V, kCopyB>); break;
  }
}

// The common launcher. `a` may be null (no first operand); `b` null for unary ops. The storage type of every
// tensor is the same when `same_type`.
cudnnStatus_t run(cudaStream_t stream, int device, int op, bool prop, bool dbl, const cudnnTensorStruct* a,
                  const void* ap, double a1, const cudnnTensorStruct* b, const void* bp, double a2,
                  const cudnnTensorStruct& c, void* cp, double beta) {
  const int64_t n = c.element_count();
  if (n == 0) return CUDNN_STATUS_SUCCESS;
  bool same_type = c.vect() == 1 && (!a || a->dtype == c.dtype) && (!b || b->dtype == c.dtype);
  // The dense kernel computes in Storage<S>'s type: double for INT32, where the caller may want float.
  if (c.dtype == CUDNN_DATA_INT32 && !dbl) same_type = false;
  // The dense path: A and C share a packed layout; B shares it, is a channel bias, or a single value.
  int bmode = kNoB;
  int64_t inner = 1, cdim = 1, bstride = 0;
  bool dense = same_type && c.is_packed() && (!a || same_packed_layout(*a, c));
  if (dense && b) {
    bool all_ones = true, bias = c.nb_dims >= 2 && b->dims[1] == c.dims[1];
    for (int i = 0; i < c.nb_dims; ++i) {
      all_ones = all_ones && b->dims[i] == 1;
      if (i != 1) bias = bias && b->dims[i] == 1;
    }
    if (same_packed_layout(*b, c)) {
      bmode = kSameB;
    } else if (all_ones || bias) {
      bmode = kChannelB;
      if (!all_ones) {
        inner = c.strides[1];
        cdim = c.dims[1];
        bstride = b->strides[1];
      }
    } else {
      dense = false;
    }
  }
  static const bool no_bcast = fd::env_flag("FREEDNN_OPTENSOR_NO_BCAST");
  const bool float_family = c.dtype == CUDNN_DATA_FLOAT || c.dtype == CUDNN_DATA_DOUBLE ||
                            c.dtype == CUDNN_DATA_HALF || c.dtype == CUDNN_DATA_BFLOAT16;
  BcastMap bm;
  if (dense && bmode == kChannelB && !no_bcast && float_family &&
      plan_bcast(c, a ? ap : nullptr, bp, bstride, cp, inner, cdim, static_cast<int>(16 / dtype_size(c.dtype)), &bm)) {
    with_float_storage(c.dtype, [&](auto tag) {
      using S = decltype(tag);
      launch_bcast<S>(stream, device, op, prop, static_cast<const S*>(a ? ap : nullptr), a1, static_cast<const S*>(bp),
                      a2, bm, static_cast<S*>(cp), n, beta);
    });
    FD_CUDA_LAUNCHED();
    return CUDNN_STATUS_SUCCESS;
  }
  if (dense) {
    const bool vec = aligned16(cp) && (!a || aligned16(ap)) && (bmode != kSameB || aligned16(bp));
    const bool known = with_storage_type(c.dtype, [&](auto tag) {
      using S = decltype(tag);
      using C = decltype(Storage<S>::load(nullptr, 0));
      const int64_t items = vec ? n / (16 / sizeof(S)) + 1 : n;
      (void)launch_pdl(ops_pdl(device), binary_dense<S, C>, dim3(grid_size(items, kBlock, device)), dim3(kBlock), 0,
                       stream, op, prop, static_cast<const S*>(a ? ap : nullptr), static_cast<C>(a1),
                       static_cast<const S*>(bp), static_cast<C>(a2), bmode, inner, cdim, bstride,
                       static_cast<S*>(cp), n, vec, static_cast<C>(beta));
    });
    if (known) {
      FD_CUDA_LAUNCHED();
      return CUDNN_STATUS_SUCCESS;
    }
  }
  const BView av = a ? make_bview(*a, c) : BView{}, bv = b ? make_bview(*b, c) : BView{}, cv = make_bview(c);
  const cudnnDataType_t at = a ? dtype_scalar(a->dtype) : CUDNN_DATA_FLOAT;
  const cudnnDataType_t bt = b ? dtype_scalar(b->dtype) : CUDNN_DATA_FLOAT, ct = dtype_scalar(c.dtype);
  const int grid = grid_size(n, kBlock, device);
  const void* a_ptr = a ? ap : nullptr;
  const void* b_ptr = b ? bp : nullptr;
  if (dbl)
    binary_generic<double><<<grid, kBlock, 0, stream>>>(op, prop, av, at, a_ptr, a1, bv, bt, b_ptr, a2, cv, ct, cp, n,
                                                        beta);
  else
    binary_generic<float><<<grid, kBlock, 0, stream>>>(op, prop, av, at, a_ptr, static_cast<float>(a1), bv, bt, b_ptr,
                                                       static_cast<float>(a2), cv, ct, cp, n, static_cast<float>(beta));
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

cudnnStatus_t op_tensor(cudaStream_t stream, int device, cudnnOpTensorOp_t op, cudnnNanPropagation_t nan_opt,
                        bool double_compute, const cudnnTensorStruct& a, const void* ap, double alpha1,
                        const cudnnTensorStruct* b, const void* bp, double alpha2, const cudnnTensorStruct& c,
                        void* cp, double beta) {
  const bool unary = op == CUDNN_OP_TENSOR_SQRT || op == CUDNN_OP_TENSOR_NOT;
  // The dense kernel computes in the storage type's compute type (double only for DOUBLE data), as the CPU.
  return run(stream, device, static_cast<int>(op), nan_opt == CUDNN_PROPAGATE_NAN, double_compute, &a, ap, alpha1,
             unary ? nullptr : b, unary ? nullptr : bp, alpha2, c, cp, beta);
}

cudnnStatus_t add_tensor(cudaStream_t stream, int device, const cudnnTensorStruct& a, const void* ap,
                         const cudnnTensorStruct& c, void* cp, double alpha, double beta) {
  // Double arithmetic where float would round stored values (INT32 past 2^24), as the CPU backend.
  return run(stream, device, kCopyB, false, needs_double(c.dtype), nullptr, nullptr, 0.0, &a, ap, alpha, c, cp, beta);
}

}  // namespace fd::cuda
