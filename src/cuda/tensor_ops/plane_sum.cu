// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cuda/tensor_ops/plane_sum.h"

#include <algorithm>

#include "core/dtype.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/dyn_tensor.cuh"
#include "cuda/common/index.cuh"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"

namespace fd::cuda {
namespace {

constexpr int kBlock = 256;
constexpr int kSmem = 48 * 1024;            // dynamic shared memory of the rows kernel (no opt-in needed)
constexpr int kCols = 16;                   // vector columns per block of the columns kernel
constexpr int kGroups = kBlock / kCols;     // its row groups

// Where out(q, i) lives, and the blend (as the pooling tiles' blend_store_vec: alpha == 1 multiplies nothing,
// out is read only when beta != 0).
struct Out {
  cudnnDataType_t t;
  void* p;
  Divider dq;  // q / D
  int64_t D, s0, s1, si;
  double alpha, beta;
  template <class C>
  __device__ __forceinline__ void put(int64_t q, int64_t i, C v) const {
    const int64_t a = dq.div(q);
    const int64_t o = a * s0 + (q - a * D) * s1 + i * si;
    C r = alpha == 1.0 ? v : static_cast<C>(alpha) * v;
    if (beta != 0.0) r += static_cast<C>(beta) * load_dyn<C>(t, p, o);
    store_dyn<C>(t, p, o, r);
  }
};

// I == 1: Q rows of K contiguous elements. A tile is T = kBlock >> plog consecutive rows, one contiguous range of
// T * K elements, copied to shared memory with 16-byte loads (up to eight in flight per thread); then P = 1 << plog
// threads per row (adjacent lanes) sum it, strided by P, and fold with shuffles. Row sums in a fixed order.
template <class S>
__global__ void __launch_bounds__(kBlock) plane_sum_rows(const S* x, int64_t Q, int K, int plog, int64_t tiles,
                                                         int64_t divisor, Out o) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using C = Comp<S>;
  constexpr int kE = 16 / sizeof(S);
  extern __shared__ uint4 smem4[];
  S* s = reinterpret_cast<S*>(smem4);
  const int T = kBlock >> plog, P = 1 << plog;
  const int g = threadIdx.x >> plog, l = threadIdx.x & (P - 1);
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t q0 = tile * T;
    const int nq = static_cast<int>(min(int64_t(T), Q - q0));
    const S* base = x + q0 * K;
    const int len = nq * K;
    __syncthreads();  // the previous tile's reads of shared memory are done
    // [base, base + len) -> d = s + shift, so that d + head (the first 16-byte-aligned element of the range) is
    // 16-byte aligned in shared memory too: a scalar head (< kE elements), a vector body, a scalar tail (< kE).
    const int shift = static_cast<int>((reinterpret_cast<uintptr_t>(base) % 16) / sizeof(S));
    S* d = s + shift;
    const int head = min((kE - shift) % kE, len);
    const int body = (len - head) / kE;
    const int tail = head + body * kE;
    if (int(threadIdx.x) < head) d[threadIdx.x] = base[threadIdx.x];
    if (tail + int(threadIdx.x) < len) d[tail + threadIdx.x] = base[tail + threadIdx.x];
    const uint4* src = reinterpret_cast<const uint4*>(base + head);
    uint4* dst = reinterpret_cast<uint4*>(d + head);
    // batches of up to 8 loads in flight per thread (a 25 KB tile is ~6 vectors per thread: one round trip)
    for (int i = threadIdx.x; i < body; i += 8 * kBlock) {
      uint4 v[8];
#pragma unroll
      for (int u = 0; u < 8; ++u)
        if (i + u * kBlock < body) v[u] = src[i + u * kBlock];
#pragma unroll
      for (int u = 0; u < 8; ++u)
        if (i + u * kBlock < body) dst[i + u * kBlock] = v[u];
    }
    __syncthreads();
    C sum = C(0);
    if (g < nq) {
      const S* row = d + g * K;
#pragma unroll 4
      for (int k = l; k < K; k += P) sum += Storage<S>::load(row, k);
    }
    for (int off = P >> 1; off > 0; off >>= 1) sum += __shfl_xor_sync(0xFFFFFFFFu, sum, off);
    if (g < nq && l == 0) o.put<C>(q0 + g, 0, sum / static_cast<C>(divisor));
  }
  pdl_allow_dependents();
}

// I > 1: x as [Q][R][IV] 16-byte vectors of V elements. A tile is (q, kCols consecutive vector columns); thread
// (column cx, group ry) sums rows ry, ry + kGroups, ... (up to four loads in flight), then the kGroups partial sums
// of each element are added in group order from shared memory and the tile's kCols * V outputs written (adjacent
// threads, adjacent i).
template <class S>
__global__ void __launch_bounds__(kBlock) plane_sum_cols(const S* x, int64_t R, int64_t IV, int64_t cgroups,
                                                         int64_t tiles, int64_t divisor, Out o) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  using C = Comp<S>;
  constexpr int V = 16 / sizeof(S);
  __shared__ C red[kGroups][kCols * V];
  const int cx = threadIdx.x % kCols, ry = threadIdx.x / kCols;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t q = tile / cgroups;
    const int64_t j0 = (tile - q * cgroups) * kCols;
    C acc[V];
#pragma unroll
    for (int k = 0; k < V; ++k) acc[k] = C(0);
    auto add = [&](const uint4& u) {
      alignas(16) S a[V];
      *reinterpret_cast<uint4*>(a) = u;
#pragma unroll
      for (int k = 0; k < V; ++k) acc[k] += Storage<S>::load(a, k);
    };
    if (j0 + cx < IV) {
      const uint4* p = reinterpret_cast<const uint4*>(x) + q * R * IV + j0 + cx;
      for (int64_t r = ry; r < R; r += 4 * kGroups) {  // up to 4 loads in flight (R <= 64: one round trip)
        uint4 v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u)
          if (r + u * kGroups < R) v[u] = p[(r + u * kGroups) * IV];
#pragma unroll
        for (int u = 0; u < 4; ++u)
          if (r + u * kGroups < R) add(v[u]);
      }
    }
    __syncthreads();  // the previous tile's reads of red are done
#pragma unroll
    for (int k = 0; k < V; ++k) red[ry][cx * V + k] = acc[k];
    __syncthreads();
    for (int t = threadIdx.x; t < kCols * V; t += kBlock) {
      const int c = t / V;
      if (j0 + c >= IV) continue;
      C sum = red[0][t];
      for (int k = 1; k < kGroups; ++k) sum += red[k][t];
      o.put<C>(q, (j0 + c) * V + (t - c * V), sum / static_cast<C>(divisor));
    }
  }
  pdl_allow_dependents();
}

bool float_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

struct Plan {
  bool rows = false;
  int plog = 0;
  size_t smem = 0;
  int64_t tiles = 0, IV = 0, cgroups = 0;
};

bool make_plan(const PlaneSumArgs& a, int device, Plan* p) {
  if (a.Q <= 0 || a.R <= 0 || a.I <= 0 || a.divisor <= 0 || a.D <= 0 || !a.x || !a.out) return false;
  if (!float_type(a.xt) || !float_type(a.ot)) return false;
  const int64_t es = static_cast<int64_t>(dtype_size(a.xt));
  if (reinterpret_cast<uintptr_t>(a.x) % es != 0) return false;
  if (a.I == 1) {
    p->rows = true;
    for (p->plog = 0; p->plog <= 5; ++p->plog) {
      const int64_t T = kBlock >> p->plog;
      const int64_t bytes = (T * a.R + 16 / es) * es;
      if (bytes <= kSmem) {
        p->smem = static_cast<size_t>((bytes + 15) / 16 * 16);
        p->tiles = (a.Q + T - 1) / T;
        return true;
      }
    }
    return false;  // rows over ~1.5 K elements (f32): the callers' other paths
  }
  const int64_t V = 16 / es;
  if (a.I % V != 0 || !aligned16(a.x)) return false;
  p->IV = a.I / V;
  p->cgroups = (p->IV + kCols - 1) / kCols;
  p->tiles = a.Q * p->cgroups;
  // Long columns and few tiles: too little parallelism (the callers' split paths do better).
  if (a.R > 256 && p->tiles < device_info(device).sm_count) return false;
  return true;
}

template <class F>
void with_type(cudnnDataType_t t, F&& f) {
  switch (t) {
    case CUDNN_DATA_FLOAT: f(float{}); break;
    case CUDNN_DATA_DOUBLE: f(double{}); break;
    case CUDNN_DATA_HALF: f(__half{}); break;
    default: f(__nv_bfloat16{}); break;
  }
}

}  // namespace

bool plane_sum_ok(const PlaneSumArgs& a, int device) {
  Plan p;
  return make_plan(a, device, &p);
}

cudnnStatus_t plane_sum(cudaStream_t stream, int device, const PlaneSumArgs& a) {
  Plan p;
  FD_CHECK_SUPPORTED(make_plan(a, device, &p), "plane_sum: problem not supported (Q %lld R %lld I %lld)",
                     static_cast<long long>(a.Q), static_cast<long long>(a.R), static_cast<long long>(a.I));
  Out o;
  o.t = a.ot;
  o.p = a.out;
  o.dq = Divider(a.D, a.Q);
  o.D = a.D;
  o.s0 = a.s0;
  o.s1 = a.s1;
  o.si = a.si;
  o.alpha = a.alpha;
  o.beta = a.beta;
  with_type(a.xt, [&](auto tag) {
    using S = decltype(tag);
    const S* x = static_cast<const S*>(a.x);
    if (p.rows) {
      const void* k = reinterpret_cast<const void*>(plane_sum_rows<S>);
      const int grid = resident_grid(k, p.tiles, 1, kBlock, p.smem, device);
      (void)launch_pdl(ops_pdl(device), plane_sum_rows<S>, dim3(grid), dim3(kBlock), p.smem, stream, x, a.Q,
                       static_cast<int>(a.R), p.plog, p.tiles, a.divisor, o);
    } else {
      const void* k = reinterpret_cast<const void*>(plane_sum_cols<S>);
      const int grid = resident_grid(k, p.tiles, 1, kBlock, 0, device);
      (void)launch_pdl(ops_pdl(device), plane_sum_cols<S>, dim3(grid), dim3(kBlock), 0, stream, x, a.R, p.IV,
                       p.cgroups, p.tiles, a.divisor, o);
    }
  });
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda
