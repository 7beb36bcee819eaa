// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The float sm90 wgrad as a forward over transposed operands (wgrad_tf32.h has the design): the plan and its model,
// the transposing copies, the slices' launches and the pass that sums their partials into dw.
#include "cuda/conv/cutlass/sm90/wgrad_tf32.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>

#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/cc90.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/common/digits.cuh"
#include "cuda/common/aux_streams.h"
#include "cuda/conv/cutlass/sm90/chwn_copy.h"
#include "cuda/conv/cutlass/sm90/sm90_impl.h"

namespace fd::cuda::conv::sm90 {
namespace {

using fd::conv::Verdict;

// Model constants (guesses to calibrate on the H200): one CTA per SM at about half the 16-bit rate of wgrad_split.cu
// (TF32 wgmma issues half the multiply-adds per cycle), the 64-column tile slower per SM; host time per slice
// (CUTLASS's TMA descriptors, its attribute call, the launch) and per plain launch.
constexpr double kSmFlops128 = 2.2e12, kSmFlops64 = 1.6e12;
constexpr double kHostPerSlice = 4e-6;
constexpr int kMaxRowSlices = 32;  // the handle's stream + 31 aux streams
constexpr double kLaunch = 3e-6;
constexpr double kDramBytes = 3.5e12;
constexpr int64_t kTileM = 128, kTileK = 32;  // the fprop_tf32 kernels' M and K tile (K: 32 floats of one tap)
// TMA im2col's reach in one run (CUTLASS's can_implement for 2-D): corners within [-128, 127] of the padding, so a
// slice's taps span at most 128 rows: (taps - 1) * dilation <= 128.
constexpr int64_t kMaxSpan = 128;

constexpr int kT = 32, kRows = 8;  // the finish pass's tiles: 32 x 32 elements, 32 x 8 threads

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round4(int64_t v) { return (v + 3) / 4 * 4; }
Verdict no(std::string why) { return {CUDNN_STATUS_NOT_SUPPORTED, std::move(why)}; }

int64_t tile_n(const ConvProblem& p) { return p.oc <= 64 ? 64 : 128; }

// ---- the finish pass: dw = alpha * sum of the partials + beta * dw ---------------------------------------------

// Partial j holds Y_j[(c * R + r) * S + s][k] (packed, Kp columns), `pstride` floats after partial j-1. i runs over
// dw's (c, r, s) in dw's inner order: (c, r, s) with s fastest for KCRS, (r, s, c) with c fastest for KRSC.
struct FinishArgs {
  const float* part = nullptr;
  float* dw = nullptr;
  int slices = 1;
  int64_t pstride = 0;
  int64_t K = 0, C = 0, R = 0, S = 0, Kp = 0;
  int64_t sk = 0, sc = 0, sr = 0, ss = 0;  // dw's element strides
  bool c_inner = false;
  Divider d_fast, d_mid;  // KCRS: S, R; KRSC: C, S
  float alpha = 1.0f, beta = 0.0f;
};

__device__ __forceinline__ void finish_split(const FinishArgs& g, int64_t i, int64_t& c, int64_t& r, int64_t& s) {
  if (g.c_inner) {
    const Digits3 d = digits3(i, g.d_fast, g.C, g.d_mid, g.S);
    c = d.lo, s = d.mid, r = d.hi;
  } else {
    const Digits3 d = digits3(i, g.d_fast, g.S, g.d_mid, g.R);
    s = d.lo, r = d.mid, c = d.hi;
  }
}

// One 32 (i) x 32 (k) tile: the partials read along k (their rows), dw written along i. Slices summed in order 0..,
// so the result does not depend on the streams' timing. dw is read only when beta != 0.
__global__ void __launch_bounds__(kT * kRows) tf32_wgrad_finish_kernel(FinishArgs g) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  __shared__ float tile[kT][kT + 1];
  const int64_t I = g.C * g.R * g.S;
  const int64_t i0 = int64_t(blockIdx.x) * kT, k0 = int64_t(blockIdx.y) * kT;
  const int tx = threadIdx.x, ty = threadIdx.y;
  {
    const int64_t k = k0 + tx;
#pragma unroll
    for (int j = 0; j < kT / kRows; ++j) {
      const int64_t i = i0 + ty + j * kRows;
      float acc = 0.0f;
      if (i < I && k < g.K) {
        int64_t c = 0, r = 0, s = 0;
        finish_split(g, i, c, r, s);
        const float* at = g.part + ((c * g.R + r) * g.S + s) * g.Kp + k;
        for (int sl = 0; sl < g.slices; ++sl) acc += at[sl * g.pstride];
      }
      tile[ty + j * kRows][tx] = acc;
    }
  }
  __syncthreads();
  const int64_t i = i0 + tx;
  if (i >= I) return;
  int64_t c = 0, r = 0, s = 0;
  finish_split(g, i, c, r, s);
  const int64_t off = c * g.sc + r * g.sr + s * g.ss;
#pragma unroll
  for (int j = 0; j < kT / kRows; ++j) {
    const int64_t k = k0 + ty + j * kRows;
    if (k >= g.K) break;
    float* o = g.dw + k * g.sk + off;
    const float v = g.alpha * tile[tx][ty + j * kRows];
    *o = g.beta != 0.0f ? v + g.beta * *o : v;
  }
  pdl_allow_dependents();
}

// ---- the plan -------------------------------------------------------------------------------------------------

// The model's time for `slices` slices.
double plan_seconds(const ConvProblem& p, const Tf32WgradPlan& pl, int sm_count, int slices) {
  const int64_t tn = tile_n(p), cm = tn == 128 ? 2 : 1;  // fprop_tf32_128x128_c2: clusters of 2 CTAs along M
  const int64_t mt = ceil_div(ceil_div(p.ic * p.ksp(), kTileM), cm) * cm, nt = ceil_div(pl.kp, tn);
  const int64_t waves = ceil_div(mt * nt * slices, std::max(sm_count, 1));
  const int64_t biggest = ceil_div(p.oh, slices);  // dy rows of the largest slice: a wave lasts as long
  const int64_t k_steps = biggest * p.ow * ceil_div(pl.np, kTileK);
  const double gpu = static_cast<double>(waves * k_steps) * 2.0 * kTileM * static_cast<double>(tn) * kTileK /
                     (tn == 128 ? kSmFlops128 : kSmFlops64);
  const double a = static_cast<double>(p.ic * pl.hc * pl.wc * pl.np), b = static_cast<double>(pl.kp * p.osp() * pl.np);
  const double part = static_cast<double>(p.ic * p.ksp() * pl.kp);
  // x and dy read, their copies written and read by the kernel, the partials written and read, dw written.
  const double bytes = 4.0 * (static_cast<double>(p.mb * p.ic * p.isp() + p.mb * p.oc * p.osp()) + 2 * a + 2 * b +
                              2.0 * slices * part + static_cast<double>(p.oc * p.ic * p.ksp()));
  const double host = kHostPerSlice * slices + 3 * kLaunch;
  return std::max(gpu + bytes / kDramBytes, host) + 2 * kLaunch;
}

}  // namespace

