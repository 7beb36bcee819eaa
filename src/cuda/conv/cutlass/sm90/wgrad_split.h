// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The batch-split sm90 wgrad (cuda:cutlass_sm90_wgrad when dw has few output tiles). The sm90 wgrad kernels give
// each dw tile one CTA that walks the whole N*P*Q reduction and CUTLASS 3.x has no split-K for convolutions, so a dw
// of a few tiles (ResNet-50's 3x3 layers at N=64: 5-36 tiles) would leave most of the SMs idle. Split instead:
// the batch is cut into `slices` runs of whole images (sizes differ by at most one image), the kernel runs once per
// slice on its images (x + n0*H*W*C, dy + n0*P*Q*K: still 16-byte aligned, C and K being multiples of 8) writing a
// float partial dw into the workspace, the slices on as many streams at once (aux_streams.h: event fork/join, no host
// synchronization, works under graph capture), and one pass adds the partial sums in slice order and blends
// dw = alpha * sum + beta * dw (deterministic: a fixed order whatever the streams do).
//
// How many slices: a model of the time, minimized over 1..kMaxAutoSlices (at most one per image, each slice keeping
// >= kMinSliceRows rows of the reduction): the CTAs run in waves of one per SM (these kernels fill an SM's shared
// memory), a wave lasting as long as its largest slice; the host queues each slice (CUTLASS's TMA descriptors and
// the launch, kHostPerSlice), which bounds the rate when the host is the bottleneck; the partial sums are written and
// read once more. Its constants are guesses until measured (FREEDNN_SM90_WGRAD_SPLITS forces a count for sweeps).
#pragma once
#include <cudnn.h>

#include <cstddef>
#include <cstdint>

#include "cuda/conv/cutlass/sm90/sm90_kernels.h"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv::sm90 {

constexpr int kMaxAutoSlices = 16;   // the model's range (host time grows with the count)
constexpr int kMaxSlices = 32;       // FREEDNN_SM90_WGRAD_SPLITS: the handle's stream + 31 aux streams
constexpr int64_t kMinSliceRows = 2048;  // N*P*Q rows per slice (32 of the 64-row K steps), model's range only

struct WgradSplit {
  int slices = 1;           // 1: no split (the kernel writes dw itself)
  int n = 0;                // images
  int64_t tiles = 0;        // dw tiles of one kernel run (every slice has them all)
  size_t part_bytes = 0;    // one slice's float partial dw (K*R*S*C floats), a multiple of 256 bytes
  size_t workspace = 0;     // slices * part_bytes + 256 bytes of alignment slack; 0 when slices == 1
  double seconds = 0;       // the model's time for this count
  // First image of slice j; n0(slices) == n.
  int n0(int j) const { return static_cast<int>(static_cast<int64_t>(j) * n / slices); }
};

// The dw tiles of the sm90 wgrad kernel for p (64x128 when K <= 64, else 128x128; N mode = C*R*S).
int64_t wgrad_tiles(const fd::ConvProblem& p);

// The model's time for `slices` slices (1: the unsplit kernel) on a device of `sm_count` SMs.
double wgrad_split_seconds(const fd::ConvProblem& p, int sm_count, int slices);

// The slice count for p on a device of `sm_count` SMs: FREEDNN_SM90_WGRAD_SPLITS when set (> 0; clamped to
// 1..min(N, kMaxSlices)), else the model's best. Depends on the problem, the SM count and the environment only, so
// the workspace query and the call agree.
WgradSplit wgrad_split_plan(const fd::ConvProblem& p, int sm_count);

// Runs the split plan `sp` (sp.slices >= 2) with `partial` (a float-output wgrad kernel of the problem's type and
// tile) on a.handle's streams: dw (a.out) = alpha * conv + beta * dw. a.workspace holds sp.workspace bytes.
cudnnStatus_t run_wgrad_split(const fd::ConvProblem& p, const fd::conv::ConvArgs& a, const WgradSplit& sp,
                              const Kernel& partial);

}  // namespace fd::cuda::conv::sm90
