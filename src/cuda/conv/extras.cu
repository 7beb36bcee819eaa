// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The convolution-family routines that are not registry implementations, on the GPU: cudnnConvolutionBackwardBias
// (one block per channel, a fixed-order tree reduction: deterministic), cudnnIm2Col and the copy of
// cudnnReorderFilterAndBias.
#include <cstdint>

#include "core/dtype.h"
#include "core/handle.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/impls.h"

namespace fd::cuda::conv {
namespace {

constexpr int kReduceBlock = 256;

// db[c] = alpha * sum over (n, rest) of dy[n][c][rest] + beta * db[c]; one block per channel.
template <class S, class A>
__global__ void bias_grad_kernel(TensorView dyv, const S* dy, int64_t n, int64_t c, int64_t plane, TensorView dbv,
                                 S* db, A alpha, A beta) {
  __shared__ A part[kReduceBlock];
  const int64_t ch = blockIdx.x;
  A acc = A(0);
  for (int64_t i = threadIdx.x; i < n * plane; i += blockDim.x) {
    const int64_t img = i / plane, j = i - img * plane;
    acc += load_as<A>(dy, dyv.offset((img * c + ch) * plane + j));
  }
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int s = kReduceBlock / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const int64_t off = dbv.offset(ch);
    A r = alpha * part[0];
    if (beta != A(0)) r += beta * load_as<A>(db, off);
    store(db, off, r);
  }
}

// col[n][r][o] = x[n][c][o*s - p + tap*dil] (0 in the padding), r = c * ks + j, tap = j (reversed for
// CUDNN_CONVOLUTION); raw copies of x's scalars (U: an unsigned type of the scalar's size).
template <class U>
__global__ void im2col_buffer_kernel(Geom g, View5 xv, const U* x, U* col) {
  const int64_t ks = g.ksp(), osp = g.osp(), rows = g.ic * ks, total = g.mb * rows * osp;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t o = i % osp, t = i / osp, r = t % rows, n = t / rows;
    const int64_t c = r / ks, j = r % ks, e = g.flip ? ks - 1 - j : j;
    const int64_t ow = o % g.ow, oh = (o / g.ow) % g.oh, od = o / (g.ow * g.oh);
    const int64_t kw = e % g.kw, kh = (e / g.kw) % g.kh, kd = e / (g.kw * g.kh);
    const int64_t id = od * g.sd - g.pd + kd * g.dd, ih = oh * g.sh - g.ph + kh * g.dh,
                  iw = ow * g.sw - g.pw + kw * g.dw;
    const bool in = id >= 0 && id < g.id && ih >= 0 && ih < g.ih && iw >= 0 && iw < g.iw;
    col[i] = in ? x[xv.at(n, c, id, ih, iw)] : U(0);
  }
}

}  // namespace

cudnnStatus_t bias_grad(cudnnContext* h, const cudnnTensorStruct& dyd, const void* dy, const cudnnTensorStruct& dbd,
                        void* db, double alpha, double beta) {
  const int64_t n = dyd.dims[0], c = dyd.dims[1], plane = dyd.element_count() / (n * c);
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  const bool known = with_float_storage(dyd.dtype, [&](auto tag) {
    using S = decltype(tag);
    using A = ComputeOf<S>;
    bias_grad_kernel<S, A><<<static_cast<unsigned>(c), kReduceBlock, 0, h->stream>>>(
        make_view(dyd), static_cast<const S*>(dy), n, c, plane, make_view(dbd), static_cast<S*>(db),
        static_cast<A>(alpha), static_cast<A>(beta));
  });
  FD_CHECK_SUPPORTED(known, "no CUDA backward bias for %s", dtype_short_name(dyd.dtype));
  FD_CUDA_LAUNCHED();
  return st;
}

cudnnStatus_t im2col_buffer(cudnnContext* h, const fd::ConvProblem& p, const void* x, void* col) {
  const Geom g = geom(p);
  const View5 xv = view5(*p.x);
  const int64_t total = p.mb * p.ic * p.ksp() * p.osp();
  const int blocks = grid_size(total, kBlock, h->device);
  switch (dtype_size(dtype_scalar(p.xdt))) {
    case 1:
      im2col_buffer_kernel<uint8_t><<<blocks, kBlock, 0, h->stream>>>(g, xv, static_cast<const uint8_t*>(x),
                                                                     static_cast<uint8_t*>(col));
      break;
    case 2:
      im2col_buffer_kernel<uint16_t><<<blocks, kBlock, 0, h->stream>>>(g, xv, static_cast<const uint16_t*>(x),
                                                                      static_cast<uint16_t*>(col));
      break;
    case 4:
      im2col_buffer_kernel<uint32_t><<<blocks, kBlock, 0, h->stream>>>(g, xv, static_cast<const uint32_t*>(x),
                                                                      static_cast<uint32_t*>(col));
      break;
    case 8:
      im2col_buffer_kernel<uint64_t><<<blocks, kBlock, 0, h->stream>>>(g, xv, static_cast<const uint64_t*>(x),
                                                                      static_cast<uint64_t*>(col));
      break;
    default: FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "no CUDA im2col for %s", dtype_short_name(p.xdt));
  }
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t copy_bytes(cudnnContext* h, void* dst, const void* src, size_t bytes) {
  FD_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, h->stream));
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv
