// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:gemm_1x1's TF32 NCHW GEMMs on the sm90 plane kernels (sm90_plane_gemm.h) instead of cuBLASLt: opt-in with
// FREEDNN_GEMM1X1_PLANES=1 (read at every call) until timed on a GPU (tools/gpu/tf32_nchw_probe.cu asks the same
// question without the library). A GEMM takes the plane path when it is one of gemm_1x1's NCHW forward / backward
// data shapes (A = the activation's planes, column-major with leading dimension m; B shared by the images; C
// column-major with leading dimension m), on a compute capability 9.0 device in an sm_90a build; anything else
// stays on cuBLASLt.
#pragma once
#include <cstddef>

#include "core/status.h"
#include "cuda/common/lt_gemm.h"

struct cudnnContext;

namespace fd::cuda::conv::sm90 {

// Whether FREEDNN_GEMM1X1_PLANES asks for the plane kernels and the handle's device runs them.
bool planes_wanted(int device);
// The work area the plane kernel for shape g needs (0 when g is not a plane GEMM).
size_t planes_work(const LtGemm& g);
// Queues g on the plane kernel when it is a plane GEMM and its work area fits; *ran says whether it did.
cudnnStatus_t planes_gemm(cudnnContext* h, const LtGemm& g, float alpha, const void* A, const void* B, float beta,
                          void* C, void* work, size_t work_bytes, bool* ran);

}  // namespace fd::cuda::conv::sm90
