// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:cutlass_sm90_dgrad: backward data (dx = the transposed convolution of dy) on Hopper tensor cores (CUTLASS
// 3.x implicit GEMM, TMA im2col + wgmma; sm90_impl.h lists what it accepts). Serves
// CUDNN_CONVOLUTION_BWD_DATA_ALGO_1. 16-bit data, unit stride: CUTLASS's dgrad collective under the grouped
// persistent kernel (sm90_grouped.h: 128x128 tiles on two consumers, 128x64 when C <= 64), or with
// FREEDNN_SM90_DGRAD16_GROUPED=0 CUTLASS's own dgrad kernels, 128x128x64 tiles in 2x1 clusters, 128x64x64 when
// C <= 64. Float data (TF32 where allowed), any stride: forwards over dy in NHWC and one
// sub-filter per stride phase (dgrad_tf32.h); FREEDNN_SM90_DGRAD_NO_TF32=1 declines float (the sm80 and other
// implementations serve it). 16-bit data at a stride above 1: forwards per stride phase on the fprop kernels,
// writing dx in place (dgrad_phases16.h; FREEDNN_SM90_DGRAD16_PHASES=0 declines it).
#include "cuda/conv/cutlass/sm90/sm90_impl.h"
#include "cuda/conv/impls.h"

#include <optional>

#include "core/env.h"
#include "cuda/common/aux_streams.h"
#include "cuda/conv/cutlass/sm90/dgrad_phases16.h"
#include "cuda/conv/cutlass/sm90/dgrad_tf32.h"

namespace fd::cuda::conv {
namespace {

// tf32: the forward kernels the float path runs (dgrad_tf32.h); the base class's kernel() is not used for float.
sm90::KernelSet dgrad_kernels() {
  return {&sm90::dgrad_f16_128x128_c2, &sm90::dgrad_f16_128x64,      &sm90::dgrad_bf16_128x128_c2,
          &sm90::dgrad_bf16_128x64,    &sm90::fprop_tf32_128x128_c2, &sm90::fprop_tf32_128x64,
          [](const fd::ConvProblem& p) { return p.ic; }, &sm90::dgrad_f16_128x64_s4, &sm90::dgrad_bf16_128x64_s4};
}

class CutlassSm90Dgrad final : public sm90::Sm90ConvImpl {
 public:
  CutlassSm90Dgrad()
      : Sm90ConvImpl("cuda:cutlass_sm90_dgrad", fd::ConvDir::bwd_data, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
                     dgrad_kernels()) {}

  fd::conv::Verdict applicable(const fd::ConvProblem& p) const override {
    const auto f = phase_figures(p);
    return f ? f->verdict : Sm90ConvImpl::applicable(p);
  }

  size_t workspace_size(const fd::ConvProblem& p) const override {
    const auto f = phase_figures(p);
    if (!f) return Sm90ConvImpl::workspace_size(p);
    return f->verdict.ok() ? f->workspace : 0;
  }

  // The stride-phase paths' aux streams exist before the first call (a call under graph capture then creates
  // nothing).
  cudnnStatus_t prepare(cudnnContext* h, const fd::ConvProblem& p) const override {
    if (h == nullptr || h->on_cpu()) return CUDNN_STATUS_SUCCESS;
    const auto f = phase_figures(p);
    if (!f || !f->verdict.ok() || f->aux < 1) return CUDNN_STATUS_SUCCESS;
    AuxStreams* pool = nullptr;
    return aux_streams(h, f->aux, &pool);
  }

  double cost_estimate(const fd::ConvProblem& p) const override {
    const auto f = phase_figures(p);
    if (!f) return Sm90ConvImpl::cost_estimate(p);
    return f->verdict.ok() ? f->seconds : 1e30;
  }

  // Each path's own condition (run() checks the same): the stride phases' dy and dx, the float plan's operands in
  // place, else the unit-stride kernel's (the base class).
  fd::conv::Verdict accepts_pointers(const fd::ConvProblem& p, const fd::conv::ConvArgs& a) const override {
    if (sm90::dgrad16_phases_wanted(p)) return sm90::dgrad16_pointers(a);
    if (p.xdt != CUDNN_DATA_FLOAT) return Sm90ConvImpl::accepts_pointers(p, a);
    sm90::Tf32DgradPlan plan;
    const fd::conv::Verdict v = tf32_plan(p, &plan);
    return v.ok() ? sm90::tf32_dgrad_pointers(plan, a) : v;
  }

  cudnnStatus_t run(const fd::ConvProblem& p, const fd::conv::ConvArgs& a) const override {
    if (sm90::dgrad16_phases_wanted(p)) {
      FD_CHECK(a.fused == nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:cutlass_sm90_dgrad: no fused epilogue");
      sm90::Dgrad16Plan plan;
      const fd::conv::Verdict v = phases16_plan(p, &plan);
      FD_CHECK_SUPPORTED(v.ok(), "cuda:cutlass_sm90_dgrad: %s", v.reason.c_str());
      return sm90::run_dgrad16(p, a, plan);
    }
    if (p.xdt != CUDNN_DATA_FLOAT) return Sm90ConvImpl::run(p, a);
    FD_CHECK(a.fused == nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:cutlass_sm90_dgrad: no fused epilogue");
    sm90::Tf32DgradPlan plan;
    const fd::conv::Verdict v = tf32_plan(p, &plan);
    FD_CHECK_SUPPORTED(v.ok(), "cuda:cutlass_sm90_dgrad: %s", v.reason.c_str());
    return sm90::run_tf32_dgrad(p, a, plan);
  }

 protected:
  bool takes_strided(const fd::ConvProblem& p) const override { return sm90::dgrad16_phases_wanted(p); }

 private:
  // What the registry asks of a stride-phase plan: its verdict, workspace, modelled time, and the most aux streams
  // its run may fork (run_phases: every live phase but the first, plus one for the 16-bit pass over the phases no
  // tap reaches; run_phases_grouped: that pass's one).
  struct PhaseFigures {
    fd::conv::Verdict verdict;
    size_t workspace = 0;
    double seconds = 0;
    int aux = 0;
  };
  static PhaseFigures figures(const fd::conv::Verdict& v, const sm90::Dgrad16Plan& plan) {
    return {v, plan.workspace, plan.seconds, plan.live - 1 + (plan.empty_mask != 0 ? 1 : 0)};
  }
  static PhaseFigures figures(const fd::conv::Verdict& v, const sm90::Tf32DgradPlan& plan) {
    return {v, plan.workspace, plan.seconds, plan.live - 1};
  }

  // The figures of the stride-phase path that serves p (16-bit strided with the knob, or float), none for the
  // unit-stride 16-bit kernels of the base class.
  std::optional<PhaseFigures> phase_figures(const fd::ConvProblem& p) const {
    if (sm90::dgrad16_phases_wanted(p)) {
      sm90::Dgrad16Plan plan;
      const fd::conv::Verdict v = phases16_plan(p, &plan);
      return figures(v, plan);
    }
    if (p.xdt != CUDNN_DATA_FLOAT) return std::nullopt;
    sm90::Tf32DgradPlan plan;
    const fd::conv::Verdict v = tf32_plan(p, &plan);
    return figures(v, plan);
  }

  // 16-bit data at a stride above 1 (unless FREEDNN_SM90_DGRAD16_PHASES=0): the problem checks, the device, the plan.
  fd::conv::Verdict phases16_plan(const fd::ConvProblem& p, sm90::Dgrad16Plan* plan) const {
    const fd::conv::Verdict v = check_problem(p);
    if (!v.ok()) return v;
    const fd::conv::Verdict d = check_device();
    if (!d.ok()) return d;
    return sm90::dgrad16_plan(p, plan);
  }

  // Float data: the problem checks (TF32 allowed by the math type and NVIDIA_TF32_OVERRIDE), the knob, the device,
  // then the phases' plan.
  fd::conv::Verdict tf32_plan(const fd::ConvProblem& p, sm90::Tf32DgradPlan* plan) const {
    const fd::conv::Verdict v = check_problem(p);
    if (!v.ok()) return v;
    if (fd::env_flag("FREEDNN_SM90_DGRAD_NO_TF32"))
      return no("float data and FREEDNN_SM90_DGRAD_NO_TF32 is set: the sm80 TF32 kernels and the others serve it");
    const fd::conv::Verdict d = check_device();
    if (!d.ok()) return d;
    return sm90::tf32_dgrad_plan(p, plan);
  }
};

}  // namespace

const fd::conv::ConvImpl* cutlass_sm90_dgrad_impl() {
  static const CutlassSm90Dgrad impl;
  return &impl;
}

}  // namespace fd::cuda::conv
