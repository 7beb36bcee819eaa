// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// What the CUDA convolution kernels share: the problem's sizes as a kernel argument, 4-D / 5-D tensors seen as
// (n, c, d, h, w) with element strides (NCHW_VECT_C included), conversions between storage and compute types,
// and the output epilogue (alpha/beta blending, or the fused bias + z + activation of
// cudnnConvolutionBiasActivationForward). Filters are read flipped for CUDNN_CONVOLUTION (the kernels compute a
// cross-correlation with the effective filter), as on the CPU.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "core/tensor_desc.h"
#include "cuda/common/device_tensor.cuh"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv {

constexpr int kBlock = 256;

// A 4-D or 5-D tensor as (n, c, d, h, w): st are element strides (vector strides for NCHW_VECT_C), d's is 0 for
// a 4-D tensor.
struct View5 {
  int64_t st[5] = {0, 0, 0, 0, 0};
  int vect = 1;
  __device__ __forceinline__ int64_t at(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) const {
    if (vect == 1) return n * st[0] + c * st[1] + d * st[2] + h * st[3] + w * st[4];
    const int64_t base = n * st[0] + (c / vect) * st[1] + d * st[2] + h * st[3] + w * st[4];
    return base * vect + c % vect;
  }
};

inline View5 view5(const cudnnTensorStruct& t) {
  View5 v;
  v.vect = t.vect();
  if (t.nb_dims == 5) {
    for (int i = 0; i < 5; ++i) v.st[i] = t.strides[i];
  } else {  // 4-D (the API layer admits only 4-D and 5-D convolution tensors)
    v.st[0] = t.strides[0];
    v.st[1] = t.strides[1];
    v.st[2] = 0;
    v.st[3] = t.nb_dims > 2 ? t.strides[2] : 0;
    v.st[4] = t.nb_dims > 3 ? t.strides[3] : 0;
  }
  return v;
}

// The sizes of a ConvProblem (2-D problems have depth 1), and whether the filter is flipped (CUDNN_CONVOLUTION).
struct Geom {
  int64_t mb = 1, ic = 1, oc = 1, icg = 1, ocg = 1;
  int64_t id = 1, ih = 1, iw = 1, od = 1, oh = 1, ow = 1, kd = 1, kh = 1, kw = 1;
  int sd = 1, sh = 1, sw = 1, pd = 0, ph = 0, pw = 0, dd = 1, dh = 1, dw = 1;
  bool flip = false;
  __host__ __device__ int64_t ksp() const { return kd * kh * kw; }
  __host__ __device__ int64_t osp() const { return od * oh * ow; }
  __host__ __device__ int64_t isp() const { return id * ih * iw; }
};

inline Geom geom(const fd::ConvProblem& p) {
  Geom g;
  g.mb = p.mb;
  g.ic = p.ic;
  g.oc = p.oc;
  g.icg = p.icg();
  g.ocg = p.ocg();
  g.id = p.id, g.ih = p.ih, g.iw = p.iw;
  g.od = p.od, g.oh = p.oh, g.ow = p.ow;
  g.kd = p.kd, g.kh = p.kh, g.kw = p.kw;
  g.sd = p.sd, g.sh = p.sh, g.sw = p.sw;
  g.pd = p.pd, g.ph = p.ph, g.pw = p.pw;
  g.dd = p.dd, g.dh = p.dh, g.dw = p.dw;
  g.flip = p.mode == CUDNN_CONVOLUTION;
  return g;
}

// Storage -> compute: half/bf16 widen to float, int8/uint8 to int32, float/double stay.
__device__ __forceinline__ float widen(__half v) { return __half2float(v); }
__device__ __forceinline__ float widen(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float widen(float v) { return v; }
__device__ __forceinline__ double widen(double v) { return v; }
__device__ __forceinline__ int32_t widen(int8_t v) { return v; }
__device__ __forceinline__ int32_t widen(uint8_t v) { return v; }
template <class A, class S>
__device__ __forceinline__ A load_as(const S* p, int64_t i) {
  return static_cast<A>(widen(p[i]));
}

// The K x K taps of V consecutive channels c0 .. c0 + V - 1 of a depthwise filter (filter k is channel c) as float,
// rotated by 180 degrees when `flip` (CUDNN_CONVOLUTION): wt[r][s][e] = w[(c0 + e) * sk + r' * sr + s' * ss].
template <int K, int V, class S, class I>
__device__ __forceinline__ void load_depthwise_taps(const S* w, int c0, I sk, I sr, I ss, bool flip,
                                                    float (&wt)[K][K][V]) {
#pragma unroll
  for (int r = 0; r < K; ++r)
#pragma unroll
    for (int s = 0; s < K; ++s)
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const int rr = flip ? K - 1 - r : r, sc = flip ? K - 1 - s : s;
        wt[r][s][e] = static_cast<float>(widen(w[(c0 + e) * sk + rr * sr + sc * ss]));
      }
}

