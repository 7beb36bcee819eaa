// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The space-to-depth copies of s2d_staging.h. The input copy writes z one 16-byte (or narrower, as Cz allows) vector
// per thread: a vector stays inside one pixel of z, so the pixel's (n, u, v) takes three multiply-high divisions per
// vector and each of its channels one shared-memory table entry (x's offset and the row / column shift of that
// channel, built once per block), not the per-element 64-bit divisions by C and s that made the copy compute-bound
// (the f16 stem: 72 us at 313 GB/s, ncu on the H200). For the stem z is 1.05x x's size (115 x 115 x 12 against
// 224 x 224 x 3), 1.4x with 16 channels, 4.1x folded (115 x 112 x 48); x sits in the L2 after the first touch, so
// the copy should take ~11 us for N = 64 in f16 at 3.5 TB/s (folded ~28 us). The filter copy is tiny: one thread
// per element.
#include "cuda/conv/cutlass/s2d_staging.h"

#include <climits>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/index.cuh"
#include "cuda/conv/conv_kernels.cuh"

namespace fd::cuda::conv {
namespace {

// z's channel t: x's element offset from (n, 0, s * u, s * v) (through x's strides) and the (h, w) shift it reads.
struct alignas(16) S2dTap {
  int64_t off = 0;
  int dh = INT_MIN, dw = 0;  // padding channels keep dh = INT_MIN: no row of x
};

// The input copy's arguments: x's 4-D view (vect > 1: NCHW_VECT_C, strides in vectors) and z's shape.
struct S2dIn {
  S2dShape sh;
  int64_t st_n = 0, st_c = 0, st_h = 0, st_w = 0;
  int vect = 1;
  int64_t C = 1, H = 1, W = 1, pad_h = 0, pad_w = 0;
  int64_t vectors = 0;  // z's elements / the vector width
  Divider dz, dv, du;   // by Cz (z's elements), V and U (z's pixels)
};

__device__ S2dTap make_tap(const S2dIn& a, int64_t t) {
  S2dTap tp;
  const int s = a.sh.s;
  const int64_t tap = t / a.sh.Cg, j = t - tap * a.sh.Cg;
  if (tap >= a.sh.taps_w || j >= a.C * s * s) return tp;
  const int64_t c = j % a.C, b = j / a.C, bh = b / s, bw = b - bh * s;
  const int64_t dh = bh - a.pad_h, dw = s * tap + bw - a.pad_w;
  tp.dh = static_cast<int>(dh);
  tp.dw = static_cast<int>(dw);
  tp.off = (dh * a.st_h + dw * a.st_w + c / a.vect * a.st_c) * a.vect + c % a.vect;
  return tp;
}

// The unsigned type of B bytes that one store of a vector uses.
template <int B>
using RawBits = std::conditional_t<
    B == 16, uint4, std::conditional_t<B == 8, uint2, std::conditional_t<B == 4, unsigned, unsigned short>>>;

// Vector i of z (kVec elements; Cz % kVec == 0, so z's size too), in z's order: the stores are coalesced, the
// reads of x gather s * s * C values per pixel from s rows.
template <class S, int kVec>
__global__ void __launch_bounds__(kBlock) s2d_input_kernel(S2dIn a, const S* __restrict__ x, S* __restrict__ z) {
  __shared__ S2dTap taps[kS2dMaxChannels];
  for (int t = threadIdx.x; t < a.sh.Cz; t += blockDim.x) taps[t] = make_tap(a, t);
  __syncthreads();
  using Raw = RawBits<kVec * static_cast<int>(sizeof(S))>;
  static_assert(sizeof(Raw) == kVec * sizeof(S), "one store per vector");
  const int64_t s = a.sh.s;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < a.vectors;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t e = i * kVec, pix = a.dz.div(e), t0 = e - pix * a.sh.Cz;
    const int64_t nu = a.dv.div(pix), v = pix - nu * a.sh.V, n = a.du.div(nu), u = nu - n * a.sh.U;
    const int64_t hb = s * u, wb = s * v, base = (n * a.st_n + hb * a.st_h + wb * a.st_w) * a.vect;
    S vals[kVec];
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      const S2dTap tp = taps[t0 + k];
      const int64_t h = hb + tp.dh, w = wb + tp.dw;
      vals[k] = h >= 0 && h < a.H && w >= 0 && w < a.W ? x[base + tp.off] : zero_of<S>();
    }
    Raw r;
    memcpy(&r, vals, sizeof r);
    reinterpret_cast<Raw*>(z)[i] = r;
  }
}

template <class S>
void launch_input(const S2dIn& a, int vec, const void* x, void* z, int dev, cudaStream_t st) {
  const int grid = grid_size(a.vectors, kBlock, dev);
  const auto* xs = static_cast<const S*>(x);
  auto* zs = static_cast<S*>(z);
  switch (vec) {
    case 1: s2d_input_kernel<S, 1><<<grid, kBlock, 0, st>>>(a, xs, zs); break;
    case 2: s2d_input_kernel<S, 2><<<grid, kBlock, 0, st>>>(a, xs, zs); break;
    case 4: s2d_input_kernel<S, 4><<<grid, kBlock, 0, st>>>(a, xs, zs); break;
    default:
      if constexpr (sizeof(S) == 2) s2d_input_kernel<S, 8><<<grid, kBlock, 0, st>>>(a, xs, zs);
      break;
  }
}

