// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:cutlass_sm90_wgrad: backward filter (dw, a GEMM over N*P*Q) on Hopper tensor cores (CUTLASS 3.x implicit
// GEMM, TMA im2col + wgmma; sm90_impl.h lists what it accepts). Serves CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1.
// Kernels: 128x128x64 tiles, 64x128x64 when K <= 64. A dw of few tiles runs split (wgrad_split.h): split-K in one
// launch, float partial sums, one deterministic pass adding them. Float data
// (TF32 where allowed) runs as a forward over transposed copies of x and dy, in slices of dy's rows (wgrad_tf32.h);
// FREEDNN_SM90_WGRAD_NO_TF32=1 declines float (the sm80 and other implementations serve it, as before).
#include "cuda/conv/cutlass/sm90/sm90_impl.h"
#include "cuda/conv/impls.h"

#include <string>

#include "core/env.h"
#include "cuda/common/aux_streams.h"
#include "cuda/conv/cutlass/sm90/wgrad_split.h"
#include "cuda/conv/cutlass/sm90/wgrad_tf32.h"

namespace fd::cuda::conv {
namespace {

// tf32: the forward kernels the float path runs (wgrad_tf32.h); the base class's kernel() is not used for float.
sm90::KernelSet wgrad_kernels() {
  return {&sm90::wgrad_f16_128x128,     &sm90::wgrad_f16_64x128, &sm90::wgrad_bf16_128x128, &sm90::wgrad_bf16_64x128,
          &sm90::fprop_tf32_128x128_c2, &sm90::fprop_tf32_128x64, [](const fd::ConvProblem& p) { return p.oc; }};
}

// The float-output kernel of the split's K ranges: the tile of the unsplit kernel for the same problem.
const sm90::Kernel& partial_kernel(const fd::ConvProblem& p) {
  const bool small = p.oc <= 64;
  if (p.xdt == CUDNN_DATA_BFLOAT16)
    return small ? sm90::wgrad_bf16_64x128_f32out() : sm90::wgrad_bf16_128x128_f32out();
  return small ? sm90::wgrad_f16_64x128_f32out() : sm90::wgrad_f16_128x128_f32out();
}

class CutlassSm90Wgrad final : public sm90::Sm90ConvImpl {
 public:
  CutlassSm90Wgrad()
      : Sm90ConvImpl("cuda:cutlass_sm90_wgrad", fd::ConvDir::bwd_filter, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1,
                     wgrad_kernels()) {}

  // These kernels give each dw tile one CTA that walks the whole N*P*Q reduction (no split-K in CUTLASS 3.x's
  // convolutions). Measured on the H200 (docs/perf/conv-h200.md, ResNet-50 at N=64): 336-618 TFLOP/s with 64-144
  // tiles, 5-65 TFLOP/s with 1-9 tiles, where most of the 132 SMs idle. Below kMinTiles the split plan runs
  // (wgrad_split.h) when its model says splitting pays; otherwise (and with FREEDNN_SM90_WGRAD_NO_SPLIT=1) the
  // problem is declined and the split-K cuda:cutlass_sm80_wgrad, which serves the same algorithm, takes it.
  // FREEDNN_SM90_WGRAD_MIN_TILES overrides the threshold (the tests set 1, or a huge value to force the split).
  fd::conv::Verdict applicable(const fd::ConvProblem& p) const override {
    if (p.xdt == CUDNN_DATA_FLOAT) {
      sm90::Tf32WgradPlan plan;
      return tf32_plan(p, &plan);
    }
    const fd::conv::Verdict v = Sm90ConvImpl::applicable(p);
    if (!v.ok()) return v;
    const int64_t tiles = sm90::wgrad_tiles(p);
    const long long min_tiles = fd::env_int("FREEDNN_SM90_WGRAD_MIN_TILES", kMinTiles);
    if (tiles >= min_tiles) return {};
    const std::string few = "dw has " + std::to_string(tiles) + " output tiles (< " + std::to_string(min_tiles) + ")";
    if (fd::env_flag("FREEDNN_SM90_WGRAD_NO_SPLIT"))
      return no(few + " and FREEDNN_SM90_WGRAD_NO_SPLIT is set: the split-K sm80 kernel serves it");
    const sm90::WgradSplit sp = sm90::wgrad_split_plan(p, current_sm_count());
    if (sp.slices < 2)
      return no(few + " and its " + std::to_string(p.mb * p.osp()) +
                " reduction rows get one K range (the model, or FREEDNN_SM90_WGRAD_SPLITS): the split-K sm80 kernel "
                "serves it");
    const sm90::Kernel& k = partial_kernel(p);
    if (!k.can_implement(sm90::geometry(p, sm90::staging(p))))
      return no(few + std::string(": CUTLASS ") + k.name + " cannot implement it");
    return {};
  }

  size_t workspace_size(const fd::ConvProblem& p) const override {
    if (p.xdt == CUDNN_DATA_FLOAT) {
      sm90::Tf32WgradPlan plan;
      return tf32_plan(p, &plan).ok() ? plan.workspace : 0;
    }
    sm90::WgradSplit sp;
    return split(p, &sp) ? sp.workspace : Sm90ConvImpl::workspace_size(p);
  }

  // The float path's aux streams exist before the first call (a call under graph capture then creates nothing).
  cudnnStatus_t prepare(cudnnContext* h, const fd::ConvProblem& p) const override {
    if (h == nullptr || h->on_cpu() || p.xdt != CUDNN_DATA_FLOAT) return CUDNN_STATUS_SUCCESS;
    sm90::Tf32WgradPlan plan;
    if (!tf32_plan(p, &plan).ok() || plan.slices < 2) return CUDNN_STATUS_SUCCESS;
    AuxStreams* pool = nullptr;
    return aux_streams(h, plan.slices - 1, &pool);
  }

  double cost_estimate(const fd::ConvProblem& p) const override {
    if (p.xdt == CUDNN_DATA_FLOAT) {
      sm90::Tf32WgradPlan plan;
      return tf32_plan(p, &plan).ok() ? plan.seconds : 1e30;
    }
    sm90::WgradSplit sp;
    return split(p, &sp) ? sp.seconds : Sm90ConvImpl::cost_estimate(p);
  }

  // Float data: x and dy are read by the transposing copies (vector loads only where aligned) and dw written by
  // element, so any pointers do. 16-bit data, split or not: x, dy and dw in place (the base class's condition).
  fd::conv::Verdict accepts_pointers(const fd::ConvProblem& p, const fd::conv::ConvArgs& a) const override {
    return p.xdt == CUDNN_DATA_FLOAT ? fd::conv::Verdict{} : Sm90ConvImpl::accepts_pointers(p, a);
  }

  cudnnStatus_t run(const fd::ConvProblem& p, const fd::conv::ConvArgs& a) const override {
    if (p.xdt == CUDNN_DATA_FLOAT) {
      FD_CHECK(a.fused == nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:cutlass_sm90_wgrad: no fused epilogue");
      sm90::Tf32WgradPlan plan;
      const fd::conv::Verdict v = tf32_plan(p, &plan);
      FD_CHECK_SUPPORTED(v.ok(), "cuda:cutlass_sm90_wgrad: %s", v.reason.c_str());
      return sm90::run_tf32_wgrad(p, a, plan);
    }
    sm90::WgradSplit sp;
    if (!split(p, &sp)) return Sm90ConvImpl::run(p, a);
    FD_CHECK(a.fused == nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:cutlass_sm90_wgrad: no fused epilogue");
    return sm90::run_wgrad_split(p, a, sp, partial_kernel(p));
  }

 private:
  static constexpr long long kMinTiles = 48;

  // Float data: the problem checks (TF32 allowed by the math type and NVIDIA_TF32_OVERRIDE), the knob, the device,
  // then the transposed forward's plan (wgrad_tf32.h). The SM count: the current device's, as for split().
  fd::conv::Verdict tf32_plan(const fd::ConvProblem& p, sm90::Tf32WgradPlan* plan) const {
    const fd::conv::Verdict v = check_problem(p);
    if (!v.ok()) return v;
    if (fd::env_flag("FREEDNN_SM90_WGRAD_NO_TF32"))
      return no("float data and FREEDNN_SM90_WGRAD_NO_TF32 is set: the sm80 TF32 kernel and the others serve it");
    const fd::conv::Verdict d = check_device();
    if (!d.ok()) return d;
    return sm90::tf32_wgrad_plan(p, current_sm_count(), plan);
  }

  // Whether p runs split (the plan in *sp): few tiles, the split not turned off, more than one K range. The
  // problem checks come first so that the query of a declined problem stays 0. The SM count: the current device's
  // (the query and the call are made with the handle's device current).
  bool split(const fd::ConvProblem& p, sm90::WgradSplit* sp) const {
    if (!check_problem(p).ok()) return false;
    if (sm90::wgrad_tiles(p) >= fd::env_int("FREEDNN_SM90_WGRAD_MIN_TILES", kMinTiles)) return false;
    if (fd::env_flag("FREEDNN_SM90_WGRAD_NO_SPLIT")) return false;
    *sp = sm90::wgrad_split_plan(p, current_sm_count());
    return sp->slices >= 2;
  }
};

}  // namespace

const fd::conv::ConvImpl* cutlass_sm90_wgrad_impl() {
  static const CutlassSm90Wgrad impl;
  return &impl;
}

}  // namespace fd::cuda::conv
