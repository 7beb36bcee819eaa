// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:im2col_gemm: the convolution as cuBLAS matrix products over a chunk of images at a time (all groups of a
// chunk in one strided-batched GEMM, batch = groups):
//   fwd    R_g[ocg x M]  = W_g[ocg x K] * col_g[K x M]       then an epilogue kernel writes y (alpha/beta or fused)
//   bwd_d  col_g[K x M]  = W_g^T * dY_g[ocg x M]             then col2im gathers dx (alpha/beta)
//   bwd_w  dW_g[ocg x K] += dY_g * col_g^T, chunk after chunk then a kernel writes dw (alpha/beta)
// with K = icg * kd * kh * kw and M = images in the chunk x output pixels. Operands are packed into the caller's
// workspace first (the filter flipped for CUDNN_CONVOLUTION, the column matrix and dy in the data's storage
// type); products and sums are in float (double for DOUBLE data) — f16/bf16 inputs with f32 accumulation. Float
// data use TF32 tensor cores when the math type allows it (anything but FMA_MATH) and NVIDIA_TF32_OVERRIDE is
// not 0. The chunk size depends on the problem only, so the workspace query and the run agree. No split-K
// atomics: every element is computed in a fixed order, so results are deterministic.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/dtype.h"
#include "core/handle.h"
#include "cuda/common/cublas_util.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/index.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/impls.h"
#include "cuda/conv/tf32.h"

namespace fd::cuda::conv {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr size_t kColumnBudget = size_t{128} << 20;  // bytes of column matrix per chunk of images
constexpr size_t kAlign = 256;

size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }
size_t storage_size(const ConvProblem& p) { return dtype_size(p.xdt); }
size_t compute_size(const ConvProblem& p) { return p.xdt == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float); }
int64_t gemm_k(const ConvProblem& p) { return p.icg() * p.ksp(); }

int64_t chunk_images(const ConvProblem& p) {
  const size_t elem = p.dir == ConvDir::bwd_data ? compute_size(p) : storage_size(p);
  const size_t per = static_cast<size_t>(p.ic * p.ksp() * p.osp()) * elem;
  int64_t chunk = static_cast<int64_t>(kColumnBudget / (per == 0 ? 1 : per));
  chunk = std::min<int64_t>(chunk, INT_MAX / std::max<int64_t>(p.osp(), 1));
  return std::max<int64_t>(1, std::min<int64_t>(chunk, p.mb));
}

// Where each buffer lives in the workspace (offsets from the 256-byte aligned start), for `chunk` images.
struct Layout {
  int64_t chunk = 1;
  size_t a = 0, b = 0, c = 0;  // offsets of the three buffers (see run_typed)
  size_t total = 0;            // bytes the caller must provide, alignment slack included
};

Layout layout(const ConvProblem& p) {
  Layout l;
  l.chunk = chunk_images(p);
  const size_t ss = storage_size(p), cs = compute_size(p);
  const auto M = static_cast<size_t>(l.chunk * p.osp());
  const auto wsz = static_cast<size_t>(p.oc * gemm_k(p));
  const auto colsz = static_cast<size_t>(p.ic * p.ksp()) * M;
  const auto ysz = static_cast<size_t>(p.oc) * M;
  size_t sizes[3] = {0, 0, 0};
  switch (p.dir) {
    case ConvDir::fwd: sizes[0] = wsz * ss, sizes[1] = colsz * ss, sizes[2] = ysz * cs; break;        // W, col, R
    case ConvDir::bwd_data: sizes[0] = wsz * ss, sizes[1] = ysz * ss, sizes[2] = colsz * cs; break;   // W, dY, col
    case ConvDir::bwd_filter: sizes[0] = colsz * ss, sizes[1] = ysz * ss, sizes[2] = wsz * cs; break; // col, dY, dW
  }
  l.a = 0;
  l.b = align_up(sizes[0]);
  l.c = l.b + align_up(sizes[1]);
  l.total = kAlign + l.c + align_up(sizes[2]);
  return l;
}

template <class S> constexpr cudaDataType_t cuda_type();
template <> constexpr cudaDataType_t cuda_type<float>() { return CUDA_R_32F; }
template <> constexpr cudaDataType_t cuda_type<double>() { return CUDA_R_64F; }
template <> constexpr cudaDataType_t cuda_type<__half>() { return CUDA_R_16F; }
template <> constexpr cudaDataType_t cuda_type<__nv_bfloat16>() { return CUDA_R_16BF; }

cublasComputeType_t compute_type(const ConvProblem& p) {
  if (p.xdt == CUDNN_DATA_DOUBLE) return CUBLAS_COMPUTE_64F;
  return tf32_allowed(p) ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

// --- kernels (grid-stride loops, one thread per element written) ----------------------------------------------

// out[k][c][e] = w[k][c][tap e of the effective filter] (flipped for CUDNN_CONVOLUTION).
template <class S>
__global__ void pack_filter_kernel(Geom g, View5 wv, const S* w, S* out) {
  const int64_t ks = g.ksp(), total = g.oc * g.icg * ks;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t e = i % ks, t = i / ks, cg = t % g.icg, k = t / g.icg;
    int64_t kw = e % g.kw, kh = (e / g.kw) % g.kh, kd = e / (g.kw * g.kh);
    if (g.flip) kd = g.kd - 1 - kd, kh = g.kh - 1 - kh, kw = g.kw - 1 - kw;
    out[i] = w[wv.at(k, cg, kd, kh, kw)];
  }
}

// col[c][e][img][o] = x[n0 + img][c][o*s - p + e*dil] (0 in the padding), every input channel. The index math runs
// on Dividers (multiply-high and shift below 2^31, index.cuh): with 64-bit divisions (ten per element) the packing
// was ~0.9 of 1.19 ms of the FMA 3x3 stride-2 forward (run 8); on Dividers the FMA forward batch took 1.15x less
// (run 10, docs/perf/conv-h200.md).
struct Im2colDivs {
  Divider osp, cnt, ks, ow, oh, kw, kh;
};

Im2colDivs im2col_divs(const Geom& g, int64_t cnt) {
  const int64_t ks = g.ksp(), osp = g.osp(), total = g.ic * ks * cnt * osp;
  return Im2colDivs{Divider(osp, total),          Divider(cnt, total / osp), Divider(ks, total / (osp * cnt)),
                    Divider(g.ow, osp),           Divider(g.oh, osp / g.ow), Divider(g.kw, ks),
                    Divider(g.kh, ks / g.kw)};
}

template <class S>
__global__ void __launch_bounds__(kBlock) im2col_kernel(Geom g, Im2colDivs dv, View5 xv, const S* x, int64_t n0,
                                                        int64_t cnt, S* col) {
  const int64_t ks = g.ksp(), osp = g.osp(), total = g.ic * ks * cnt * osp;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t t0 = dv.osp.div(i), o = i - t0 * osp;
    const int64_t t1 = dv.cnt.div(t0), img = t0 - t1 * cnt;
    const int64_t c = dv.ks.div(t1), e = t1 - c * ks;
    const int64_t q0 = dv.ow.div(o), ow = o - q0 * g.ow;
    const int64_t od = dv.oh.div(q0), oh = q0 - od * g.oh;
    const int64_t r0 = dv.kw.div(e), kw = e - r0 * g.kw;
    const int64_t kd = dv.kh.div(r0), kh = r0 - kd * g.kh;
    const int64_t id = od * g.sd - g.pd + kd * g.dd, ih = oh * g.sh - g.ph + kh * g.dh,
                  iw = ow * g.sw - g.pw + kw * g.dw;
    const bool in = id >= 0 && id < g.id && ih >= 0 && ih < g.ih && iw >= 0 && iw < g.iw;
    col[i] = in ? x[xv.at(n0 + img, c, id, ih, iw)] : zero_of<S>();
  }
}