const Kernel& tf32_wgrad_kernel(const ConvProblem& p) {
  return pick_kernel(fprop_kernel_set(), CUDNN_DATA_FLOAT, tile_n(p));
}

Geometry tf32_wgrad_slice(const ConvProblem& p, const Tf32WgradPlan& pl, int j, int64_t* a_off, int64_t* b_off) {
  const int64_t p0 = pl.p0(j), p1 = pl.p0(j + 1);
  // The rows of x slice j reads (padded coordinates may fall outside [0, hc)): h0 .. h1.
  const int64_t h0 = p0 * p.sh - p.ph, h1 = (p1 - 1) * p.sh + (p.kh - 1) * p.dh - p.ph;
  const int64_t top = std::max<int64_t>(h0, 0), bottom = std::min<int64_t>(h1, pl.hc - 1);
  Geometry g;
  g.n = static_cast<int>(p.ic), g.h = static_cast<int>(bottom - top + 1), g.w = static_cast<int>(pl.wc);
  g.c = static_cast<int>(pl.np), g.k = static_cast<int>(pl.kp);
  g.r = static_cast<int>(p1 - p0), g.s = static_cast<int>(p.ow);
  g.p = static_cast<int>(p.kh), g.q = static_cast<int>(p.kw);
  g.pad_h = static_cast<int>(top - h0), g.pad_h_hi = static_cast<int>(h1 - bottom);
  g.pad_w = p.pw, g.pad_w_hi = pl.pad_w_hi;
  g.stride_h = p.dh, g.stride_w = p.dw;  // the roles of stride and dilation swap
  g.dil_h = p.sh, g.dil_w = p.sw;
  g.act_stride_n = pl.hc * pl.wc * pl.np;
  g.flt_stride_k = p.osp() * pl.np;
  *a_off = top * pl.wc * pl.np;
  *b_off = p0 * p.ow * pl.np;
  return g;
}