// i over (k, a_h, a_w, t) of w'; the filters are tiny, so plain divisions.
template <class S>
__global__ void __launch_bounds__(kBlock) s2d_filter_kernel(View5 wv, const S* w, S* wz, S2dShape sh, int64_t total,
                                                            int64_t K, int64_t C, int64_t R, int64_t Sw, bool flip) {
  const int s = sh.s;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t t = i % sh.Cz, rest = i / sh.Cz, aw = rest % sh.Ss, t2 = rest / sh.Ss, ah = t2 % sh.Rs,
                  k = t2 / sh.Rs;
    const int64_t tap = t / sh.Cg, j = t - tap * sh.Cg;
    S val = zero_of<S>();
    if (k < K && tap < sh.taps_w && j < C * s * s) {
      const int64_t c = j % C, b = j / C, bh = b / s, bw = b - bh * s;
      const int64_t r = s * ah + bh, q = s * (aw + tap) + bw;  // tap of the effective (flipped) filter
      if (r < R && q < Sw) val = w[wv.at(k, c, 0, flip ? R - 1 - r : r, flip ? Sw - 1 - q : q)];
    }
    wz[i] = val;
  }
}

}  // namespace

S2dShape s2d_shape(int64_t C, int64_t R, int64_t S, int64_t P, int64_t Q, int s, int64_t channel_multiple,
                   bool fold_w) {
  S2dShape sh;
  sh.s = s;
  sh.Rs = (R + s - 1) / s;
  const int64_t taps = (S + s - 1) / s, group = int64_t{s} * s * C;
  sh.taps_w = fold_w ? taps : 1;
  sh.Ss = fold_w ? 1 : taps;
  sh.U = P + sh.Rs - 1;
  sh.V = Q + sh.Ss - 1;
  const int64_t m = channel_multiple < 1 ? 1 : channel_multiple;
  sh.Cz = (sh.taps_w * group + m - 1) / m * m;
  sh.Cg = fold_w ? group : sh.Cz;
  return sh;
}

cudnnStatus_t s2d_input(cudaStream_t st, int dev, cudnnDataType_t dt, const cudnnTensorStruct& x, const void* src,
                        const S2dShape& sh, int64_t pad_h, int64_t pad_w, void* z) {
  FD_CHECK_SUPPORTED(sh.Cz >= 1 && sh.Cz <= kS2dMaxChannels, "space-to-depth staging: %lld channels (at most %lld)",
                     static_cast<long long>(sh.Cz), static_cast<long long>(kS2dMaxChannels));
  const View5 xv = view5(x);
  S2dIn a;
  a.sh = sh;
  a.st_n = xv.st[0], a.st_c = xv.st[1], a.st_h = xv.st[3], a.st_w = xv.st[4], a.vect = xv.vect;
  a.C = x.dims[1], a.H = x.dims[2], a.W = x.dims[3], a.pad_h = pad_h, a.pad_w = pad_w;
  const int64_t pixels = x.dims[0] * sh.U * sh.V, total = pixels * sh.Cz;
  // The widest vector (16 bytes at most) that divides Cz: vectors never straddle two pixels.
  const int64_t es = static_cast<int64_t>(dtype_size(dt));
  int vec = static_cast<int>(16 / (es > 0 ? es : 1));
  while (vec > 1 && sh.Cz % vec != 0) vec /= 2;
  a.vectors = total / vec;
  a.dz = Divider(sh.Cz, total), a.dv = Divider(sh.V, pixels), a.du = Divider(sh.U, pixels / sh.V);
  const bool known = with_tensor_core_storage(dt, [&](auto tag) {
    launch_input<decltype(tag)>(a, vec, src, z, dev, st);
  });
  FD_CHECK_SUPPORTED(known, "space-to-depth staging has no kernel for this data type");
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t s2d_filter(cudaStream_t st, int dev, cudnnDataType_t dt, const cudnnTensorStruct& w, const void* src,
                         const S2dShape& sh, int64_t Kp, bool flip, void* wz) {
  const int64_t K = w.dims[0], C = w.dims[1], R = w.dims[2], S = w.dims[3];
  const int64_t total = Kp * sh.Rs * sh.Ss * sh.Cz;
  const View5 wv = view5(w);
  const bool known = with_tensor_core_storage(dt, [&](auto tag) {
    using T = decltype(tag);
    s2d_filter_kernel<T><<<grid_size(total, kBlock, dev), kBlock, 0, st>>>(
        wv, static_cast<const T*>(src), static_cast<T*>(wz), sh, total, K, C, R, S, flip);
  });
  FD_CHECK_SUPPORTED(known, "space-to-depth staging has no kernel for this data type");
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv
