/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 The freednn Authors */

#ifndef FREEDNN_H_
#define FREEDNN_H_

/* freednn-specific additions on top of the cuDNN 8.2 API. */
#include "cudnn.h"

#define FREEDNN_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/* The id of the implementation (e.g. "cuda:cutlass_sm90_fprop", "cpu:im2col_gemm") that convolution algorithm
   `algo` of direction `direction` (0 forward, 1 backward data, 2 backward filter) runs for the problem given by
   the descriptors on this handle: the same choice the workspace query and the computing call make (including a
   choice Find recorded). Writes at most `size` bytes (NUL-terminated) into `id`. NOT_SUPPORTED when no
   implementation runs that algorithm for the problem; BAD_PARAM for bad arguments. x/y are the forward
   problem's tensors in every direction. */
cudnnStatus_t freednnGetConvolutionImplementation(cudnnHandle_t handle, int direction,
                                                  const cudnnTensorDescriptor_t xDesc,
                                                  const cudnnFilterDescriptor_t wDesc,
                                                  const cudnnConvolutionDescriptor_t convDesc,
                                                  const cudnnTensorDescriptor_t yDesc, int algo, char *id,
                                                  size_t size);

/* What the kernels of the last call on `handle` made from this thread moved through device memory, by freednn's
   own count of their passes (a tensor read by two passes counts twice; data kept on chip between passes does not):
   *bytes, and *passes, the passes over the data. -1 and 0 where that call's path keeps no count (the CPU backend,
   most operations for now). For benchmarks that set a call's time against the copy bandwidth. */
cudnnStatus_t freednnGetLastCallBytesMoved(cudnnHandle_t handle, double *bytes, int *passes);

#ifdef __cplusplus
}
#endif

#endif /* FREEDNN_H_ */