Verdict tf32_wgrad_plan(const ConvProblem& p, int sm_count, Tf32WgradPlan* out) {
  *out = Tf32WgradPlan{};
  if (p.w->format != CUDNN_TENSOR_NCHW && p.w->format != CUDNN_TENSOR_NHWC)
    return no("float wgrad: the filter must be NCHW (KCRS) or NHWC (KRSC)");
  // Every slice's window then holds at least one real row / column (tf32_wgrad_slice's top <= bottom).
  if (p.ph > (p.kh - 1) * p.dh || p.pw > (p.kw - 1) * p.dw)
    return no("float wgrad: padding " + std::to_string(p.ph) + "x" + std::to_string(p.pw) +
              " beyond the dilated filter's extent");
  // The dilation becomes the forward's stride: TMA im2col traverses with element strides of at most 8.
  if (p.dh > 8 || p.dw > 8)
    return no("float wgrad: dilation " + std::to_string(p.dh) + "x" + std::to_string(p.dw) +
              " above TMA im2col's traversal stride limit (8)");
  Tf32WgradPlan pl;
  pl.np = round4(p.mb), pl.kp = round4(p.oc), pl.rows = p.oh;
  // The last row / column any output reads; the ones after it are not copied.
  const int64_t h_last = (p.oh - 1) * p.sh + (p.kh - 1) * p.dh - p.ph;
  const int64_t w_last = (p.ow - 1) * p.sw + (p.kw - 1) * p.dw - p.pw;
  pl.hc = std::min<int64_t>(p.ih, h_last + 1), pl.wc = std::min<int64_t>(p.iw, w_last + 1);
  pl.pad_w_hi = static_cast<int>(w_last - (pl.wc - 1));
  // The columns are not sliced: Q taps at dilation sw must stay within TMA im2col's reach.
  if ((p.ow - 1) * p.sw > kMaxSpan + pl.pad_w_hi)
    return no("float wgrad: dy width " + std::to_string(p.ow) + " at stride " + std::to_string(p.sw) +
              " spans more than TMA im2col reaches in one run (128 columns)");
  const int64_t a_elems = p.ic * pl.hc * pl.wc * pl.np, b_elems = pl.kp * p.osp() * pl.np;
  const int64_t part_elems = p.ic * p.ksp() * pl.kp;
  if (std::max({a_elems, b_elems, part_elems}) > INT_MAX)
    return no("float wgrad: a transposed copy exceeds 2^31 elements");
  // The fewest slices that keep each one's rows within reach; FREEDNN_SM90_WGRAD_SPLITS forces a count (clamped),
  // FREEDNN_SM90_WGRAD_NO_SPLIT takes the fewest, otherwise the model's best.
  const int64_t max_rows = kMaxSpan / p.sh + 1;
  const int least = static_cast<int>(ceil_div(p.oh, max_rows));
  const int most = static_cast<int>(std::min<int64_t>(p.oh, kMaxRowSlices));
  if (least > most)
    return no("float wgrad: " + std::to_string(p.oh) + " dy rows at stride " + std::to_string(p.sh) + " need " +
              std::to_string(least) + " slices (more than " + std::to_string(most) + ")");
  const long long forced = env_int("FREEDNN_SM90_WGRAD_SPLITS", 0);
  if (forced > 0) {
    pl.slices = static_cast<int>(std::clamp<long long>(forced, least, most));
  } else if (env_flag("FREEDNN_SM90_WGRAD_NO_SPLIT")) {
    pl.slices = least;
  } else {
    pl.slices = least;
    double best = plan_seconds(p, pl, sm_count, least);
    // Up to kMaxRowSlices: a TF32 slice's reduction takes twice as long as a 16-bit one, so more launches pay
    // before the host's per-slice cost binds; the model counts that cost.
    for (int s = least + 1; s <= most; ++s) {
      const double t = plan_seconds(p, pl, sm_count, s);
      if (t < best) best = t, pl.slices = s;  // ties keep fewer slices
    }
  }
  pl.seconds = plan_seconds(p, pl, sm_count, pl.slices);
  pl.off_a = 0;
  pl.off_b = ws_align_up(static_cast<size_t>(a_elems) * sizeof(float));
  pl.off_part = pl.off_b + ws_align_up(static_cast<size_t>(b_elems) * sizeof(float));
  pl.part_bytes = ws_align_up(static_cast<size_t>(part_elems) * sizeof(float));
  pl.workspace = pl.off_part + static_cast<size_t>(pl.slices) * pl.part_bytes + kWsAlign;
  const Kernel& k = tf32_wgrad_kernel(p);
  for (int j = 0; j < pl.slices; ++j) {
    int64_t a_off = 0, b_off = 0;
    const Geometry g = tf32_wgrad_slice(p, pl, j, &a_off, &b_off);
    if (!k.can_implement(g))
      return no(std::string("float wgrad: CUTLASS ") + k.name + " cannot implement slice " + std::to_string(j) +
                " of " + std::to_string(pl.slices) + " (TMA im2col limits)");
    if (k.workspace_size(g) != 0)
      return no(std::string("float wgrad: CUTLASS ") + k.name + " asks for a workspace of its own");
  }
  *out = pl;
  return {};
}

