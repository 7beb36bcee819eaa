// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Strided-batched GEMMs on cuBLASLt with the algorithm timed per shape. Why: on the H200, cuBLAS's default
// algorithm for ResNet-50's TF32 NCHW 1x1 GEMMs took up to 1.8x the time of the fastest of cuBLASLt's first 16
// answers (tools/gpu/gemm1x1_probe.cu, run 21: the 1024 -> 512 forward at 196 pixels, 0.135 -> 0.075 ms).
//
// Design (as cuda:fft's plans, fft_plans.h: a computing call neither allocates nor synchronizes):
// - lt_tune, called where the library may allocate and synchronize (ConvImpl::prepare: the workspace query and
//   Find), times up to kLtCandidates of cuBLASLt's heuristic answers on scratch buffers on a private stream and
//   remembers the fastest per (device, shape), process-wide. Skipped while the handle's stream is capturing.
// - lt_gemm runs the remembered algorithm when its work area fits in the caller's spare workspace, else
//   cuBLASLt's first answer that fits (also remembered per shape, so a call looks up, never asks the heuristic
//   twice). The matmul and layout descriptors are made once per shape and kept for the process (never freed: a
//   network has few shapes, and freeing at exit would race the CUDA runtime's own teardown).
// - Determinism: every cuBLASLt algorithm gives the same bits run after run; what may change is which algorithm a
//   shape runs: the heuristic's first answer until lt_tune times the shape (once per process), the winner after.
//   Two processes may time different winners. FREEDNN_LT_TUNE=0 (read at every tune) keeps the heuristic's answer.
#pragma once
#include <cublasLt.h>

#include <compare>
#include <cstddef>
#include <cstdint>

#include "core/status.h"

struct cudnnContext;

namespace fd::cuda {

// Column-major C (m x n, ldc) = alpha op(A) op(B) + beta C, `batch` times with element strides sa, sb, sc (0:
// the same matrix for every batch entry). alpha and beta are float for every compute type but 64F (double).
struct LtGemm {
  cublasOperation_t ta = CUBLAS_OP_N, tb = CUBLAS_OP_N;
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t sa = 0, sb = 0, sc = 0, batch = 1;
  cudaDataType_t ab = CUDA_R_32F, c = CUDA_R_32F;
  cublasComputeType_t ct = CUBLAS_COMPUTE_32F;
  auto operator<=>(const LtGemm&) const = default;
};

constexpr int kLtCandidates = 8;                      // heuristic answers lt_tune times
constexpr size_t kLtMaxWork = size_t{32} << 20;       // the most work area an answer may ask for
constexpr uintptr_t kLtAlign = 256;                   // operand alignment cuBLASLt's answers may assume

// The work area of the algorithm lt_tune chose for g on the current device, 0 when g was not timed (or the
// winner needs none). Lets workspace_size() ask for it; a call with less spare workspace runs another answer.
size_t lt_tuned_work(const LtGemm& g);

// Times g's candidates on h's device (see above); nothing when already timed, FREEDNN_LT_TUNE=0, or h's stream is
// capturing. A failed allocation leaves g untimed (logged at info level), not an error.
cudnnStatus_t lt_tune(cudnnContext* h, const LtGemm& g);

// Queues g on h's stream with (work, work_bytes) as the work area; *ran = false (nothing queued) when cuBLASLt
// has no answer for g within work_bytes or an operand is not kLtAlign-aligned: the caller then runs cuBLAS.
cudnnStatus_t lt_gemm(cudnnContext* h, const LtGemm& g, double alpha, const void* A, const void* B, double beta,
                      void* C, void* work, size_t work_bytes, bool* ran);

}  // namespace fd::cuda
