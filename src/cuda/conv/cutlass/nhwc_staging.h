// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The layout copies around the CUTLASS convolution kernels (cuda:cutlass_sm80_* and cuda:cutlass_sm90_fprop), which
// take packed NHWC activations and KRSC filters only: operands in any other 4-D layout (NCHW, padded strides) or
// with channel counts off the kernels' vector width are copied into packed, channel-padded NHWC buffers in the
// workspace, and an output computed into such a buffer is written back (alpha/beta blend, or the fused bias + z +
// activation epilogue of cudnnConvolutionBiasActivationForward). Every function queues on `st` and returns at once.
// Data types: half, bfloat16, float.
#pragma once
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>

#include "core/tensor_desc.h"
#include "cuda/common/aligned.h"
#include "dispatch/conv_registry.h"

namespace fd::cuda::conv {

// dst (packed, Np >= N images of H x W x Cp >= C channels) = t's tensor src (N, C, H, W through its strides), zeros
// in the padding (channels c >= C; images n >= N, the zero filters of a padded K). dst 16-byte aligned.
cudnnStatus_t to_nhwc(cudaStream_t st, int dev, cudnnDataType_t dt, const cudnnTensorStruct& t, const void* src,
                      void* dst, int64_t Np, int64_t Cp);

// t's tensor dst = the first C channels of buf (packed NHWC with Cb >= C channels, t's N, H, W): alpha * buf +
// beta * dst (dst not read when beta == 0), or with `fused` the fused forward epilogue
// act(alpha * buf + alpha2 * z + bias) (beta unused). buf may be dst itself when dst is packed NHWC with Cb == C
// (each element is read, then written, by one thread).
cudnnStatus_t from_nhwc(cudaStream_t st, int dev, cudnnDataType_t dt, const void* buf, int64_t Cb,
                        const cudnnTensorStruct& t, void* dst, float alpha, float beta,
                        const fd::conv::FusedEpilogue* fused);

// The fused epilogue's last step on a packed NHWC y (`count` elements, C channels) that already holds
// alpha1 * conv (+ alpha2 * z): y = act(y + bias[c]), 16 bytes per thread. Needs y 16-byte aligned and C a multiple
// of the elements per 16 bytes (8 for 16-bit types, 4 for float).
cudnnStatus_t bias_act_nhwc(cudaStream_t st, int dev, cudnnDataType_t dt, void* y, int64_t count, int64_t C,
                            const fd::conv::FusedEpilogue& e);

// Whether two tensors of the same dims lay their elements out alike (strides of extent-1 dims do not matter). The
// fused forwards' write-backs read z and write y element by element through their own strides: z may be y only
// when both describe the same layout.
inline bool same_layout(const cudnnTensorStruct& a, const cudnnTensorStruct& b) {
  if (a.nb_dims != b.nb_dims || a.vect() != b.vect()) return false;
  for (int i = 0; i < a.nb_dims; ++i)
    if (a.dims[i] != b.dims[i] || (a.dims[i] > 1 && a.strides[i] != b.strides[i])) return false;
  return true;
}

}  // namespace fd::cuda::conv