// Compute -> storage, as the CPU's tensor_io: round to nearest; integers saturate and NaN becomes 0.
template <class E>
__device__ __forceinline__ void store(float* p, int64_t i, E v) { p[i] = static_cast<float>(v); }
template <class E>
__device__ __forceinline__ void store(double* p, int64_t i, E v) { p[i] = static_cast<double>(v); }
template <class E>
__device__ __forceinline__ void store(__half* p, int64_t i, E v) { p[i] = __float2half_rn(static_cast<float>(v)); }
template <class E>
__device__ __forceinline__ void store(__nv_bfloat16* p, int64_t i, E v) {
  p[i] = __float2bfloat16_rn(static_cast<float>(v));
}
template <class E>
__device__ __forceinline__ void store(int8_t* p, int64_t i, E v) {
  const double d = static_cast<double>(v);
  p[i] = static_cast<int8_t>(d != d ? 0.0 : fmin(127.0, fmax(-128.0, rint(d))));
}

template <class S>
__device__ __forceinline__ S zero_of() {
  return S(0.0f);
}

// The fused epilogue's operands on the device. z has y's type; bias has y's type, or float for int8 y.
struct FusedDev {
  bool on = false;
  const void* z = nullptr;
  View5 zv;
  const void* bias = nullptr;
  View5 bv;
  double alpha2 = 0.0;
  bool relu = false;
  bool propagate_nan = false;
};

template <class Sy>
using BiasStorage = std::conditional_t<std::is_same_v<Sy, int8_t>, float, Sy>;

inline FusedDev fused_dev(const fd::conv::FusedEpilogue* e) {
  FusedDev f;
  if (e == nullptr) return f;
  f.on = true;
  f.z = e->z_data;
  f.zv = view5(*e->z);
  f.bias = e->bias_data;
  f.bv = view5(*e->bias);
  f.alpha2 = e->alpha2;
  f.relu = e->act == CUDNN_ACTIVATION_RELU;
  f.propagate_nan = e->nan_opt == CUDNN_PROPAGATE_NAN;
  return f;
}

// The fused epilogue's activation of r (the sum before it): ReLU or identity; a NaN stays NaN unless ReLU with
// CUDNN_NOT_PROPAGATE_NAN, which gives 0.
template <class E>
__device__ __forceinline__ E fused_act(E r, bool relu, bool propagate_nan) {
  if (r != r) return relu && !propagate_nan ? E(0) : r;
  return relu && !(r > E(0)) ? E(0) : r;
}

// Writes result v of output element (n, c, d, h, w), at offset off of y: alpha * v + beta * y (y not read when
// beta == 0), or act(alpha * v + bias[c] + alpha2 * z) when the fused epilogue is on (no beta).
template <class Sy, class E>
__device__ __forceinline__ void write_out(Sy* y, int64_t off, E v, E alpha, E beta, const FusedDev& f, int64_t n,
                                          int64_t c, int64_t d, int64_t h, int64_t w) {
  if (!f.on) {
    E r = alpha * v;
    if (beta != E(0)) r += beta * load_as<E>(y, off);
    store(y, off, r);
    return;
  }
  E r = alpha * v + load_as<E>(static_cast<const BiasStorage<Sy>*>(f.bias), f.bv.at(0, c, 0, 0, 0));
  if (f.alpha2 != 0.0) r += static_cast<E>(f.alpha2) * load_as<E>(static_cast<const Sy*>(f.z), f.zv.at(n, c, d, h, w));
  store(y, off, fused_act(r, f.relu, f.propagate_nan));
}

// write_out as a call, for the fused epilogues of kernels that unroll dozens of stores (the bias and z views'
// vector-layout branch divides in 64 bits): one copy of that code, so that the kernel stays small enough for the
// instruction cache. (Run 41, ncu of the TF32 stem forward: 17k SASS instructions, a third of its stalls
// waiting for instructions.)
template <class Sy, class E>
__device__ __noinline__ void write_out_called(Sy* y, int64_t off, E v, E alpha, E beta, const FusedDev& f, int64_t n,
                                              int64_t c, int64_t d, int64_t h, int64_t w) {
  write_out(y, off, v, alpha, beta, f, n, c, d, h, w);
}

// Calls f(S{}) for the storage types of the tensor-core kernels (half, bfloat16, float as TF32); false for others
// (with_float_storage, cuda/common/device_tensor.cuh, adds double).
template <class F>
bool with_tensor_core_storage(cudnnDataType_t t, F&& f) {
  switch (t) {
    case CUDNN_DATA_HALF: f(__half{}); return true;
    case CUDNN_DATA_BFLOAT16: f(__nv_bfloat16{}); return true;
    case CUDNN_DATA_FLOAT: f(float{}); return true;
    default: return false;
  }
}

// The compute (accumulation) type of a float-family storage type: double for double, float otherwise.
template <class S>
using ComputeOf = std::conditional_t<std::is_same_v<S, double>, double, float>;

}  // namespace fd::cuda::conv
