// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The CUDA convolution implementations (one per file) and the convolution-family routines that are not
// registry implementations. Data pointers are device pointers; everything is queued on the handle's stream and
// nothing synchronizes the host. Semantics: those of src/cpu/conv (see conv_io.h there).
#pragma once
#include <cudnn.h>

#include <cstddef>

#include "dispatch/conv_registry.h"
#include "problem/conv.h"

struct cudnnContext;

namespace fd::cuda::conv {

#if FREEDNN_WITH_CUTLASS_SM90  // sm_90a CUTLASS 3.x kernels (src/cuda/conv/cutlass/sm90)
const fd::conv::ConvImpl* cutlass_sm90_fprop_impl();  // cuda:cutlass_sm90_fprop
const fd::conv::ConvImpl* cutlass_sm90_dgrad_impl();  // cuda:cutlass_sm90_dgrad
const fd::conv::ConvImpl* cutlass_sm90_wgrad_impl();  // cuda:cutlass_sm90_wgrad
#endif
// Few input channels (the stem): mma.sync over an input patch in shared memory; f16, bf16, TF32 forward.
const fd::conv::ConvImpl* patch_fprop_impl();  // cuda:patch_fprop
const fd::conv::ConvImpl* patch_fma_fprop_impl();  // cuda:patch_fma_fprop (the same on float FMA)
const fd::conv::ConvImpl* patch_dgrad_impl();  // cuda:patch_dgrad (dx of few channels, strides as phases)
const fd::conv::ConvImpl* patch_fma_dgrad_impl();  // cuda:patch_fma_dgrad (float FMA; dx <= 4 channels)
const fd::conv::ConvImpl* patch_wgrad_impl();  // cuda:patch_wgrad (partial dw per block, summed in order)
const fd::conv::ConvImpl* patch_fma_wgrad_impl();  // cuda:patch_fma_wgrad (the same on float FMA)
// 3x3 stride-1 backward filter, many channels, f16 / bf16 NHWC: dy tile and x halo staged once for all nine taps.
const fd::conv::ConvImpl* halo_wgrad_impl();  // cuda:halo_wgrad
// Float NCHW forward and stride-1 backward data on Hopper TF32 wgmma without NHWC copies (the input tile as A from
// registers): 2-D, groups 1, up to 25 taps. Opt-in (FREEDNN_NCHW_TF32=1): correct but slower than cutlass_sm90.
const fd::conv::ConvImpl* nchw_tf32_impl();  // cuda:nchw_tf32
const fd::conv::ConvImpl* im2col_gemm_impl();  // cuda:im2col_gemm
const fd::conv::ConvImpl* direct_impl();       // cuda:direct
const fd::conv::ConvImpl* gemm_1x1_impl();     // cuda:gemm_1x1
const fd::conv::ConvImpl* depthwise_impl();    // cuda:depthwise
const fd::conv::ConvImpl* fft_impl();          // cuda:fft (FFT, FFT_TILING; every direction)
const fd::conv::ConvImpl* winograd_impl();     // cuda:winograd (F(2x2,3x3): WINOGRAD, WINOGRAD_NONFUSED)
// CUTLASS 2.x tensor-core implicit GEMM (src/cuda/conv/cutlass; built only when the CUTLASS headers are found,
// FREEDNN_WITH_CUTLASS): f16/bf16/TF32, 2-D, groups 1, C and K multiples of 8 (f16/bf16) or 4 (f32).
const fd::conv::ConvImpl* cutlass_sm80_fprop_impl();  // cuda:cutlass_sm80_fprop
const fd::conv::ConvImpl* cutlass_sm80_dgrad_impl();  // cuda:cutlass_sm80_dgrad
const fd::conv::ConvImpl* cutlass_sm80_wgrad_impl();  // cuda:cutlass_sm80_wgrad
// The same CUTLASS 2.x implicit GEMM on float FMA (CUDA cores): float data, any C and K, 2-D, groups 1.
const fd::conv::ConvImpl* cutlass_simt_fprop_impl();  // cuda:cutlass_simt_fprop
const fd::conv::ConvImpl* cutlass_simt_dgrad_impl();  // cuda:cutlass_simt_dgrad
const fd::conv::ConvImpl* cutlass_simt_wgrad_impl();  // cuda:cutlass_simt_wgrad

// cudnnConvolutionBackwardBias: db[c] = alpha * sum over n and space of dy + beta * db (one block per channel,
// a fixed reduction order: deterministic).
cudnnStatus_t bias_grad(cudnnContext* h, const cudnnTensorStruct& dy_desc, const void* dy,
                        const cudnnTensorStruct& db_desc, void* db, double alpha, double beta);
// cudnnIm2Col: the layout of fd::cpu::conv::im2col_buffer.
cudnnStatus_t im2col_buffer(cudnnContext* h, const fd::ConvProblem& p, const void* x, void* col);
// Stream-ordered copy of `bytes` bytes (cudnnReorderFilterAndBias).
cudnnStatus_t copy_bytes(cudnnContext* h, void* dst, const void* src, size_t bytes);

}  // namespace fd::cuda::conv
