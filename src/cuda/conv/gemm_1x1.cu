// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:gemm_1x1: a 1x1 (1x1x1) convolution without padding and groups is a matrix product, done by cuBLAS with
// no im2col. With P = images x output pixels, S = output pixels of one image, and the filter w a K x C matrix:
//   NHWC (x: P x C, y: P x K, row-major)   fwd y = x w^T,  bwd_data dx = dy w,  bwd_filter dw = dy^T x
//                                            (one GEMM each, written straight into the output with alpha/beta)
//   NCHW (x_n: C x S, y_n: K x S per image) fwd y_n = w x_n,  bwd_data dx_n = w^T dy_n  (one strided-batched
//                                            GEMM over the images, straight into the output with alpha/beta)
//                                            bwd_filter dw = sum_n dy_n x_n^T: a strided-batched GEMM into
//                                            `slots` partial sums in the workspace (slot j sums images j, j +
//                                            slots, ... in order), then a kernel adds the slots in a fixed order;
//                                            in TF32 on a Hopper, one wgmma GEMM over all (n, s) instead
//                                            (wgrad1x1_tf32.cu), its slices added by the same kernel.
// Stride > 1 (the ResNet downsample layers): fwd and bwd_filter first gather the input pixels the convolution
// reads (x[., o*s]) into a packed buffer in the workspace (contiguous runs copied with 16-byte moves where the
// alignment allows); bwd_data computes the strided dx pixels into a float (double) workspace buffer and a
// scatter kernel writes every dx element (alpha * value or 0, blended with beta): 16-byte vectors with 32-bit index
// math where dx's rows are whole vectors, else one element per thread.
// The fused forward epilogue (bias, z, ReLU) runs in place on y after the GEMM wrote alpha * conv there (when z
// is y itself, the GEMM's beta adds alpha2 * z first). For half/bf16 data the product is thus rounded to the
// storage type once before the bias is added. Float products in float (f16/bf16 inputs, f32 accumulation),
// TF32 tensor cores for float data unless CUDNN_FMA_MATH or NVIDIA_TF32_OVERRIDE=0, double in double. No
// split-K atomics of our own and a fixed reduction order: deterministic. TF32 GEMMs run on cuBLASLt with the
// algorithm timed per shape at the workspace query / Find (lt_gemm.h: cuBLAS's default took up to 1.8x the time of
// the fastest answer on ResNet-50's 1x1 layers); FREEDNN_GEMM1X1_LT=0 (read at every call) runs cuBLAS's default.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cublas_util.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/index.cuh"
#include "cuda/common/lt_gemm.h"
#include "cuda/common/word.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/impls.h"
#include "cuda/conv/tf32.h"
#include "cuda/conv/wgrad1x1_tf32.h"

namespace fd::cuda::conv {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr size_t kAlign = 256;
constexpr size_t kSlotBudget = size_t{32} << 20;  // bytes of dW partial sums (NCHW backward filter)
constexpr int64_t kMaxBatch = 65535;                // images per strided-batched GEMM call

size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }
size_t storage_size(const ConvProblem& p) { return dtype_size(p.xdt); }
size_t compute_size(const ConvProblem& p) { return p.xdt == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float); }

cublasComputeType_t compute_type(const ConvProblem& p) {
  switch (p.xdt) {
    case CUDNN_DATA_DOUBLE: return CUBLAS_COMPUTE_64F;
    case CUDNN_DATA_FLOAT: return tf32_allowed(p) ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    default: return p.math == CUDNN_FMA_MATH ? CUBLAS_COMPUTE_32F_PEDANTIC : CUBLAS_COMPUTE_32F;
  }
}

template <class S> constexpr cudaDataType_t cuda_type();
template <> constexpr cudaDataType_t cuda_type<float>() { return CUDA_R_32F; }
template <> constexpr cudaDataType_t cuda_type<double>() { return CUDA_R_64F; }
template <> constexpr cudaDataType_t cuda_type<__half>() { return CUDA_R_16F; }
template <> constexpr cudaDataType_t cuda_type<__nv_bfloat16>() { return CUDA_R_16BF; }

bool filter_is_kc_matrix(const ConvProblem& p) {
  const cudnnTensorStruct& w = p.w->as_tensor;
  if (w.vect() != 1) return false;
  return (p.oc == 1 || w.strides[0] == p.ic) && (p.ic == 1 || w.strides[1] == 1);
}

bool unit_stride(const ConvProblem& p) { return p.sd == 1 && p.sh == 1 && p.sw == 1; }

// The layout both x and y share: NHWC preferred (one GEMM) when a tensor qualifies as both.
int layout_of(const ConvProblem& p) {  // 1 nhwc, 0 nchw, -1 neither
  if (p.x->is_packed_as(CUDNN_TENSOR_NHWC) && p.y->is_packed_as(CUDNN_TENSOR_NHWC)) return 1;
  if (p.x->is_packed_as(CUDNN_TENSOR_NCHW) && p.y->is_packed_as(CUDNN_TENSOR_NCHW)) return 0;
  return -1;
}

// Workspace buffers, offsets from the 256-byte aligned start.
struct Plan {
  bool nhwc = false, strided = false;
  int64_t slots = 0;                  // NCHW bwd_filter with several images: dW partial-sum slots
  int64_t tf32_slices = 0;            // NCHW TF32 bwd_filter: the Hopper kernel's slices (wgrad1x1_tf32.h), or 0
  size_t gather = 0, gather_bytes = 0;  // strided fwd / bwd_filter: packed gathered x (storage type)
  size_t dxs = 0, dxs_bytes = 0;        // strided bwd_data: strided dx pixels (compute type)
  size_t slot = 0, slot_bytes = 0;      // slots x K x C (compute type)
  size_t tf32_bytes = 0;                // tf32_slices x K x C floats, in the slot buffer
  size_t total = 0;
};

Plan plan(const ConvProblem& p) {
  Plan l;
  l.nhwc = layout_of(p) == 1;
  l.strided = !unit_stride(p);
  const size_t ss = storage_size(p), cs = compute_size(p);
  const auto xs = static_cast<size_t>(p.mb * p.ic * p.osp());  // x elements at the output pixels
  if (l.strided && p.dir != ConvDir::bwd_data) l.gather_bytes = xs * ss;
  if (l.strided && p.dir == ConvDir::bwd_data) l.dxs_bytes = xs * cs;
  if (p.dir == ConvDir::bwd_filter && !l.nhwc && p.mb > 1) {
    const auto per = static_cast<size_t>(p.oc * p.ic) * cs;
    l.slots = std::min<int64_t>(p.mb, std::max<int64_t>(1, static_cast<int64_t>(kSlotBudget / per)));
    l.slots = std::min(l.slots, kMaxBatch);
    l.slot_bytes = static_cast<size_t>(l.slots) * per;
  }
  // The one-GEMM kernel where the slots' partial sums (2 x K x C floats per image) come to at least 30 % of the
  // inputs' bytes ((K + C) x S floats per image). Run 32 (H100, ResNet-50): 1.22-1.79x faster where they come to
  // 43-209 % (the 14x14 and 28x28 layers), the same at 26 %, 0.80-0.92x the slots' time on the 56x56 layers (2-10 %:
  // the GEMMs run there at the copy bandwidth).
  const bool one_gemm_pays = 2 * p.oc * p.ic * 10 >= 3 * (p.oc + p.ic) * p.osp();
  if (p.dir == ConvDir::bwd_filter && !l.nhwc && p.xdt == CUDNN_DATA_FLOAT && tf32_allowed(p) && one_gemm_pays) {
    l.tf32_slices = wgrad1x1_tf32_slices(p.mb, p.ic, p.oc, p.osp());
    l.tf32_bytes = static_cast<size_t>(l.tf32_slices * p.oc * p.ic) * sizeof(float);
  }
  size_t off = 0;
  l.gather = off;
  off += align_up(l.gather_bytes);
  l.dxs = off;
  off += align_up(l.dxs_bytes);
  l.slot = off;
  off += align_up(std::max(l.slot_bytes, l.tf32_bytes));
  l.total = off == 0 ? 0 : off + kAlign;
  return l;
}

// --- kernels ----------------------------------------------------------------------------------------------------

struct PixMap {  // output pixel o of an image -> the input pixel a 1x1 filter reads at stride s
  int64_t od, oh, ow, ih, iw, isp, osp;
  int sd, sh, sw;
  __device__ __forceinline__ int64_t in_pixel(int64_t o) const {
    const int64_t w = o % ow, t = o / ow, h = t % oh, d = t / oh;
    return (d * sd * ih + h * sh) * iw + w * sw;
  }
};

PixMap pixmap(const ConvProblem& p) {
  return PixMap{p.od, p.oh, p.ow, p.ih, p.iw, p.isp(), p.osp(), p.sd, p.sh, p.sw};
}

// dst[outer][o][0..nv) = src[outer][in_pixel(o)][0..nv), in units V (nv units per pixel run).
template <class V>
__global__ void gather_kernel(PixMap m, const V* __restrict__ src, V* __restrict__ dst, int64_t outer, int64_t nv) {
  const int64_t total = outer * m.osp * nv;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = i / nv, v = i - r * nv;
    const int64_t q = r / m.osp, o = r - q * m.osp;
    dst[i] = src[(q * m.isp + m.in_pixel(o)) * nv + v];
  }
}

// The NCHW gather of 2-D layers at column stride 2 (one element per pixel run): thread t writes P consecutive
// pixels of one output row, dst[t * P ..], from the 2P input pixels under them, src[q][p * sh][2 * P * g ..], in
// whole words (16 bytes where the row allows) with 32-bit index arithmetic through Dividers (per_row: the P-groups
// of an output row; per_img: the oh rows of one image). E is an unsigned integer of the element's size. Why:
// gather_kernel moves one element per thread through three 64-bit divisions, about 150 instructions per element
// (its PTX), an issue-bound copy at ResNet-50's 1x1 stride-2 layers in NCHW.
template <class E, int P>
__global__ void gather_w2_kernel(int total, Divider per_row, Divider per_img, int gpr, int oh, int64_t isp,
                                 int64_t row_step, const E* __restrict__ src, E* __restrict__ dst) {
  constexpr int kLoad = 2 * P * int(sizeof(E)) < 16 ? 2 * P * int(sizeof(E)) : 16;  // bytes per load
  constexpr int kStore = P * int(sizeof(E)) < 16 ? P * int(sizeof(E)) : 16;          // bytes per store
  using WL = word_t<kLoad>;
  using WS = word_t<kStore>;
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const int row = int(per_row.div(t)), g = t - row * gpr;
    const int q = int(per_img.div(row)), pr = row - q * oh;
    const E* in = src + q * isp + pr * row_step + int64_t(2 * P) * g;
    alignas(16) E v[2 * P];
#pragma unroll
    for (int l = 0; l < 2 * P * int(sizeof(E)) / kLoad; ++l)
      reinterpret_cast<WL*>(v)[l] = reinterpret_cast<const WL*>(in)[l];
    alignas(16) E out[P];
#pragma unroll
    for (int j = 0; j < P; ++j) out[j] = v[2 * j];
    E* o = dst + int64_t(t) * P;
#pragma unroll
    for (int l = 0; l < P * int(sizeof(E)) / kStore; ++l)
      reinterpret_cast<WS*>(o)[l] = reinterpret_cast<const WS*>(out)[l];
  }
}

// dx (packed, `run` contiguous elements per pixel, `outer` groups of isp pixels) from the strided pixels in dxs:
// alpha * dxs at the pixels a 1x1 stride-s filter reads, 0 elsewhere, blended with beta (dx not read if 0).
template <class S, class E>
__global__ void scatter_kernel(PixMap m, const E* __restrict__ dxs, S* dx, int64_t outer, int64_t run, E alpha,
                               E beta) {
  const int64_t total = outer * m.isp * run;
  const FusedDev none;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = i / run, j = i - r * run;
    const int64_t q = r / m.isp, s = r - q * m.isp;
    const int64_t w = s % m.iw, t = s / m.iw, h = t % m.ih, d = t / m.ih;
    E v = E(0);
    if (d % m.sd == 0 && h % m.sh == 0 && w % m.sw == 0 && d / m.sd < m.od && h / m.sh < m.oh && w / m.sw < m.ow) {
      const int64_t o = (d / m.sd * m.oh + h / m.sh) * m.ow + w / m.sw;
      v = dxs[(q * m.osp + o) * run + j];
    }
    write_out<S, E>(dx, i, v, alpha, beta, none, 0, 0, 0, 0, 0);
  }
}

// scatter_kernel over 16-byte vectors of dx (V = 16 / sizeof(S) elements) with 32-bit divisions: the per-element
// kernel spends its time on six 64-bit divisions per element (0.33 TB/s measured on the H200). dx is `rows` rows of
// `len` = iw * run contiguous elements (row (q, d, h)); len % V == 0, dx and dxs 16-byte aligned. kPix: run % V == 0,
// a vector lies in one pixel and its V values are contiguous in dxs; otherwise (NCHW, run == 1) the V elements are
// V pixels of a row. E is Comp<S>. Dividers: by nv (vectors per row), ih, id, run and sw.
struct ScatterDivs {
  Divider nv, ih, id, run, sw;
};

template <class S, int V, bool kPix>
__global__ void __launch_bounds__(kBlock) scatter_vec_kernel(PixMap m, ScatterDivs dv, const Comp<S>* __restrict__ dxs,
                                                             S* __restrict__ dx, int64_t total, int64_t nv, int64_t run,
                                                             int64_t id, double alpha, double beta) {
  using E = Comp<S>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = dv.nv.div(i), v = i - r * nv;
    const int64_t t = dv.ih.div(r), q = dv.id.div(t);
    const int h = static_cast<int>(r - t * m.ih), d = static_cast<int>(t - q * id);  // 32-bit from here
    const bool live = h % m.sh == 0 && d % m.sd == 0 && h / m.sh < m.oh && d / m.sd < m.od;
    const int64_t obase = (q * m.osp + (int64_t(d / m.sd) * m.oh + h / m.sh) * m.ow) * run;  // dxs offset of the row
    alignas(16) E val[V];
    const int64_t e0 = v * V;  // first element of the vector within the row
    if constexpr (kPix) {
      const int64_t w = dv.run.div(e0), j = e0 - w * run;
      const int64_t ws = dv.sw.div(w);
      if (live && ws * m.sw == w && ws < m.ow) {
        constexpr int kChunks = static_cast<int>(V * sizeof(E) / 16);
        const uint4* src = reinterpret_cast<const uint4*>(dxs + obase + ws * run + j);
#pragma unroll
        for (int c = 0; c < kChunks; ++c) reinterpret_cast<uint4*>(val)[c] = src[c];
      } else {
#pragma unroll
        for (int k = 0; k < V; ++k) val[k] = E(0);
      }
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const int64_t w = e0 + k, ws = dv.sw.div(w);
        val[k] = live && ws * m.sw == w && ws < m.ow ? dxs[obase + ws] : E(0);
      }
    }
    blend_store_vec<S, V>(dx + i * V, val, alpha, beta);
  }
}

// dw[i] = alpha * sum over the slots (in order) of slot[j][i] + beta * dw[i], dw a packed K x C matrix.
template <class S, class E>
__global__ void reduce_slots_kernel(const E* __restrict__ slot, int64_t nslots, int64_t kc, S* dw, E alpha, E beta) {
  const FusedDev none;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < kc; i += int64_t(gridDim.x) * blockDim.x) {
    E acc = E(0);
    for (int64_t j = 0; j < nslots; ++j) acc += slot[j * kc + i];
    write_out<S, E>(dw, i, acc, alpha, beta, none, 0, 0, 0, 0, 0);
  }
}

// The fused epilogue in place on packed y holding alpha * conv (+ alpha2 * z already when z is y):
// y = act(y + bias[k] + alpha2 * z).
template <class S, class E>
__global__ void fused_epilogue_kernel(S* y, int64_t mb, int64_t K, int64_t od, int64_t oh, int64_t ow, bool nhwc,
                                      FusedDev f) {
  const int64_t osp = od * oh * ow, total = mb * K * osp;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t k, o, n;
    if (nhwc) {
      k = i % K;
      const int64_t r = i / K;
      o = r % osp;
      n = r / osp;
    } else {
      o = i % osp;
      const int64_t r = i / osp;
      k = r % K;
      n = r / K;
    }
    const int64_t w = o % ow, t = o / ow, h = t % oh, d = t / oh;
    write_out<S, E>(y, i, load_as<E>(y, i), E(1), E(0), f, n, k, d, h, w);
  }
}

// --- host side --------------------------------------------------------------------------------------------------

// The GEMM shape as cuBLASLt's tuning table keys it (the batch strides of a single GEMM do not matter).
fd::cuda::LtGemm lt_shape(cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k, int64_t lda,
                          int64_t sa, int64_t ldb, int64_t sb, int64_t ldc, int64_t sc, int64_t batch,
                          cudaDataType_t ab, cudaDataType_t c, cublasComputeType_t ct) {
  fd::cuda::LtGemm g;
  g.ta = ta, g.tb = tb, g.m = m, g.n = n, g.k = k, g.lda = lda, g.ldb = ldb, g.ldc = ldc;
  if (batch > 1) g.sa = sa, g.sb = sb, g.sc = sc;
  g.batch = batch, g.ab = ab, g.c = c, g.ct = ct;
  return g;
}

struct Gemm {
  cublasHandle_t cb = nullptr;
  cudaDataType_t ab = CUDA_R_32F, c = CUDA_R_32F;
  cublasComputeType_t ct = CUBLAS_COMPUTE_32F;
  cudnnContext* h = nullptr;  // set: TF32 GEMMs go to cuBLASLt with (work, work_bytes) as its work area
  void* work = nullptr;
  size_t work_bytes = 0;
  // C (column-major m x n) = alpha op(A) op(B) + beta C, `batch` times with element strides sa, sb, sc.
  cudnnStatus_t operator()(cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k, double alpha,
                           const void* A, int64_t lda, int64_t sa, const void* B, int64_t ldb, int64_t sb, double beta,
                           void* C, int64_t ldc, int64_t sc, int64_t batch) const {
    if (h != nullptr && ct == CUBLAS_COMPUTE_32F_FAST_TF32) {
      bool ran = false;
      FD_TRY(fd::cuda::lt_gemm(h, lt_shape(ta, tb, m, n, k, lda, sa, ldb, sb, ldc, sc, batch, ab, c, ct), alpha, A, B,
                               beta, C, work, work_bytes, &ran));
      if (ran) return CUDNN_STATUS_SUCCESS;
    }
    const float af = static_cast<float>(alpha), bf = static_cast<float>(beta);
    const bool dbl = ct == CUBLAS_COMPUTE_64F;
    const void* ap = dbl ? static_cast<const void*>(&alpha) : static_cast<const void*>(&af);
    const void* bp = dbl ? static_cast<const void*>(&beta) : static_cast<const void*>(&bf);
    const auto M = static_cast<int>(m), N = static_cast<int>(n), Kd = static_cast<int>(k);
    if (batch == 1) {
      FD_CUBLAS_CHECK(cublasGemmEx(cb, ta, tb, M, N, Kd, ap, A, ab, static_cast<int>(lda), B, ab,
                                   static_cast<int>(ldb), bp, C, c, static_cast<int>(ldc), ct, CUBLAS_GEMM_DEFAULT));
    } else {
      FD_CUBLAS_CHECK(cublasGemmStridedBatchedEx(cb, ta, tb, M, N, Kd, ap, A, ab, static_cast<int>(lda), sa, B, ab,
                                                 static_cast<int>(ldb), sb, bp, C, c, static_cast<int>(ldc), sc,
                                                 static_cast<int>(batch), ct, CUBLAS_GEMM_DEFAULT));
    }
    return CUDNN_STATUS_SUCCESS;
  }
};

// The cuBLASLt GEMM shapes run_typed queues for a float problem on TF32 (none otherwise), for tuning at prepare():
// the same calls, written out again without the data (a shape missing here only runs untimed: the heuristic's
// first answer).
std::vector<fd::cuda::LtGemm> tf32_gemms(const ConvProblem& p) {
  std::vector<fd::cuda::LtGemm> out;
  if (compute_type(p) != CUBLAS_COMPUTE_32F_FAST_TF32 || !env_flag_or("FREEDNN_GEMM1X1_LT", true)) return out;
  const Plan l = plan(p);
  const int64_t C = p.ic, K = p.oc, N = p.mb, S = p.osp(), P = N * S;
  const cublasOperation_t NN = CUBLAS_OP_N, TT = CUBLAS_OP_T;
  const auto add = [&](cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k, int64_t lda,
                       int64_t sa, int64_t ldb, int64_t sb, int64_t ldc, int64_t sc, int64_t batch) {
    const auto g = lt_shape(ta, tb, m, n, k, lda, sa, ldb, sb, ldc, sc, batch, CUDA_R_32F, CUDA_R_32F,
                            CUBLAS_COMPUTE_32F_FAST_TF32);
    if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
  };
  // Image chunks of at most `per` images: the full chunks' shape and the last one's.
  const auto chunks = [&](int64_t per, const auto& one) {
    one(std::min(per, N));
    if (N > per && N % per != 0) one(N % per);
  };
  if (p.dir == ConvDir::fwd) {
    if (l.nhwc) add(TT, NN, K, P, C, C, 0, C, 0, K, 0, 1);
    else chunks(kMaxBatch, [&](int64_t cnt) { add(NN, NN, S, K, C, S, C * S, C, 0, S, K * S, cnt); });
  } else if (p.dir == ConvDir::bwd_data) {
    if (l.nhwc) add(NN, NN, C, P, K, C, 0, K, 0, C, 0, 1);
    else chunks(kMaxBatch, [&](int64_t cnt) { add(NN, TT, S, C, K, S, K * S, C, 0, S, C * S, cnt); });
  } else if (l.nhwc) {
    add(NN, TT, C, K, P, C, 0, K, 0, C, 0, 1);
  } else if (l.slots == 0) {
    add(TT, NN, C, K, S, S, 0, S, 0, C, 0, 1);
  } else {
    chunks(l.slots, [&](int64_t cnt) { add(TT, NN, C, K, S, S, C * S, S, K * S, C, K * C, cnt); });
  }
  return out;
}

// Queues scatter_vec_kernel when dx allows it (rows of whole 16-byte vectors, aligned, E the storage's compute
// type, fewer than 2^31 vectors for the 32-bit divisions); false: the caller runs the per-element kernel.
// FREEDNN_GEMM1X1_SCATTER_LEGACY=1 always says false (A/B measurements).
template <class S, class E>
bool scatter_vec(cudnnContext* h, const ConvProblem& p, const E* dxs, S* dx, int64_t outer, int64_t run, double alpha,
                 double beta) {
  static const bool legacy = env_flag("FREEDNN_GEMM1X1_SCATTER_LEGACY");
  constexpr int V = static_cast<int>(16 / sizeof(S));
  if constexpr (!std::is_same_v<E, Comp<S>>) {
    return false;
  } else {
    const PixMap m = pixmap(p);
    const int64_t id = m.isp / (m.ih * m.iw), len = m.iw * run;
    const int64_t rows = outer * id * m.ih, nv = len / V, total = rows * nv;
    const bool pix = run % V == 0;
    if (legacy || len % V != 0 || (!pix && run != 1) || total >= (int64_t{1} << 31) ||
        !aligned16(dx) || !aligned16(dxs))
      return false;
    ScatterDivs dv{Divider(nv, total), Divider(m.ih, rows), Divider(id, rows / m.ih), Divider(run, len),
                   Divider(m.sw, m.iw)};
    const int g = grid_size(total, kBlock, h->device);
    if (pix)
      scatter_vec_kernel<S, V, true><<<g, kBlock, 0, h->stream>>>(m, dv, dxs, dx, total, nv, run, id, alpha, beta);
    else
      scatter_vec_kernel<S, V, false><<<g, kBlock, 0, h->stream>>>(m, dv, dxs, dx, total, nv, run, id, alpha, beta);
    return true;
  }
}

// gather_w2_kernel for one element type: the most pixels per thread (8, 4 or 2, at most 16 bytes of output) whose
// words the row lengths and pointers align; false (nothing queued) when none does.
template <class E>
bool gather_w2(cudnnContext* h, const ConvProblem& p, const void* src, void* dst, int64_t outer) {
  const int64_t gpr_max = p.ow, rows = outer * p.oh;
  const auto addr = reinterpret_cast<uintptr_t>(src), daddr = reinterpret_cast<uintptr_t>(dst);
  auto fits = [&](int P) {
    const int64_t load = std::min<int64_t>(16, 2 * P * int64_t(sizeof(E))), store = P * int64_t(sizeof(E));
    return int64_t(P) * int64_t(sizeof(E)) <= 16 && p.ow % P == 0 && (p.iw * int64_t(sizeof(E))) % load == 0 &&
           addr % load == 0 && daddr % store == 0 && rows * (p.ow / P) < (int64_t{1} << 31);
  };
  auto launch = [&](auto kern, int P) {
    const int gpr = static_cast<int>(gpr_max / P);
    const int total = static_cast<int>(rows * gpr);
    kern<<<grid_size(total, kBlock, h->device), kBlock, 0, h->stream>>>(
        total, Divider(gpr, total), Divider(p.oh, rows), gpr, static_cast<int>(p.oh), p.isp(), p.sh * p.iw,
        static_cast<const E*>(src), static_cast<E*>(dst));
    return true;
  };
  if constexpr (sizeof(E) <= 2) {
    if (fits(8)) return launch(gather_w2_kernel<E, 8>, 8);
  }
  if constexpr (sizeof(E) <= 4) {
    if (fits(4)) return launch(gather_w2_kernel<E, 4>, 4);
  }
  if (fits(2)) return launch(gather_w2_kernel<E, 2>, 2);
  return false;
}

// Copies runs of `run` elements of `es` bytes per pixel with the widest move the sizes and alignment allow.
// NCHW 2-D layers at column stride 2 go to gather_w2_kernel (FREEDNN_GATHER_W2=0, read at every call: to
// gather_kernel; H200 run 19: 0.63-0.93x its time on ResNet-50's 56 -> 28 and 28 -> 14 downsamples).
cudnnStatus_t gather(cudnnContext* h, const ConvProblem& p, const void* src, void* dst, int64_t outer, int64_t run,
                     size_t es) {
  if (run == 1 && p.od == 1 && p.sw == 2 && 2 * p.ow <= p.iw && (p.oh - 1) * p.sh < p.ih &&
      env_flag_or("FREEDNN_GATHER_W2", true)) {
    bool queued = false;
    if (es == 2) queued = gather_w2<uint16_t>(h, p, src, dst, outer);
    else if (es == 4) queued = gather_w2<uint32_t>(h, p, src, dst, outer);
    else if (es == 8) queued = gather_w2<uint64_t>(h, p, src, dst, outer);
    if (queued) {
      FD_CUDA_LAUNCHED();
      return CUDNN_STATUS_SUCCESS;
    }
  }
  const PixMap m = pixmap(p);
  const auto bytes = static_cast<size_t>(run) * es;
  const auto a = reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst);
  auto launch = [&](auto tag) -> cudnnStatus_t {
    using V = decltype(tag);
    const int64_t nv = static_cast<int64_t>(bytes / sizeof(V));
    const int grid = grid_size(outer * m.osp * nv, kBlock, h->device);
    gather_kernel<V><<<grid, kBlock, 0, h->stream>>>(m, static_cast<const V*>(src), static_cast<V*>(dst), outer, nv);
    FD_CUDA_LAUNCHED();
    return CUDNN_STATUS_SUCCESS;
  };
  if (bytes % 16 == 0 && a % 16 == 0) return launch(uint4{});
  if (bytes % 8 == 0 && a % 8 == 0) return launch(uint2{});
  if (bytes % 4 == 0 && a % 4 == 0) return launch(uint32_t{});
  return launch(uint16_t{});  // every float type is at least 2 bytes
}

template <class S>
cudnnStatus_t run_typed(const ConvProblem& p, const ConvArgs& a) {
  using E = ComputeOf<S>;
  cudnnContext* h = a.handle;
  const Plan l = plan(p);
  FD_CHECK_PARAM(l.total == 0 || (a.workspace != nullptr && a.workspace_size >= l.total),
                 "cuda:gemm_1x1 needs %zu bytes of workspace", l.total);
  char* ws = nullptr;
  if (l.total != 0) ws = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(a.workspace) + kAlign - 1) / kAlign * kAlign);
  Gemm gemm;
  FD_TRY(cublas_handle(h, &gemm.cb));
  gemm.ab = cuda_type<S>();
  gemm.c = cuda_type<S>();
  gemm.ct = compute_type(p);
  if (env_flag_or("FREEDNN_GEMM1X1_LT", true)) {  // cuBLASLt's work area: the workspace past the plan's buffers
    gemm.h = h;
    const auto start = reinterpret_cast<uintptr_t>(a.workspace);
    const uintptr_t work = (start + kAlign - 1) / kAlign * kAlign + align_up(l.total);
    if (a.workspace != nullptr && work < start + a.workspace_size) {
      gemm.work = reinterpret_cast<void*>(work);
      gemm.work_bytes = start + a.workspace_size - work;
    }
  }
  const int64_t C = p.ic, K = p.oc, N = p.mb, S_ = p.osp(), P = N * S_;
  const auto es = static_cast<int64_t>(sizeof(S));
  const auto grid = [&](int64_t n) { return grid_size(n, kBlock, h->device); };
  const cublasOperation_t NN = CUBLAS_OP_N, TT = CUBLAS_OP_T;

  if (p.dir == ConvDir::fwd) {
    const void* x = a.in;
    if (l.strided) {
      FD_TRY(gather(h, p, a.in, ws + l.gather, l.nhwc ? N : N * C, l.nhwc ? C : 1, sizeof(S)));
      x = ws + l.gather;
    }
    double alpha = a.alpha, beta = a.beta;
    FusedDev f;
    if (a.fused != nullptr) {
      f = fused_dev(a.fused);
      beta = 0.0;
      if (a.fused->alpha2 != 0.0 && a.fused->z_data == a.out) {  // z is y: the GEMM adds alpha2 * z itself
        bool same = true;
        for (int i = 0; i < p.y->nb_dims; ++i) same = same && a.fused->z->strides[i] == p.y->strides[i];
        FD_CHECK_SUPPORTED(same, "cuda:gemm_1x1: z is y's memory with other strides (%s vs %s)",
                           a.fused->z->spec().c_str(), p.y->spec().c_str());
        beta = a.fused->alpha2;
        f.alpha2 = 0.0;
      }
    }
    if (l.nhwc) {
      FD_TRY(gemm(TT, NN, K, P, C, alpha, a.in2, C, 0, x, C, 0, beta, a.out, K, 0, 1));
    } else {
      for (int64_t n0 = 0; n0 < N; n0 += kMaxBatch) {
        const int64_t cnt = std::min(kMaxBatch, N - n0);
        FD_TRY(gemm(NN, NN, S_, K, C, alpha, static_cast<const char*>(x) + n0 * C * S_ * es, S_, C * S_, a.in2, C, 0,
                    beta, static_cast<char*>(a.out) + n0 * K * S_ * es, S_, K * S_, cnt));
      }
    }
    if (a.fused != nullptr) {
      fused_epilogue_kernel<S, E><<<grid(N * K * S_), kBlock, 0, h->stream>>>(static_cast<S*>(a.out), N, K, p.od, p.oh,
                                                                             p.ow, l.nhwc, f);
      FD_CUDA_LAUNCHED();
    }
    return CUDNN_STATUS_SUCCESS;
  }

  if (p.dir == ConvDir::bwd_data) {
    // The GEMM writes dx itself (stride 1) or the strided pixels into the workspace for the scatter.
    void* out = l.strided ? static_cast<void*>(ws + l.dxs) : a.out;
    const double alpha = l.strided ? 1.0 : a.alpha, beta = l.strided ? 0.0 : a.beta;
    Gemm g = gemm;
    const int64_t oes = es;
    int64_t out_es = oes;
    if (l.strided) {
      g.c = cuda_type<E>();
      out_es = static_cast<int64_t>(sizeof(E));
    }
    if (l.nhwc) {
      FD_TRY(g(NN, NN, C, P, K, alpha, a.in2, C, 0, a.in, K, 0, beta, out, C, 0, 1));
    } else {
      for (int64_t n0 = 0; n0 < N; n0 += kMaxBatch) {
        const int64_t cnt = std::min(kMaxBatch, N - n0);
        FD_TRY(g(NN, TT, S_, C, K, alpha, static_cast<const char*>(a.in) + n0 * K * S_ * oes, S_, K * S_, a.in2, C, 0,
                 beta, static_cast<char*>(out) + n0 * C * S_ * out_es, S_, C * S_, cnt));
      }
    }
    if (l.strided) {
      const int64_t outer = l.nhwc ? N : N * C, run = l.nhwc ? C : 1;
      if (!scatter_vec(h, p, reinterpret_cast<const E*>(ws + l.dxs), static_cast<S*>(a.out), outer, run, a.alpha,
                       a.beta)) {
        scatter_kernel<S, E><<<grid(N * C * p.isp()), kBlock, 0, h->stream>>>(
            pixmap(p), reinterpret_cast<const E*>(ws + l.dxs), static_cast<S*>(a.out), outer, run,
            static_cast<E>(a.alpha), static_cast<E>(a.beta));
      }
      FD_CUDA_LAUNCHED();
    }
    return CUDNN_STATUS_SUCCESS;
  }

  // backward filter: in = x, in2 = dy, out = dw (a packed K x C matrix)
  const void* x = a.in;
  if (l.strided) {
    FD_TRY(gather(h, p, a.in, ws + l.gather, l.nhwc ? N : N * C, l.nhwc ? C : 1, sizeof(S)));
    x = ws + l.gather;
  }
  if (l.nhwc) {
    FD_TRY(gemm(NN, TT, C, K, P, a.alpha, x, C, 0, a.in2, K, 0, a.beta, a.out, C, 0, 1));
    return CUDNN_STATUS_SUCCESS;
  }
  if (l.tf32_slices > 0 && wgrad1x1_tf32_wanted(h->device) && aligned16(x) && aligned16(a.in2)) {
    float* part = reinterpret_cast<float*>(ws + l.slot);
    const cudnnStatus_t st = wgrad1x1_tf32_run(h->stream, h->device, static_cast<const float*>(x),
                                               static_cast<const float*>(a.in2), N, C, K, S_, l.tf32_slices, part);
    if (st == CUDNN_STATUS_SUCCESS) {
      reduce_slots_kernel<S, E><<<grid(K * C), kBlock, 0, h->stream>>>(
          reinterpret_cast<const E*>(part), l.tf32_slices, K * C, static_cast<S*>(a.out), static_cast<E>(a.alpha),
          static_cast<E>(a.beta));
      FD_CUDA_LAUNCHED();
      return CUDNN_STATUS_SUCCESS;
    }
    if (st != CUDNN_STATUS_NOT_SUPPORTED) return st;  // NOT_SUPPORTED: nothing queued, the GEMMs below serve
  }
  if (l.slots == 0) {  // one image
    FD_TRY(gemm(TT, NN, C, K, S_, a.alpha, x, S_, 0, a.in2, S_, 0, a.beta, a.out, C, 0, 1));
    return CUDNN_STATUS_SUCCESS;
  }
  Gemm g = gemm;
  g.c = cuda_type<E>();
  E* slot = reinterpret_cast<E*>(ws + l.slot);
  for (int64_t n0 = 0; n0 < N; n0 += l.slots) {
    const int64_t cnt = std::min(l.slots, N - n0);
    FD_TRY(g(TT, NN, C, K, S_, 1.0, static_cast<const char*>(x) + n0 * C * S_ * es, S_, C * S_,
             static_cast<const char*>(a.in2) + n0 * K * S_ * es, S_, K * S_, n0 == 0 ? 0.0 : 1.0, slot, C, K * C,
             cnt));
  }
  reduce_slots_kernel<S, E><<<grid(K * C), kBlock, 0, h->stream>>>(slot, std::min(l.slots, N), K * C,
                                                                   static_cast<S*>(a.out), static_cast<E>(a.alpha),
                                                                   static_cast<E>(a.beta));
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

