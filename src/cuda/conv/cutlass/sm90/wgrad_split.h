// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The split-K sm90 wgrad (cuda:cutlass_sm90_wgrad when dw has few output tiles). The sm90 wgrad kernels give each dw
// tile one CTA that walks the whole N*P*Q reduction, so a dw of a few tiles (ResNet-50's 3x3 layers at N=64: 5-36
// tiles) would leave most of the SMs idle. The f32out kernels cut the reduction into `slices` ranges of whole K
// tiles, one per blockIdx.z, in one launch (kernels/sm90_wgrad_splitk.cuh), each writing its float partial dw into
// the workspace; one pass adds the partials in range order and blends dw = alpha * sum + beta * dw
// (deterministic). Run 13: 1.7x faster than the batch slices it replaced (one CUTLASS launch per slice of images on
// as many streams, host-bound at ~10 us per slice) and 2.5x faster than the sm80 split-K kernel, over ResNet-50's
// backward-filter layers.
//
// How many ranges: a model of the time, minimized over 1..kMaxAutoSplits: the CTAs run in waves of one per SM
// (these kernels fill an SM's shared memory), a wave lasting as long as its largest range; the partial sums are
// written and read once more. FREEDNN_SM90_WGRAD_SPLITS forces a count for sweeps.
#pragma once
#include <cudnn.h>

#include <cstddef>
#include <cstdint>

#include "cuda/conv/cutlass/sm90/sm90_kernels.h"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv::sm90 {

constexpr int kMaxAutoSplits = 32;  // the model's range (132 SMs over ResNet-50's smallest dw of 5 tiles: 26)
constexpr int kMaxSplits = 32;      // FREEDNN_SM90_WGRAD_SPLITS
constexpr int64_t kMinSplitRows = 512;  // N*P*Q rows per range (8 K tiles), the model's range only

struct WgradSplit {
  int slices = 1;           // K ranges; 1: no split (the kernel writes dw itself)
  int64_t tiles = 0;        // dw tiles (every range has them all)
  size_t part_bytes = 0;    // one range's float partial dw (K*R*S*C floats), a multiple of 256 bytes
  size_t workspace = 0;     // slices * part_bytes + 256 bytes of alignment slack; 0 when slices == 1
  double seconds = 0;       // the model's time for this count
};

// The dw tiles of the sm90 wgrad kernel for p (64x128 when K <= 64, else 128x128; N mode = C*R*S).
int64_t wgrad_tiles(const fd::ConvProblem& p);

// The model's time for `slices` ranges (1: the unsplit kernel) on a device of `sm_count` SMs.
double wgrad_split_seconds(const fd::ConvProblem& p, int sm_count, int slices);

// The split for p on a device of `sm_count` SMs: FREEDNN_SM90_WGRAD_SPLITS when set (> 0; clamped to
// 1..min(K tiles, kMaxSplits)), else the model's best.
// Depends on the problem, the SM count and the environment only, so the workspace query and the call agree.
WgradSplit wgrad_split_plan(const fd::ConvProblem& p, int sm_count);

// Runs the split plan `sp` (sp.slices >= 2) with `partial` (a float-output wgrad kernel of the problem's type and
// tile) on a.handle's stream: dw (a.out) = alpha * conv + beta * dw. a.workspace holds sp.workspace bytes.
cudnnStatus_t run_wgrad_split(const fd::ConvProblem& p, const fd::conv::ConvArgs& a, const WgradSplit& sp,
                              const Kernel& partial);

}  // namespace fd::cuda::conv::sm90
