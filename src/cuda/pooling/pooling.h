// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Pooling on the GPU, 4-D and 5-D, every mode, any strides; semantics of src/cpu/pooling/pooling.h. Arguments
// are validated by the API layer; data pointers are device pointers; nothing synchronizes the host.
#pragma once
#include <cuda_runtime_api.h>

#include "core/pooling_desc.h"
#include "core/tensor_desc.h"

struct cudnnContext;

namespace fd::cuda {

cudnnStatus_t pooling_forward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                              const cudnnTensorStruct& x_desc, const void* x, double beta,
                              const cudnnTensorStruct& y_desc, void* y);
// Deterministic: each dx element gathers, in output order, the dy of the windows that contain it (max modes:
// the windows whose argmax, recomputed from x, is this element; on the generic path (5-D, vector types, 64-bit
// offsets) the argmax is computed once into the handle's scratch memory first). No atomics.
cudnnStatus_t pooling_backward(cudnnContext* h, const cudnnPoolingStruct& p, double alpha,
                               const cudnnTensorStruct& dy_desc, const void* dy, const cudnnTensorStruct& x_desc,
                               const void* x, double beta, const cudnnTensorStruct& dx_desc, void* dx);

// 4-D, scalar type, non-negative strides, every offset below 2^30 (the window arithmetic of the pooling2d and
// planar kernels stays in 32 bits).
bool pool_tensor_fits(const cudnnTensorStruct& d);

// The bytes a max-pooling backward path moves, added to the call's count (freednnGetLastCallBytesMoved): x and dy
// read, dx written (and read with beta != 0), `extra` bytes more (codes written and read, halo rows read twice),
// in `passes` passes.
void note_pool_backward_bytes(const cudnnTensorStruct& x_desc, const cudnnTensorStruct& dy_desc,
                              const cudnnTensorStruct& dx_desc, double beta, double extra, int passes);

// Whether the max-pooling backward's gather pass launches as a programmatic dependent of its argmax pass
// (FREEDNN_POOL_PDL=1, opt-in, read at every call; compute capability 9.0 devices only).
bool pool_pdl(int device);

// The fast path of 4-D tensors with 32-bit offsets (pooling2d.cu): false when it does not apply, else the
// kernel is queued and *status set.
bool pooling2d_forward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                       const cudnnTensorStruct& x_desc, const void* x, double beta, const cudnnTensorStruct& y_desc,
                       void* y, cudnnStatus_t* status);
bool pooling2d_backward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                        const cudnnTensorStruct& dy_desc, const void* dy, const cudnnTensorStruct& x_desc,
                        const void* x, double beta, const cudnnTensorStruct& dx_desc, void* dx,
                        cudnnStatus_t* status);

// Max pooling of planar (unit column stride) 4-D tensors with the common square windows (3x3 s2 p1, 2x2 s2 p0,
// 3x3 s2 p0, 3x3 s1 p1), float / double / half / bfloat16, from registers (pooling2d_planar.cu; the backward keeps one
// argmax byte per output in the handle's scratch memory between its two kernels): false when it does not apply,
// else the kernels are queued and *status set. Tried before pooling2d_*.
bool pooling2d_planar_forward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                              const cudnnTensorStruct& x_desc, const void* x, double beta,
                              const cudnnTensorStruct& y_desc, void* y, cudnnStatus_t* status);
bool pooling2d_planar_backward(cudnnContext* h, const cudnnPoolingStruct& p, double alpha,
                               const cudnnTensorStruct& dy_desc, const void* dy, const cudnnTensorStruct& x_desc,
                               const void* x, double beta, const cudnnTensorStruct& dx_desc, void* dx,
                               cudnnStatus_t* status);

// Max pooling of channels-last 4-D tensors (unit channel stride, C a multiple of 16 / sizeof(S), 16-byte aligned
// vectors) with the square windows of the planar path, float / double / half / bfloat16, from registers
// (pooling2d_nhwc.cu; the backward keeps one argmax byte per output element in the handle's scratch memory between
// its two kernels): false when it does not apply, else the kernels are queued and *status set. Tried first.
bool pooling2d_nhwc_forward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                            const cudnnTensorStruct& x_desc, const void* x, double beta,
                            const cudnnTensorStruct& y_desc, void* y, cudnnStatus_t* status);
bool pooling2d_nhwc_backward(cudnnContext* h, const cudnnPoolingStruct& p, double alpha,
                             const cudnnTensorStruct& dy_desc, const void* dy, const cudnnTensorStruct& x_desc,
                             const void* x, double beta, const cudnnTensorStruct& dx_desc, void* dx,
                             cudnnStatus_t* status);
// The backward of 3x3 stride-2 padding-1 max pooling on the same channels-last tensors in one pass
// (pooling2d_nhwc_bwd1.cu: x and dy read once, dx written once; half / bfloat16) unless
// FREEDNN_POOL_BWD_ONEPASS=0: false when it does not apply, else the kernel is queued and *status set. Tried before
// pooling2d_nhwc_backward.
bool pooling2d_nhwc_backward_onepass(cudnnContext* h, const cudnnPoolingStruct& p, double alpha,
                                     const cudnnTensorStruct& dy_desc, const void* dy,
                                     const cudnnTensorStruct& x_desc, const void* x, double beta,
                                     const cudnnTensorStruct& dx_desc, void* dx, cudnnStatus_t* status);
// Backward of average pooling whose only window is the whole plane (no padding, 1 x 1 (x 1) output) into a packed
// NCHW-like or channels-last dx (4-D or 5-D, float types): a broadcast of dy / (spatial size) with 16-byte stores
// (pooling2d_nhwc.cu). False when it does not apply.
bool pooling_global_avg_backward(cudaStream_t stream, int device, const cudnnPoolingStruct& p, double alpha,
                                 const cudnnTensorStruct& dy_desc, const void* dy, double beta,
                                 const cudnnTensorStruct& dx_desc, void* dx, cudnnStatus_t* status);

}  // namespace fd::cuda
