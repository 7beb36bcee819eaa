// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The split sm90 wgrad (cuda:cutlass_sm90_wgrad when dw has few output tiles). The sm90 wgrad kernels give each dw
// tile one CTA that walks the whole N*P*Q reduction, so a dw of a few tiles (ResNet-50's 3x3 layers at N=64: 5-36
// tiles) would leave most of the SMs idle. Two ways to split, both writing float partial dw into the workspace and
// ending in one pass that adds the partials in split order and blends dw = alpha * sum + beta * dw (deterministic:
// a fixed order whatever runs first):
// - split-K in one launch (the default): the f32out kernels cut the reduction into ranges of whole K tiles, one per
//   blockIdx.z (kernels/sm90_wgrad_splitk.cuh);
// - batch slices (FREEDNN_SM90_WGRAD_SPLITK=0): the batch cut into runs of whole images, one kernel launch per
//   slice on as many streams (aux_streams.h: event fork/join, works under graph capture). Run 12 measured its host
//   cost at ~10 us per slice (descriptors, attributes, launch, fork and join), more than the GPU time it saved.
//
// How many splits: a model of the time, minimized over 1..kMaxAutoSlices (kMaxAutoSplitK): the CTAs run in waves
// of one per SM (these kernels fill an SM's shared memory), a wave lasting as long as its largest split; batch
// slices also pay the host time per slice (kHostPerSlice), which bounds the rate when the host is the bottleneck;
// the partial sums are written and read once more. FREEDNN_SM90_WGRAD_SPLITS forces a count for sweeps.
#pragma once
#include <cudnn.h>

#include <cstddef>
#include <cstdint>

#include "cuda/conv/cutlass/sm90/sm90_kernels.h"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv::sm90 {

constexpr int kMaxAutoSlices = 16;   // the model's range for batch slices (host time grows with the count)
constexpr int kMaxAutoSplitK = 32;   // and for split-K (132 SMs over ResNet-50's smallest dw of 5 tiles: 26)
constexpr int kMaxSlices = 32;       // FREEDNN_SM90_WGRAD_SPLITS: the handle's stream + 31 aux streams
constexpr int64_t kMinSliceRows = 2048;  // N*P*Q rows per slice (32 of the 64-row K steps), model's range only
constexpr int64_t kMinSplitRows = 512;   // per split-K range (8 K tiles), model's range only

struct WgradSplit {
  int slices = 1;           // 1: no split (the kernel writes dw itself)
  bool in_kernel = true;    // split-K in one launch, else batch slices on streams
  int n = 0;                // images
  int64_t tiles = 0;        // dw tiles of one kernel run (every slice has them all)
  size_t part_bytes = 0;    // one slice's float partial dw (K*R*S*C floats), a multiple of 256 bytes
  size_t workspace = 0;     // slices * part_bytes + 256 bytes of alignment slack; 0 when slices == 1
  double seconds = 0;       // the model's time for this count
  // Batch slices: the first image of slice j; n0(slices) == n.
  int n0(int j) const { return static_cast<int>(static_cast<int64_t>(j) * n / slices); }
  // The aux streams the plan runs on (batch slices only).
  int aux_streams() const { return in_kernel ? 0 : slices - 1; }
};

// The dw tiles of the sm90 wgrad kernel for p (64x128 when K <= 64, else 128x128; N mode = C*R*S).
int64_t wgrad_tiles(const fd::ConvProblem& p);

// The reduction's K tiles (N*P*Q rows, 64 per tile): split-K's most splits.
int64_t wgrad_k_tiles(const fd::ConvProblem& p);

// The model's time for `slices` splits (1: the unsplit kernel) on a device of `sm_count` SMs.
double wgrad_split_seconds(const fd::ConvProblem& p, int sm_count, int slices, bool in_kernel);

// The split for p on a device of `sm_count` SMs: split-K unless FREEDNN_SM90_WGRAD_SPLITK=0; the count
// FREEDNN_SM90_WGRAD_SPLITS when set (> 0; clamped to 1..min(N or the K tiles, kMaxSlices)), else the model's best.
// Depends on the problem, the SM count and the environment only, so the workspace query and the call agree.
WgradSplit wgrad_split_plan(const fd::ConvProblem& p, int sm_count);

// Runs the split plan `sp` (sp.slices >= 2) with `partial` (a float-output wgrad kernel of the problem's type and
// tile) on a.handle's stream(s): dw (a.out) = alpha * conv + beta * dw. a.workspace holds sp.workspace bytes.
cudnnStatus_t run_wgrad_split(const fd::ConvProblem& p, const fd::conv::ConvArgs& a, const WgradSplit& sp,
                              const Kernel& partial);

}  // namespace fd::cuda::conv::sm90