// out[c][img][s] = y[n0 + img][c][s] for a C x (D x H x W) tensor, on Dividers (as im2col_kernel); dv: sp, cnt, W, H.
struct PackDivs {
  Divider sp, cnt, w, h;
};

template <class S>
__global__ void __launch_bounds__(kBlock) pack_act_kernel(View5 v, PackDivs dv, const S* y, int64_t C, int64_t D,
                                                          int64_t H, int64_t W, int64_t n0, int64_t cnt, S* out) {
  const int64_t sp = D * H * W, total = C * cnt * sp;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t t = dv.sp.div(i), s = i - t * sp;
    const int64_t c = dv.cnt.div(t), img = t - c * cnt;
    const int64_t q = dv.w.div(s), w = s - q * W;
    const int64_t d = dv.h.div(q), h = q - d * H;
    out[i] = y[v.at(n0 + img, c, d, h, w)];
  }
}

// y[n0 + img][k][o] from R[k][img][o], blended or through the fused epilogue; dv: osp, cnt, W, H (PackDivs).
template <class Sy, class E>
__global__ void __launch_bounds__(kBlock) forward_epilogue_kernel(Geom g, PackDivs dv, const E* R, int64_t n0,
                                                                  int64_t cnt, View5 yv, Sy* y, E alpha, E beta,
                                                                  FusedDev f) {
  const int64_t osp = g.osp(), total = g.oc * cnt * osp;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t t = dv.sp.div(i), o = i - t * osp;
    const int64_t k = dv.cnt.div(t), img = t - k * cnt;
    const int64_t q = dv.w.div(o), ow = o - q * g.ow;
    const int64_t od = dv.h.div(q), oh = q - od * g.oh, n = n0 + img;
    write_out<Sy, E>(y, yv.at(n, k, od, oh, ow), R[i], alpha, beta, f, n, k, od, oh, ow);
  }
}

// The taps of one dimension that reach input index i: k with i + pad - k * dil = n * st, 0 <= n < out; f(k, n)
// for each, k ascending. Unit dilation steps k by the stride (one division per call, the 7x7 stride-2 stem visits
// 4 of its 7 taps); otherwise every tap is tested.
template <class F>
__device__ __forceinline__ void for_each_tap(int i, int pad, int st, int dil, int taps, int out, F&& f) {
  const int base = i + pad;
  if (dil == 1) {
    for (int k = base % st, n = base / st; k < taps && n >= 0; k += st, --n)
      if (n < out) f(k, n);
    return;
  }
  for (int k = 0; k < taps; ++k) {
    const int num = base - k * dil;
    if (num < 0) break;
    const int n = num / st;
    if (n * st == num && n < out) f(k, n);
  }
}

// dx[n0 + img][c][i] = sum of the col entries (c, e, img, o) with i = o*s - p + e*dil (a gather, taps in
// ascending order); dv: isp, cnt, W, H of the input (PackDivs). The 64-bit divisions per tap of the first
// version made the stem's backward data (7x7 stride 2, C = 3) 1.8-3.3 ms (run 11).
template <class S, class E>
__global__ void __launch_bounds__(kBlock) col2im_kernel(Geom g, PackDivs dv, const E* col, int64_t n0, int64_t cnt,
                                                        View5 dxv, S* dx, E alpha, E beta) {
  const int64_t ks = g.ksp(), osp = g.osp(), isp = g.isp(), total = g.ic * cnt * isp;
  const FusedDev none;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t t = dv.sp.div(i), s = i - t * isp;
    const int64_t c = dv.cnt.div(t), img = t - c * cnt;
    const int64_t q = dv.w.div(s), iw = s - q * g.iw;
    const int64_t id = dv.h.div(q), ih = q - id * g.ih;
    const E* base = col + (c * ks * cnt + img) * osp;  // entry (e, o) at base[e * cnt * osp + o]
    const int64_t tap_stride = cnt * osp;
    E acc = E(0);
    for_each_tap(static_cast<int>(id), static_cast<int>(g.pd), static_cast<int>(g.sd), static_cast<int>(g.dd),
                 static_cast<int>(g.kd), static_cast<int>(g.od), [&](int kd, int nd) {
      for_each_tap(static_cast<int>(ih), static_cast<int>(g.ph), static_cast<int>(g.sh), static_cast<int>(g.dh),
                   static_cast<int>(g.kh), static_cast<int>(g.oh), [&](int kh, int nh) {
        for_each_tap(static_cast<int>(iw), static_cast<int>(g.pw), static_cast<int>(g.sw), static_cast<int>(g.dw),
                     static_cast<int>(g.kw), static_cast<int>(g.ow), [&](int kw, int nw) {
          const int64_t e = (int64_t{kd} * g.kh + kh) * g.kw + kw;
          const int64_t o = (int64_t{nd} * g.oh + nh) * g.ow + nw;
          acc += base[e * tap_stride + o];
        });
      });
    });
    write_out<S, E>(dx, dxv.at(n0 + img, c, id, ih, iw), acc, alpha, beta, none, n0 + img, c, id, ih, iw);
  }
}

