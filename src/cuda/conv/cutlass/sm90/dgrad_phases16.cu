// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The strided 16-bit sm90 dgrad as forwards over stride phases writing dx in place (dgrad_phases16.h has the
// design): the plan and its model, the sub-filter copies, the pass over the pixels no tap reaches, the launches.
#include "cuda/conv/cutlass/sm90/dgrad_phases16.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/cc90.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/index.cuh"
#include "cuda/conv/cutlass/sm90/sm90_grouped.h"
#include "cuda/conv/cutlass/sm90/sm90_impl.h"

namespace fd::cuda::conv::sm90 {
namespace {

using fd::conv::Verdict;

// Model constants (guesses until Find logs calibrate them): the 16-bit tiles' rate per SM, DRAM, a launch.
constexpr double kSmFlops128 = 3.8e12, kSmFlops64 = 2.9e12;
constexpr double kDramBytes = 3.5e12;
constexpr double kLaunch = 3e-6;
constexpr int64_t kTileM = 128, kTileK = 64;


// The forward kernel every phase runs, as the forward implementation picks it (N = C).
const Kernel& phase_kernel(cudnnDataType_t t, bool narrow) {
  return pick_kernel(fprop_kernel_set(), t, narrow ? 64 : 128);
}

double plan_seconds(const ConvProblem& p, const Dgrad16Plan& pl, int sm_count) {
  const int64_t tn = pl.narrow ? 64 : 128;
  const double gpu = phase_mma_seconds(p, pl.ph, pl.phases, p.oc, p.ic, kTileM, tn, kTileK,
                                       tn == 128 ? kSmFlops128 : kSmFlops64, sm_count);
  const double dy = static_cast<double>(p.mb * p.oc * p.osp()), dx = static_cast<double>(p.mb * p.isp() * p.ic);
  const double w = static_cast<double>(p.oc * p.ic * p.ksp());
  const double bytes = 2.0 * (dy + 3 * w + dx);
  const int launches = 2 * pl.live + (pl.empty_mask != 0 ? 1 : 0);
  return gpu + bytes / kDramBytes + kLaunch * launches;
}

// ---- the pixels of phases no tap reaches: dx = beta * dx (zeros when beta == 0, dx not read) ---------------------

__device__ __forceinline__ float widen16(__half v) { return __half2float(v); }
__device__ __forceinline__ float widen16(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class S>
__device__ __forceinline__ S narrow16(float v) {
  if constexpr (std::is_same_v<S, __half>) return __float2half_rn(v);
  else return __float2bfloat16_rn(v);
}

struct FillArgs {
  void* dx = nullptr;
  int64_t vectors = 0;          // 8-element vectors of dx (packed NHWC, C % 8 == 0)
  Divider by_cv, by_w, by_h;    // per pixel C / 8 vectors; W; H
  int W = 0, H = 0, sh = 1, sw = 1;
  unsigned mask = 0;
  float beta = 0.0f;
};

template <class S>
__global__ void fill_empty_phases(FillArgs g) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < g.vectors;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t pix = g.by_cv.div(i), rows = g.by_w.div(pix);  // rows = n * H + h
    const int w = static_cast<int>(pix - rows * g.W);
    const int h = static_cast<int>(rows - g.by_h.div(rows) * g.H);
    if (((g.mask >> ((h % g.sh) * g.sw + w % g.sw)) & 1u) == 0) continue;
    uint4* v = static_cast<uint4*>(g.dx) + i;
    if (g.beta == 0.0f) {
      *v = make_uint4(0, 0, 0, 0);
      continue;
    }
    uint4 x = *v;
    S* e = reinterpret_cast<S*>(&x);
#pragma unroll
    for (int k = 0; k < 8; ++k) e[k] = narrow16<S>(g.beta * widen16(e[k]));
    *v = x;
  }
}

}  // namespace

bool dgrad16_phases_wanted(const ConvProblem& p) {
  return p.dir == ConvDir::bwd_data && (p.xdt == CUDNN_DATA_HALF || p.xdt == CUDNN_DATA_BFLOAT16) &&
         (p.sh > 1 || p.sw > 1) && env_flag_or("FREEDNN_SM90_DGRAD16_PHASES", true);
}

// The caller checked the problem (sm90_impl.h): 16-bit, 2-D, groups 1, cross-correlation, packed NHWC dy and dx,
// a packed KRSC filter, C and K multiples of 8.
Verdict dgrad16_plan(const ConvProblem& p, Dgrad16Plan* out) {
  *out = Dgrad16Plan{};
  Dgrad16Plan pl;
  pl.phases = static_cast<int>(p.sh * p.sw);
  const char* what = "16-bit strided dgrad";
  const Verdict phases = plan_phases(p, p.oc, p.ic, what, pl.ph);
  if (!phases.ok()) return phases;
  size_t off = 0;
  for (int i = 0; i < pl.phases; ++i) {
    DgradPhase& f = pl.ph[i];
    if (!f.live()) {
      if (f.ha > 0 && f.wb > 0) pl.empty_mask |= 1u << i;
      continue;
    }
    f.off_w = off, off += ws_align_up(static_cast<size_t>(p.ic * f.ta * f.tb * p.oc) * 2);
    ++pl.live;
  }
  pl.workspace = off + kWsAlign;
  pl.narrow = p.ic <= 64 || env_flag("FREEDNN_SM90_DGRAD16_NARROW");
  const Verdict kernel = check_phase_kernel(phase_kernel(p.xdt, pl.narrow), pl.ph, pl.phases, what);
  if (!kernel.ok()) return kernel;
  pl.seconds = plan_seconds(p, pl, current_sm_count());
  *out = pl;
  return {};
}

Verdict dgrad16_pointers(const fd::conv::ConvArgs& a) {
  return need_aligned("cuda:cutlass_sm90_dgrad", 16, "TMA", {{"dy", a.in}, {"dx", a.out}});
}

cudnnStatus_t run_dgrad16(const ConvProblem& p, const fd::conv::ConvArgs& a, const Dgrad16Plan& pl) {
  const char* id = "cuda:cutlass_sm90_dgrad";
  FD_CHECK(a.handle != nullptr && pl.phases >= 2 && pl.phases <= kMaxDgradPhases, CUDNN_STATUS_INTERNAL_ERROR,
           "%s: a 16-bit strided plan of %d phases", id, pl.phases);
  FD_CHECK_PARAM(a.workspace != nullptr && a.workspace_size >= pl.workspace,
                 "%s needs %zu bytes of workspace for the stride phases' sub-filters, got %zu", id, pl.workspace,
                 a.workspace_size);
  cudnnContext* h = a.handle;
  FD_TRY(require_cc90(h->device, id));
  const Verdict ptrs = dgrad16_pointers(a);
  FD_CHECK_SUPPORTED(ptrs.ok(), "%s", ptrs.reason.c_str());
  const auto at = reinterpret_cast<uintptr_t>(a.workspace);
  char* ws = reinterpret_cast<char*>((at + kWsAlign - 1) / kWsAlign * kWsAlign);
  const cudaStream_t st = h->stream;

  FD_TRY(copy_sub_filters(st, p, pl.ph, pl.phases, static_cast<const uint16_t*>(a.in2), p.oc, p.ic, ws));
  // The pixels no tap reaches, beside the phases (on an aux stream): they are disjoint from every phase's.
  std::function<cudnnStatus_t(cudaStream_t)> fill;
  if (pl.empty_mask != 0)
    fill = [&](cudaStream_t fst) {
      FillArgs g;
      g.dx = a.out;
      const int64_t cv = p.ic / 8, pixels = p.mb * p.ih * p.iw;
      g.vectors = pixels * cv;
      g.by_cv = Divider(cv, g.vectors), g.by_w = Divider(p.iw, pixels), g.by_h = Divider(p.ih, p.mb * p.ih);
      g.W = static_cast<int>(p.iw), g.H = static_cast<int>(p.ih);
      g.sh = static_cast<int>(p.sh), g.sw = static_cast<int>(p.sw);
      g.mask = pl.empty_mask, g.beta = static_cast<float>(a.beta);
      const int grid = grid_size(g.vectors, 256, h->device);
      if (p.xdt == CUDNN_DATA_BFLOAT16)
        fill_empty_phases<__nv_bfloat16><<<grid, 256, 0, fst>>>(g);
      else
        fill_empty_phases<__half><<<grid, 256, 0, fst>>>(g);
      FD_CUDA_LAUNCHED();
      return CUDNN_STATUS_SUCCESS;
    };

  const auto operands = [&](const DgradPhase& f) {
    Operands o;
    o.a = static_cast<const uint16_t*>(a.in) + f.top * p.ow * p.oc;
    o.b = ws + f.off_w;
    o.d = static_cast<uint16_t*>(a.out) + (f.a * p.iw + f.b) * p.ic;  // the phase's first pixel of dx
    o.c = o.d;
    o.d_strides[0] = p.sw * p.ic, o.d_strides[1] = p.sh * p.iw * p.ic, o.d_strides[2] = p.ih * p.iw * p.ic;
    o.alpha = static_cast<float>(a.alpha), o.beta = static_cast<float>(a.beta);
    return o;
  };
  // Two or more live phases of 128x128 tiles in one grouped launch (unless FREEDNN_SM90_PHASES_GROUPED=0); one
  // live phase beside the pass over the empty ones (a 1x1 filter at stride 2) too, unless
  // FREEDNN_SM90_PHASES_GROUPED_SINGLE=0: the persistent grid leaves room on every SM for the pass, which the
  // separate launch's waves of CTAs do not (run 22: 0.91-0.93x the time on ResNet's 1x1 stride-2 layers).
  const bool single = pl.live == 1 && fill && env_flag_or("FREEDNN_SM90_PHASES_GROUPED_SINGLE", true);
  if (!pl.narrow && (pl.live >= 2 || single) && env_flag_or("FREEDNN_SM90_PHASES_GROUPED", true)) {
    const GroupKernel& k = grouped_16bit_128x128(p.xdt == CUDNN_DATA_BFLOAT16);
    bool launched = false;
    FD_TRY(run_phases_grouped(h, id, k, pl.ph, pl.phases, operands, fill, &launched));
    if (launched) return CUDNN_STATUS_SUCCESS;
    // not implementable: the phases as separate launches below
  }
  return run_phases(h, id, p, phase_kernel(p.xdt, pl.narrow), pl.ph, pl.phases, pl.live, operands, fill);
}

}  // namespace fd::cuda::conv::sm90
