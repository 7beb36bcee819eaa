// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The space-to-depth copies of s2d_staging.h. Both are gathers, one thread per output element in z's (w's) order,
// so the stores are coalesced; the reads of x are scattered over s * s * C values per output pixel (a stem's x is
// 19 MB in f16 and sits in the L2 after the first touch). z is 1.2x x's size for the stem (115 x 115 x 12 against
// 224 x 224 x 3), so the copy costs about 2.2 passes over x: ~10 us for N = 64 in f16 at 4 TB/s.
#include "cuda/conv/cutlass/s2d_staging.h"

#include <climits>

#include "cuda/common/cuda_util.h"
#include "cuda/common/index.cuh"
#include "cuda/conv/conv_kernels.cuh"

namespace fd::cuda::conv {
namespace {

// i over (n, u, v, j) of z, j fastest; j = (b_h * s + b_w) * C + c below s * s * C, padding channels above.
template <class S>
__global__ void __launch_bounds__(kBlock) s2d_input_kernel(View5 xv, const S* x, S* z, int64_t total, Divider dj,
                                                           Divider dv, Divider du, int64_t Cz, int64_t C, int64_t H,
                                                           int64_t W, int64_t U, int64_t V, int s, int64_t pad_h,
                                                           int64_t pad_w) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t t0 = dj.div(i), j = i - t0 * Cz;
    const int64_t t1 = dv.div(t0), v = t0 - t1 * V;
    const int64_t n = du.div(t1), u = t1 - n * U;
    S val = zero_of<S>();
    if (j < C * s * s) {
      const int64_t c = j % C, b = j / C, bh = b / s, bw = b - bh * s;
      const int64_t h = s * u + bh - pad_h, w = s * v + bw - pad_w;
      if (h >= 0 && h < H && w >= 0 && w < W) val = x[xv.at(n, c, 0, h, w)];
    }
    z[i] = val;
  }
}

// i over (k, a_h, a_w, j) of w'; the filters are tiny, so plain divisions.
template <class S>
__global__ void __launch_bounds__(kBlock) s2d_filter_kernel(View5 wv, const S* w, S* wz, int64_t total, int64_t K,
                                                            int64_t C, int64_t R, int64_t Sw, int64_t Rs, int64_t Ss,
                                                            int64_t Cz, int s, bool flip) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = i % Cz, t = i / Cz, aw = t % Ss, t2 = t / Ss, ah = t2 % Rs, k = t2 / Rs;
    S val = zero_of<S>();
    if (k < K && j < C * s * s) {
      const int64_t c = j % C, b = j / C, bh = b / s, bw = b - bh * s;
      const int64_t r = s * ah + bh, q = s * aw + bw;  // tap of the effective (flipped) filter
      if (r < R && q < Sw) val = w[wv.at(k, c, 0, flip ? R - 1 - r : r, flip ? Sw - 1 - q : q)];
    }
    wz[i] = val;
  }
}

}  // namespace

S2dShape s2d_shape(int64_t C, int64_t R, int64_t S, int64_t P, int64_t Q, int s, int64_t channel_multiple) {
  S2dShape sh;
  sh.s = s;
  sh.Rs = (R + s - 1) / s;
  sh.Ss = (S + s - 1) / s;
  sh.U = P + sh.Rs - 1;
  sh.V = Q + sh.Ss - 1;
  const int64_t m = channel_multiple < 1 ? 1 : channel_multiple;
  sh.Cz = (int64_t{s} * s * C + m - 1) / m * m;
  return sh;
}

cudnnStatus_t s2d_input(cudaStream_t st, int dev, cudnnDataType_t dt, const cudnnTensorStruct& x, const void* src,
                        const S2dShape& sh, int64_t pad_h, int64_t pad_w, void* z) {
  const int64_t N = x.dims[0], C = x.dims[1], H = x.dims[2], W = x.dims[3];
  const int64_t total = N * sh.U * sh.V * sh.Cz;
  const Divider dj(sh.Cz, total), dv(sh.V, total / sh.Cz), du(sh.U, total / (sh.Cz * sh.V));
  const View5 xv = view5(x);
  const bool known = with_tensor_core_storage(dt, [&](auto tag) {
    using S = decltype(tag);
    s2d_input_kernel<S><<<grid_size(total, kBlock, dev), kBlock, 0, st>>>(
        xv, static_cast<const S*>(src), static_cast<S*>(z), total, dj, dv, du, sh.Cz, C, H, W, sh.U, sh.V, sh.s, pad_h,
        pad_w);
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
        wv, static_cast<const T*>(src), static_cast<T*>(wz), total, K, C, R, S, sh.Rs, sh.Ss, sh.Cz, sh.s, flip);
  });
  FD_CHECK_SUPPORTED(known, "space-to-depth staging has no kernel for this data type");
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv
