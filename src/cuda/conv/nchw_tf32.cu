// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:nchw_tf32: float NCHW convolutions on Hopper TF32 tensor cores without NHWC copies (sm_90a). The forward, and
// the stride-1 backward data as a forward over dy with the filter transposed and flipped.
//
// Why: TF32 wgmma reads shared-memory operands only K-major (the reduction dimension contiguous). In NCHW the
// reduction runs over channels, which are the strided dimension of x, so cuda:cutlass_sm90_fprop first copies x to
// NHWC and y back (run 32: 3-5x the byte / flop floor on ResNet-50's 3x3 and 7x7 layers, NVIDIA about as slow).
// wgmma also takes its A operand from registers, where any layout can be gathered; here A is the input tile.
//
// The GEMM: rows = output pixels (flat over image, row, column: a block's 128 rows may span images, so 7x7 and 14x14
// layers waste no rows), columns = output channels, reduction = input channels x taps. A block holds 128 x 128
// outputs in two warpgroups (64 rows each, one m64n128k8 accumulator: 64 floats per thread).
// - The filter, transposed once per call into wt[tap][ko][ci_pad] (the workspace), is B: K-major, brought by TMA
//   as (8 channels, 128 ko, taps) boxes in the 32-byte swizzle, one wgmma descriptor per tap.
// - The input tile: for each of a stage's channels, every input element between the first row the tile's first
//   pixel needs and the last row its last pixel needs (flat order; cp.async, 4 bytes each), `pitch` floats apart
//   (= 8 mod 32: the four channels a quad of lanes reads fall in different banks). A thread's A fragment for one tap
//   is four loads: its two rows' pixels shifted by the tap, at its two channels, zero where the tap falls outside
//   the image (a per-row tap mask computed once).
// - Three stages; a stage is refilled once both warpgroups have completed the wgmma groups that read it (a named
//   barrier after the next stage's first group). Each tap's group is waited for before the next tap reloads the A
//   registers (no wgmma left in flight whose A registers change).
// - Epilogue: y = alpha acc + beta y straight from the accumulators (8 consecutive pixels of one channel per store
//   quad).
// Status (run 33, H100): correct, but 1.6-2.8x the time of cutlass_sm90 with its NHWC copies on ResNet-50's 3x3
// layers (ncu: issue-bound at 8 warps per SM; the 4-byte copies, the A loads and one m64n128k8 per wait are too
// much per warp), hence opt-in (FREEDNN_NCHW_TF32=1). Next: the input tile by TMA, a producer warp, several taps
// per wgmma group.
#include "cuda/conv/nchw_tf32.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <numeric>

#include "core/env.h"
#include "core/status.h"
#include "cuda/common/cc90.h"
#include "cuda/common/cp_async.cuh"
#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/common/tma.h"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/cutlass/nhwc_staging.h"
#include "cuda/conv/impls.h"
#include "cuda/conv/pointer_check.h"
#include "cuda/conv/tf32.h"
#include "cuda/conv/wgmma.cuh"

namespace fd::cuda::conv {
namespace nchw_tf32 {

bool plan(Geom* g, const char** why) {
  g->taps = g->r * g->s;
  g->m = int64_t(g->n) * g->oh * g->ow;
  if (g->taps > kMaxTaps) return *why = "more than 25 filter taps", false;
  if (g->m < 1 || g->ci < 1 || g->ko < 1) return *why = "empty problem", false;
  g->m_tiles = int((g->m + kBM - 1) / kBM);
  g->k_tiles = (g->ko + kBN - 1) / kBN;
  g->ci_pad = (g->ci + 7) / 8 * 8;
  // The widest tile: spans repeat with the tiles' offset into an image (period ohw / gcd(ohw, 128) tiles), then the
  // last tile; a bound over whole images where the period is long.
  const int64_t ohw = int64_t(g->oh) * g->ow, hw = int64_t(g->h) * g->w, bm = kBM;
  const int64_t period = ohw / std::gcd<int64_t>(ohw, bm);
  int64_t span = 0;
  if (period <= 4096) {
    for (int64_t t = 0; t < std::min<int64_t>(period, g->m_tiles); ++t)
      span = std::max(span, tile_span(*g, t * bm, nullptr));
    span = std::max(span, tile_span(*g, int64_t(g->m_tiles - 1) * bm, nullptr));
  } else {
    span = std::min<int64_t>(int64_t(g->n) * hw, ((bm - 1) / ohw + 2) * hw);
  }
  g->pitch = int((span + 23) / 32 * 32 + 8);  // >= span, = 8 mod 32
  if (g->pitch > kMaxPitch) return *why = "a tile of output pixels needs more than 1024 input pixels", false;
  // 8-channel groups per stage: about eight wgmma per warpgroup per stage, as many as the shared memory holds.
  const auto stage = [&](int groups) { return (groups * (g->taps * 4096 + 32 * g->pitch) + 1023) / 1024 * 1024; };
  g->groups = std::max(1, std::min(8 / g->taps, (g->ci + 7) / 8));
  while (g->groups > 1 && kStages * stage(g->groups) + 1024 + 64 > kSmemBudget) --g->groups;
  g->w_bytes = g->groups * g->taps * 4096;
  g->stage_bytes = stage(g->groups);
  g->smem_bytes = 1024 + kStages * g->stage_bytes + kStages * 8;
  if (g->smem_bytes > kSmemBudget) return *why = "the stages do not fit in shared memory", false;
  g->chunks = (g->ci + 8 * g->groups - 1) / (8 * g->groups);
  return true;
}

}  // namespace nchw_tf32

namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;
using nchw_tf32::Geom;
using nchw_tf32::kBM;
using nchw_tf32::kBN;
using nchw_tf32::kStages;

constexpr int kThreads = 256;
constexpr int kLoads = nchw_tf32::kMaxPitch / kThreads;  // input elements per thread and channel of a stage

__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// 256-pixel tiles (two m64 blocks per warpgroup) gave wrong sums on the 3x3 test shapes in run 33 call 1 (1x1 right),
// not yet understood; that form was removed.
__global__ void __launch_bounds__(kThreads, 1)
    nchw_tf32_kernel(Geom g, const __grid_constant__ CUtensorMap w_map, const float* __restrict__ x,
                     float* __restrict__ y) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__(128) unsigned char smem[];
  pdl_wait();
  const int tid = int(threadIdx.x), wg = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
  const int gq = lane / 4, tq = lane % 4;
  const int tile = int(blockIdx.x) / g.k_tiles, k0 = int(blockIdx.x) % g.k_tiles * kBN;
  const int64_t m0 = int64_t(tile) * kBM;
  const uint32_t base = (shared_addr(smem) + 1023u) & ~1023u;
  const uint32_t bars = base + uint32_t(kStages * g.stage_bytes);
  const int64_t ohw = int64_t(g.oh) * g.ow, hw = int64_t(g.h) * g.w;

  // The tile's input range [q_lo, q_lo + span) per channel (within the plan's pitch).
  int64_t q_lo = 0;
  const int span = int(nchw_tf32::tile_span(g, m0, &q_lo));
  // This thread's share of each channel's copy: element e = tid + 256 j of the range, at x + goff[j] + c hw.
  int64_t goff[kLoads];
#pragma unroll
  for (int j = 0; j < kLoads; ++j) {
    const int64_t q = q_lo + tid + kThreads * j;
    goff[j] = q / hw * g.ci * hw + q % hw;
  }
  // This thread's two accumulator rows: the tile-relative offset of the input pixel under tap (0, 0) and a bit per
  // tap that stays inside the image (none for rows past the last pixel). Output offsets for the epilogue.
  int a_off[2];
  uint32_t mask[2];
  int64_t y_off[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int64_t mo = m0 + 64 * wg + 16 * warp + gq + 8 * i;
    const int64_t n = mo / ohw, rem = mo % ohw;
    const int oh = int(rem / g.ow), ow = int(rem % g.ow);
    const int ih0 = oh * g.sh - g.ph, iw0 = ow * g.sw - g.pw;
    a_off[i] = int(n * hw + int64_t(ih0) * g.w + iw0 - q_lo);
    y_off[i] = mo < g.m ? n * g.ko * ohw + rem : -1;
    uint32_t bits = 0;
    for (int t = 0; t < g.taps; ++t) {
      const int ih = ih0 + t / g.s * g.dh, iw = iw0 + t % g.s * g.dw;
      if (mo < g.m && ih >= 0 && ih < g.h && iw >= 0 && iw < g.w) bits |= 1u << t;
    }
    mask[i] = bits;
  }

  const int ch_per_stage = 8 * g.groups;
  auto load = [&](int chunk, int slot) {  // every thread: its copies; thread 0: the filter boxes
    const uint32_t buf = base + uint32_t(slot * g.stage_bytes), xs = buf + uint32_t(g.w_bytes);
    const int c_first = chunk * ch_per_stage;
    if (tid == 0) {
      const uint32_t bar = bars + uint32_t(slot * 8);
      mbar_arrive_expect_tx(bar, uint32_t(g.w_bytes));
      for (int grp = 0; grp < g.groups; ++grp)
        tma_load_3d(buf + uint32_t(grp * g.taps * 4096), &w_map, bar, c_first + 8 * grp, k0, 0);
    }
    for (int c = 0; c < ch_per_stage; ++c) {
      const int ch = c_first + c;
      const bool real = ch < g.ci;
#pragma unroll
      for (int j = 0; j < kLoads; ++j) {
        const int e = tid + kThreads * j;
        if (e < span) {
          const float* src = real ? x + goff[j] + int64_t(ch) * hw : x;
          cp_async4(xs + uint32_t((c * g.pitch + e) * 4), src, real);
        }
      }
    }
  };

  if (tid == 0) {
    mbar_init_stages(bars, kStages, 1);
    mbar_init_fence();
  }
  __syncthreads();  // the barriers are initialized before thread 0 arms them and anyone waits
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < g.chunks) load(s, s);
    cp_async_commit();
  }

  float acc[64];
#pragma unroll
  for (int e = 0; e < 64; ++e) acc[e] = 0.f;

  for (int kc = 0; kc < g.chunks; ++kc) {
    const int slot = kc % kStages;
    cp_async_wait<kStages - 2>();  // this thread's copies of stage kc have landed
    mbar_wait(bars + uint32_t(slot * 8), uint32_t((kc / kStages) & 1));
    __syncthreads();  // and everyone's
    const uint32_t buf = base + uint32_t(slot * g.stage_bytes);
    const float* xs = reinterpret_cast<const float*>(smem + (buf - shared_addr(smem)) + g.w_bytes);
    int step = 0;
    for (int grp = 0; grp < g.groups; ++grp) {
      const float* xg = xs + grp * 8 * g.pitch + tq * g.pitch;
      // shift: tap (r, s)'s offset r dh w + s dw, stepped along the taps (no divisions in the loop)
      for (int t = 0, s = 0, shift = 0; t < g.taps; ++t, ++step) {
        uint32_t a[4];
        const bool v0 = (mask[0] >> t) & 1u, v1 = (mask[1] >> t) & 1u;
        a[0] = v0 ? __float_as_uint(xg[a_off[0] + shift]) : 0u;
        a[1] = v1 ? __float_as_uint(xg[a_off[1] + shift]) : 0u;
        a[2] = v0 ? __float_as_uint(xg[4 * g.pitch + a_off[0] + shift]) : 0u;
        a[3] = v1 ? __float_as_uint(xg[4 * g.pitch + a_off[1] + shift]) : 0u;
        wgmma_fence();
        wgmma_m64n128k8_tf32_rs(acc, a, wgmma_desc_sw32(buf + uint32_t((grp * g.taps + t) * 4096)));
        wgmma_commit();
        // This group has completed before the next tap reloads a[]: a wgmma reads its A registers while in flight,
        // and changing them before a wait that covers it is undefined (run 39: wrong sums under memcheck, whose
        // slowed warps ran ahead, with wait<1> here). The stage is free with it too.
        wgmma_wait<0>();
        if (++s == g.s) {
          s = 0;
          shift += g.dh * g.w - (g.s - 1) * g.dw;
        } else {
          shift += g.dw;
        }
        if (step == 0) {
          // Both warpgroups are past the previous stage's last group: refill its slot.
          named_barrier_sync(1, kThreads);
          if (kc + kStages - 1 < g.chunks) load(kc + kStages - 1, (kc + kStages - 1) % kStages);
          cp_async_commit();
        }
      }
    }
  }
  wgmma_wait<0>();
  pdl_allow_dependents();

  // acc[4 j + e]: row 64 wg + 16 warp + lane / 4 (+ 8 for e >= 2), column 8 j + 2 (lane % 4) (+ 1 for odd e).
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    if (y_off[i] < 0) continue;
    float* yr = y + y_off[i];
#pragma unroll
    for (int j = 0; j < 16; ++j)
#pragma unroll
      for (int odd = 0; odd < 2; ++odd) {
        const int k = k0 + 8 * j + 2 * tq + odd;
        if (k >= g.ko) continue;
        float* p = yr + int64_t(k) * ohw;
        const float v = g.alpha * acc[4 * j + 2 * i + odd];
        *p = g.beta == 0.f ? v : v + g.beta * *p;
      }
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // built without sm_90a features: run() never launches it there
#endif
}

// wt[tap][o][c] (c < ci_pad, zeros past ci) from the KCRS filter: the forward takes w[o][c][tap] (o = k), the
// backward data w[c][o][flipped tap] (o = c of the filter, c = its k); a convolution (not cross-correlation) flips
// the taps once more.
__global__ void transpose_filter_kernel(const float* __restrict__ w, float* __restrict__ wt, int ko, int ci,
                                        int ci_pad, int taps, bool backward, bool flip) {
  pdl_wait();
  const int64_t total = int64_t(taps) * ko * ci_pad;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int c = int(i % ci_pad), o = int(i / ci_pad % ko), t = int(i / ci_pad / ko);
    float v = 0.f;
    if (c < ci) {
      const int tap = flip ? taps - 1 - t : t;
      v = backward ? w[(int64_t(c) * ko + o) * taps + tap] : w[(int64_t(o) * ci + c) * taps + tap];
    }
    wt[i] = v;
  }
  pdl_allow_dependents();
}

// Why p is not for this implementation, or nullptr (the device is checked apart).
const char* refusal(const ConvProblem& p) {
  if (p.dir == ConvDir::bwd_filter) return "forward and backward data only";
  if (p.xdt != CUDNN_DATA_FLOAT || p.wdt != CUDNN_DATA_FLOAT || p.ydt != CUDNN_DATA_FLOAT)
    return "float data only";
  if (!tf32_allowed(p)) return "TF32 not allowed (CUDNN_FMA_MATH or NVIDIA_TF32_OVERRIDE=0)";
  if (p.nsp != 2 || p.g != 1) return "2-D convolutions without groups only";
  if (!packed_nchw(*p.x) || !packed_nchw(*p.y)) return "x and y must be packed NCHW";
  if (!packed_nchw(p.w->as_tensor)) return "the filter must be packed KCRS";
  if (p.dir == ConvDir::bwd_data && (p.sh != 1 || p.sw != 1)) return "backward data at stride 1 only";
  if (p.dir == ConvDir::bwd_data && ((p.kh - 1) * p.dh < p.ph || (p.kw - 1) * p.dw < p.pw))
    return "backward data with padding past the filter's reach";
  const int64_t lim = int64_t{1} << 31;
  if (p.mb * p.ic * p.isp() >= lim || p.mb * p.oc * p.osp() >= lim) return "tensors of 2^31 elements or more";
  return nullptr;
}

