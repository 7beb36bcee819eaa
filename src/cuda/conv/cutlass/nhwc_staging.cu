// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cuda/conv/cutlass/nhwc_staging.h"

#include <algorithm>

#include "cuda/common/cuda_util.h"
#include "cuda/conv/conv_kernels.cuh"

namespace fd::cuda::conv {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

constexpr int kTile = 32, kRows = 8;

// dst (packed Np x H x W x Cp) = src (N, C, H, W through its view), zeros in the padding (channels c >= C, and
// images n >= N: the filters added when K is padded): 32 x 32 tiles of (channel, pixel) transposed through shared
// memory, reads coalesced along pixels for NCHW, writes along channels.
template <class S>
__global__ void to_nhwc_tiled_kernel(View5 v, const S* src, int64_t N, int64_t C, int64_t H, int64_t W, int64_t Np,
                                     int64_t Cp, S* dst) {
  __shared__ S tile[kTile][kTile + 1];
  const int64_t hw = H * W, s0 = int64_t(blockIdx.x) * kTile, c0 = int64_t(blockIdx.y) * kTile;
  for (int64_t n = blockIdx.z; n < Np; n += gridDim.z) {
    for (int j = threadIdx.y; j < kTile; j += kRows) {
      const int64_t c = c0 + j, s = s0 + threadIdx.x;
      if (s < hw) tile[j][threadIdx.x] = n < N && c < C ? src[v.at(n, c, 0, s / W, s % W)] : zero_of<S>();
    }
    __syncthreads();
    for (int j = threadIdx.y; j < kTile; j += kRows) {
      const int64_t s = s0 + j, c = c0 + threadIdx.x;
      if (c < Cp && s < hw) dst[(n * hw + s) * Cp + c] = tile[threadIdx.x][j];
    }
    __syncthreads();
  }
}

// The same copy for sources whose channels are innermost, or whose padded rows are at most one 16-byte vector
// (Cp <= 8 for 16-bit data, e.g. 3 channels padded to 4): one thread per 16 bytes of dst, in dst's order
// (coalesced 16-byte stores; adjacent threads read adjacent channels, or adjacent pixels of an NCHW source).
template <class S>
__global__ void to_nhwc_flat_kernel(View5 v, const S* src, int64_t N, int64_t C, int64_t H, int64_t W, int64_t Cp,
                                    int64_t total, S* dst) {
  constexpr int V = 16 / sizeof(S);
  const int64_t vecs = (total + V - 1) / V;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < vecs; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t e0 = i * V;
    int64_t c = e0 % Cp, t = e0 / Cp;
    int64_t w = t % W, h = (t / W) % H, n = t / W / H;
    uint4 raw;
    S* e = reinterpret_cast<S*>(&raw);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      e[j] = n < N && c < C && e0 + j < total ? src[v.at(n, c, 0, h, w)] : zero_of<S>();
      if (++c == Cp) {
        c = 0;
        if (++w == W) {
          w = 0;
          if (++h == H) h = 0, ++n;
        }
      }
    }
    if (e0 + V <= total) {
      reinterpret_cast<uint4*>(dst)[i] = raw;
    } else {
      for (int j = 0; e0 + j < total; ++j) dst[e0 + j] = e[j];
    }
  }
}

// dst (N, C, H, W through its view) = blend of buf (packed NHWC with Cb >= C channels, the first C of them used):
// the same tiling the other way round.
template <class S>
__global__ void from_nhwc_tiled_kernel(const S* buf, int64_t N, int64_t C, int64_t Cb, int64_t H, int64_t W, View5 v,
                                       S* dst, float alpha, float beta, FusedDev f) {
  __shared__ S tile[kTile][kTile + 1];
  const int64_t hw = H * W, s0 = int64_t(blockIdx.x) * kTile, c0 = int64_t(blockIdx.y) * kTile;
  for (int64_t n = blockIdx.z; n < N; n += gridDim.z) {
    for (int j = threadIdx.y; j < kTile; j += kRows) {
      const int64_t s = s0 + j, c = c0 + threadIdx.x;
      if (c < C && s < hw) tile[j][threadIdx.x] = buf[(n * hw + s) * Cb + c];
    }
    __syncthreads();
    for (int j = threadIdx.y; j < kTile; j += kRows) {
      const int64_t c = c0 + j, s = s0 + threadIdx.x;
      if (c < C && s < hw) {
        const int64_t h = s / W, w = s % W;
        write_out<S, float>(dst, v.at(n, c, 0, h, w), widen(tile[threadIdx.x][j]), alpha, beta, f, n, c, 0, h, w);
      }
    }
    __syncthreads();
  }
}

// The same for outputs whose channels are innermost (NHWC order, any padding): one thread per output element in
// NHWC order. With buf == dst (packed NHWC, Cb == C) it finishes an output in place (each element is read, then
// written, by one thread).
template <class S>
__global__ void from_nhwc_linear_kernel(const S* buf, int64_t total, int64_t C, int64_t Cb, int64_t H, int64_t W,
                                        View5 v, S* dst, float alpha, float beta, FusedDev f) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = i % C, t = i / C, w = t % W, t2 = t / W, h = t2 % H, n = t2 / H;
    write_out<S, float>(dst, v.at(n, c, 0, h, w), widen(buf[t * Cb + c]), alpha, beta, f, n, c, 0, h, w);
  }
}

// The fused epilogue's last step on a packed NHWC y that already holds alpha1 * conv (+ alpha2 * z):
// y = act(y + bias[c]), 16 bytes per thread (C is a multiple of the vector width). Same NaN rule as write_out.
template <class S>
__global__ void bias_act_nhwc_kernel(S* y, int64_t vecs, int64_t C, const S* bias, int64_t bias_stride, bool relu,
                                     bool propagate_nan) {
  constexpr int V = 16 / sizeof(S);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < vecs; i += int64_t(gridDim.x) * blockDim.x) {
    uint4 raw = reinterpret_cast<const uint4*>(y)[i];
    S* e = reinterpret_cast<S*>(&raw);
    const int64_t c0 = (i * V) % C;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      float r = widen(e[j]) + widen(bias[(c0 + j) * bias_stride]);
      if (r != r) {
        if (relu && !propagate_nan) r = 0.f;
      } else if (relu && !(r > 0.f)) {
        r = 0.f;
      }
      store(e, j, r);
    }
    reinterpret_cast<uint4*>(y)[i] = raw;
  }
}

template <class F>
bool with_type(cudnnDataType_t t, F&& f) {
  switch (t) {
    case CUDNN_DATA_HALF: f(__half{}); return true;
    case CUDNN_DATA_BFLOAT16: f(__nv_bfloat16{}); return true;
    case CUDNN_DATA_FLOAT: f(float{}); return true;
    default: return false;
  }
}

dim3 tile_grid(int64_t N, int64_t C, int64_t H, int64_t W) {
  return dim3(static_cast<unsigned>(ceil_div(H * W, kTile)), static_cast<unsigned>(ceil_div(C, kTile)),
              static_cast<unsigned>(std::min<int64_t>(N, 65535)));
}

}  // namespace

cudnnStatus_t to_nhwc(cudaStream_t st, int dev, cudnnDataType_t dt, const cudnnTensorStruct& t, const void* src,
                      void* dst, int64_t Np, int64_t Cp) {
  const int64_t N = t.dims[0], C = t.dims[1], H = t.dims[2], W = t.dims[3];
  const bool channels_inner = C == 1 || t.strides[1] == 1;
  with_type(dt, [&](auto tag) {
    using S = decltype(tag);
    if (channels_inner || Cp * static_cast<int64_t>(sizeof(S)) <= 16) {
      const int64_t total = Np * H * W * Cp, vecs = ceil_div(total, 16 / static_cast<int64_t>(sizeof(S)));
      to_nhwc_flat_kernel<S><<<grid_size(vecs, kBlock, dev), kBlock, 0, st>>>(
          view5(t), static_cast<const S*>(src), N, C, H, W, Cp, total, static_cast<S*>(dst));
    } else {
      to_nhwc_tiled_kernel<S><<<tile_grid(Np, Cp, H, W), dim3(kTile, kRows), 0, st>>>(
          view5(t), static_cast<const S*>(src), N, C, H, W, Np, Cp, static_cast<S*>(dst));
    }
  });
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t from_nhwc(cudaStream_t st, int dev, cudnnDataType_t dt, const void* buf, int64_t Cb,
                        const cudnnTensorStruct& t, void* dst, float alpha, float beta,
                        const fd::conv::FusedEpilogue* fused) {
  const FusedDev f = fused_dev(fused);
  const int64_t N = t.dims[0], C = t.dims[1], H = t.dims[2], W = t.dims[3];
  const bool channels_inner = C == 1 || t.strides[1] == 1;
  with_type(dt, [&](auto tag) {
    using S = decltype(tag);
    if (channels_inner) {
      const int64_t total = N * C * H * W;
      from_nhwc_linear_kernel<S><<<grid_size(total, kBlock, dev), kBlock, 0, st>>>(
          static_cast<const S*>(buf), total, C, Cb, H, W, view5(t), static_cast<S*>(dst), alpha, beta, f);
    } else {
      from_nhwc_tiled_kernel<S><<<tile_grid(N, C, H, W), dim3(kTile, kRows), 0, st>>>(
          static_cast<const S*>(buf), N, C, Cb, H, W, view5(t), static_cast<S*>(dst), alpha, beta, f);
    }
  });
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t bias_act_nhwc(cudaStream_t st, int dev, cudnnDataType_t dt, void* y, int64_t count, int64_t C,
                            const fd::conv::FusedEpilogue& e) {
  const FusedDev f = fused_dev(&e);
  with_type(dt, [&](auto tag) {
    using S = decltype(tag);
    const int64_t vecs = count * static_cast<int64_t>(sizeof(S)) / 16;
    bias_act_nhwc_kernel<S><<<grid_size(vecs, kBlock, dev), kBlock, 0, st>>>(
        static_cast<S*>(y), vecs, C, static_cast<const S*>(e.bias_data), e.bias->strides[1], f.relu, f.propagate_nan);
  });
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv
