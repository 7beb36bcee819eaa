// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Algorithm descriptors / performance results (deprecated in 8.2) and their save/restore.
#include "common/test_util.h"

#include <cstring>
#include <vector>


namespace {

cudnnAlgorithm_t make_algo(cudnnConvolutionFwdAlgo_t a) {
  cudnnAlgorithm_t r;
  std::memset(&r, 0, sizeof r);
  r.algo.convFwdAlgo = a;
  return r;
}

struct AlgoDesc {
  cudnnAlgorithmDescriptor_t d = nullptr;
  AlgoDesc() { EXPECT_EQ(cudnnCreateAlgorithmDescriptor(&d), CUDNN_STATUS_SUCCESS); }
  ~AlgoDesc() { cudnnDestroyAlgorithmDescriptor(d); }
  operator cudnnAlgorithmDescriptor_t() const { return d; }
};

TEST(AlgorithmDescriptor, SetGetCopy) {
  auto rng = ft::make_rng();
  const int v = ft::uniform_int(rng, 0, 7);
  AlgoDesc a, b;
  cudnnAlgorithm_t out;
  EXPECT_EQ(cudnnGetAlgorithmDescriptor(a, &out), CUDNN_STATUS_BAD_PARAM);  // never set
  FT_OK(cudnnSetAlgorithmDescriptor(a, make_algo(static_cast<cudnnConvolutionFwdAlgo_t>(v))));
  FT_OK(cudnnGetAlgorithmDescriptor(a, &out));
  EXPECT_EQ(static_cast<int>(out.algo.convFwdAlgo), v);
  FT_OK(cudnnCopyAlgorithmDescriptor(a, b));
  FT_OK(cudnnGetAlgorithmDescriptor(b, &out));
  EXPECT_EQ(static_cast<int>(out.algo.convFwdAlgo), v);
  // The RNN member reads the same value.
  cudnnAlgorithm_t rnn;
  std::memset(&rnn, 0, sizeof rnn);
  rnn.algo.RNNAlgo = CUDNN_RNN_ALGO_PERSIST_DYNAMIC;
  FT_OK(cudnnSetAlgorithmDescriptor(b, rnn));
  FT_OK(cudnnGetAlgorithmDescriptor(b, &out));
  EXPECT_EQ(out.algo.RNNAlgo, CUDNN_RNN_ALGO_PERSIST_DYNAMIC);
}

TEST(AlgorithmDescriptor, BadArguments) {
  AlgoDesc a, unset;
  cudnnAlgorithm_t out;
  EXPECT_EQ(cudnnCreateAlgorithmDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetAlgorithmDescriptor(nullptr, make_algo(CUDNN_CONVOLUTION_FWD_ALGO_GEMM)), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetAlgorithmDescriptor(a, make_algo(static_cast<cudnnConvolutionFwdAlgo_t>(-1))),
            CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnSetAlgorithmDescriptor(a, make_algo(CUDNN_CONVOLUTION_FWD_ALGO_FFT)));
  EXPECT_EQ(cudnnGetAlgorithmDescriptor(nullptr, &out), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetAlgorithmDescriptor(a, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnCopyAlgorithmDescriptor(nullptr, a), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnCopyAlgorithmDescriptor(a, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnCopyAlgorithmDescriptor(unset, a), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyAlgorithmDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
  // A tensor descriptor is not an algorithm descriptor.
  ft::TensorDesc t;
  EXPECT_EQ(cudnnSetAlgorithmDescriptor(reinterpret_cast<cudnnAlgorithmDescriptor_t>(t.d),
                                        make_algo(CUDNN_CONVOLUTION_FWD_ALGO_GEMM)),
            CUDNN_STATUS_BAD_PARAM);
}

TEST(AlgorithmPerformance, ArraySetGetDestroy) {
  auto rng = ft::make_rng();
  const int n = ft::uniform_int(rng, 1, 6);
  std::vector<cudnnAlgorithmPerformance_t> perf(n, nullptr);
  FT_OK(cudnnCreateAlgorithmPerformance(perf.data(), n));
  std::vector<int> algos(n);
  std::vector<float> times(n);
  std::vector<size_t> mems(n);
  {
    AlgoDesc a;
    for (int i = 0; i < n; ++i) {
      ASSERT_NE(perf[i], nullptr);
      for (int j = 0; j < i; ++j) EXPECT_NE(perf[i], perf[j]);
      algos[i] = ft::uniform_int(rng, 0, 2);
      times[i] = static_cast<float>(ft::uniform(rng, 0.0, 10.0));
      mems[i] = static_cast<size_t>(ft::uniform_int(rng, 0, 1 << 20));
      cudnnAlgorithm_t al;
      std::memset(&al, 0, sizeof al);
      al.algo.RNNAlgo = static_cast<cudnnRNNAlgo_t>(algos[i]);
      FT_OK(cudnnSetAlgorithmDescriptor(a, al));
      FT_OK(cudnnSetAlgorithmPerformance(perf[i], a, i % 2 ? CUDNN_STATUS_NOT_SUPPORTED : CUDNN_STATUS_SUCCESS,
                                         times[i], mems[i]));
    }
  }  // the caller's descriptor is gone; the results keep their own copy
  for (int i = 0; i < n; ++i) {
    cudnnAlgorithmDescriptor_t d = nullptr;
    cudnnStatus_t st;
    float t = 0;
    size_t m = 0;
    FT_OK(cudnnGetAlgorithmPerformance(perf[i], &d, &st, &t, &m));
    EXPECT_EQ(st, i % 2 ? CUDNN_STATUS_NOT_SUPPORTED : CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t, times[i]);
    EXPECT_EQ(m, mems[i]);
    cudnnAlgorithm_t al;
    FT_OK(cudnnGetAlgorithmDescriptor(d, &al));
    EXPECT_EQ(static_cast<int>(al.algo.RNNAlgo), algos[i]);
    // Owned by the result: the caller may not destroy it.
    EXPECT_EQ(cudnnDestroyAlgorithmDescriptor(d), CUDNN_STATUS_BAD_PARAM);
  }
  FT_OK(cudnnDestroyAlgorithmPerformance(perf.data(), n));
  for (int i = 0; i < n; ++i) EXPECT_EQ(perf[i], nullptr);
}

TEST(AlgorithmPerformance, BadArguments) {
  cudnnAlgorithmPerformance_t p[2] = {nullptr, nullptr};
  EXPECT_EQ(cudnnCreateAlgorithmPerformance(nullptr, 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnCreateAlgorithmPerformance(p, 0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnCreateAlgorithmPerformance(p, -3), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnCreateAlgorithmPerformance(p, 2));
  AlgoDesc a, unset;
  FT_OK(cudnnSetAlgorithmDescriptor(a, make_algo(CUDNN_CONVOLUTION_FWD_ALGO_DIRECT)));
  EXPECT_EQ(cudnnSetAlgorithmPerformance(nullptr, a, CUDNN_STATUS_SUCCESS, 1.f, 0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetAlgorithmPerformance(p[0], nullptr, CUDNN_STATUS_SUCCESS, 1.f, 0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetAlgorithmPerformance(p[0], unset, CUDNN_STATUS_SUCCESS, 1.f, 0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetAlgorithmPerformance(p[0], a, static_cast<cudnnStatus_t>(15), 1.f, 0),
            CUDNN_STATUS_BAD_PARAM);
  cudnnAlgorithmDescriptor_t d;
  cudnnStatus_t st;
  float t;
  size_t m;
  EXPECT_EQ(cudnnGetAlgorithmPerformance(nullptr, &d, &st, &t, &m), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetAlgorithmPerformance(p[0], &d, &st, nullptr, &m), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyAlgorithmPerformance(p, -1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyAlgorithmPerformance(nullptr, 0), CUDNN_STATUS_SUCCESS);
  // A tensor descriptor in the array: nothing destroyed.
  ft::TensorDesc td;
  cudnnAlgorithmPerformance_t mixed[2] = {p[0], reinterpret_cast<cudnnAlgorithmPerformance_t>(td.d)};
  EXPECT_EQ(cudnnDestroyAlgorithmPerformance(mixed, 2), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnGetAlgorithmPerformance(p[0], &d, &st, &t, &m));  // still alive
  // The same object twice: it would be deleted twice (found by review, run 40); nothing destroyed.
  cudnnAlgorithmPerformance_t twice[3] = {p[1], nullptr, p[1]};
  EXPECT_EQ(cudnnDestroyAlgorithmPerformance(twice, 3), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnGetAlgorithmPerformance(p[1], &d, &st, &t, &m));  // still alive
  FT_OK(cudnnDestroyAlgorithmPerformance(p, 2));
}

TEST(AlgorithmSave, RoundTripAndCorruption) {
  auto rng = ft::make_rng();
  ft::Handle h;
  AlgoDesc a, b;
  const int v = ft::uniform_int(rng, 0, 7);
  FT_OK(cudnnSetAlgorithmDescriptor(a, make_algo(static_cast<cudnnConvolutionFwdAlgo_t>(v))));
  size_t size = 0;
  FT_OK(cudnnGetAlgorithmSpaceSize(h, a, &size));
  ASSERT_GT(size, 0u);
  std::vector<unsigned char> buf(size + 8, 0xAB);
  EXPECT_EQ(cudnnSaveAlgorithm(h, a, buf.data(), size - 1), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnSaveAlgorithm(h, a, buf.data(), size));
  for (size_t i = size; i < buf.size(); ++i) EXPECT_EQ(buf[i], 0xAB) << "wrote past the space size";
  FT_OK(cudnnRestoreAlgorithm(h, buf.data(), size, b));
  cudnnAlgorithm_t out;
  FT_OK(cudnnGetAlgorithmDescriptor(b, &out));
  EXPECT_EQ(static_cast<int>(out.algo.convFwdAlgo), v);
  // Larger buffers are fine.
  FT_OK(cudnnRestoreAlgorithm(h, buf.data(), buf.size(), b));

  // Short buffer.
  EXPECT_EQ(cudnnRestoreAlgorithm(h, buf.data(), size - 1, b), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnRestoreAlgorithm(h, buf.data(), 0, b), CUDNN_STATUS_BAD_PARAM);
  // Every single-bit flip is detected, and b keeps its value.
  AlgoDesc c;
  FT_OK(cudnnSetAlgorithmDescriptor(c, make_algo(CUDNN_CONVOLUTION_FWD_ALGO_GEMM)));
  for (size_t byte = 0; byte < size; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<unsigned char> bad(buf.begin(), buf.begin() + static_cast<long>(size));
      bad[byte] ^= static_cast<unsigned char>(1u << bit);
      ASSERT_EQ(cudnnRestoreAlgorithm(h, bad.data(), size, c), CUDNN_STATUS_BAD_PARAM) << byte << ":" << bit;
    }
  }
  FT_OK(cudnnGetAlgorithmDescriptor(c, &out));
  EXPECT_EQ(out.algo.convFwdAlgo, CUDNN_CONVOLUTION_FWD_ALGO_GEMM);
  // Random garbage.
  std::vector<unsigned char> junk(size);
  for (auto& x : junk) x = static_cast<unsigned char>(ft::uniform_int(rng, 0, 255));
  EXPECT_EQ(cudnnRestoreAlgorithm(h, junk.data(), size, c), CUDNN_STATUS_BAD_PARAM);
}

TEST(AlgorithmSave, BadArguments) {
  ft::Handle h;
  AlgoDesc a, unset;
  FT_OK(cudnnSetAlgorithmDescriptor(a, make_algo(CUDNN_CONVOLUTION_FWD_ALGO_FFT)));
  size_t size = 0;
  unsigned char buf[256];
  EXPECT_EQ(cudnnGetAlgorithmSpaceSize(nullptr, a, &size), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetAlgorithmSpaceSize(h, nullptr, &size), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetAlgorithmSpaceSize(h, unset, &size), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetAlgorithmSpaceSize(h, a, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSaveAlgorithm(nullptr, a, buf, sizeof buf), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSaveAlgorithm(h, unset, buf, sizeof buf), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSaveAlgorithm(h, a, nullptr, sizeof buf), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnSaveAlgorithm(h, a, buf, sizeof buf));
  EXPECT_EQ(cudnnRestoreAlgorithm(nullptr, buf, sizeof buf, a), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnRestoreAlgorithm(h, nullptr, sizeof buf, a), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnRestoreAlgorithm(h, buf, sizeof buf, nullptr), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnRestoreAlgorithm(h, buf, sizeof buf, unset));
}

}  // namespace