Geom make_geom(const ConvProblem& p) {
  Geom g;
  const bool bwd = p.dir == ConvDir::bwd_data;
  g.n = int(p.mb);
  g.r = int(p.kh), g.s = int(p.kw), g.dh = p.dh, g.dw = p.dw;
  if (!bwd) {
    g.ci = int(p.ic), g.h = int(p.ih), g.w = int(p.iw), g.ko = int(p.oc), g.oh = int(p.oh), g.ow = int(p.ow);
    g.sh = p.sh, g.sw = p.sw, g.ph = p.ph, g.pw = p.pw;
  } else {  // dx = the stride-1 forward over dy with the pads mirrored
    g.ci = int(p.oc), g.h = int(p.oh), g.w = int(p.ow), g.ko = int(p.ic), g.oh = int(p.ih), g.ow = int(p.iw);
    g.ph = int((p.kh - 1) * p.dh - p.ph), g.pw = int((p.kw - 1) * p.dw - p.pw);
  }
  return g;
}

// Why p does not fit the kernel, or nullptr with *g planned: the one check that applicable, workspace_size and run
// share (the device apart).
const char* planned(const ConvProblem& p, Geom* g) {
  if (const char* why = refusal(p)) return why;
  *g = make_geom(p);
  const char* why = nullptr;
  if (!nchw_tf32::plan(g, &why)) return why;
  if (int64_t(g->m_tiles) * g->k_tiles > INT_MAX) return "too many tiles for the grid";
  return nullptr;
}

// The device runs the sm_90a kernel: an sm_90a build (FREEDNN_BUILD_SM90A) and a compute capability 9.0 device.
bool device_ok(int device) {
#if defined(FREEDNN_BUILD_SM90A)
  return is_cc90(device);
#else
  (void)device;
  return false;
#endif
}

size_t filter_bytes(const Geom& g) { return size_t(g.taps) * g.ko * g.ci_pad * sizeof(float); }

