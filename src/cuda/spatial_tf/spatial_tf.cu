// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Spatial transformer on the GPU (see spatial_tf.h and src/cpu/spatial_tf/spatial_tf.h for the conventions).
// theta (N, 2, 3) and the grid (N, H, W, 2) are packed; x, y, dx, dy are 4-D tensors with any strides. Storage types
// are runtime values, compute in float (double for DOUBLE).
#include "cuda/spatial_tf/spatial_tf.h"

#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/dyn_tensor.cuh"

namespace fd::cuda {
namespace {

constexpr int kBlock = 256;

#define FD_GRID_LOOP(i, n) \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n); i += int64_t(gridDim.x) * blockDim.x)

__device__ __forceinline__ float dfloor(float v) { return floorf(v); }
__device__ __forceinline__ double dfloor(double v) { return floor(v); }

template <class C>
__device__ __forceinline__ C norm_coord(int64_t i, int64_t n) {
  return n > 1 ? C(-1) + C(2) * static_cast<C>(i) / static_cast<C>(n - 1) : C(0);
}

// A 4-D tensor's strides.
struct T4 {
  int64_t s[4];
  __device__ __forceinline__ int64_t at(int64_t b, int64_t c, int64_t r, int64_t col) const {
    return b * s[0] + c * s[1] + r * s[2] + col * s[3];
  }
};
T4 t4(const cudnnTensorStruct& d) { return T4{{d.strides[0], d.strides[1], d.strides[2], d.strides[3]}}; }

template <class C>
struct Taps {
  int64_t x0, y0;
  C fx, fy, scale_x, scale_y;
};

template <class C>
__device__ __forceinline__ Taps<C> taps(C gx, C gy, int64_t h, int64_t w) {
  Taps<C> t;
  t.scale_x = static_cast<C>(w - 1) / C(2);
  t.scale_y = static_cast<C>(h - 1) / C(2);
  const C px = (gx + C(1)) * t.scale_x, py = (gy + C(1)) * t.scale_y;
  const C fx0 = dfloor(px), fy0 = dfloor(py);
  t.x0 = static_cast<int64_t>(fx0);
  t.y0 = static_cast<int64_t>(fy0);
  t.fx = px - fx0;
  t.fy = py - fy0;
  return t;
}

__device__ __forceinline__ bool finite_taps(double gx, double gy) {
  return isfinite(gx) && isfinite(gy) && fabs(gx) < 1e9 && fabs(gy) < 1e9;
}

// Input value at (r, col) of plane (b, ch), 0 outside.
template <class C>
__device__ __forceinline__ C at(cudnnDataType_t t, const void* x, const T4& xs, int64_t b, int64_t ch, int64_t h,
                                int64_t w, int64_t r, int64_t col) {
  return (r >= 0 && r < h && col >= 0 && col < w) ? load_dyn<C>(t, x, xs.at(b, ch, r, col)) : C(0);
}

template <class C>
__global__ void grid_fwd(cudnnDataType_t t, const void* theta, void* grid, int64_t n, int64_t h, int64_t w) {
  FD_GRID_LOOP(i, n * h * w) {
    const int64_t b = i / (h * w), r = (i / w) % h, c = i % w;
    const C xt = norm_coord<C>(c, w), yt = norm_coord<C>(r, h);
    C th[6];
#pragma unroll
    for (int k = 0; k < 6; ++k) th[k] = load_dyn<C>(t, theta, b * 6 + k);
    store_dyn<C>(t, grid, 2 * i, th[0] * xt + th[1] * yt + th[2]);
    store_dyn<C>(t, grid, 2 * i + 1, th[3] * xt + th[4] * yt + th[5]);
  }
}

// One block per batch entry: dtheta[b] = sum over the output positions (block reduction, fixed order).
template <class C>
__global__ void grid_bwd(cudnnDataType_t t, const void* dgrid, void* dtheta, int64_t h, int64_t w) {
  __shared__ C scratch[32];
  const int64_t b = blockIdx.x;
  C acc[6] = {C(0), C(0), C(0), C(0), C(0), C(0)};
  for (int64_t pos = threadIdx.x; pos < h * w; pos += blockDim.x) {
    const int64_t r = pos / w, c = pos % w;
    const C xt = norm_coord<C>(c, w), yt = norm_coord<C>(r, h);
    const int64_t gi = 2 * (b * h * w + pos);
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const C g = load_dyn<C>(t, dgrid, gi + k);
      acc[3 * k] += g * xt;
      acc[3 * k + 1] += g * yt;
      acc[3 * k + 2] += g;
    }
  }
  for (int k = 0; k < 6; ++k) {
    const C s = block_reduce(acc[k], scratch, [](C a, C v) { return a + v; }, C(0));
    if (threadIdx.x == 0) store_dyn<C>(t, dtheta, b * 6 + k, s);
  }
}

// One thread per output element (b, ch, pos).
template <class C>
__global__ void sampler_fwd(cudnnDataType_t t, const void* x, T4 xs, const void* grid, TensorView yv, void* y,
                            int64_t c, int64_t h, int64_t w, int64_t ho, int64_t wo, int64_t total, C alpha, C beta) {
  FD_GRID_LOOP(i, total) {
    const int64_t hw = ho * wo;
    const int64_t b = i / (c * hw), ch = (i / hw) % c, pos = i % hw;
    const int64_t gi = 2 * (b * hw + pos);
    const C gx = load_dyn<C>(t, grid, gi), gy = load_dyn<C>(t, grid, gi + 1);
    C r;
    if (!finite_taps(gx, gy)) {
      r = isnan(gx + gy) ? gx + gy : C(0);
    } else {
      const Taps<C> tp = taps(gx, gy, h, w);
      const C top = (C(1) - tp.fx) * at<C>(t, x, xs, b, ch, h, w, tp.y0, tp.x0) +
                    tp.fx * at<C>(t, x, xs, b, ch, h, w, tp.y0, tp.x0 + 1);
      const C bot = (C(1) - tp.fx) * at<C>(t, x, xs, b, ch, h, w, tp.y0 + 1, tp.x0) +
                    tp.fx * at<C>(t, x, xs, b, ch, h, w, tp.y0 + 1, tp.x0 + 1);
      r = (C(1) - tp.fy) * top + tp.fy * bot;
    }
    blend_dyn<C>(t, y, yv.offset(i), r, alpha, beta);
  }
}

// dx scatter: one thread per dy element, atomic adds into the packed (N, C, H, W) accumulator.
template <class C>
__global__ void sampler_bwd_dx(cudnnDataType_t t, const void* grid, const void* dy, TensorView gv, C* acc, int64_t c,
                               int64_t h, int64_t w, int64_t ho, int64_t wo, int64_t total) {
  FD_GRID_LOOP(i, total) {
    const int64_t hw = ho * wo;
    const int64_t b = i / (c * hw), ch = (i / hw) % c, pos = i % hw;
    const int64_t gi = 2 * (b * hw + pos);
    const C gx = load_dyn<C>(t, grid, gi), gy = load_dyn<C>(t, grid, gi + 1);
    if (!finite_taps(gx, gy)) continue;
    const Taps<C> tp = taps(gx, gy, h, w);
    const C d = load_dyn<C>(t, dy, gv.offset(i));
    C* plane = acc + (b * c + ch) * h * w;
    auto add = [&](int64_t r, int64_t col, C v) {
      if (r >= 0 && r < h && col >= 0 && col < w) atomicAdd(plane + r * w + col, v);
    };
    add(tp.y0, tp.x0, (C(1) - tp.fy) * (C(1) - tp.fx) * d);
    add(tp.y0, tp.x0 + 1, (C(1) - tp.fy) * tp.fx * d);
    add(tp.y0 + 1, tp.x0, tp.fy * (C(1) - tp.fx) * d);
    add(tp.y0 + 1, tp.x0 + 1, tp.fy * tp.fx * d);
  }
}

template <class C>
__global__ void blend_packed(cudnnDataType_t t, const C* v, TensorView yv, void* y, int64_t total, C alpha, C beta) {
  FD_GRID_LOOP(i, total) blend_dyn<C>(t, y, yv.offset(i), v[i], alpha, beta);
}

// dgrid: one thread per sample point, summed over channels in order.
template <class C>
__global__ void sampler_bwd_dgrid(cudnnDataType_t t, const void* x, T4 xs, const void* grid, const void* dy, T4 gs,
                                  void* dgrid, int64_t n, int64_t c, int64_t h, int64_t w, int64_t ho, int64_t wo,
                                  C alpha, C beta) {
  FD_GRID_LOOP(i, n * ho * wo) {
    const int64_t hw = ho * wo;
    const int64_t b = i / hw, pos = i % hw;
    const C gx = load_dyn<C>(t, grid, 2 * i), gy = load_dyn<C>(t, grid, 2 * i + 1);
    C dx = C(0), dyv = C(0);
    if (finite_taps(gx, gy)) {
      const Taps<C> tp = taps(gx, gy, h, w);
      const int64_t r = pos / wo, col = pos % wo;
      C sx = C(0), sy = C(0);
      for (int64_t ch = 0; ch < c; ++ch) {
        const C d = load_dyn<C>(t, dy, gs.at(b, ch, r, col));
        const C v00 = at<C>(t, x, xs, b, ch, h, w, tp.y0, tp.x0), v01 = at<C>(t, x, xs, b, ch, h, w, tp.y0, tp.x0 + 1);
        const C v10 = at<C>(t, x, xs, b, ch, h, w, tp.y0 + 1, tp.x0);
        const C v11 = at<C>(t, x, xs, b, ch, h, w, tp.y0 + 1, tp.x0 + 1);
        sx += d * ((C(1) - tp.fy) * (v01 - v00) + tp.fy * (v11 - v10));
        sy += d * ((C(1) - tp.fx) * (v10 - v00) + tp.fx * (v11 - v01));
      }
      dx = sx * tp.scale_x;
      dyv = sy * tp.scale_y;
    }
    blend_dyn<C>(t, dgrid, 2 * i, dx, alpha, beta);
    blend_dyn<C>(t, dgrid, 2 * i + 1, dyv, alpha, beta);
  }
}

template <class F>
void with_compute(cudnnDataType_t t, F&& f) {
  if (t == CUDNN_DATA_DOUBLE) f(double{});
  else f(float{});
}

}  // namespace

