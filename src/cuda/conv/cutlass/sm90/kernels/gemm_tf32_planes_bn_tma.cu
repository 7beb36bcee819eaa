// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// sm_90a batched plane GEMM gemm_tf32_planes_bn_tma (see sm90_plane_gemm.cuh); one instantiation per file:
// backward data's B (W: n contiguous), TMA loads and stores (planes of a multiple of 4 pixels).
#include "cuda/conv/cutlass/sm90/kernels/sm90_plane_gemm.cuh"

FD_SM90_PLANE_GEMM(gemm_tf32_planes_bn_tma, true, true)
