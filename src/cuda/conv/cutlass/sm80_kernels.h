// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The CUTLASS 2.x (sm80-style: mma.sync tensor cores, multistage cp.async pipeline) implicit-GEMM convolution
// kernels, seen through a small table of function pointers so that the implementation files never include
// CUTLASS (each instantiation lives in its own .cu: sm80_<dir>_<type>_<tile>.cu, built in parallel).
// Tensors are packed: activations NHWC, filters KRSC, outputs NPQK; C and K are what the kernel sees (the caller pads
// channels with zeros to the kernels' vector widths).
#pragma once
#include <cuda_runtime_api.h>
#include <cudnn.h>

namespace fd::cuda::conv::sm80 {

// A 2-D convolution in CUTLASS's terms (int sizes, as its Conv2dProblemSize).
struct ConvSize {
  int N = 1, H = 1, W = 1, C = 1, K = 1, R = 1, S = 1, P = 1, Q = 1;
  int pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  bool convolution = false;  // CUDNN_CONVOLUTION (cutlass::conv::Mode::kConvolution): the filter is flipped
  int split_k = 1;           // wgrad only: parallel split-K slices
};

// One kernel instantiation.
//   fprop: a = x (NHWC),  b = w (KRSC), c/d = y (NPQK)
//   dgrad: a = dy (NPQK), b = w (KRSC), c/d = dx (NHWC)
//   wgrad: a = dy (NPQK), b = x (NHWC), d = split_k float partial results of dw (KRSC), one after another; alpha
//          and beta are 1 and 0 there (the caller sums the slices and blends).
// d = alpha * result + beta * c; c is not read when beta == 0 (CUTLASS's LinearCombination reads its source only
// for beta != 0). Pointers must be 16-byte aligned.
struct KernelOps {
  const char* name;
  int tile_m, tile_n, tile_k;
  // CUTLASS's own check (alignment of C and K, filter size, grid limits, stride support); `why` gets its text.
  bool (*can_implement)(const ConvSize& s, const char** why);
  cudnnStatus_t (*run)(const ConvSize& s, const void* a, const void* b, const void* c, void* d, float alpha,
                       float beta, cudaStream_t stream);
};

// fp16 / bf16 data, float accumulation; tf32: float data, TF32 products, float sums.
const KernelOps& fprop_f16_128();    // 128x128x64, 3 stages, warps 64x64x64
const KernelOps& fprop_f16_64();     // 64x64x64, 4 stages, warps 32x32x64
const KernelOps& fprop_bf16_128();
const KernelOps& fprop_bf16_64();
const KernelOps& fprop_tf32_128();   // 128x128x32, 3 stages, warps 64x64x32
const KernelOps& fprop_f16_fixed4();   // C == 4 exactly (fixed-channel iterators): 128x64x64, 3 stages, warps 64x32x64
const KernelOps& fprop_bf16_fixed4();
// Over a space-to-depth copy (s2d_staging.h; C a multiple of 4, stride 1, no padding; few-channel iterators,
// GEMM-K over (r, s, c) together): 16-bit 128x64x64 3 stages, warps 64x32x64; TF32 128x64x32 4 stages.
const KernelOps& fprop_f16_few();
const KernelOps& fprop_bf16_few();
const KernelOps& fprop_tf32_few();
const KernelOps& dgrad_f16_unity();  // stride 1: 128x128x64, 3 stages
const KernelOps& dgrad_bf16_unity();
const KernelOps& dgrad_tf32_unity();  // 128x128x32, 3 stages
const KernelOps& dgrad_f16_strided();  // any stride, dilation 1: strided-dgrad kernel, 128x128x64, 3 stages
const KernelOps& dgrad_bf16_strided();
const KernelOps& dgrad_tf32_strided();
const KernelOps& wgrad_f16();   // 128x128x64, 3 stages, float partials
const KernelOps& wgrad_bf16();
const KernelOps& wgrad_f16_64();   // K <= 64: 64x128x64, 3 stages, warps 32x64x64
const KernelOps& wgrad_bf16_64();
const KernelOps& wgrad_tf32();  // 128x128x32, 3 stages
// Float FMA (CUDA cores, no TF32), one-element accesses (any C, K; 4-byte alignment): 128x128x8, 4 stages, warps
// 32x64x8, for CUDNN_FMA_MATH (and float whenever Find measures them faster).
const KernelOps& simt_fprop_f32();
const KernelOps& simt_dgrad_f32_unity();
const KernelOps& simt_dgrad_f32_strided();
const KernelOps& simt_wgrad_f32();

}  // namespace fd::cuda::conv::sm80
