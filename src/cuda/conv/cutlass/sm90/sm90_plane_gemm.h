// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batched TF32 GEMMs over NCHW planes on Hopper (sm_90a), for cuda:gemm_1x1's float 1x1 layers in NCHW. Why:
// Hopper's TF32 wgmma reads only K-major operands from shared memory, and an NCHW plane is MN-major (the pixels
// contiguous), so the float paths copied dy to NHWC first (run 22, ncu: 12-40 us of 48-66 us layers) or ran
// cuBLASLt's per-image GEMMs (107-134 us on the 7x7 layers). CUTLASS's sm90 collectives take MN-major TF32 operands
// by loading A through registers (its RS mainloop, which transposes on the way) and B through a transposing warp,
// so one launch reads the planes where they lie and writes the output planes directly. Per image (batch entry):
//   D (m x n, column-major: the output's plane of m pixels per channel) = alpha * A * B + beta * D
//   A (m x k, column-major: the activation's planes), B (k x n, the same for every image).
// Forward: A = x, B = W^T (k = C contiguous: K-major); backward data: A = dy, B = W (n = C contiguous: MN-major).
// The instantiation files (kernels/gemm_tf32_planes_*.cu) include CUTLASS and this header only.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cuda/conv/cutlass/sm90/sm90_kernels.h"

namespace fd::cuda::conv::sm90 {

struct PlaneGemm {
  int m = 0, n = 0, k = 0, batch = 1;  // m: pixels per plane
  int64_t a_batch = 0;                 // A's element stride between images (its leading dimension is m)
  int64_t b_ld = 0;                    // B's stride along its non-contiguous dim
  int64_t d_batch = 0;                 // D's element stride between images (its leading dimension is m)
};

struct PlaneOperands {
  const float* a = nullptr;
  const float* b = nullptr;
  float* d = nullptr;  // also the source of the blend (beta != 0)
  float alpha = 1.0f, beta = 0.0f;
  void* workspace = nullptr;
  size_t workspace_size = 0;
  cudaStream_t stream = nullptr;
};

// One instantiation, type-erased; can_implement and workspace_size need no device and no pointers.
struct PlaneKernel {
  const char* name;
  bool (*can_implement)(const PlaneGemm& g);
  size_t (*workspace_size)(const PlaneGemm& g);
  RunStatus (*run)(const PlaneGemm& g, const PlaneOperands& o);
};

// <B's contiguous dim: bk (k, forward) or bn (n, backward data)>_<loads: tma (planes of a multiple of 4 pixels,
// 16-byte aligned pointers: TMA loads and stores) or cpa (cp.async of single floats, any plane; its epilogue
// stores from registers)>. 128 x 128 x 32 tiles, two consumer warpgroups.
const PlaneKernel& gemm_tf32_planes_bk_tma();
const PlaneKernel& gemm_tf32_planes_bk_cpa();
const PlaneKernel& gemm_tf32_planes_bn_tma();
const PlaneKernel& gemm_tf32_planes_bn_cpa();

}  // namespace fd::cuda::conv::sm90
