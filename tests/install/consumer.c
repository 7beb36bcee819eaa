/* SPDX-License-Identifier: Apache-2.0
   Copyright 2026 The freednn Authors
   A C99 program built against the installed headers and library only (tests/install/run_install_test.sh).
   Run it with FREEDNN_BACKEND=cpu. */
#include <cudnn.h>
#include <stdio.h>

#define CHECK(call)                                                                     \
  do {                                                                                  \
    cudnnStatus_t s_ = (call);                                                          \
    if (s_ != CUDNN_STATUS_SUCCESS) {                                                   \
      fprintf(stderr, "%s failed: %s\n", #call, cudnnGetErrorString(s_));               \
      return 1;                                                                         \
    }                                                                                   \
  } while (0)

int main(void) {
  cudnnHandle_t handle = NULL;
  cudnnTensorDescriptor_t desc = NULL;
  cudaStream_t stream = NULL;
  size_t bytes = 0;
  int major = 0;

  CHECK(cudnnCreate(&handle));
  CHECK(cudnnGetStream(handle, &stream));
  CHECK(cudnnCreateTensorDescriptor(&desc));
  CHECK(cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 2, 3, 4, 5));
  CHECK(cudnnGetTensorSizeInBytes(desc, &bytes));
  CHECK(cudnnGetProperty(MAJOR_VERSION, &major));
  if (bytes != 2u * 3 * 4 * 5 * sizeof(float) || major != CUDNN_MAJOR) {
    fprintf(stderr, "unexpected size %lu or major version %d\n", (unsigned long)bytes, major);
    return 1;
  }
  printf("cudnnGetVersion=%lu\n", (unsigned long)cudnnGetVersion());
  CHECK(cudnnDestroyTensorDescriptor(desc));
  CHECK(cudnnDestroy(handle));
  return cudnnGetVersion() == CUDNN_VERSION ? 0 : 1;
}