cudnnStatus_t run_tf32_wgrad(const ConvProblem& p, const fd::conv::ConvArgs& a, const Tf32WgradPlan& pl) {
  const char* id = "cuda:cutlass_sm90_wgrad";
  FD_CHECK(a.handle != nullptr && pl.slices >= 1 && pl.slices <= kMaxRowSlices, CUDNN_STATUS_INTERNAL_ERROR,
           "%s: a float plan of %d slices", id, pl.slices);
  FD_CHECK_PARAM(a.workspace != nullptr && a.workspace_size >= pl.workspace,
                 "%s needs %zu bytes of workspace for the transposed x, dy and %d partial dw, got %zu", id,
                 pl.workspace, pl.slices, a.workspace_size);
  cudnnContext* h = a.handle;
  FD_TRY(require_cc90(h->device, id));
  const auto at = reinterpret_cast<uintptr_t>(a.workspace);
  char* ws = reinterpret_cast<char*>((at + kWsAlign - 1) / kWsAlign * kWsAlign);
  auto* A = reinterpret_cast<float*>(ws + pl.off_a);
  auto* B = reinterpret_cast<float*>(ws + pl.off_b);
  auto* parts = reinterpret_cast<float*>(ws + pl.off_part);
  const cudaStream_t st = h->stream;
  // x (n, c, h, w) -> A[c][h][w][n]; dy (n, k, p, q) -> B[k][p][q][n], K padded with zero filters: one launch.
  ChwnCopy<float> copies[2];
  copies[0].src = static_cast<const float*>(a.in), copies[0].dst = A;
  copies[0].N = p.mb, copies[0].A = p.ic, copies[0].Ap = p.ic, copies[0].U = pl.hc, copies[0].V = pl.wc;
  copies[1].src = static_cast<const float*>(a.in2), copies[1].dst = B;
  copies[1].N = p.mb, copies[1].A = p.oc, copies[1].Ap = pl.kp, copies[1].U = p.oh, copies[1].V = p.ow;
  for (int i = 0; i < 4; ++i) copies[0].strides[i] = p.x->strides[i], copies[1].strides[i] = p.y->strides[i];
  copies[0].Np = copies[1].Np = pl.np;
  FD_TRY(to_chwn(st, copies, 2));

  const Kernel& k = tf32_wgrad_kernel(p);
  AuxStreams* pool = nullptr;
  const int aux = pl.slices - 1;  // slice 0 runs on the handle's stream
  if (aux > 0) {
    FD_TRY(aux_streams(h, aux, &pool));
    FD_TRY(aux_fork(h, *pool, aux));
  }
  // Every slice is queued before the join's records (aux_streams.h); a failed launch still joins the streams.
  RunStatus failed = RunStatus::ok;
  int failed_slice = -1;
  for (int j = 0; j < pl.slices && failed == RunStatus::ok; ++j) {
    int64_t a_off = 0, b_off = 0;
    const Geometry g = tf32_wgrad_slice(p, pl, j, &a_off, &b_off);
    Operands o;
    o.a = A + a_off;
    o.b = B + b_off;
    o.d = reinterpret_cast<char*>(parts) + pl.part_bytes * j;
    o.c = o.d;  // beta 0: never read
    o.alpha = 1.0f, o.beta = 0.0f;
    o.stream = j == 0 ? st : aux_stream(*pool, j - 1);
    failed = k.run(g, o);
    if (failed != RunStatus::ok) failed_slice = j;
  }
  const cudaError_t launch_error = failed == RunStatus::ok ? cudaSuccess : cudaGetLastError();
  const cudnnStatus_t joined = aux > 0 ? aux_join(h, *pool, aux) : CUDNN_STATUS_SUCCESS;
  if (failed == RunStatus::not_implementable)
    FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "%s: CUTLASS %s cannot implement slice %d (dy rows %lld..%lld) of %s", id,
            k.name, failed_slice, static_cast<long long>(pl.p0(failed_slice)),
            static_cast<long long>(pl.p0(failed_slice + 1) - 1), p.to_string().c_str());
  if (failed != RunStatus::ok)
    FD_FAIL(CUDNN_STATUS_EXECUTION_FAILED, "%s: CUTLASS %s failed to initialize or launch slice %d (CUDA: %s)", id,
            k.name, failed_slice, cudaGetErrorName(launch_error));
  FD_TRY(joined);

  FinishArgs f;
  f.part = parts, f.dw = static_cast<float*>(a.out);
  f.slices = pl.slices, f.pstride = static_cast<int64_t>(pl.part_bytes / sizeof(float));
  f.K = p.oc, f.C = p.ic, f.R = p.kh, f.S = p.kw, f.Kp = pl.kp;
  const cudnnTensorStruct& wt = p.w->as_tensor;  // (k, c, r, s)
  f.sk = wt.strides[0], f.sc = wt.strides[1], f.sr = wt.strides[2], f.ss = wt.strides[3];
  f.c_inner = p.ic > 1 && f.sc == 1;
  const int64_t I = p.ic * p.ksp();
  if (f.c_inner) {
    f.d_fast = Divider(p.ic, I), f.d_mid = Divider(p.kw, I / p.ic);
  } else {
    f.d_fast = Divider(p.kw, I), f.d_mid = Divider(p.kh, I / p.kw);
  }
  f.alpha = static_cast<float>(a.alpha), f.beta = static_cast<float>(a.beta);
  const dim3 grid(static_cast<unsigned>(ceil_div(I, kT)), static_cast<unsigned>(ceil_div(p.oc, kT)));
  (void)launch_pdl(ops_pdl(h->device), tf32_wgrad_finish_kernel, grid, dim3(kT, kRows), 0, st, f);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv::sm90