// dw[k][c][tap] from the effective filter's gradient acc[k][c][e] (flipped back for CUDNN_CONVOLUTION).
template <class S, class E>
__global__ void write_dw_kernel(Geom g, const E* acc, View5 wv, S* w, E alpha, E beta) {
  const int64_t ks = g.ksp(), total = g.oc * g.icg * ks;
  const FusedDev none;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t e = i % ks, t = i / ks, cg = t % g.icg, k = t / g.icg;
    const int64_t eff = g.flip ? ks - 1 - e : e;
    const int64_t kw = e % g.kw, kh = (e / g.kw) % g.kh, kd = e / (g.kw * g.kh);
    write_out<S, E>(w, wv.at(k, cg, kd, kh, kw), acc[i - e + eff], alpha, beta, none, k, cg, kd, kh, kw);
  }
}

// --- host side ----------------------------------------------------------------------------------------------

struct Gemm {
  cublasHandle_t cb;
  cudaDataType_t ts, tc;
  cublasComputeType_t ct;
  int batch;
  // C (column-major m x n, ldc, batch stride sc) = alpha * op(A) op(B) + beta * C
  template <class E>
  cudnnStatus_t operator()(cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k, const void* A,
                           int64_t lda, int64_t sa, const void* B, int64_t ldb, int64_t sb, E beta, void* C,
                           int64_t ldc, int64_t sc) const {
    const E one = E(1);
    FD_CUBLAS_CHECK(cublasGemmStridedBatchedEx(cb, ta, tb, static_cast<int>(m), static_cast<int>(n),
                                               static_cast<int>(k), &one, A, ts, static_cast<int>(lda), sa, B, ts,
                                               static_cast<int>(ldb), sb, &beta, C, tc, static_cast<int>(ldc), sc,
                                               batch, ct, CUBLAS_GEMM_DEFAULT));
    return CUDNN_STATUS_SUCCESS;
  }
};

