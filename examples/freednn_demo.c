/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The freednn Authors
 *
 * freednn demo: a small inference pipeline written against the cuDNN 8.2 C API alone, in C99.
 * bias add -> batch norm (inference) -> ReLU -> 2x2 max pooling -> softmax -> reduction, on a batch of images,
 * printing what each stage computed. The data lives in host memory, so the demo asks for the CPU backend. */
#include <cudnn.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                         \
  do {                                                                                      \
    cudnnStatus_t s_ = (call);                                                              \
    if (s_ != CUDNN_STATUS_SUCCESS) {                                                       \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudnnGetErrorString(s_)); \
      fprintf(stderr, "rerun with CUDNN_LOGERR_DBG=1 CUDNN_LOGDEST_DBG=stderr for the reason\n");   \
      exit(1);                                                                              \
    }                                                                                       \
  } while (0)

enum { N = 2, C = 4, H = 8, W = 8, PH = 4, PW = 4 };

static cudnnTensorDescriptor_t tensor4d(int n, int c, int h, int w) {
  cudnnTensorDescriptor_t d;
  CHECK(cudnnCreateTensorDescriptor(&d));
  CHECK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
  return d;
}

static void print_stats(const char* stage, const float* v, int count) {
  double sum = 0, mn = v[0], mx = v[0];
  for (int i = 0; i < count; ++i) {
    sum += v[i];
    if (v[i] < mn) mn = v[i];
    if (v[i] > mx) mx = v[i];
  }
  printf("  %-28s %5d values  min % .5f  max % .5f  mean % .5f\n", stage, count, mn, mx, sum / count);
}

int main(void) {
  static float x[N * C * H * W], y[N * C * H * W], pooled[N * C * PH * PW], probs[N * C * PH * PW];
  float bias[C], scale[C], shift[C], mean[C], var[C], total[N];
  const float one = 1.0f, zero = 0.0f;
  unsigned seed = 12345u;
  int i;

  setenv("FREEDNN_BACKEND", "cpu", 0); /* host pointers: the CPU backend */
  for (i = 0; i < N * C * H * W; ++i) {
    seed = seed * 1664525u + 1013904223u;
    x[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
  }
  for (i = 0; i < C; ++i) {
    bias[i] = 0.1f * (float)i;
    scale[i] = 1.0f + 0.25f * (float)i;
    shift[i] = -0.2f + 0.1f * (float)i;
    mean[i] = 0.05f * (float)i;
    var[i] = 0.5f + 0.1f * (float)i;
  }

  cudnnHandle_t handle;
  CHECK(cudnnCreate(&handle));
  printf("freednn demo: cuDNN API version %zu, backend %s\n", cudnnGetVersion(), getenv("FREEDNN_BACKEND"));
  printf("input: %d images of %d channels, %dx%d\n", N, C, H, W);

  cudnnTensorDescriptor_t xDesc = tensor4d(N, C, H, W), cDesc = tensor4d(1, C, 1, 1);
  cudnnTensorDescriptor_t pDesc = tensor4d(N, C, PH, PW), rDesc = tensor4d(N, 1, 1, 1);
  print_stats("input", x, N * C * H * W);

  /* bias add, in place: x += bias (broadcast over N, H, W) */
  CHECK(cudnnAddTensor(handle, &one, cDesc, bias, &one, xDesc, x));
  print_stats("after bias add", x, N * C * H * W);

  /* batch norm with running statistics */
  CHECK(cudnnBatchNormalizationForwardInference(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xDesc, x, xDesc, y,
                                                cDesc, scale, shift, mean, var, 1e-5));
  print_stats("after batch norm", y, N * C * H * W);

  /* ReLU, in place */
  cudnnActivationDescriptor_t relu;
  CHECK(cudnnCreateActivationDescriptor(&relu));
  CHECK(cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  CHECK(cudnnActivationForward(handle, relu, &one, xDesc, y, &zero, xDesc, y));
  print_stats("after ReLU", y, N * C * H * W);

  /* 2x2 max pooling, stride 2 */
  cudnnPoolingDescriptor_t pool;
  CHECK(cudnnCreatePoolingDescriptor(&pool));
  CHECK(cudnnSetPooling2dDescriptor(pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
  CHECK(cudnnPoolingForward(handle, pool, &one, xDesc, y, &zero, pDesc, pooled));
  print_stats("after 2x2 max pooling", pooled, N * C * PH * PW);

  /* softmax over each image's C*H*W values */
  CHECK(cudnnSoftmaxForward(handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one, pDesc, pooled, &zero,
                            pDesc, probs));
  print_stats("softmax probabilities", probs, N * C * PH * PW);

  /* sum the probabilities of each image: each must be 1 */
  cudnnReduceTensorDescriptor_t red;
  size_t ws_size = 0;
  CHECK(cudnnCreateReduceTensorDescriptor(&red));
  CHECK(cudnnSetReduceTensorDescriptor(red, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                       CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES));
  CHECK(cudnnGetReductionWorkspaceSize(handle, red, pDesc, rDesc, &ws_size));
  void* ws = ws_size ? malloc(ws_size) : NULL;
  CHECK(cudnnReduceTensor(handle, red, NULL, 0, ws, ws_size, &one, pDesc, probs, &zero, rDesc, total));
  int ok = 1;
  for (i = 0; i < N; ++i) {
    printf("  image %d: probabilities sum to %.6f\n", i, total[i]);
    if (fabs(total[i] - 1.0) > 1e-4) ok = 0;
  }
  free(ws);

  cudnnDestroyReduceTensorDescriptor(red);
  cudnnDestroyPoolingDescriptor(pool);
  cudnnDestroyActivationDescriptor(relu);
  cudnnDestroyTensorDescriptor(xDesc);
  cudnnDestroyTensorDescriptor(cDesc);
  cudnnDestroyTensorDescriptor(pDesc);
  cudnnDestroyTensorDescriptor(rDesc);
  CHECK(cudnnDestroy(handle));
  printf(ok ? "demo OK\n" : "demo FAILED: probabilities do not sum to 1\n");
  return ok ? 0 : 1;
}
