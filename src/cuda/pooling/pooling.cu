// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Global average pooling of packed NCHW / NHWC (4-D or 5-D) goes to plane_sum (cuda/tensor_ops/plane_sum.h) first,
// its backward to a broadcast kernel (pooling2d_nhwc.cu); channels-last max pooling to pooling2d_nhwc.cu.
// Generic pooling kernels (5-D, vector types, 64-bit offsets; 4-D tensors take pooling2d.cu's fast path):
// one thread per output (forward) or per input gradient (backward). Spatial dims are
// right-aligned in a 3-D geometry as on the CPU. Threads walk the elements with C innermost when the tensor
// is channels-last (NHWC / NDHWC), so that a warp touches neighbouring addresses in either layout.
#include "core/api_context.h"
#include "core/dtype.h"
#include "core/handle.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/index.cuh"
#include "cuda/pooling/pooling.h"
#include "cuda/tensor_ops/plane_sum.h"

namespace fd::cuda {
namespace {

constexpr int kBlock = 256;

struct PoolGeo {
  int64_t n = 1, c = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int win[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, stride[3] = {1, 1, 1};
  bool is_max = true, include_pad = false, propagate_nan = false;
};

PoolGeo make_geo(const cudnnPoolingStruct& p, const cudnnTensorStruct& x, const cudnnTensorStruct& y) {
  PoolGeo g;
  g.n = x.dims[0];
  g.c = x.dims[1];
  const int ns = x.nb_dims - 2;
  for (int d = 0; d < ns; ++d) {
    const int k = 3 - ns + d;
    g.in[k] = x.dims[2 + d];
    g.out[k] = y.dims[2 + d];
    g.win[k] = p.window[d];
    g.pad[k] = p.padding[d];
    g.stride[k] = p.stride[d];
  }
  g.is_max = p.mode == CUDNN_POOLING_MAX || p.mode == CUDNN_POOLING_MAX_DETERMINISTIC;
  g.include_pad = p.mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
  g.propagate_nan = p.nan_opt == CUDNN_PROPAGATE_NAN;
  return g;
}

// One tensor: element offsets of (n, c, p0, p1, p2), and the walk order of its elements (n, c, p0, p1, p2) or
// (n, p0, p1, p2, c) with the dividers that split a walk index.
struct PoolTensor {
  int64_t s[5] = {};
  int64_t sp[3] = {1, 1, 1};  // spatial extents (right-aligned)
  int64_t c = 1;
  bool vect = false;  // INT8x4 / INT8x32: offsets through the view
  bool c_inner = false;
  TensorView view;
  Divider dc, d2, d1, d0;

  __device__ __forceinline__ int64_t off(int64_t n, int64_t ch, int64_t p0, int64_t p1, int64_t p2) const {
    if (!vect) return n * s[0] + ch * s[1] + p0 * s[2] + p1 * s[3] + p2 * s[4];
    return view.offset((((n * c + ch) * sp[0] + p0) * sp[1] + p1) * sp[2] + p2);
  }
  // Walk index i -> (n, c, p0, p1, p2).
  __device__ __forceinline__ void unravel(int64_t i, int64_t* n, int64_t* ch, int64_t* p) const {
    int64_t q;
    if (c_inner) {
      q = dc.div(i);
      *ch = i - q * c;
      i = q;
    }
    q = d2.div(i);
    p[2] = i - q * sp[2];
    i = q;
    q = d1.div(i);
    p[1] = i - q * sp[1];
    i = q;
    q = d0.div(i);
    p[0] = i - q * sp[0];
    i = q;
    if (!c_inner) {
      q = dc.div(i);
      *ch = i - q * c;
      i = q;
    }
    *n = i;
  }
};

PoolTensor make_tensor(const cudnnTensorStruct& d) {
  PoolTensor t;
  const int ns = d.nb_dims - 2;
  t.s[0] = d.strides[0];
  t.s[1] = d.strides[1];
  t.c = d.dims[1];
  for (int i = 0; i < ns; ++i) {
    t.s[2 + 3 - ns + i] = d.strides[2 + i];
    t.sp[3 - ns + i] = d.dims[2 + i];
  }
  t.vect = d.vect() > 1;
  t.view = make_view(d);
  // Channels-last when C has the smallest stride among the non-trivial dims.
  bool c_inner = t.c > 1;
  for (int i = 0; i < ns; ++i)
    if (d.dims[2 + i] > 1 && d.strides[2 + i] < d.strides[1]) c_inner = false;
  t.c_inner = c_inner && !t.vect;
  const int64_t total = d.element_count();
  t.dc = Divider(t.c, total);
  t.d2 = Divider(t.sp[2], total);
  t.d1 = Divider(t.sp[1], total);
  t.d0 = Divider(t.sp[0], total);
  return t;
}

struct Window {
  int64_t lo[3], hi[3];
  int64_t divisor;
};

__device__ __forceinline__ Window window_at(const PoolGeo& g, const int64_t* o) {
  Window w;
  int64_t read = 1, padded = 1;
#pragma unroll
  for (int d = 0; d < 3; ++d) {
    const int64_t start = o[d] * g.stride[d] - g.pad[d];
    const int64_t end = start + g.win[d];
    w.lo[d] = start < 0 ? 0 : start;
    w.hi[d] = end > g.in[d] ? g.in[d] : end;
    if (w.hi[d] < w.lo[d]) w.hi[d] = w.lo[d];
    read *= w.hi[d] - w.lo[d];
    const int64_t plo = start < -g.pad[d] ? -g.pad[d] : start;
    const int64_t phi = end > g.in[d] + g.pad[d] ? g.in[d] + g.pad[d] : end;
    padded *= phi > plo ? phi - plo : 0;
  }
  w.divisor = g.include_pad ? padded : read;
  return w;
}

// Max of a window of plane (n, c) of x: the value, and in *arg the plane index (p0*in1 + p1)*in2 + p2 of the
// element chosen (-1: none). Ties go to the first in scan order; NaN handling as on the CPU.
template <class S>
__device__ Comp<S> window_max(const PoolGeo& g, const Window& w, const PoolTensor& xt, const S* x, int64_t n,
                              int64_t ch, int64_t* arg) {
  using C = Comp<S>;
  C best = C(0);
  int64_t best_i = -1;
  bool saw_nan = false;
  for (int64_t a = w.lo[0]; a < w.hi[0]; ++a)
    for (int64_t b = w.lo[1]; b < w.hi[1]; ++b)
      for (int64_t c = w.lo[2]; c < w.hi[2]; ++c) {
        const C v = Storage<S>::load(x, xt.off(n, ch, a, b, c));
        const int64_t i = (a * g.in[1] + b) * g.in[2] + c;
        if (isnan(v)) {
          if (g.propagate_nan) {
            *arg = i;
            return v;
          }
          saw_nan = true;
          continue;
        }
        if (best_i < 0 || v > best) {
          best = v;
          best_i = i;
        }
      }
  *arg = best_i;
  if (best_i < 0 && saw_nan) return C(NAN);
  return best;
}

template <class S>
__global__ void __launch_bounds__(kBlock) forward_kernel(PoolGeo g, PoolTensor xt, const S* x, PoolTensor yt, S* y,
                                                         int64_t count, double alpha, double beta) {
  using C = Comp<S>;
  const C al = static_cast<C>(alpha), be = static_cast<C>(beta);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t n, ch, o[3];
    yt.unravel(i, &n, &ch, o);
    const Window w = window_at(g, o);
    C v;
    if (g.is_max) {
      int64_t arg;
      v = window_max<S>(g, w, xt, x, n, ch, &arg);
    } else {
      C sum = C(0);
      for (int64_t a = w.lo[0]; a < w.hi[0]; ++a)
        for (int64_t b = w.lo[1]; b < w.hi[1]; ++b)
          for (int64_t c = w.lo[2]; c < w.hi[2]; ++c) sum += Storage<S>::load(x, xt.off(n, ch, a, b, c));
      v = w.divisor > 0 ? sum / static_cast<C>(w.divisor) : C(0);
    }
    const int64_t yo = yt.off(n, ch, o[0], o[1], o[2]);
    C r = alpha == 1.0 ? v : al * v;
    if (beta != 0.0) r += be * Storage<S>::load(y, yo);
    Storage<S>::store(y, yo, r);
  }
}

// Max modes, backward step 1: the argmax (plane index, -1 for none) of every output, in logical output order.
template <class S>
__global__ void __launch_bounds__(kBlock) argmax_kernel(PoolGeo g, PoolTensor xt, const S* x, PoolTensor walk,
                                                        int64_t count, int32_t* arg) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t n, ch, o[3];
    walk.unravel(i, &n, &ch, o);
    const Window w = window_at(g, o);
    int64_t a;
    window_max<S>(g, w, xt, x, n, ch, &a);
    arg[(((n * g.c + ch) * g.out[0] + o[0]) * g.out[1] + o[1]) * g.out[2] + o[2]] = static_cast<int32_t>(a);
  }
}

// Output positions along one dim whose window contains input index p: [lo, hi].
// Extents are below 2^31 (int tensor dims), so 32-bit division suffices.
__device__ __forceinline__ void covering(const PoolGeo& g, int d, int64_t p, int64_t* lo, int64_t* hi) {
  const int pi = static_cast<int>(p);
  const int num = pi + g.pad[d] - g.win[d] + 1;
  *lo = num <= 0 ? 0 : (num + g.stride[d] - 1) / g.stride[d];
  const int64_t h = (pi + g.pad[d]) / g.stride[d];
  *hi = h < g.out[d] - 1 ? h : g.out[d] - 1;
}

template <class S>
__global__ void __launch_bounds__(kBlock) backward_kernel(PoolGeo g, PoolTensor xt, const S* x, PoolTensor dyt,
                                                          const S* dy, PoolTensor dxt, S* dx, const int32_t* argmax,
                                                          int64_t count, double alpha, double beta) {
  using C = Comp<S>;
  const C al = static_cast<C>(alpha), be = static_cast<C>(beta);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t n, ch, p[3];
    dxt.unravel(i, &n, &ch, p);
    const int64_t self = (p[0] * g.in[1] + p[1]) * g.in[2] + p[2];
    int64_t lo[3], hi[3];
    for (int d = 0; d < 3; ++d) covering(g, d, p[d], &lo[d], &hi[d]);
    C acc = C(0);
    int64_t o[3];
    for (o[0] = lo[0]; o[0] <= hi[0]; ++o[0])
      for (o[1] = lo[1]; o[1] <= hi[1]; ++o[1])
        for (o[2] = lo[2]; o[2] <= hi[2]; ++o[2]) {
          if (g.is_max) {
            int64_t arg;
            if (argmax != nullptr) {
              arg = argmax[(((n * g.c + ch) * g.out[0] + o[0]) * g.out[1] + o[1]) * g.out[2] + o[2]];
            } else {
              window_max<S>(g, window_at(g, o), xt, x, n, ch, &arg);
            }
            if (arg != self) continue;
            acc += Storage<S>::load(dy, dyt.off(n, ch, o[0], o[1], o[2]));
          } else {
            const Window w = window_at(g, o);
            if (w.divisor <= 0) continue;
            acc += Storage<S>::load(dy, dyt.off(n, ch, o[0], o[1], o[2])) / static_cast<C>(w.divisor);
          }
        }
    const int64_t xo = dxt.off(n, ch, p[0], p[1], p[2]);
    C r = alpha == 1.0 ? acc : al * acc;
    if (beta != 0.0) r += be * Storage<S>::load(dx, xo);
    Storage<S>::store(dx, xo, r);
  }
}

// Average pooling whose only window is the whole plane (global average pooling: no padding, windows equal to the
// spatial dims, a 1 x 1 (x 1) output) of a packed NCHW-like or NHWC-like x: one pass of plane_sum (NCHW: each
// output the mean of one contiguous plane; NHWC: column sums of each image's [H*W][C] matrix). Both average modes
// divide by H * W (no padding). False when it does not apply.
bool global_avg_args(const cudnnPoolingStruct& p, double alpha, const cudnnTensorStruct& xd, const void* x,
                     double beta, const cudnnTensorStruct& yd, void* y, PlaneSumArgs* out) {
  if (p.mode != CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING && p.mode != CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING)
    return false;
  if (xd.vect() != 1 || yd.vect() != 1 || xd.dtype != yd.dtype || xd.nb_dims != yd.nb_dims) return false;
  const int ns = xd.nb_dims - 2;
  if (ns < 1 || p.nb_dims != ns) return false;
  int64_t R = 1;
  for (int d = 0; d < ns; ++d) {
    if (p.padding[d] != 0 || p.window[d] != xd.dims[2 + d] || yd.dims[2 + d] != 1) return false;
    R *= xd.dims[2 + d];
  }
  const int64_t N = xd.dims[0], C = xd.dims[1];
  // packed NCHW-like: row-major strides; packed NHWC-like: C innermost, then the spatial dims, then N
  bool nchw = true, nhwc = xd.strides[1] == 1 || C == 1;
  int64_t s = 1;
  for (int i = xd.nb_dims - 1; i >= 0; --i) {
    nchw = nchw && (xd.dims[i] == 1 || xd.strides[i] == s);
    s *= xd.dims[i];
  }
  s = C;
  for (int i = xd.nb_dims - 1; i >= 2; --i) {
    nhwc = nhwc && (xd.dims[i] == 1 || xd.strides[i] == s);
    s *= xd.dims[i];
  }
  nhwc = nhwc && (N == 1 || xd.strides[0] == s);
  PlaneSumArgs a;
  a.xt = xd.dtype;
  a.x = x;
  a.R = R;
  a.divisor = R;
  a.ot = yd.dtype;
  a.out = y;
  a.alpha = alpha;
  a.beta = beta;
  if (nchw) {  // q = n * C + c, i = 0
    a.Q = N * C;
    a.I = 1;
    a.D = C;
    a.s0 = yd.strides[0];
    a.s1 = yd.strides[1];
  } else if (nhwc) {  // q = n, i = c
    a.Q = N;
    a.I = C;
    a.D = 1;
    a.s0 = yd.strides[0];
    a.si = yd.strides[1];
  } else {
    return false;
  }
  *out = a;
  return true;
}

}  // namespace

cudnnStatus_t pooling_forward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                              const cudnnTensorStruct& xd, const void* x, double beta, const cudnnTensorStruct& yd,
                              void* y) {
  const PoolGeo g = make_geo(p, xd, yd);
  const PoolTensor xt = make_tensor(xd), yt = make_tensor(yd);
  const int64_t count = yd.element_count();
  if (count == 0) return CUDNN_STATUS_SUCCESS;
  PlaneSumArgs global;
  if (global_avg_args(p, alpha, xd, x, beta, yd, y, &global) && plane_sum_ok(global, device))
    return plane_sum(stream, device, global);
  cudnnStatus_t fast = CUDNN_STATUS_SUCCESS;
  if (pooling2d_nhwc_forward(stream, device, p, alpha, xd, x, beta, yd, y, &fast)) return fast;
  if (pooling2d_planar_forward(stream, device, p, alpha, xd, x, beta, yd, y, &fast)) return fast;
  if (pooling2d_forward(stream, device, p, alpha, xd, x, beta, yd, y, &fast)) return fast;
  bool known = false;
  auto launch = [&](auto tag) {
    using S = decltype(tag);
    known = true;
    forward_kernel<S><<<grid_size(count, kBlock, device), kBlock, 0, stream>>>(
        g, xt, static_cast<const S*>(x), yt, static_cast<S*>(y), count, alpha, beta);
  };
  switch (xd.dtype) {
    case CUDNN_DATA_FLOAT: launch(float{}); break;
    case CUDNN_DATA_DOUBLE: launch(double{}); break;
    case CUDNN_DATA_HALF: launch(__half{}); break;
    case CUDNN_DATA_BFLOAT16: launch(__nv_bfloat16{}); break;
    case CUDNN_DATA_INT8: case CUDNN_DATA_INT8x4: case CUDNN_DATA_INT8x32: launch(int8_t{}); break;
    default: break;
  }
  FD_CHECK_SUPPORTED(known, "no CUDA pooling forward for %s", dtype_short_name(xd.dtype));
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

void note_pool_backward_bytes(const cudnnTensorStruct& xd, const cudnnTensorStruct& dyd, const cudnnTensorStruct& dxd,
                              double beta, double extra, int passes) {
  auto bytes = [](const cudnnTensorStruct& d) {
    return static_cast<double>(d.element_count()) * static_cast<double>(dtype_size(d.dtype));
  };
  add_api_bytes_moved(bytes(xd) + bytes(dyd) + (beta != 0.0 ? 2 : 1) * bytes(dxd) + extra, passes);
}

cudnnStatus_t pooling_backward(cudnnContext* h, const cudnnPoolingStruct& p, double alpha,
                               const cudnnTensorStruct& dyd, const void* dy, const cudnnTensorStruct& xd,
                               const void* x, double beta, const cudnnTensorStruct& dxd, void* dx) {
  const PoolGeo g = make_geo(p, xd, dyd);
  const PoolTensor xt = make_tensor(xd), dyt = make_tensor(dyd), dxt = make_tensor(dxd);
  const int64_t count = dxd.element_count();
  if (count == 0) return CUDNN_STATUS_SUCCESS;
  cudaStream_t stream = h->stream;
  const int device = h->device;
  cudnnStatus_t fast = CUDNN_STATUS_SUCCESS;
  if (pooling_global_avg_backward(stream, device, p, alpha, dyd, dy, beta, dxd, dx, &fast)) return fast;
  if (pooling2d_nhwc_backward_onepass(h, p, alpha, dyd, dy, xd, x, beta, dxd, dx, &fast)) return fast;
  if (pooling2d_nhwc_backward(h, p, alpha, dyd, dy, xd, x, beta, dxd, dx, &fast)) return fast;
  if (pooling2d_planar_backward(h, p, alpha, dyd, dy, xd, x, beta, dxd, dx, &fast)) return fast;
  if (pooling2d_backward(stream, device, p, alpha, dyd, dy, xd, x, beta, dxd, dx, &fast)) return fast;
  // Max modes: the argmax of each window once (handle scratch), unless plane indices overflow 32 bits.
  int32_t* argmax = nullptr;
  const int64_t out_count = dyd.element_count();
  if (g.is_max && g.in[0] * g.in[1] * g.in[2] < (int64_t{1} << 31)) {
    void* scratch = nullptr;
    FD_TRY(handle_scratch(h, static_cast<size_t>(out_count) * sizeof(int32_t), &scratch));
    argmax = static_cast<int32_t*>(scratch);
  }
  bool known = false;
  auto launch = [&](auto tag) {
    using S = decltype(tag);
    known = true;
    if (argmax != nullptr)
      argmax_kernel<S><<<grid_size(out_count, kBlock, device), kBlock, 0, stream>>>(g, xt, static_cast<const S*>(x),
                                                                                     dyt, out_count, argmax);
    backward_kernel<S><<<grid_size(count, kBlock, device), kBlock, 0, stream>>>(
        g, xt, static_cast<const S*>(x), dyt, static_cast<const S*>(dy), dxt, static_cast<S*>(dx), argmax, count,
        alpha, beta);
  };
  switch (dxd.dtype) {
    case CUDNN_DATA_FLOAT: launch(float{}); break;
    case CUDNN_DATA_DOUBLE: launch(double{}); break;
    case CUDNN_DATA_HALF: launch(__half{}); break;
    case CUDNN_DATA_BFLOAT16: launch(__nv_bfloat16{}); break;
    default: break;
  }
  FD_CHECK_SUPPORTED(known, "no CUDA pooling backward for %s", dtype_short_name(dxd.dtype));
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda
