// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The input patch of cuda:patch_fprop and cuda:patch_wgrad: the x values a tile of 16 x 16 output pixels reads
// (rows p0 * sh - ph .. + PH, columns q0 * sw - pw .. + PW, all C channels), staged in shared memory as
// [PH][PW][C] operand bits, zero outside x, followed by a zero region. Output pixel (pp, qq) of the tile starts at
// element pp * sh * pitch + qq * sw * C; filter tap k = (r * S + s) * C + c sits tap_offset(k) further. The zero
// region covers any base plus any tap offset, so a padded GEMM column or an out-of-range pixel can read zeros
// there instead of masking its values (0 * Inf would be NaN).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "cuda/common/cuda_util.h"
#include "cuda/common/index.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/mma_sync.cuh"
#include "cuda/conv/tf32.h"
#include "problem/conv.h"

namespace fd::cuda::conv {

constexpr int kPatchTileP = 16, kPatchTileQ = 16;  // output pixels per tile: rows x columns

struct InputPatch {
  int64_t C = 1, H = 1, W = 1;
  int R = 1, S = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int PH = 0, PW = 0, pitch = 0;  // rows, columns, elements per row (PW * C)
  int elems = 0, zero_elems = 0;  // the patch, and the zero region after it
  int64_t xs[4] = {0, 0, 0, 0};   // x's strides: n, c, h, w
  bool rows_packed = false;       // c stride 1 and w stride C: a patch row is one run of x
  SmallDivider div_pitch, div_pw, div_c;

  __host__ __device__ int tap_offset(int k) const {
    const int rs = k / int(C), c = k - rs * int(C), r = rs / S, s = rs - r * S;
    return r * dh * pitch + s * dw * int(C) + c;
  }
  __host__ __device__ int pixel_base(int pp, int qq) const { return pp * sh * pitch + qq * sw * int(C); }
  // Where a read of "nothing" starts: base + any tap offset stays inside the zero region.
  __host__ __device__ int zero_base() const { return elems; }
};

// A patch kernel's shared-memory budget on the current device: `budget` (sized for the H100 / H200's 227 KB), or
// less where the device allows less per block (an A100's 163 KB, 99 KB on sm_86 / sm_89, which run the compute_80
// code): a plan past it would fail its launch instead of letting another implementation serve (found by review).
inline size_t patch_smem_budget(size_t budget) {
  return std::min(budget, fd::cuda::current_device_info().smem_per_block_optin);
}

// Why a cuda:patch_* implementation of direction `dir` cannot take p, or nullptr: the checks they share (2-D,
// groups 1, at most max_c input channels, no vector layouts, one data type with float accumulation; `fma`: float
// on CUDA cores, else f16 / bf16 / float as TF32 where the math type allows it).
inline const char* patch_refusal(const ConvProblem& p, ConvDir dir, int64_t max_c, bool fma) {
  if (p.dir != dir) return "not the direction this implementation serves";
  if (p.nsp != 2 || p.x->nb_dims != 4) return "3-D convolution";
  if (p.g != 1) return "grouped convolution";
  if (p.ic > max_c) return "too many input channels (the implicit GEMMs serve those)";
  if (fma) {
    if (p.xdt != CUDNN_DATA_FLOAT) return "float data only";
  } else if (p.xdt != CUDNN_DATA_HALF && p.xdt != CUDNN_DATA_BFLOAT16 && !tf32_allowed(p)) {
    return "not f16, bf16, or float with TF32 allowed";
  }
  if (p.wdt != p.xdt || p.ydt != p.xdt || p.compute != CUDNN_DATA_FLOAT)
    return "x, w and y must share the data type, with float accumulation";
  if (p.x->vect() != 1 || p.y->vect() != 1 || p.w->as_tensor.vect() != 1) return "vector (NCHW_VECT_C) layout";
  return nullptr;
}

// The float-FMA backward kernels (cuda:patch_fma_dgrad, _fma_wgrad) serve unless FREEDNN_PATCH_FMA_BWD=0 (read at
// every call, so that an A/B run or a test can turn them off).
inline bool patch_fma_bwd_enabled() {
  const char* e = std::getenv("FREEDNN_PATCH_FMA_BWD");
  return e == nullptr || std::strcmp(e, "0") != 0;
}

// The patch kernels' cost models (seconds; rates are guesses the _v7 calibration scales). Output-pixel tiling
// (forward, backward filter): 16 x 16-pixel tiles x 64 output channels x the (r, s, c) products padded to k_step,
// at flop_rate; x with its ~1.4x patch halo and y / dy once, elements of es bytes, at 3.2 TB/s; plus fixed.
inline double patch_tile_cost(const ConvProblem& p, double k_step, double es, double flop_rate, double fixed) {
  const double m = double(p.mb) * std::ceil(p.oh / 16.0) * 16 * std::ceil(p.ow / 16.0) * 16;
  const double kg = double(p.ic) * p.kh * p.kw;
  const double flops = 2 * m * std::ceil(p.oc / 64.0) * 64 * (std::ceil(kg / k_step) * k_step);
  const double bytes = es * (double(p.mb) * p.ic * p.isp() * 1.4 + double(p.mb) * p.oc * p.osp());
  return flops / flop_rate + bytes / 3.2e12 + fixed;
}

// Backward data by stride phases: every dx pixel takes its share of the taps over the dy channels padded to 16,
// `cols` GEMM columns wide; dy with its patch halo (`halo`) and dx once.
inline double patch_phase_cost(const ConvProblem& p, double cols, double halo, double es, double flop_rate,
                               double fixed) {
  const double taps = double(p.kh) * p.kw / (double(p.sh) * p.sw);
  const double flops = 2.0 * p.mb * double(p.isp()) * taps * std::ceil(p.oc / 16.0) * 16 * cols;
  const double bytes = es * (double(p.mb) * p.oc * p.osp() * halo + double(p.mb) * p.ic * p.isp());
  return flops / flop_rate + bytes / 3.2e12 + fixed;
}

// The patch geometry of p (2-D, 4-D x); false and why when it is too large for shared memory indices.
inline bool make_input_patch(const ConvProblem& p, InputPatch* out, const char** why) {
  InputPatch in;
  in.C = p.ic, in.H = p.ih, in.W = p.iw;
  in.R = int(p.kh), in.S = int(p.kw), in.sh = p.sh, in.sw = p.sw, in.ph = p.ph, in.pw = p.pw, in.dh = p.dh,
  in.dw = p.dw;
  const int64_t PH = int64_t(kPatchTileP - 1) * in.sh + int64_t(in.R - 1) * in.dh + 1;
  const int64_t PW = int64_t(kPatchTileQ - 1) * in.sw + int64_t(in.S - 1) * in.dw + 1;
  const int64_t elems = PH * PW * in.C;
  const int64_t max_base = int64_t(kPatchTileP - 1) * in.sh * PW * in.C + int64_t(kPatchTileQ - 1) * in.sw * in.C;
  const int64_t max_off = int64_t(in.R - 1) * in.dh * PW * in.C + int64_t(in.S - 1) * in.dw * in.C + in.C - 1;
  const int64_t zero = std::max(max_base, max_off) + 1;
  if (elems + zero > (int64_t{1} << 21)) {  // also keeps patch indices in SmallDivider's range
    *why = "the input patch is too large (strides or dilations)";
    return false;
  }
  for (int i = 0; i < 4; ++i) in.xs[i] = p.x->strides[i];
  in.rows_packed = in.xs[1] == 1 && in.xs[3] == in.C;
  // The strided staging (not rows_packed) works in 32 bits: a row's offset c * xs1 + h * xs2 within an image, a
  // column's w * xs3, and a tile's rows and columns.
  const int64_t row_span = (in.C - 1) * in.xs[1] + (in.H - 1) * in.xs[2], col_span = (in.W - 1) * in.xs[3];
  const int64_t reach = std::max<int64_t>(p.oh * in.sh + in.ph, in.H) + std::max<int64_t>(p.ow * in.sw + in.pw, in.W) +
                        PH + PW;
  if (!in.rows_packed && (row_span > INT32_MAX || col_span > INT32_MAX || reach > INT32_MAX)) {
    *why = "x's strided image offsets exceed 32 bits";
    return false;
  }
  in.PH = int(PH), in.PW = int(PW), in.pitch = int(PW * in.C);
  in.elems = int(elems), in.zero_elems = int(zero);
  in.div_pitch = SmallDivider(in.pitch), in.div_pw = SmallDivider(in.PW), in.div_c = SmallDivider(int(in.C));
  *out = in;
  return true;
}

// Zeroes the region after the patch (once per block: staging never writes there). T: the patch's element type.
template <class T, int kThreads>
__device__ __forceinline__ void zero_patch_tail(const InputPatch& in, T* patch) {
  for (int i = threadIdx.x; i < in.zero_elems; i += kThreads) patch[in.elems + i] = T(0);
}

// x's value as the patch holds it: T = Bits<S> for the mma kernels (TF32-rounded float), T = S for FMA kernels.
template <class T, class S>
__device__ __forceinline__ T patch_value(S v) {
  if constexpr (std::is_same_v<T, S>) {
    return v;
  } else {
    return operand_bits(v);
  }
}

// Stages the patch of output tile (n, p0.., q0..). Each thread issues kBatch loads before storing any of them,
// so a patch takes a few memory round trips, not one per element (kBatch: what the caller's registers allow).
template <class S, int kThreads, int kBatch = 9, class T = Bits<S>>
__device__ __forceinline__ void stage_input_patch(const InputPatch& in, const S* __restrict__ x, T* patch, int64_t n,
                                                  int64_t p0, int64_t q0) {
  const int tid = threadIdx.x;
  const int64_t h0 = p0 * in.sh - in.ph, w0 = q0 * in.sw - in.pw;
  if (in.rows_packed) {  // patch index i = r * pitch + e reads x row h0 + r at element w0 * C + e
    const int total = in.PH * in.pitch;
    const int64_t lo = std::max<int64_t>(0, -w0 * in.C), hi = std::min<int64_t>(in.pitch, (in.W - w0) * in.C);
    const S* xn = x + n * in.xs[0] + w0 * in.C;
    for (int i0 = 0; i0 < total; i0 += kThreads * kBatch) {
      T v[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = i0 + j * kThreads + tid, r = in.div_pitch.div(i), e = i - r * in.pitch;
        const int64_t h = h0 + r;
        const bool ok = i < total && h >= 0 && h < in.H && e >= lo && e < hi;
        v[j] = patch_value<T>(ok ? xn[h * in.xs[2] + e] : zero_of<S>());
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j)
        if (i0 + j * kThreads + tid < total) patch[i0 + j * kThreads + tid] = v[j];
    }
  } else {
    // Any strides (NCHW): a patch row (r, c) is a run of x along w. Eight lanes share a row, each taking every
    // eighth column, so that a row's address is worked out once per thread, not per element (run 41: the flat
    // loop over (r, c, e) spent ~40 instructions per element); up to kBatch loads in flight per thread (rows of
    // eight columns). Offsets within an image in 32 bits (make_input_patch bounds them).
    constexpr int kLanes = 8, kGroups = kThreads / kLanes, kCols = kBatch < 8 ? kBatch : 8;
    constexpr int kRows = kBatch / kCols;
    static_assert(kThreads % kLanes == 0);
    const int sub = tid % kLanes, group = tid / kLanes, rows = in.PH * int(in.C);
    const S* xn = x + n * in.xs[0];
    const int cs = int(in.xs[1]), hs = int(in.xs[2]), ws = int(in.xs[3]);
    const int hb = int(h0), wb = int(w0), H = int(in.H), W = int(in.W);
    for (int e0 = 0; e0 < in.PW; e0 += kLanes * kCols) {  // one pass while PW <= 8 * kCols
      for (int rc0 = group; rc0 < rows; rc0 += kGroups * kRows) {
        T v[kRows][kCols];
        int base[kRows];  // patch index of (r, column 0, c); -1 past the last row
#pragma unroll
        for (int m = 0; m < kRows; ++m) {
          const int rc = rc0 + m * kGroups, r = in.div_c.div(rc), c = rc - r * int(in.C), h = hb + r;
          const bool row_ok = rc < rows && h >= 0 && h < H;
          const S* src = xn + (row_ok ? c * cs + h * hs : 0);
          base[m] = rc < rows ? r * in.pitch + c : -1;
#pragma unroll
          for (int k = 0; k < kCols; ++k) {
            const int e = e0 + sub + k * kLanes, wi = wb + e;
            const bool ok = row_ok && e < in.PW && wi >= 0 && wi < W;
            v[m][k] = patch_value<T>(ok ? src[wi * ws] : zero_of<S>());
          }
        }
#pragma unroll
        for (int m = 0; m < kRows; ++m)
#pragma unroll
          for (int k = 0; k < kCols; ++k) {
            const int e = e0 + sub + k * kLanes;
            if (base[m] >= 0 && e < in.PW) patch[base[m] + e * int(in.C)] = v[m][k];
          }
      }
    }
  }
}

}  // namespace fd::cuda::conv
