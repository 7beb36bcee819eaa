// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The strided 16-bit sm90 dgrad as forwards over stride phases writing dx in place (dgrad_phases16.h has the
// design): the plan and its model, the sub-filter copies, the pass over the pixels no tap reaches, the launches.
#include "cuda/conv/cutlass/sm90/dgrad_phases16.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>

#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/aux_streams.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/index.cuh"
#include "cuda/conv/cutlass/sm90/chwn_copy.h"
#include "cuda/conv/cutlass/sm90/dgrad_axis.h"
#include "cuda/conv/cutlass/sm90/sm90_impl.h"

namespace fd::cuda::conv::sm90 {
namespace {

using fd::conv::Verdict;

// Model constants (guesses until Find logs calibrate them): the 16-bit tiles' rate per SM, DRAM, a launch.
constexpr double kSmFlops128 = 3.8e12, kSmFlops64 = 2.9e12;
constexpr double kDramBytes = 3.5e12;
constexpr double kLaunch = 3e-6;
constexpr int64_t kTileM = 128, kTileK = 64;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
Verdict no(std::string why) { return {CUDNN_STATUS_NOT_SUPPORTED, std::move(why)}; }

const Kernel& phase_kernel(cudnnDataType_t t, bool narrow) {
  if (t == CUDNN_DATA_BFLOAT16) return narrow ? fprop_bf16_128x64() : fprop_bf16_128x128_c2();
  return narrow ? fprop_f16_128x64() : fprop_f16_128x128_c2();
}

double plan_seconds(const ConvProblem& p, const Dgrad16Plan& pl, int sm_count) {
  const int64_t tn = pl.narrow ? 64 : 128;
  double steps = 0;
  for (int i = 0; i < pl.phases; ++i) {
    const DgradPhase& f = pl.ph[i];
    if (!f.live()) continue;
    const int64_t tiles = ceil_div(p.mb * f.ha * f.wb, kTileM) * ceil_div(p.ic, tn);
    steps += static_cast<double>(tiles * f.ta * f.tb * ceil_div(p.oc, kTileK));
  }
  const double gpu = steps * 2.0 * kTileM * static_cast<double>(tn) * kTileK /
                     (std::max(sm_count, 1) * (tn == 128 ? kSmFlops128 : kSmFlops64));
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
         (p.sh > 1 || p.sw > 1) && env_flag("FREEDNN_SM90_DGRAD16_PHASES");
}

// The caller checked the problem (sm90_impl.h): 16-bit, 2-D, groups 1, cross-correlation, packed NHWC dy and dx,
// a packed KRSC filter, C and K multiples of 8.
Verdict dgrad16_plan(const ConvProblem& p, Dgrad16Plan* out) {
  *out = Dgrad16Plan{};
  if (p.sh > kMaxStride || p.sw > kMaxStride)
    return no("16-bit strided dgrad: stride " + std::to_string(p.sh) + "x" + std::to_string(p.sw) + " (at most " +
              std::to_string(kMaxStride) + " per dim: one phase per stride position)");
  Dgrad16Plan pl;
  pl.phases = static_cast<int>(p.sh * p.sw);
  pl.tap_step_h = static_cast<int>(p.sh / std::gcd(p.sh, p.dh));
  pl.tap_step_w = static_cast<int>(p.sw / std::gcd(p.sw, p.dw));
  size_t off = 0;
  for (int a = 0; a < p.sh; ++a) {
    const Axis ra = axis(a, p.sh, p.dh, p.ph, p.kh, p.ih, p.oh);
    for (int b = 0; b < p.sw; ++b) {
      const Axis cb = axis(b, p.sw, p.dw, p.pw, p.kw, p.iw, p.ow);
      DgradPhase& f = pl.ph[a * p.sw + b];
      f.a = a, f.b = b, f.ha = ra.out, f.wb = cb.out, f.ta = ra.taps, f.tb = cb.taps, f.r0 = ra.r0, f.s0 = cb.r0;
      f.top = ra.top;
      if (!f.live()) {
        if (f.ha > 0 && f.wb > 0) pl.empty_mask |= 1u << (a * p.sw + b);
        continue;
      }
      if (cb.top != 0 || cb.len != p.ow)
        return no("16-bit strided dgrad: phase (" + std::to_string(a) + ", " + std::to_string(b) +
                  ") reads a window of dy's columns (padding " + std::to_string(p.pw) + " against a " +
                  std::to_string(p.kw) + "-wide filter at stride " + std::to_string(p.sw) +
                  "): only row windows are possible");
      Geometry& g = f.g;
      g.n = static_cast<int>(p.mb), g.h = static_cast<int>(ra.len), g.w = static_cast<int>(p.ow);
      g.c = static_cast<int>(p.oc), g.k = static_cast<int>(p.ic);
      g.r = f.ta, g.s = f.tb, g.p = static_cast<int>(f.ha), g.q = static_cast<int>(f.wb);
      g.pad_h = static_cast<int>(ra.lo), g.pad_h_hi = static_cast<int>(ra.hi);
      g.pad_w = static_cast<int>(cb.lo), g.pad_w_hi = static_cast<int>(cb.hi);
      g.stride_h = g.stride_w = 1;
      g.dil_h = static_cast<int>(p.dh / std::gcd(p.sh, p.dh)), g.dil_w = static_cast<int>(p.dw / std::gcd(p.sw, p.dw));
      g.act_stride_n = p.osp() * p.oc;
      f.off_w = off, off += ws_align_up(static_cast<size_t>(p.ic * f.ta * f.tb * p.oc) * 2);
      ++pl.live;
    }
  }
  pl.workspace = off + kWsAlign;
  pl.narrow = p.ic <= 64;
  const Kernel& k = phase_kernel(p.xdt, pl.narrow);
  for (int i = 0; i < pl.phases; ++i) {
    const DgradPhase& f = pl.ph[i];
    if (!f.live()) continue;
    const std::string which = "phase (" + std::to_string(f.a) + ", " + std::to_string(f.b) + ")";
    if (!k.can_implement(f.g))
      return no(std::string("16-bit strided dgrad: CUTLASS ") + k.name + " cannot implement " + which +
                " (TMA im2col limits)");
    if (k.workspace_size(f.g) != 0)
      return no(std::string("16-bit strided dgrad: CUTLASS ") + k.name + " asks for a workspace of its own");
  }
  pl.seconds = plan_seconds(p, pl, current_sm_count());
  *out = pl;
  return {};
}

cudnnStatus_t run_dgrad16(const ConvProblem& p, const fd::conv::ConvArgs& a, const Dgrad16Plan& pl) {
  const char* id = "cuda:cutlass_sm90_dgrad";
  FD_CHECK(a.handle != nullptr && pl.phases >= 2 && pl.phases <= kMaxDgradPhases, CUDNN_STATUS_INTERNAL_ERROR,
           "%s: a 16-bit strided plan of %d phases", id, pl.phases);
  FD_CHECK_PARAM(a.workspace != nullptr && a.workspace_size >= pl.workspace,
                 "%s needs %zu bytes of workspace for the stride phases' sub-filters, got %zu", id, pl.workspace,
                 a.workspace_size);
  cudnnContext* h = a.handle;
  const DeviceInfo& di = device_info(h->device);
  FD_CHECK_SUPPORTED(di.cc_major == 9 && di.cc_minor == 0,
                     "%s needs a compute capability 9.0 device; the handle's device %d is %d.%d", id, h->device,
                     di.cc_major, di.cc_minor);
  FD_CHECK_SUPPORTED(aligned16(a.in) && aligned16(a.out), "%s needs 16-byte aligned dy and dx (TMA)", id);
  const auto at = reinterpret_cast<uintptr_t>(a.workspace);
  char* ws = reinterpret_cast<char*>((at + kWsAlign - 1) / kWsAlign * kWsAlign);
  const cudaStream_t st = h->stream;

  // Sub-filters G[c][u][v][k] = w[k][c][r(u)][s(v)], u = 0 the last tap (the lowest dy row), as dgrad_tf32.cu.
  const cudnnTensorStruct& wt = p.w->as_tensor;  // (k, c, r, s)
  const bool flip = p.mode == CUDNN_CONVOLUTION;
  for (int i = 0; i < pl.phases; ++i) {
    const DgradPhase& f = pl.ph[i];
    if (!f.live()) continue;
    const int64_t r_last = f.r0 + int64_t(f.ta - 1) * pl.tap_step_h, s_last = f.s0 + int64_t(f.tb - 1) * pl.tap_step_w;
    const int64_t r_at = flip ? p.kh - 1 - r_last : r_last, s_at = flip ? p.kw - 1 - s_last : s_last;
    const int64_t su = (flip ? 1 : -1) * pl.tap_step_h * wt.strides[2];
    const int64_t sv = (flip ? 1 : -1) * pl.tap_step_w * wt.strides[3];
    const int64_t src[4] = {wt.strides[0], wt.strides[1], su, sv};
    const uint16_t* w0 = static_cast<const uint16_t*>(a.in2) + r_at * wt.strides[2] + s_at * wt.strides[3];
    FD_TRY(to_chwn(st, w0, src, p.oc, p.ic, p.ic, f.ta, f.tb, p.oc, reinterpret_cast<uint16_t*>(ws + f.off_w)));
  }
  // The pixels no tap reaches, before the fork: they are disjoint from every phase's.
  if (pl.empty_mask != 0) {
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
      fill_empty_phases<__nv_bfloat16><<<grid, 256, 0, st>>>(g);
    else
      fill_empty_phases<__half><<<grid, 256, 0, st>>>(g);
    FD_CUDA_LAUNCHED();
  }

  const Kernel& k = phase_kernel(p.xdt, pl.narrow);
  AuxStreams* pool = nullptr;
  const int aux = pl.live - 1;  // the first live phase runs on the handle's stream
  if (aux > 0) {
    FD_TRY(aux_streams(h, aux, &pool));
    FD_TRY(aux_fork(h, *pool, aux));
  }
  // Every phase is queued before the join's records (aux_streams.h); a failed launch still joins the streams.
  RunStatus failed = RunStatus::ok;
  int failed_phase = -1, j = 0;
  for (int i = 0; i < pl.phases && failed == RunStatus::ok; ++i) {
    const DgradPhase& f = pl.ph[i];
    if (!f.live()) continue;
    Operands o;
    o.a = static_cast<const uint16_t*>(a.in) + f.top * p.ow * p.oc;
    o.b = ws + f.off_w;
    o.d = static_cast<uint16_t*>(a.out) + (f.a * p.iw + f.b) * p.ic;  // the phase's first pixel of dx
    o.c = o.d;
    o.d_strides[0] = p.sw * p.ic, o.d_strides[1] = p.sh * p.iw * p.ic, o.d_strides[2] = p.ih * p.iw * p.ic;
    o.alpha = static_cast<float>(a.alpha), o.beta = static_cast<float>(a.beta);
    o.stream = j == 0 ? st : aux_stream(*pool, j - 1);
    ++j;
    failed = k.run(f.g, o);
    if (failed != RunStatus::ok) failed_phase = i;
  }
  const cudaError_t launch_error = failed == RunStatus::ok ? cudaSuccess : cudaGetLastError();
  const cudnnStatus_t joined = aux > 0 ? aux_join(h, *pool, aux) : CUDNN_STATUS_SUCCESS;
  if (failed == RunStatus::not_implementable)
    FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "%s: CUTLASS %s cannot implement phase %d of %s", id, k.name, failed_phase,
            p.to_string().c_str());
  if (failed != RunStatus::ok)
    FD_FAIL(CUDNN_STATUS_EXECUTION_FAILED, "%s: CUTLASS %s failed to initialize or launch phase %d (CUDA: %s)", id,
            k.name, failed_phase, cudaGetErrorName(launch_error));
  return joined;
}

}  // namespace fd::cuda::conv::sm90
