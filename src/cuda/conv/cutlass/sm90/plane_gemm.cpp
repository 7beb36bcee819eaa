// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// gemm_1x1's TF32 NCHW GEMMs on the sm90 plane kernels: the shape check, the kernel choice (TMA where the planes and
// pointers allow, else cp.async) and the launch.
#include "cuda/conv/cutlass/sm90/plane_gemm.h"

#include <climits>
#include <cstdint>
#include <cstdio>

#include "core/api_context.h"
#include "core/env.h"
#include "core/handle.h"
#include "core/log.h"
#include "cuda/common/cuda_util.h"
#include "cuda/conv/cutlass/sm90/sm90_plane_gemm.h"

namespace fd::cuda::conv::sm90 {
namespace {

// g as a plane GEMM: column-major A with leading dimension m, B shared by the batch, column-major C with leading
// dimension m, float data on TF32. bn: B's n dim contiguous (op(B) = B^T).
bool as_planes(const LtGemm& g, PlaneGemm* out, bool* bn) {
  if (g.ta != CUBLAS_OP_N || g.ab != CUDA_R_32F || g.c != CUDA_R_32F || g.ct != CUBLAS_COMPUTE_32F_FAST_TF32)
    return false;
  if (g.lda != g.m || g.ldc != g.m || (g.batch > 1 && g.sb != 0)) return false;
  if (g.m > INT_MAX || g.n > INT_MAX || g.k > INT_MAX || g.batch > INT_MAX) return false;
  PlaneGemm p;
  p.m = static_cast<int>(g.m), p.n = static_cast<int>(g.n), p.k = static_cast<int>(g.k);
  p.batch = static_cast<int>(g.batch);
  p.a_batch = g.sa, p.d_batch = g.sc, p.b_ld = g.ldb;
  *out = p;
  *bn = g.tb == CUBLAS_OP_T;
  return true;
}

const PlaneKernel& cp_async_kernel(bool bn) { return bn ? gemm_tf32_planes_bn_cpa() : gemm_tf32_planes_bk_cpa(); }

// The TMA kernel where it can implement the shape, else the cp.async one (nullptr: neither).
const PlaneKernel* kernel_for(const PlaneGemm& p, bool bn) {
  const PlaneKernel& tma = bn ? gemm_tf32_planes_bn_tma() : gemm_tf32_planes_bk_tma();
  if (tma.can_implement(p)) return &tma;
  const PlaneKernel& cpa = cp_async_kernel(bn);
  return cpa.can_implement(p) ? &cpa : nullptr;
}

}  // namespace

bool planes_wanted(int device) {
  if (!env_flag("FREEDNN_GEMM1X1_PLANES")) return false;
  const DeviceInfo& di = device_info(device);
  return di.cc_major == 9 && di.cc_minor == 0;  // sm_90a code runs on 9.0 devices only
}

size_t planes_work(const LtGemm& g) {
  PlaneGemm p;
  bool bn = false;
  if (!as_planes(g, &p, &bn)) return 0;
  const PlaneKernel* k = kernel_for(p, bn);
  return k != nullptr ? k->workspace_size(p) : 0;
}

cudnnStatus_t planes_gemm(cudnnContext* h, const LtGemm& g, float alpha, const void* A, const void* B, float beta,
                          void* C, void* work, size_t work_bytes, bool* ran) {
  *ran = false;
  PlaneGemm p;
  bool bn = false;
  if (!as_planes(g, &p, &bn)) return CUDNN_STATUS_SUCCESS;
  const PlaneKernel* k = kernel_for(p, bn);
  if (k == nullptr) return CUDNN_STATUS_SUCCESS;
  PlaneOperands o;
  o.a = static_cast<const float*>(A), o.b = static_cast<const float*>(B), o.d = static_cast<float*>(C);
  o.alpha = alpha, o.beta = beta;
  o.workspace = work, o.workspace_size = work_bytes;
  o.stream = h->stream;
  RunStatus r = k->run(p, o);
  if (r == RunStatus::not_implementable && k != &cp_async_kernel(bn)) {
    k = &cp_async_kernel(bn);  // e.g. a pointer off 16 bytes
    r = k->run(p, o);
  }
  const cudaError_t err = r == RunStatus::ok ? cudaSuccess : cudaGetLastError();
  FD_CHECK(r == RunStatus::ok || r == RunStatus::not_implementable, CUDNN_STATUS_EXECUTION_FAILED,
           "cuda:gemm_1x1: the plane GEMM %s (%d x %d x %d, %d images) failed to initialize or launch (CUDA: %s)",
           k->name, p.m, p.n, p.k, p.batch, cudaGetErrorName(err));
  *ran = r == RunStatus::ok;
  if (*ran && log::enabled(CUDNN_SEV_INFO)) {  // which kernel ran: the tests check that the plane path did
    char what[160];
    std::snprintf(what, sizeof what, "cuda:gemm_1x1: plane GEMM %s (%d x %d x %d, %d images)", k->name, p.m, p.n,
                  p.k, p.batch);
    log::emit(CUDNN_SEV_INFO, current_api_context().function, what, CUDNN_STATUS_SUCCESS);
  }
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda::conv::sm90