class Gemm1x1 final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cuda:gemm_1x1"; }
  fd::Backend backend() const override { return fd::Backend::cuda; }
  bool serves(ConvDir dir, int algo) const override {
    switch (dir) {
      case ConvDir::fwd:
        return algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
      case ConvDir::bwd_data: return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
      case ConvDir::bwd_filter: return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    }
    return false;
  }
  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    auto no = [](const char* why) { return fd::conv::Verdict{CUDNN_STATUS_NOT_SUPPORTED, why}; };
    if (p.is_int8()) return no("int8 needs exact int32 sums; cuda:gemm_1x1 runs float GEMMs");
    if (p.xdt != CUDNN_DATA_FLOAT && p.xdt != CUDNN_DATA_DOUBLE && p.xdt != CUDNN_DATA_HALF &&
        p.xdt != CUDNN_DATA_BFLOAT16)
      return no("data type is not f32, f64, f16 or bf16");
    if (p.ksp() != 1) return no("the filter is not 1x1");
    if (p.pd != 0 || p.ph != 0 || p.pw != 0) return no("padding is not zero");
    if (p.g != 1) return no("grouped convolution");
    const int lay = layout_of(p);
    if (lay < 0) return no("x and y are not both packed NCHW or both packed NHWC");
    if (!filter_is_kc_matrix(p)) return no("the filter is not a packed K x C matrix");
    const int64_t P = p.mb * p.osp();
    if (p.ic > INT_MAX || p.oc > INT_MAX || p.osp() > INT_MAX || (lay == 1 && P > INT_MAX))
      return no("a GEMM dimension exceeds cuBLAS's 32-bit sizes");
    return {};
  }
  // The plan's buffers, then the work area of the cuBLASLt algorithms prepare() timed fastest.
  size_t workspace_size(const ConvProblem& p) const override {
    const Plan l = plan(p);
    size_t work = 0;
    for (const fd::cuda::LtGemm& g : tf32_gemms(p)) work = std::max(work, fd::cuda::lt_tuned_work(g));
    return work == 0 ? l.total : align_up(l.total) + kAlign + work;  // kAlign: the start's alignment slack
  }
  // Times cuBLASLt's answers for the problem's TF32 GEMMs (lt_gemm.h).
  cudnnStatus_t prepare(cudnnContext* h, const ConvProblem& p) const override {
    for (const fd::cuda::LtGemm& g : tf32_gemms(p)) FD_TRY(fd::cuda::lt_tune(h, g));
    return CUDNN_STATUS_SUCCESS;
  }
  bool deterministic() const override { return true; }
  cudnnMathType_t math_type(const ConvProblem& p) const override {
    if (p.xdt == CUDNN_DATA_HALF || p.xdt == CUDNN_DATA_BFLOAT16)
      return p.math == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
    if (tf32_allowed(p)) return CUDNN_TENSOR_OP_MATH;
    return p.math == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
  }
  double cost_estimate(const ConvProblem& p) const override {
    const double rate = p.xdt == CUDNN_DATA_DOUBLE ? 60e12
                        : p.xdt == CUDNN_DATA_FLOAT ? (tf32_allowed(p) ? 200e12 : 50e12)
                                                    : 400e12;
    const Plan l = plan(p);
    const double ss = static_cast<double>(storage_size(p));
    double bytes = ss * static_cast<double>(p.mb * p.ic * p.isp() + p.oc * p.ic + p.mb * p.oc * p.osp());
    // The partial sums: the Hopper TF32 kernel's where it serves (the estimate is the H200's), else the slots'.
    const size_t partial = l.tf32_slices > 0 ? l.tf32_bytes : l.slot_bytes;
    bytes += 3.0 * static_cast<double>(l.gather_bytes) + 2.0 * static_cast<double>(partial);
    double scatter = 0.0;  // strided backward data: scatter_kernel reads dxs and writes all of dx
    if (l.dxs_bytes > 0)   // at ~0.33 TB/s on the H200 (ResNet-50's stride-2 1x1 layers, runs 7 and 8: 0.14-0.37 ms)
      scatter = (static_cast<double>(l.dxs_bytes) + ss * static_cast<double>(p.mb * p.ic * p.isp())) / 0.33e12;
    return p.flops() / rate + bytes / 3.5e12 + scatter;
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:gemm_1x1 called without a handle");
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    const bool known = with_float_storage(p.xdt, [&](auto tag) { st = run_typed<decltype(tag)>(p, a); });
    FD_CHECK_SUPPORTED(known, "cuda:gemm_1x1 has no kernels for %s", dtype_short_name(p.xdt));
    return st;
  }
};

}  // namespace

const fd::conv::ConvImpl* gemm_1x1_impl() {
  static const Gemm1x1 impl;
  return &impl;
}

}  // namespace fd::cuda::conv
