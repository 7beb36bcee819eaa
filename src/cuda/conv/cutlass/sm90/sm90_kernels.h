// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The Hopper (sm_90a) tensor-core convolution kernels: CUTLASS 3.x implicit-GEMM collectives (TMA im2col loads,
// wgmma, TMA epilogue), one instantiation per file under kernels/. Those files are built for sm_90a only, in their
// own object library (src/CMakeLists.txt), and include nothing from the library but this header, so this
// interface is plain C++: a 2-D problem in CUTLASS's terms and type-erased entry points.
//
// Layouts (all packed, channels innermost): activation x / dx NHWC, filter w / dw KRSC (cuDNN's NHWC filter),
// output y / dy NPQK. Cross-correlation only (the collectives' restriction), groups == 1.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace fd::cuda::conv::sm90 {

// A 2-D convolution: activation n x h x w x c, filter k x r x s x c, output n x p x q x k.
struct Geometry {
  int n = 0, h = 0, w = 0, c = 0;
  int k = 0, r = 0, s = 0;
  int p = 0, q = 0;  // expected output size; can_implement fails when CUTLASS computes another one
  int pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  // Forward only: the bottom / right padding where it differs from pad_h / pad_w (-1: the same), and the element
  // strides between activation images and between filter output channels when the operands are windows of larger
  // packed tensors (0: packed). The float wgrad runs as a forward over row windows of transposed copies and needs
  // them (wgrad_tf32.h).
  int pad_h_hi = -1, pad_w_hi = -1;
  int64_t act_stride_n = 0, flt_stride_k = 0;
};

// Device pointers of one run. fprop: a = x, b = w, d = y. dgrad: a = dy, b = w, d = dx. wgrad: a = dy, b = x,
// d = dw. d = alpha * result + beta * c, where c has d's layout (d itself for cuDNN's blending); c is never read
// when beta == 0. Every pointer 16-byte aligned.
struct Operands {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;
  void* d = nullptr;
  float alpha = 1.0f, beta = 0.0f;
  void* workspace = nullptr;
  size_t workspace_size = 0;
  cudaStream_t stream = nullptr;
  // The float-partial wgrad kernels (*_f32out) only: the reduction cut into `splits` ranges (at most one per K
  // tile of N*P*Q rows), range z's partial dw at d + z * d_split_stride floats.
  int splits = 1;
  int64_t d_split_stride = 0;
  // Forward and dgrad kernels: d's (and c's) element strides between output columns, rows and images, where d is
  // a strided window of a larger NHWC tensor (the 16-bit dgrad's stride phases write dx in place); 0: packed.
  // Each must keep rows 16-byte aligned (a multiple of 8 16-bit or 4 float elements).
  int64_t d_strides[3] = {0, 0, 0};
};

enum class RunStatus { ok, not_implementable, init_failed, launch_failed };

// One kernel instantiation, type-erased. can_implement and workspace_size need no device and no pointers.
struct Kernel {
  const char* name;
  bool (*can_implement)(const Geometry& g);
  size_t (*workspace_size)(const Geometry& g);
  RunStatus (*run)(const Geometry& g, const Operands& o);  // queues on o.stream, no host synchronization
};

// Instantiations (kernels/<name>.cu): <direction>_<type>_<tile M>x<tile N>[_c<cluster M>][_s<stages>], tile K 128
// bytes (64 for f16/bf16; 32 for tf32: float storage, TF32 products, float sums and output); _s<stages>: a fixed
// pipeline depth (else as many stages as shared memory holds).
const Kernel& fprop_f16_128x128_c2();
const Kernel& fprop_f16_128x64();
const Kernel& fprop_bf16_128x128_c2();
const Kernel& fprop_bf16_128x64();
const Kernel& fprop_tf32_128x128_c2();
const Kernel& fprop_tf32_128x64();
const Kernel& dgrad_f16_128x128_c2();
const Kernel& dgrad_f16_128x64();
const Kernel& dgrad_bf16_128x128_c2();
const Kernel& dgrad_bf16_128x64();
// 4 stages (99 KB of shared memory): two CTAs per SM (the default; FREEDNN_SM90_STAGES=0 takes the ones above).
const Kernel& fprop_f16_128x64_s4();
const Kernel& fprop_bf16_128x64_s4();
const Kernel& fprop_tf32_128x64_s4();
const Kernel& dgrad_f16_128x64_s4();
const Kernel& dgrad_bf16_128x64_s4();
const Kernel& wgrad_f16_128x128();
const Kernel& wgrad_f16_64x128();
const Kernel& wgrad_bf16_128x128();
const Kernel& wgrad_bf16_64x128();
// Float partial sums d = alpha * dw, no source (beta must be 0), split-K (Operands::splits): the split wgrad.
const Kernel& wgrad_f16_128x128_f32out();
const Kernel& wgrad_f16_64x128_f32out();
const Kernel& wgrad_bf16_128x128_f32out();
const Kernel& wgrad_bf16_64x128_f32out();

}  // namespace fd::cuda::conv::sm90