template <class S>
cudnnStatus_t run_typed(const ConvProblem& p, const ConvArgs& a) {
  using E = ComputeOf<S>;
  cudnnContext* h = a.handle;
  const cudaStream_t st = h->stream;
  const int dev = h->device;
  const Layout l = layout(p);
  FD_CHECK_PARAM(a.workspace_size >= l.total && a.workspace != nullptr, "cuda:im2col_gemm needs %zu bytes of workspace",
                 l.total);
  auto base = reinterpret_cast<uintptr_t>(a.workspace);
  base = (base + kAlign - 1) / kAlign * kAlign;
  char* ws = reinterpret_cast<char*>(base);
  Gemm gemm{};
  FD_TRY(cublas_handle(h, &gemm.cb));
  gemm.ts = cuda_type<S>();
  gemm.tc = cuda_type<E>();
  gemm.ct = compute_type(p);
  gemm.batch = static_cast<int>(p.g);
  const Geom g = geom(p);
  const int64_t K = gemm_k(p), ocg = p.ocg(), osp = p.osp(), ks = p.ksp();
  const View5 xv = view5(*p.x), yv = view5(*p.y), wv = view5(p.w->as_tensor);
  auto grid = [&](int64_t n) { return grid_size(n, kBlock, dev); };
  const E alpha = static_cast<E>(a.alpha), beta = static_cast<E>(a.beta);
  auto im2col = [&](int64_t n0, int64_t cnt, S* col) {
    const int blocks = grid(p.ic * ks * cnt * osp);
    im2col_kernel<S><<<blocks, kBlock, 0, st>>>(g, im2col_divs(g, cnt), xv, static_cast<const S*>(a.in), n0, cnt, col);
  };
  auto pack_act = [&](const void* src, int64_t n0, int64_t cnt, S* out) {
    const int blocks = grid(p.oc * cnt * osp);
    const int64_t total = p.oc * cnt * osp;
    const PackDivs dv{Divider(osp, total), Divider(cnt, total / osp), Divider(p.ow, osp), Divider(p.oh, osp / p.ow)};
    pack_act_kernel<S><<<blocks, kBlock, 0, st>>>(yv, dv, static_cast<const S*>(src), p.oc, p.od, p.oh, p.ow, n0,
                                                  cnt, out);
  };

  if (p.dir == ConvDir::fwd || p.dir == ConvDir::bwd_data) {
    S* wpack = reinterpret_cast<S*>(ws + l.a);
    pack_filter_kernel<S><<<grid(p.oc * K), kBlock, 0, st>>>(g, wv, static_cast<const S*>(a.in2), wpack);
    FD_CUDA_LAUNCHED();
    for (int64_t n0 = 0; n0 < p.mb; n0 += l.chunk) {
      const int64_t cnt = std::min(l.chunk, p.mb - n0), M = cnt * osp;
      if (p.dir == ConvDir::fwd) {
        S* col = reinterpret_cast<S*>(ws + l.b);
        E* R = reinterpret_cast<E*>(ws + l.c);
        im2col(n0, cnt, col);
        FD_CUDA_LAUNCHED();
        FD_TRY(gemm(CUBLAS_OP_N, CUBLAS_OP_N, M, ocg, K, col, M, K * M, wpack, K, ocg * K, E(0), R, M, ocg * M));
        const int64_t total = p.oc * M;
        const PackDivs dv{Divider(osp, total), Divider(cnt, total / osp), Divider(p.ow, osp), Divider(p.oh, osp / p.ow)};
        forward_epilogue_kernel<S, E><<<grid(total), kBlock, 0, st>>>(g, dv, R, n0, cnt, yv, static_cast<S*>(a.out),
                                                                      alpha, beta, fused_dev(a.fused));
        FD_CUDA_LAUNCHED();
      } else {
        S* dyp = reinterpret_cast<S*>(ws + l.b);
        E* col = reinterpret_cast<E*>(ws + l.c);
        pack_act(a.in, n0, cnt, dyp);
        FD_CUDA_LAUNCHED();
        FD_TRY(gemm(CUBLAS_OP_N, CUBLAS_OP_T, M, K, ocg, dyp, M, ocg * M, wpack, K, ocg * K, E(0), col, M, K * M));
        const int64_t isp = p.isp(), total = p.ic * cnt * isp;
        const PackDivs dv{Divider(isp, total), Divider(cnt, total / isp), Divider(p.iw, isp), Divider(p.ih, isp / p.iw)};
        col2im_kernel<S, E><<<grid(total), kBlock, 0, st>>>(g, dv, col, n0, cnt, xv, static_cast<S*>(a.out), alpha,
                                                            beta);
        FD_CUDA_LAUNCHED();
      }
    }
    return CUDNN_STATUS_SUCCESS;
  }
  // backward filter
  S* col = reinterpret_cast<S*>(ws + l.a);
  S* dyp = reinterpret_cast<S*>(ws + l.b);
  E* acc = reinterpret_cast<E*>(ws + l.c);
  for (int64_t n0 = 0; n0 < p.mb; n0 += l.chunk) {
    const int64_t cnt = std::min(l.chunk, p.mb - n0), M = cnt * osp;
    im2col(n0, cnt, col);
    FD_CUDA_LAUNCHED();
    pack_act(a.in2, n0, cnt, dyp);
    FD_CUDA_LAUNCHED();
    FD_TRY(gemm(CUBLAS_OP_T, CUBLAS_OP_N, K, ocg, M, col, M, K * M, dyp, M, ocg * M, E(n0 == 0 ? 0 : 1), acc, K,
                ocg * K));
  }
  write_dw_kernel<S, E><<<grid(p.oc * K), kBlock, 0, st>>>(g, acc, wv, static_cast<S*>(a.out), alpha, beta);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

class Im2colGemm final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cuda:im2col_gemm"; }
  fd::Backend backend() const override { return fd::Backend::cuda; }
  bool serves(ConvDir dir, int algo) const override {
    switch (dir) {
      case ConvDir::fwd: return algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
      case ConvDir::bwd_data: return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
      case ConvDir::bwd_filter:
        return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 || algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
    }
    return false;
  }
  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    if (p.is_int8())
      return {CUDNN_STATUS_NOT_SUPPORTED,
              "int8 needs exact int32 sums; cuda:im2col_gemm runs float GEMMs, so it declines int8"};
    if (gemm_k(p) > INT_MAX || p.osp() > INT_MAX || p.ocg() > INT_MAX)
      return {CUDNN_STATUS_NOT_SUPPORTED, "a GEMM dimension exceeds cuBLAS's 32-bit sizes"};
    // One image's column matrix (all groups' rows), in bytes, within the tensors' own limit (2^36): the layout's
    // sizes cannot wrap (ic * ksp < 2^31 * 2^31 and each factor of the product below < 2^31)
    const int64_t rows = p.ic * p.ksp();
    if (rows > INT_MAX || rows * p.osp() > (int64_t{1} << 36) / int64_t{8})
      return {CUDNN_STATUS_NOT_SUPPORTED, "one image's column matrix would exceed 2^36 bytes"};
    return {};
  }
  size_t workspace_size(const ConvProblem& p) const override { return layout(p).total; }
  bool deterministic() const override { return true; }
  cudnnMathType_t math_type(const ConvProblem& p) const override {
    return p.math == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
  }
  double cost_estimate(const ConvProblem& p) const override {
    const double rate = p.xdt == CUDNN_DATA_DOUBLE ? 3e13 : p.xdt != CUDNN_DATA_FLOAT || tf32_allowed(p) ? 2e14 : 3e13;
    const Layout l = layout(p);
    const double chunks = static_cast<double>((p.mb + l.chunk - 1) / l.chunk);
    const double col = 2.0 * static_cast<double>(p.mb * p.ic * p.ksp() * p.osp()) * storage_size(p);
    const double bytes = 4.0 * (p.mb * p.ic * p.isp() + p.oc * p.icg() * p.ksp() + 2.0 * p.mb * p.oc * p.osp());
    return p.flops() / rate + (col + bytes) / 2e12 + chunks * 3 * 4e-6 + 4e-6;
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:im2col_gemm called without a handle");
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    const bool known = with_float_storage(p.xdt, [&](auto tag) { st = run_typed<decltype(tag)>(p, a); });
    FD_CHECK_SUPPORTED(known, "cuda:im2col_gemm has no kernels for %s", dtype_short_name(p.xdt));
    return st;
  }
};

}  // namespace

const fd::conv::ConvImpl* im2col_gemm_impl() {
  static const Im2colGemm impl;
  return &impl;
}

}  // namespace fd::cuda::conv
