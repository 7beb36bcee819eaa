// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// What the three cuda:cutlass_sm80_* implementations (and the three cuda:cutlass_simt_* ones, the same CUTLASS
// 2.x implicit GEMM on float FMA instructions: `simt` below) share: the checks every direction makes, the plan of a
// call (which kernel, which operands go through packed, channel-padded NHWC / KRSC copies in the workspace, the
// split-K slices of wgrad), and the helper kernels around the CUTLASS kernel (layout copies, the alpha/beta or fused
// write-back, the wgrad split-K sum). The plan depends on the problem (and the SM count) only, so the workspace
// query, Find and the call agree.
#pragma once
#include <cudnn.h>

#include <cstddef>

#include "cuda/conv/cutlass/s2d_staging.h"
#include "cuda/conv/cutlass/sm80_kernels.h"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv::sm80 {

// The space-to-depth forms of a strided forward with few input channels (FREEDNN_SM80_S2D picks one, see
// sm80_common.cu): z's channels s * s * C rounded up to 4 on the few-channel kernels (unpadded on the SIMT one);
// rounded up to 8 on the regular (kOptimized) kernels, a whole K tile per tap; or with the w taps folded into the
// channels (rounded up to 8) on the regular kernels, ceil(R / s) taps.
enum class S2d { off, few, wide, folded };

struct Plan {
  const KernelOps* ops = nullptr;
  ConvSize size;
  // Operands that are not packed NHWC (activations) / KRSC (filters), or whose C or K is off the kernels' vector
  // width, are copied into the workspace first, channels zero-padded to size.C / size.K (multiples of 8, 4 for TF32;
  // 4 for the 16-bit forward with C <= 4); an output that is not packed NHWC or has padded channels is computed into
  // the workspace and its first C / K channels written back (blended) by a second kernel.
  // size holds the padded C and K the kernel sees.
  // s2d: a strided forward with few input channels runs as a stride-1 forward over space-to-depth copies of x and
  // w (s2d_staging.h; both staged, size is the derived problem's).
  S2d s2d = S2d::off;
  S2dShape s2d_shape;
  bool stage_x = false, stage_w = false, stage_y = false;
  size_t off_x = 0, off_w = 0, off_y = 0, off_part = 0;  // byte offsets from the 256-byte aligned workspace start
  size_t total = 0;                                      // bytes the caller must provide, alignment slack included
};

// Checks the problem for `dir` and fills the plan. sm_count: of the device that runs it (tile choice, split-K).
// ws_limit: the workspace the call has; wgrad uses fewer split-K slices when it is smaller than planned.
// simt: the float FMA kernels (float data and compute type, any math type; no channel padding: one-element
// accesses) instead of the tensor-core ones.
fd::conv::Verdict make_plan(const fd::ConvProblem& p, int sm_count, size_t ws_limit, Plan* plan, bool simt = false);

// Roofline guess in seconds: flops at an assumed 300e12 /s for 16-bit data, 150e12 /s for TF32 and 40e12 /s for
// the SIMT kernels, bytes moved (staging copies and split-K partial sums included) at an assumed 3.5e12 B/s, plus
// launch overheads. Uncalibrated.
double cost_estimate(const fd::ConvProblem& p, bool simt = false);

// Whether the call's pointers suit the plan (Sm80ConvImpl::accepts_pointers and run_plan's check, made before
// anything is queued): the operands the kernel uses in place, not staged, 16-byte aligned (4 for SIMT).
fd::conv::Verdict plan_pointers(const fd::ConvProblem& p, const Plan& plan, const fd::conv::ConvArgs& a,
                                bool simt = false);

// Runs a planned problem on the handle's stream. in/in2/out as ConvArgs (fwd: x, w, y; bwd_data: dy, w, dx;
// bwd_filter: x, dy, dw).
cudnnStatus_t run_plan(const fd::ConvProblem& p, const fd::conv::ConvArgs& a, bool simt = false);

// The six implementations (sm80_impls.cpp): cuda:cutlass_sm80_* and cuda:cutlass_simt_*, one per direction and
// kernel family, differing only in their id, direction, algorithms served and the `simt` flag.
class Sm80ConvImpl final : public fd::conv::ConvImpl {
 public:
  Sm80ConvImpl(const char* id, fd::ConvDir dir, bool simt, int algo, int algo2 = -1)
      : id_(id), dir_(dir), simt_(simt), algo_(algo), algo2_(algo2) {}
  const char* id() const override { return id_; }
  bool serves(fd::ConvDir d, int algo) const override { return d == dir_ && (algo == algo_ || algo == algo2_); }
  fd::Backend backend() const override { return fd::Backend::cuda; }
  fd::conv::Verdict applicable(const fd::ConvProblem& p) const override;
  size_t workspace_size(const fd::ConvProblem& p) const override;
  bool deterministic() const override { return true; }  // fixed summation orders, no atomics
  cudnnMathType_t math_type(const fd::ConvProblem&) const override {
    return simt_ ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
  }
  double cost_estimate(const fd::ConvProblem& p) const override { return sm80::cost_estimate(p, simt_); }
  fd::conv::Verdict accepts_pointers(const fd::ConvProblem& p, const fd::conv::ConvArgs& a) const override;
  cudnnStatus_t run(const fd::ConvProblem& p, const fd::conv::ConvArgs& a) const override;

 private:
  const char* id_;
  fd::ConvDir dir_;
  bool simt_;     // the float FMA kernels (cuda:cutlass_simt_*)
  int algo_, algo2_;  // the algorithm enums served (-1: none)
};

}  // namespace fd::cuda::conv::sm80
