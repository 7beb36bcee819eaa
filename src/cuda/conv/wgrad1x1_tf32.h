// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The NCHW 1x1 backward filter of cuda:gemm_1x1 in TF32 on Hopper (wgrad1x1_tf32.cu): partial[slice] (K x C) = the
// slice's share of sum over images n and pixels s of dy[n][k][s] * x[n][c][s]; the caller adds the slices.
#pragma once
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>

namespace fd::cuda::conv {

// The reduction slices the kernel cuts (n images of s pixels, k x c outputs): a function of the shape only, so that
// the workspace query knows the partial sums' size (slices x k x c floats); 0 where the kernel does not serve the
// shape (s not a multiple of 4: the maps' row pitch must be a multiple of 16 bytes; sizes past int range).
int64_t wgrad1x1_tf32_slices(int64_t n, int64_t c, int64_t k, int64_t s);

// Whether the kernel runs on `device`: an sm_90a build on a compute capability 9.0 device, FREEDNN_WGRAD1X1_WGMMA
// not 0 (read at every call).
bool wgrad1x1_tf32_wanted(int device);

// Queues the kernel on `device` (current): x (n x c x s floats) and dy (n x k x s), both packed and 16-byte aligned,
// into `partial` (`slices` x k x c floats, slices = wgrad1x1_tf32_slices(...) at the workspace query). NOT_SUPPORTED,
// nothing queued, where the driver refuses a tensor map or the plan now has other slices.
cudnnStatus_t wgrad1x1_tf32_run(cudaStream_t stream, int device, const float* x, const float* dy, int64_t n, int64_t c,
                                int64_t k, int64_t s, int64_t slices, float* partial);

}  // namespace fd::cuda::conv
