// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// sm_90a batched plane GEMM gemm_tf32_planes_bn_cpa (see sm90_plane_gemm.cuh); one instantiation per file:
// backward data's B (W: n contiguous), cp.async of single floats, register stores (any plane).
#include "cuda/conv/cutlass/sm90/kernels/sm90_plane_gemm.cuh"

FD_SM90_PLANE_GEMM(gemm_tf32_planes_bn_cpa, true, false)
