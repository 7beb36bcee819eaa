// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Grouped persistent sm_90a forward kernels (kernels/sm90_conv_grouped.cuh): up to kMaxGroup forward convolutions
// of one data type in one launch, as many CTAs as fit on the GPU, each CTA walking the tiles of every problem in
// turn. The TMA producer warp loads the next tile's operands while the consumer warp group runs the previous
// tile's epilogue, and the TMA stores drain while the next tile's wgmma runs: the per-tile prologue and epilogue
// that the non-persistent kernels pay at every CTA overlap. Written for the 16-bit dgrad's stride phases
// (dgrad_phases16.h: four forwards of 1, 2, 2 and 4 taps with a short K each, where the non-persistent kernels
// spend 2.4x the time of the stride-1 layer with the same multiply-adds, H200 run 20), and as a persistent
// single forward (the default for 16-bit forwards and TF32 ones with K > 64, sm90_impl.h). The same kernel runs
// CUTLASS's unit-stride dgrad collective (the 16-bit dgrad's default). Tiles walk n-fastest within a problem, so the
// CTAs running at once share their A tiles in L2 (FREEDNN_SM90_RASTER_N=0: m-fastest). Same plain-C++ interface
// rules as sm90_kernels.h.
#pragma once
#include <cuda_runtime_api.h>

#include "cuda/conv/cutlass/sm90/sm90_kernels.h"

namespace fd::cuda::conv::sm90 {

constexpr int kMaxGroup = 4;  // the stride phases of a 2-D stride of 2

// One grouped kernel, type-erased. run: problem i is g[i] with o[i]'s pointers, strides, alpha and beta (its
// stream ignored: the launch is queued on st); the problems whose tiles take longest should come first.
// not_implementable when CUTLASS's checks fail for any problem (nothing is launched then).
struct GroupKernel {
  const char* name;
  RunStatus (*run)(const Geometry* g, const Operands* o, int n, cudaStream_t st);
};

// 128x128x64 and 128x64x64 tiles, no cluster, the deepest pipeline beside the epilogue's own shared memory.
const GroupKernel& fprop_f16_128x128_grouped();
const GroupKernel& fprop_bf16_128x128_grouped();
const GroupKernel& fprop_f16_128x64_grouped();
const GroupKernel& fprop_bf16_128x64_grouped();
const GroupKernel& fprop_tf32_128x128_grouped();  // 128x128x32 on float as TF32: the float dgrad's stride phases
// The same 128x128 16-bit tiles on two consumer warp groups in turn (one's wgmma under the other's epilogue).
const GroupKernel& fprop_f16_128x128_pingpong();
const GroupKernel& fprop_bf16_128x128_pingpong();

// Unit-stride 16-bit backward data: CUTLASS's dgrad collective (the KRSC filter read as it is) under the same
// kernel; 128x128 tiles on two consumers, 128x64 (C <= 64) on one.
const GroupKernel& dgrad_f16_128x128_pingpong();
const GroupKernel& dgrad_bf16_128x128_pingpong();
const GroupKernel& dgrad_f16_128x64_grouped();
const GroupKernel& dgrad_bf16_128x64_grouped();

// The 16-bit 128x128 grouped kernel: the ping-pong form unless FREEDNN_SM90_PINGPONG=0 (read at every call), then
// the one-consumer form.
const GroupKernel& grouped_16bit_128x128(bool bf16);

// Whether the unit-stride 16-bit dgrad runs on the grouped dgrad kernels above: unless FREEDNN_SM90_DGRAD16_GROUPED=0
// (read at every call). H100 run 29: CUTLASS's own dgrad kernels took 1.36x their time over ResNet-50's 16
// unit-stride layers (1.01-1.88x per layer, f16 and bf16 alike).
bool dgrad16_grouped_wanted();

}  // namespace fd::cuda::conv::sm90
