// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The float sm90 dgrad as forwards over stride phases (dgrad_tf32.h has the design): the plan and its model, the
// copies of dy and the sub-filters, the phases' launches and the pass that writes dx from their outputs.
#include "cuda/conv/cutlass/sm90/dgrad_tf32.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>

#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/cc90.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/common/index.cuh"
#include "cuda/conv/cutlass/nhwc_staging.h"
#include "cuda/conv/cutlass/sm90/chwn_copy.h"
#include "cuda/conv/cutlass/sm90/sm90_impl.h"

namespace fd::cuda::conv::sm90 {
namespace {

using fd::conv::Verdict;

// Model constants (guesses until calibrated by Find logs): the fprop_tf32 tiles' rate per SM (as wgrad_tf32.cu),
// DRAM, a launch.
constexpr double kSmFlops128 = 2.2e12, kSmFlops64 = 1.6e12;
constexpr double kDramBytes = 3.5e12;
constexpr double kLaunch = 3e-6;
constexpr int64_t kTileM = 128, kTileK = 32;

constexpr int kT = 32, kRows = 8;  // the dx pass's tiles: 32 x 32 elements, 32 x 8 threads

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round4(int64_t v) { return (v + 3) / 4 * 4; }
Verdict no(std::string why) { return {CUDNN_STATUS_NOT_SUPPORTED, std::move(why)}; }

// The model's time (phases run at once on sm_count SMs).
double plan_seconds(const ConvProblem& p, const Tf32DgradPlan& pl, int sm_count) {
  const int64_t tn = pl.narrow ? 64 : 128;
  const double gpu = phase_mma_seconds(p, pl.ph, pl.phases, pl.kp, pl.cp, kTileM, tn, kTileK,
                                       tn == 128 ? kSmFlops128 : kSmFlops64, sm_count);
  const double dy = static_cast<double>(p.mb * p.osp() * pl.kp), dx = static_cast<double>(p.mb * p.isp() * p.ic);
  const double w = static_cast<double>(p.oc * p.ic * p.ksp());
  const double bytes = 4.0 * (static_cast<double>(p.mb * p.oc * p.osp()) + (pl.copy_dy ? 2 * dy : 0) + 3 * w +
                              (pl.direct ? dx : 3 * dx));
  const int launches = (pl.copy_dy ? 1 : 0) + 2 * pl.live + (pl.direct ? 0 : 1);
  return gpu + bytes / kDramBytes + kLaunch * launches;
}

// ---- the pass writing dx from the phases' outputs ------------------------------------------------------------

struct DxArgs {
  const float* y[kMaxDgradPhases] = {};  // phase outputs (n, ha, wb, cp); null: zeros
  int ha[kMaxDgradPhases] = {}, wb[kMaxDgradPhases] = {};
  float* dx = nullptr;
  int N = 0, C = 0, W = 0, HW = 0, cp = 0;
  Divider by_w;                            // s / W for the pixel s = h * W + w of an image
  int64_t sn = 0, sc = 0, sh = 0, sw = 0;  // dx's element strides
  int st_h = 1, st_w = 1;                  // the convolution's strides: phase (h % st_h, w % st_w)
  float alpha = 1.0f, beta = 0.0f;
};

// Four channels c .. c + 3 of pixel s of image n from its phase's output (zeros where no tap reaches).
template <int kSW>
__device__ __forceinline__ float4 phase_vec(const DxArgs& g, int n, int s, int c) {
  const int sw = kSW > 0 ? kSW : g.st_w;
  const int h = static_cast<int>(g.by_w.div(s)), w = s - h * g.W;
  const int a = h % g.st_h, b = w % sw;
  const int ph = a * sw + b;
  const float* y = g.y[ph];
  if (y == nullptr) return make_float4(0.f, 0.f, 0.f, 0.f);
  const int64_t row = (int64_t(n) * g.ha[ph] + h / g.st_h) * g.wb[ph] + w / sw;
  return *reinterpret_cast<const float4*>(y + row * g.cp + c);  // c + 3 < cp: the phases pad C to 4
}

// One 32-pixel x 32-channel tile of an image per step (pixels flattened over H x W, so narrow rows waste no
// threads): 16-byte loads of 4 channels from the phase outputs (coalesced along c), a transpose in shared memory,
// then stores along the pixels: 16-byte vectors of 4 pixels when dx's planes are packed and aligned (kVecOut:
// NCHW), else one element at a time through dx's strides (any layout). The blend reads dx only when beta != 0.
template <int kSW, bool kVecOut>
__global__ void __launch_bounds__(kT * kRows) dx_from_phases(DxArgs g) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  __shared__ float tile[kT][kT + 1];  // [pixel][channel]
  const int s0 = static_cast<int>(blockIdx.x) * kT, c0 = static_cast<int>(blockIdx.y) * kT;
  const int t = threadIdx.x;
  for (int n = blockIdx.z; n < g.N; n += gridDim.z) {
    {
      const int r = t / (kT / 4), cv = t % (kT / 4), s = s0 + r, c = c0 + cv * 4;
      const float4 v = s < g.HW && c < g.C ? phase_vec<kSW>(g, n, s, c) : make_float4(0.f, 0.f, 0.f, 0.f);
      tile[r][cv * 4] = v.x, tile[r][cv * 4 + 1] = v.y, tile[r][cv * 4 + 2] = v.z, tile[r][cv * 4 + 3] = v.w;
    }
    __syncthreads();
    {
      const int oc = t / (kT / 4), ov = t % (kT / 4), c = c0 + oc, s = s0 + ov * 4;
      if (c < g.C && s < g.HW) {
        const int64_t plane = n * g.sn + c * g.sc;
        if constexpr (kVecOut) {
          auto* o = reinterpret_cast<float4*>(g.dx + plane + s);
          float4 v = make_float4(g.alpha * tile[ov * 4][oc], g.alpha * tile[ov * 4 + 1][oc],
                                 g.alpha * tile[ov * 4 + 2][oc], g.alpha * tile[ov * 4 + 3][oc]);
          if (g.beta != 0.0f) {
            const float4 old = *o;
            v.x += g.beta * old.x, v.y += g.beta * old.y, v.z += g.beta * old.z, v.w += g.beta * old.w;
          }
          *o = v;
        } else {
#pragma unroll
          for (int k = 0; k < 4; ++k) {
            if (s + k >= g.HW) break;
            const int h = static_cast<int>(g.by_w.div(s + k)), w = s + k - h * g.W;
            float* o = g.dx + plane + h * g.sh + w * g.sw;
            const float v = g.alpha * tile[ov * 4 + k][oc];
            *o = g.beta != 0.0f ? v + g.beta * *o : v;
          }
        }
      }
    }
    __syncthreads();
  }
  pdl_allow_dependents();
}

template <int kSW>
void launch_dx(const DxArgs& g, dim3 grid, cudaStream_t st, bool vec_out) {
  // a dependent of the last phase's GEMM: its launch overlaps that kernel's end, and it waits for its results
  (void)launch_pdl(ops_pdl_current(), vec_out ? dx_from_phases<kSW, true> : dx_from_phases<kSW, false>, grid,
                   dim3(kT * kRows), 0, st, g);
}

}  // namespace

const Kernel& tf32_dgrad_kernel(const Tf32DgradPlan& pl) {
  return pick_kernel(fprop_kernel_set(), CUDNN_DATA_FLOAT, pl.narrow ? 64 : 128);
}

namespace {

// 128 x 64 tiles when C <= 64, else 128 x 128 (run 15 on the H200: 128 x 64 took 1.01-1.38x the time of 128 x 128 on
// the six slowest ResNet-50 layers, although three of them leave the last wave of 128 x 128 tiles a third full).
// FREEDNN_SM90_DGRAD_TILE_N=64|128 forces one (read at every plan).
bool narrow_tiles(const ConvProblem& p) {
  const long long forced = env_int("FREEDNN_SM90_DGRAD_TILE_N", 0);
  if (forced == 64 || forced == 128) return forced == 64;
  return p.ic <= 64;
}

}  // namespace

Verdict tf32_dgrad_plan(const ConvProblem& p, Tf32DgradPlan* out) {
  *out = Tf32DgradPlan{};
  if (p.w->format != CUDNN_TENSOR_NCHW && p.w->format != CUDNN_TENSOR_NHWC)
    return no("float dgrad: the filter must be NCHW (KCRS) or NHWC (KRSC)");
  Tf32DgradPlan pl;
  pl.phases = static_cast<int>(p.sh * p.sw);
  pl.kp = round4(p.oc), pl.cp = round4(p.ic);
  const int64_t dy_elems = p.mb * p.osp() * pl.kp, dx_elems = p.mb * p.isp() * pl.cp;
  if (std::max(dy_elems, dx_elems) > INT_MAX) return no("float dgrad: a packed copy exceeds 2^31 elements");
  if (ceil_div(p.ic, kT) > 65535) return no("float dgrad: C above the dx pass's grid (2^21 channels)");
  pl.copy_dy = !(packed_nhwc(*p.y) && p.oc % 4 == 0);
  pl.direct = pl.phases == 1 && packed_nhwc(*p.x) && p.ic % 4 == 0;
  const Verdict phases = plan_phases(p, pl.kp, pl.cp, "float dgrad", pl.ph);
  if (!phases.ok()) return phases;
  size_t off = 0;
  if (pl.copy_dy) pl.off_dy = off, off += ws_align_up(static_cast<size_t>(dy_elems) * sizeof(float));
  for (int i = 0; i < pl.phases; ++i) {
    DgradPhase& f = pl.ph[i];
    if (!f.live()) continue;
    f.off_w = off, off += ws_align_up(static_cast<size_t>(pl.cp * f.ta * f.tb * pl.kp) * sizeof(float));
    if (!pl.direct) f.off_y = off, off += ws_align_up(static_cast<size_t>(p.mb * f.ha * f.wb * pl.cp) * sizeof(float));
    ++pl.live;
  }
  if (pl.live == 0) pl.direct = false;  // no tap reaches dx: the pass below writes beta * dx
  pl.workspace = off + kWsAlign;
  const int sms = current_sm_count();
  pl.narrow = narrow_tiles(p);
  const Verdict kernel = check_phase_kernel(tf32_dgrad_kernel(pl), pl.ph, pl.phases, "float dgrad");
  if (!kernel.ok()) return kernel;
  pl.seconds = plan_seconds(p, pl, sms);
  *out = pl;
  return {};
}

Verdict tf32_dgrad_pointers(const Tf32DgradPlan& pl, const fd::conv::ConvArgs& a) {
  return need_aligned("cuda:cutlass_sm90_dgrad", 16, "TMA",
                      {{"dy", pl.copy_dy ? nullptr : a.in}, {"dx", pl.direct ? a.out : nullptr}});
}

cudnnStatus_t run_tf32_dgrad(const ConvProblem& p, const fd::conv::ConvArgs& a, const Tf32DgradPlan& pl) {
  const char* id = "cuda:cutlass_sm90_dgrad";
  FD_CHECK(a.handle != nullptr && pl.phases >= 1 && pl.phases <= kMaxDgradPhases, CUDNN_STATUS_INTERNAL_ERROR,
           "%s: a float plan of %d phases", id, pl.phases);
  FD_CHECK_PARAM(a.workspace != nullptr && a.workspace_size >= pl.workspace,
                 "%s needs %zu bytes of workspace for dy in NHWC, the sub-filters and the phase outputs, got %zu", id,
                 pl.workspace, a.workspace_size);
  cudnnContext* h = a.handle;
  FD_TRY(require_cc90(h->device, id));
  const Verdict ptrs = tf32_dgrad_pointers(pl, a);
  FD_CHECK_SUPPORTED(ptrs.ok(), "%s", ptrs.reason.c_str());
  const auto at = reinterpret_cast<uintptr_t>(a.workspace);
  char* ws = reinterpret_cast<char*>((at + kWsAlign - 1) / kWsAlign * kWsAlign);
  const cudaStream_t st = h->stream;

  // dy (n, k, p, q) -> D[n][p][q][kp], K padded with zero channels, and the sub-filters: one launch.
  const float* D = static_cast<const float*>(a.in);
  ChwnCopy<float> copies[kMaxDgradPhases + 1];
  int count = 0;
  if (pl.copy_dy) {
    copies[count] = to_channels_last(*p.y, D, p.mb, pl.kp, ws + pl.off_dy);
    D = copies[count++].dst;
  }
  count += sub_filter_copies(p, pl.ph, pl.phases, static_cast<const float*>(a.in2), pl.kp, pl.cp, ws, copies + count);
  FD_TRY(to_chwn(st, copies, count));
  const auto operands = [&](const DgradPhase& f) {
    Operands o;
    o.a = D + f.top * p.ow * pl.kp;
    o.b = ws + f.off_w;
    o.d = pl.direct ? a.out : ws + f.off_y;
    o.c = o.d;
    o.alpha = pl.direct ? static_cast<float>(a.alpha) : 1.0f;
    o.beta = pl.direct ? static_cast<float>(a.beta) : 0.0f;
    return o;
  };
  // Two or more live phases of 128x128 tiles: one launch of the grouped persistent kernel (as the 16-bit path
  // does, dgrad_phases16.h) unless FREEDNN_SM90_PHASES_GROUPED=0; one live phase too unless
  // FREEDNN_SM90_TF32_PERSISTENT=0 (H100 run 29: 0.914 of the separate launch's time over ResNet-50's TF32 NCHW
  // backward data, 0.79-1.01 per layer); else, or where it cannot implement a phase, the separate launches on the
  // aux streams.
  bool grouped = false;
  const bool several = pl.live >= 2 && env_flag_or("FREEDNN_SM90_PHASES_GROUPED", true);
  const bool single = pl.live == 1 && env_flag_or("FREEDNN_SM90_TF32_PERSISTENT", true);
  if (!pl.narrow && (several || single))
    FD_TRY(run_phases_grouped(h, id, fprop_tf32_128x128_grouped(), pl.ph, pl.phases, operands, {}, &grouped));
  if (!grouped) FD_TRY(run_phases(h, id, p, tf32_dgrad_kernel(pl), pl.ph, pl.phases, pl.live, operands));
  if (pl.direct) return CUDNN_STATUS_SUCCESS;

  if (pl.phases == 1 && pl.ph[0].live())  // one phase: its output is dx in NHWC (cp channels), the usual write-back
    return from_nhwc(st, h->device, CUDNN_DATA_FLOAT, ws + pl.ph[0].off_y, pl.cp, *p.x, a.out,
                     static_cast<float>(a.alpha), static_cast<float>(a.beta), nullptr);
  DxArgs g;
  for (int i = 0; i < pl.phases; ++i) {
    const DgradPhase& f = pl.ph[i];
    g.y[i] = f.live() ? reinterpret_cast<const float*>(ws + f.off_y) : nullptr;
    g.ha[i] = static_cast<int>(f.ha), g.wb[i] = static_cast<int>(f.wb);
  }
  g.dx = static_cast<float*>(a.out);
  g.N = static_cast<int>(p.mb), g.C = static_cast<int>(p.ic), g.W = static_cast<int>(p.iw);
  g.HW = static_cast<int>(p.ih * p.iw), g.cp = static_cast<int>(pl.cp);
  g.by_w = Divider(p.iw, p.ih * p.iw);
  const int64_t* xs = p.x->strides;
  g.sn = xs[0], g.sc = xs[1], g.sh = xs[2], g.sw = xs[3];
  g.st_h = static_cast<int>(p.sh), g.st_w = static_cast<int>(p.sw);
  g.alpha = static_cast<float>(a.alpha), g.beta = static_cast<float>(a.beta);
  // 16-byte stores of 4 pixels: each (n, c) plane packed (h, w strides W, 1), its start and size multiples of 4.
  const bool vec_out = (p.iw == 1 || g.sw == 1) && (p.ih == 1 || g.sh == p.iw) && g.HW % 4 == 0 &&
                       g.sn % 4 == 0 && g.sc % 4 == 0 && aligned16(a.out);
  const dim3 grid(static_cast<unsigned>(ceil_div(g.HW, kT)), static_cast<unsigned>(ceil_div(p.ic, kT)),
                  static_cast<unsigned>(std::min<int64_t>(p.mb, 65535)));
  if (p.sw == 2)
    launch_dx<2>(g, grid, st, vec_out);
  else
    launch_dx<0>(g, grid, st, vec_out);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv::sm90
