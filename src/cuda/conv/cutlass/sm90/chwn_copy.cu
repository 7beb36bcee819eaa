// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The transposing copy of chwn_copy.h: 32 x 32 tiles through shared memory, reads coalesced along the source's
// contiguous dim, writes along n (128 bytes per row of 32 elements).
#include "cuda/conv/cutlass/sm90/chwn_copy.h"

#include <climits>
#include <cstdlib>

#include "cuda/common/cuda_util.h"
#include "cuda/common/digits.cuh"

namespace fd::cuda::conv::sm90 {
namespace {

constexpr int kT = 32, kRows = 8;  // 32 x 32 elements, 32 x 8 threads

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// i runs over (a, u, v) of dst: with v fastest (dst's own order) when the source is contiguous along v (NCHW), or
// with a fastest (u, v, a) when it is contiguous along a (NHWC's channels): reads along i are then coalesced.
template <class E>
struct ChwnArgs {
  const E* src = nullptr;
  E* dst = nullptr;
  int64_t sn = 0, sa = 0, su = 0, sv = 0;  // source element strides
  int64_t N = 0, A = 0, Ap = 0, U = 0, V = 0, Np = 0;
  bool a_inner = false;
  Divider d_fast, d_mid;  // v-fastest: V, U; a-fastest: Ap, V
};

template <class E>
__device__ __forceinline__ void chwn_split(const ChwnArgs<E>& g, int64_t i, int64_t& a, int64_t& u, int64_t& v) {
  if (g.a_inner) {
    const Digits3 d = digits3(i, g.d_fast, g.Ap, g.d_mid, g.V);
    a = d.lo, v = d.mid, u = d.hi;
  } else {
    const Digits3 d = digits3(i, g.d_fast, g.V, g.d_mid, g.U);
    v = d.lo, u = d.mid, a = d.hi;
  }
}

// One 32 (i) x 32 (n) tile through shared memory: reads coalesced along i, writes along n (128 bytes per row of
// 32 channels). Zeros for n >= N and a >= A (the padding of N and K).
// E: the element moved as bits (float, or a 16-bit type's uint16_t).
template <class E>
__global__ void __launch_bounds__(kT * kRows) to_chwn_kernel(ChwnArgs<E> g) {
  __shared__ E tile[kT][kT + 1];
  const int64_t I = g.Ap * g.U * g.V;
  const int64_t i0 = int64_t(blockIdx.x) * kT, n0 = int64_t(blockIdx.y) * kT;
  const int tx = threadIdx.x, ty = threadIdx.y;
  {
    const int64_t i = i0 + tx;
    int64_t a = 0, u = 0, v = 0;
    if (i < I) chwn_split(g, i, a, u, v);
    const bool live = i < I && a < g.A;
    const int64_t base = a * g.sa + u * g.su + v * g.sv;
#pragma unroll
    for (int j = 0; j < kT / kRows; ++j) {
      const int64_t n = n0 + ty + j * kRows;
      tile[ty + j * kRows][tx] = live && n < g.N ? g.src[base + n * g.sn] : E(0);
    }
  }
  __syncthreads();
  const int64_t n = n0 + tx;
  if (n >= g.Np) return;
#pragma unroll
  for (int j = 0; j < kT / kRows; ++j) {
    const int64_t i = i0 + ty + j * kRows;
    if (i >= I) break;
    int64_t row = i;  // dst row (a * U + u) * V + v
    if (g.a_inner) {
      int64_t a = 0, u = 0, v = 0;
      chwn_split(g, i, a, u, v);
      row = (a * g.U + u) * g.V + v;
    }
    g.dst[row * g.Np + n] = tile[tx][ty + j * kRows];
  }
}

// dst (packed Ap x U x V x Np elements) from src with element strides (sn, sa, su, sv) of its (n, a, u, v) dims.
template <class E>
cudnnStatus_t to_chwn_of(cudaStream_t st, const E* src, const int64_t* strides, int64_t N, int64_t A, int64_t Ap,
                         int64_t U, int64_t V, int64_t Np, E* dst) {
  ChwnArgs<E> g;
  g.src = src, g.dst = dst;
  g.sn = strides[0], g.sa = strides[1], g.su = strides[2], g.sv = strides[3];
  g.N = N, g.A = A, g.Ap = Ap, g.U = U, g.V = V, g.Np = Np;
  // the stride the v-fastest order reads along (magnitudes: a flipped filter's taps step backwards)
  const int64_t along_v = V > 1 ? std::abs(g.sv) : U > 1 ? std::abs(g.su) : INT64_MAX;
  g.a_inner = A > 1 && std::abs(g.sa) < along_v;
  const int64_t I = Ap * U * V;
  if (g.a_inner) {
    g.d_fast = Divider(Ap, I), g.d_mid = Divider(V, I / Ap);
  } else {
    g.d_fast = Divider(V, I), g.d_mid = Divider(U, I / V);
  }
  const dim3 grid(static_cast<unsigned>(ceil_div(I, kT)), static_cast<unsigned>(ceil_div(Np, kT)));
  to_chwn_kernel<E><<<grid, dim3(kT, kRows), 0, st>>>(g);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

cudnnStatus_t to_chwn(cudaStream_t st, const float* src, const int64_t* strides, int64_t N, int64_t A, int64_t Ap,
                      int64_t U, int64_t V, int64_t Np, float* dst) {
  return to_chwn_of(st, src, strides, N, A, Ap, U, V, Np, dst);
}

cudnnStatus_t to_chwn(cudaStream_t st, const uint16_t* src, const int64_t* strides, int64_t N, int64_t A, int64_t Ap,
                      int64_t U, int64_t V, int64_t Np, uint16_t* dst) {
  return to_chwn_of(st, src, strides, N, A, Ap, U, V, Np, dst);
}


}  // namespace fd::cuda::conv::sm90
