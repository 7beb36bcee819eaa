// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The stride phases of the sm90 dgrad paths (dgrad_phases.h): their plan, sub-filters and launches.
#include "cuda/conv/cutlass/sm90/dgrad_phases.h"

#include <algorithm>
#include <string>

#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/aux_streams.h"
#include "cuda/common/cuda_util.h"
#include "cuda/conv/cutlass/sm90/chwn_copy.h"

namespace fd::cuda::conv::sm90 {
namespace {

using fd::conv::Verdict;

Verdict no(std::string why) { return {CUDNN_STATUS_NOT_SUPPORTED, std::move(why)}; }

std::string phase_name(const DgradPhase& f) {
  return "phase (" + std::to_string(f.a) + ", " + std::to_string(f.b) + ")";
}

template <class E>
int sub_filter_copies_of(const ConvProblem& p, const DgradPhase* ph, int n, const E* w, int64_t kp, int64_t cp,
                         char* ws, ChwnCopy<E>* out) {
  const cudnnTensorStruct& wt = p.w->as_tensor;  // (k, c, r, s)
  const bool flip = p.mode == CUDNN_CONVOLUTION;
  const int64_t step_h = p.sh / std::gcd(p.sh, p.dh), step_w = p.sw / std::gcd(p.sw, p.dw);
  int count = 0;
  for (int i = 0; i < n; ++i) {
    const DgradPhase& f = ph[i];
    if (!f.live()) continue;
    const int64_t r_last = f.r0 + int64_t(f.ta - 1) * step_h, s_last = f.s0 + int64_t(f.tb - 1) * step_w;
    const int64_t r_at = flip ? p.kh - 1 - r_last : r_last, s_at = flip ? p.kw - 1 - s_last : s_last;
    ChwnCopy<E>& c = out[count++];
    c.src = w + r_at * wt.strides[2] + s_at * wt.strides[3];
    c.strides[0] = wt.strides[0], c.strides[1] = wt.strides[1];
    c.strides[2] = (flip ? 1 : -1) * step_h * wt.strides[2], c.strides[3] = (flip ? 1 : -1) * step_w * wt.strides[3];
    c.N = p.oc, c.A = p.ic, c.Ap = cp, c.U = f.ta, c.V = f.tb, c.Np = kp;
    c.dst = reinterpret_cast<E*>(ws + f.off_w);
  }
  return count;
}

template <class E>
cudnnStatus_t copy_sub_filters_of(cudaStream_t st, const ConvProblem& p, const DgradPhase* ph, int n, const E* w,
                                  int64_t kp, int64_t cp, char* ws) {
  ChwnCopy<E> copies[kMaxDgradPhases];
  return to_chwn(st, copies, sub_filter_copies_of(p, ph, n, w, kp, cp, ws, copies));
}

}  // namespace

Verdict plan_phases(const ConvProblem& p, int64_t kp, int64_t cp, const char* what, DgradPhase* ph) {
  if (p.sh > kMaxStride || p.sw > kMaxStride)
    return no(std::string(what) + ": stride " + std::to_string(p.sh) + "x" + std::to_string(p.sw) + " (at most " +
              std::to_string(kMaxStride) + " per dim: one phase per stride position)");
  for (int a = 0; a < p.sh; ++a) {
    const Axis ra = axis(a, p.sh, p.dh, p.ph, p.kh, p.ih, p.oh);
    for (int b = 0; b < p.sw; ++b) {
      const Axis cb = axis(b, p.sw, p.dw, p.pw, p.kw, p.iw, p.ow);
      DgradPhase& f = ph[a * p.sw + b];
      f = DgradPhase{};
      f.a = a, f.b = b, f.ha = ra.out, f.wb = cb.out, f.ta = ra.taps, f.tb = cb.taps, f.r0 = ra.r0, f.s0 = cb.r0;
      f.top = ra.top;
      if (!f.live()) continue;
      if (cb.top != 0 || cb.len != p.ow)
        return no(std::string(what) + ": " + phase_name(f) + " reads a window of dy's columns (padding " +
                  std::to_string(p.pw) + " against a " + std::to_string(p.kw) + "-wide filter at stride " +
                  std::to_string(p.sw) + "): only row windows are possible");
      Geometry& g = f.g;
      g.n = static_cast<int>(p.mb), g.h = static_cast<int>(ra.len), g.w = static_cast<int>(p.ow);
      g.c = static_cast<int>(kp), g.k = static_cast<int>(cp);
      g.r = f.ta, g.s = f.tb, g.p = static_cast<int>(f.ha), g.q = static_cast<int>(f.wb);
      g.pad_h = static_cast<int>(ra.lo), g.pad_h_hi = static_cast<int>(ra.hi);
      g.pad_w = static_cast<int>(cb.lo), g.pad_w_hi = static_cast<int>(cb.hi);
      g.stride_h = g.stride_w = 1;
      g.dil_h = static_cast<int>(p.dh / std::gcd(p.sh, p.dh)), g.dil_w = static_cast<int>(p.dw / std::gcd(p.sw, p.dw));
      g.act_stride_n = p.osp() * kp;
    }
  }
  return {};
}

double phase_mma_seconds(const ConvProblem& p, const DgradPhase* ph, int n, int64_t kp, int64_t cp, int64_t tile_m,
                         int64_t tile_n, int64_t tile_k, double flops, int sm_count) {
  auto ceil_div = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  double steps = 0;
  for (int i = 0; i < n; ++i) {
    const DgradPhase& f = ph[i];
    if (!f.live()) continue;
    const int64_t tiles = ceil_div(p.mb * f.ha * f.wb, tile_m) * ceil_div(cp, tile_n);
    steps += static_cast<double>(tiles * f.ta * f.tb * ceil_div(kp, tile_k));
  }
  return steps * 2.0 * static_cast<double>(tile_m * tile_n * tile_k) / (std::max(sm_count, 1) * flops);
}

Verdict check_phase_kernel(const Kernel& k, const DgradPhase* ph, int n, const char* what) {
  for (int i = 0; i < n; ++i) {
    const DgradPhase& f = ph[i];
    if (!f.live()) continue;
    if (!k.can_implement(f.g))
      return no(std::string(what) + ": CUTLASS " + k.name + " cannot implement " + phase_name(f) +
                " (TMA im2col limits)");
    if (k.workspace_size(f.g) != 0)
      return no(std::string(what) + ": CUTLASS " + k.name + " asks for a workspace of its own");
  }
  return {};
}

int sub_filter_copies(const ConvProblem& p, const DgradPhase* ph, int n, const float* w, int64_t kp, int64_t cp,
                      char* ws, ChwnCopy<float>* out) {
  return sub_filter_copies_of(p, ph, n, w, kp, cp, ws, out);
}

cudnnStatus_t copy_sub_filters(cudaStream_t st, const ConvProblem& p, const DgradPhase* ph, int n,
                               const uint16_t* w, int64_t kp, int64_t cp, char* ws) {
  return copy_sub_filters_of(st, p, ph, n, w, kp, cp, ws);
}

int live_heaviest_first(const DgradPhase* ph, int n, int* order) {
  int count = 0;
  for (int i = 0; i < n; ++i)
    if (ph[i].live()) order[count++] = i;
  std::stable_sort(order, order + count, [&](int a, int b) { return ph[a].ta * ph[a].tb > ph[b].ta * ph[b].tb; });
  return count;
}

cudnnStatus_t run_phases(cudnnContext* h, const char* id, const ConvProblem& p, const Kernel& k,
                         const DgradPhase* ph, int n, int live,
                         const std::function<Operands(const DgradPhase&)>& operands,
                         const std::function<cudnnStatus_t(cudaStream_t)>& side) {
  FD_CHECK(n >= 0 && n <= kMaxDgradPhases && live >= 0, CUDNN_STATUS_INTERNAL_ERROR, "%s: %d stride phases, %d live",
           id, n, live);
  if (live == 0) return side ? side(h->stream) : CUDNN_STATUS_SUCCESS;
  // FREEDNN_SM90_PHASES_SERIAL=1 (opt-in, for the A/B): everything on the handle's stream, one after the other.
  const bool serial = env_flag("FREEDNN_SM90_PHASES_SERIAL");
  AuxStreams* pool = nullptr;
  const int aux = serial ? 0 : live - 1 + (side ? 1 : 0);  // the first live phase runs on the handle's stream
  if (aux > 0) {
    FD_TRY(aux_streams(h, aux, &pool));
    FD_TRY(aux_fork(h, *pool, aux));
  }
  int order[kMaxDgradPhases];
  const int count = live_heaviest_first(ph, n, order);  // the GPU starts CTAs roughly in launch order
  // Every launch is queued before the join's records (aux_streams.h); a failed launch still joins the streams.
  RunStatus failed = RunStatus::ok;
  int failed_phase = -1, j = 0;
  for (int o_i = 0; o_i < count && failed == RunStatus::ok; ++o_i) {
    const int i = order[o_i];
    const DgradPhase& f = ph[i];
    Operands o = operands(f);
    o.stream = j == 0 || serial ? h->stream : aux_stream(*pool, j - 1);
    ++j;
    failed = k.run(f.g, o);
    if (failed != RunStatus::ok) failed_phase = i;
  }
  const cudaError_t launch_error = failed == RunStatus::ok ? cudaSuccess : cudaGetLastError();
  const cudnnStatus_t side_status =
      side && failed == RunStatus::ok ? side(serial ? h->stream : aux_stream(*pool, aux - 1)) : CUDNN_STATUS_SUCCESS;
  const cudnnStatus_t joined = aux > 0 ? aux_join(h, *pool, aux) : CUDNN_STATUS_SUCCESS;
  if (failed == RunStatus::not_implementable)
    FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "%s: CUTLASS %s cannot implement phase %d of %s", id, k.name, failed_phase,
            p.to_string().c_str());
  if (failed != RunStatus::ok)
    FD_FAIL(CUDNN_STATUS_EXECUTION_FAILED, "%s: CUTLASS %s failed to initialize or launch phase %d (CUDA: %s)", id,
            k.name, failed_phase, cudaGetErrorName(launch_error));
  FD_TRY(side_status);
  return joined;
}

cudnnStatus_t run_phases_grouped(cudnnContext* h, const char* id, const GroupKernel& k, const DgradPhase* ph, int n,
                                 const std::function<Operands(const DgradPhase&)>& operands,
                                 const std::function<cudnnStatus_t(cudaStream_t)>& side, bool* launched) {
  *launched = false;
  int live[kMaxDgradPhases];
  const int count = live_heaviest_first(ph, n, live);
  if (count < 1 || count > kMaxGroup) return CUDNN_STATUS_SUCCESS;
  Geometry g[kMaxGroup];
  Operands o[kMaxGroup];
  for (int j = 0; j < count; ++j) g[j] = ph[live[j]].g, o[j] = operands(ph[live[j]]);
  // FREEDNN_SM90_PHASES_SERIAL=1 (opt-in, for the A/B): side after the kernel on the handle's stream.
  const bool fork = side && !env_flag("FREEDNN_SM90_PHASES_SERIAL");
  AuxStreams* pool = nullptr;
  if (fork) {
    FD_TRY(aux_streams(h, 1, &pool));
    FD_TRY(aux_fork(h, *pool, 1));
  }
  const RunStatus r = k.run(g, o, count, h->stream);
  const cudaError_t launch_error = r == RunStatus::ok ? cudaSuccess : cudaGetLastError();
  // Side only after the phases were queued (else the caller runs both its own way); the fork is joined either way.
  const cudnnStatus_t side_status =
      side && r == RunStatus::ok ? side(fork ? aux_stream(*pool, 0) : h->stream) : CUDNN_STATUS_SUCCESS;
  const cudnnStatus_t joined = fork ? aux_join(h, *pool, 1) : CUDNN_STATUS_SUCCESS;
  FD_CHECK(r == RunStatus::ok || r == RunStatus::not_implementable, CUDNN_STATUS_EXECUTION_FAILED,
           "%s: the grouped persistent kernel %s failed to initialize or launch the stride phases (CUDA: %s)", id,
           k.name, cudaGetErrorName(launch_error));
  FD_TRY(side_status);
  FD_TRY(joined);
  *launched = r == RunStatus::ok;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv::sm90