class NchwTf32 final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cuda:nchw_tf32"; }
  // The workspace is checked with the pointers, so that an unaligned one hands the call on (conv::settle) instead
  // of failing in run().
  fd::conv::Verdict accepts_pointers(const ConvProblem&, const ConvArgs& a) const override {
    return need_aligned(id(), 16, "its filter copy in 16-byte pieces", {{"workspace", a.workspace}});
  }
  fd::Backend backend() const override { return fd::Backend::cuda; }
  bool serves(ConvDir dir, int algo) const override {
    return (dir == ConvDir::fwd && algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) ||
           (dir == ConvDir::bwd_data && algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1);
  }
  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    Geom g;
    if (const char* why = planned(p, &g)) return {CUDNN_STATUS_NOT_SUPPORTED, why};
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
      (void)cudaGetLastError();
      return {CUDNN_STATUS_NOT_SUPPORTED, "cannot query the current CUDA device"};
    }
    if (!device_ok(dev))
      return {CUDNN_STATUS_NOT_SUPPORTED, "needs an sm_90a build on a compute capability 9.0 device"};
    // Opt-in: correct but 1.6-2.8x cutlass_sm90's time on ResNet-50's 3x3 layers (run 33 call 2, H100), so Find
    // would only spend time on it.
    if (fd::env_string("FREEDNN_NCHW_TF32") != "1")
      return {CUDNN_STATUS_NOT_SUPPORTED,
              "off unless FREEDNN_NCHW_TF32=1 (1.6-2.8x the time of cutlass_sm90 on ResNet-50, run 33)"};
    return {};
  }
  size_t workspace_size(const ConvProblem& p) const override {
    Geom g;
    return planned(p, &g) == nullptr ? filter_bytes(g) : 0;
  }
  bool deterministic() const override { return true; }  // one block per output tile, a fixed reduction order
  cudnnMathType_t math_type(const ConvProblem&) const override { return CUDNN_TENSOR_OP_MATH; }
  double cost_estimate(const ConvProblem& p) const override {
    // The flops at 80 TFLOP/s on whole 128 x 128 tiles (run 33 call 2, H100: 14x14x256 3x3 forward, 14.8 GFLOP in
    // 0.187 ms), or x, y and the filter (twice) at 3 TB/s, plus two launches.
    const double m = std::ceil(double(p.mb) * p.osp() / kBM) * kBM;
    const double n = std::ceil(double(p.dir == ConvDir::fwd ? p.oc : p.ic) / kBN) * kBN;
    const double flops = 2.0 * m * n * double(p.dir == ConvDir::fwd ? p.ic : p.oc) * p.ksp();
    const double bytes = 4.0 * (p.mb * (p.ic * p.isp() + p.oc * p.osp()) + 3.0 * p.oc * p.ic * p.ksp());
    return std::max(flops / 80e12, bytes / 3.0e12) + 6e-6;
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    const char* id = "cuda:nchw_tf32";
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "%s called without a handle", id);
    FD_CHECK_SUPPORTED(a.fused == nullptr, "%s has no fused bias / activation epilogue", id);
    cudnnContext* h = a.handle;
    FD_CHECK_SUPPORTED(device_ok(h->device), "%s needs an sm_90a build on a compute capability 9.0 device", id);
    Geom g;
    const char* why = planned(p, &g);
    FD_CHECK_SUPPORTED(why == nullptr, "%s: %s", id, why);
    g.alpha = float(a.alpha), g.beta = float(a.beta);
    const size_t need = filter_bytes(g);
    FD_CHECK(a.workspace != nullptr && a.workspace_size >= need && reinterpret_cast<uintptr_t>(a.workspace) % 16 == 0,
             CUDNN_STATUS_BAD_PARAM, "%s needs %zu bytes of 16-byte aligned workspace (got %zu)", id, need,
             a.workspace_size);
    const bool bwd = p.dir == ConvDir::bwd_data;
    const auto* w = static_cast<const float*>(a.in2);
    auto* wt = static_cast<float*>(a.workspace);
    const float* in = static_cast<const float*>(a.in);
    auto* out = static_cast<float*>(a.out);
    CUtensorMap w_map;
    const uint64_t dims[3] = {uint64_t(g.ci_pad), uint64_t(g.ko), uint64_t(g.taps)};
    const uint64_t strides[2] = {uint64_t(g.ci_pad) * 4, uint64_t(g.ci_pad) * 4 * uint64_t(g.ko)};
    const uint32_t box[3] = {8, uint32_t(kBN), uint32_t(g.taps)};
    FD_TRY(encode_tma_map(&w_map, wt, CUDNN_DATA_FLOAT, 3, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_32B,
                          "cuda:nchw_tf32 filter"));
    const bool pdl = ops_pdl(h->device);
    const int64_t wt_elems = int64_t(g.taps) * g.ko * g.ci_pad;
    (void)launch_pdl(pdl, transpose_filter_kernel, dim3(grid_size(wt_elems, 256, h->device)), dim3(256), 0, h->stream,
                     w, wt, g.ko, g.ci, g.ci_pad, g.taps, bwd, (p.mode == CUDNN_CONVOLUTION) != bwd);
    FD_CUDA_LAUNCHED();
    FD_TRY(allow_dynamic_smem(reinterpret_cast<const void*>(&nchw_tf32_kernel), size_t(g.smem_bytes), h->device));
    const unsigned blocks = unsigned(int64_t(g.m_tiles) * g.k_tiles);
    (void)launch_pdl(pdl, nchw_tf32_kernel, dim3(blocks), dim3(kThreads), size_t(g.smem_bytes), h->stream, g, w_map,
                     in, out);
    FD_CUDA_LAUNCHED();
    return CUDNN_STATUS_SUCCESS;
  }
};

}  // namespace

const fd::conv::ConvImpl* nchw_tf32_impl() {
  static const NchwTf32 impl;
  return &impl;
}

}  // namespace fd::cuda::conv