cudnnStatus_t st_grid_forward(cudnnContext* h, const cudnnSpatialTransformerStruct& st, const void* theta,
                              void* grid) {
  const int64_t n = st.dims[0], hh = st.dims[2], w = st.dims[3];
  if (n * hh * w == 0) return CUDNN_STATUS_SUCCESS;
  const int g = grid_size(n * hh * w, kBlock, h->device);
  with_compute(st.dtype, [&](auto zero) {
    using C = decltype(zero);
    grid_fwd<C><<<g, kBlock, 0, h->stream>>>(st.dtype, theta, grid, n, hh, w);
  });
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t st_grid_backward(cudnnContext* h, const cudnnSpatialTransformerStruct& st, const void* dgrid,
                               void* dtheta) {
  const int64_t n = st.dims[0], hh = st.dims[2], w = st.dims[3];
  if (n == 0) return CUDNN_STATUS_SUCCESS;
  FD_CHECK_SUPPORTED(n < (int64_t{1} << 31), "batch %lld is too large for one grid", static_cast<long long>(n));
  with_compute(st.dtype, [&](auto zero) {
    using C = decltype(zero);
    grid_bwd<C><<<static_cast<unsigned>(n), kBlock, 0, h->stream>>>(st.dtype, dgrid, dtheta, hh, w);
  });
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t st_sampler_forward(cudnnContext* h, const cudnnSpatialTransformerStruct& st, double alpha,
                                 const cudnnTensorStruct& xd, const void* x, const void* grid, double beta,
                                 const cudnnTensorStruct& yd, void* y) {
  const int64_t total = yd.element_count();
  if (total == 0) return CUDNN_STATUS_SUCCESS;
  const int g = grid_size(total, kBlock, h->device);
  with_compute(st.dtype, [&](auto zero) {
    using C = decltype(zero);
    sampler_fwd<C><<<g, kBlock, 0, h->stream>>>(st.dtype, x, t4(xd), grid, make_view(yd), y, xd.dims[1], xd.dims[2],
                                                xd.dims[3], yd.dims[2], yd.dims[3], total, static_cast<C>(alpha),
                                                static_cast<C>(beta));
  });
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t st_sampler_backward(cudnnContext* h, const cudnnSpatialTransformerStruct& st, double alpha,
                                  const cudnnTensorStruct& xd, const void* x, double beta,
                                  const cudnnTensorStruct& dxd, void* dx, double alpha_dgrid,
                                  const cudnnTensorStruct& dyd, const void* dy, const void* grid, double beta_dgrid,
                                  void* dgrid) {
  const int64_t n = xd.dims[0], c = xd.dims[1], hh = xd.dims[2], w = xd.dims[3];
  const int64_t ho = dyd.dims[2], wo = dyd.dims[3];
  const int64_t nx = xd.element_count(), ny = dyd.element_count();
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  cudaError_t memset_err = cudaSuccess;
  with_compute(st.dtype, [&](auto zero) {
    using C = decltype(zero);
    const cudnnDataType_t t = st.dtype;
    C* acc = nullptr;
    if (nx > 0) {
      void* s = nullptr;
      status = handle_scratch(h, static_cast<size_t>(nx) * sizeof(C), &s);
      if (status != CUDNN_STATUS_SUCCESS) return;
      acc = static_cast<C*>(s);
      memset_err = cudaMemsetAsync(acc, 0, static_cast<size_t>(nx) * sizeof(C), h->stream);
      if (memset_err != cudaSuccess) return;
      if (ny > 0)
        sampler_bwd_dx<C><<<grid_size(ny, kBlock, h->device), kBlock, 0, h->stream>>>(
            t, grid, dy, make_view(dyd), acc, c, hh, w, ho, wo, ny);
    }
    // dgrid before dx is written (dx may be x, or dy, as on the CPU, which computes both before writing either);
    // after dx's sums read the grid (dgrid may be the grid)
    if (n * ho * wo > 0)
      sampler_bwd_dgrid<C><<<grid_size(n * ho * wo, kBlock, h->device), kBlock, 0, h->stream>>>(
          t, x, t4(xd), grid, dy, t4(dyd), dgrid, n, c, hh, w, ho, wo, static_cast<C>(alpha_dgrid),
          static_cast<C>(beta_dgrid));
    if (nx > 0)
      blend_packed<C><<<grid_size(nx, kBlock, h->device), kBlock, 0, h->stream>>>(
          t, acc, make_view(dxd), dx, nx, static_cast<C>(alpha), static_cast<C>(beta));
  });
  if (status != CUDNN_STATUS_SUCCESS) return status;
  FD_CUDA_CHECK(memset_err);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda
