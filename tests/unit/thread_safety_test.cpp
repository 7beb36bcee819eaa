// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuDNN's threading contract: concurrent calls are fine as long as each thread uses its own handle.
// Several threads, each with a handle and its own descriptors, run the same work at once; every thread must
// get exactly the result one thread gets alone.
#include <atomic>
#include <thread>

#include "common/test_util.h"

namespace {

// softmax(relu(x)) over channels, through one handle; returns the output bytes.
ft::Bytes run_pipeline(const ft::HostTensor& x, int repeat) {
  ft::Handle h;
  ft::HostTensor y(x.dtype, x.dims), z(x.dtype, x.dims);
  ft::TensorDesc xd(x), yd(y), zd(z);
  cudnnActivationDescriptor_t act;
  EXPECT_EQ(cudnnCreateActivationDescriptor(&act), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0),
            CUDNN_STATUS_SUCCESS);
  const float one = 1.0f, zero = 0.0f;
  for (int r = 0; r < repeat; ++r) {
    y.poison();
    z.poison();
    EXPECT_EQ(cudnnActivationForward(h, act, &one, xd, x.data(), &zero, yd, y.data()), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, yd, y.data(), &zero,
                                  zd, z.data()),
              CUDNN_STATUS_SUCCESS);
  }
  cudnnDestroyActivationDescriptor(act);
  ft::sync_device();
  return z.bytes;
}

TEST(ThreadSafety, HandlePerThreadGivesIdenticalResults) {
  auto rng = ft::make_rng();
  ft::HostTensor x(CUDNN_DATA_FLOAT, {4, 16, 9, 11});
  x.fill_uniform(rng, -2, 2);
  const ft::Bytes alone = run_pipeline(x, 1);
  constexpr int kThreads = 6;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      if (run_pipeline(x, 5) != alone) ++mismatches;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0) << "threads with their own handles disagreed with a single-threaded run";
}

TEST(ThreadSafety, ConcurrentDescriptorChurn) {
  // Creating, setting and destroying descriptors and handles from many threads at once must not race.
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        cudnnTensorDescriptor_t d;
        cudnnHandle_t h;
        if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS) ++failures;
        if (cudnnCreateTensorDescriptor(&d) != CUDNN_STATUS_SUCCESS) ++failures;
        if (cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 1 + t, 2 + i % 5, 3, 4) !=
            CUDNN_STATUS_SUCCESS)
          ++failures;
        size_t sz = 0;
        if (cudnnGetTensorSizeInBytes(d, &sz) != CUDNN_STATUS_SUCCESS ||
            sz != static_cast<size_t>((1 + t) * (2 + i % 5) * 3 * 4 * 2))
          ++failures;
        cudnnDestroyTensorDescriptor(d);
        cudnnDestroy(h);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
