// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Chains of memory-bound op calls, each reading what the call before it wrote, queued back to back with no host
// wait between them: with FREEDNN_OPS_PDL=1 (cuda/common/ops_pdl.h) every call's kernel is a programmatic dependent
// of the one before, and a kernel that touched memory before its pdl_wait would read a stale value and lose a step.
// Small integers throughout, so every step is exact and the check is equality. Runs on every backend (the CPU one
// and the plain launches must give the same), with and without the knob.
#include <string>
#include <vector>

#include "common/test_util.h"

namespace {

// Per step: C += B (cudnnAddTensor, B a per-channel bias), D += C (cudnnTransformTensor, beta 1), E += relu(D)
// (cudnnActivationForward, beta 1), F = 2 E - F (cudnnOpTensor ADD with alpha1 2, alpha2 -1, beta 0, B and C both
// F). Checks C, D, E and F against the same steps in double.
void run_chain(const std::vector<int>& dims, bool nhwc, int steps) {
  ft::Handle h;
  auto rng = ft::make_rng();
  const cudnnDataType_t t = CUDNN_DATA_FLOAT;
  ft::HostTensor c(t, dims, nhwc), d(t, dims, nhwc), e(t, dims, nhwc), f(t, dims, nhwc);
  ft::HostTensor b(t, {1, dims[1], 1, 1});
  c.fill_ints(rng, -4, 4);
  d.fill_ints(rng, -4, 4);
  e.fill_ints(rng, 0, 2);
  f.fill_ints(rng, -2, 2);
  b.fill_ints(rng, -1, 1);
  std::vector<double> rc = c.values(), rd = d.values(), re = e.values(), rf = f.values();
  const std::vector<double> rb = b.values();
  ft::TensorDesc cd(c), bd(b);
  cudnnActivationDescriptor_t act = nullptr;
  FT_OK(cudnnCreateActivationDescriptor(&act));
  FT_OK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  cudnnOpTensorDescriptor_t op = nullptr;
  FT_OK(cudnnCreateOpTensorDescriptor(&op));
  FT_OK(cudnnSetOpTensorDescriptor(op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
  const float one = 1, zero = 0, two = 2, minus_one = -1;
  for (int i = 0; i < steps; ++i) {
    FT_OK(cudnnAddTensor(h, &one, bd, b.data(), &one, cd, c.data()));
    FT_OK(cudnnTransformTensor(h, &one, cd, c.data(), &one, cd, d.data()));
    FT_OK(cudnnActivationForward(h, act, &one, cd, d.data(), &one, cd, e.data()));
    FT_OK(cudnnOpTensor(h, op, &two, cd, e.data(), &minus_one, cd, f.data(), &zero, cd, f.data()));
  }
  const int64_t n = c.count();
  const int64_t per_channel = n / dims[0] / dims[1];
  for (int i = 0; i < steps; ++i) {
    for (int64_t k = 0; k < n; ++k) {
      rc[k] += rb[(k / per_channel) % dims[1]];
      rd[k] += rc[k];
      re[k] += rd[k] > 0 ? rd[k] : 0;
      rf[k] = 2 * re[k] - rf[k];
    }
  }
  const std::string what = std::string(nhwc ? "nhwc " : "nchw ") + c.str();
  EXPECT_EQ(c.values(), rc) << "C (add tensor) " << what;
  EXPECT_EQ(d.values(), rd) << "D (transform) " << what;
  EXPECT_EQ(e.values(), re) << "E (activation) " << what;
  EXPECT_EQ(f.values(), rf) << "F (op tensor) " << what;
  cudnnDestroyOpTensorDescriptor(op);
  cudnnDestroyActivationDescriptor(act);
}

TEST(OpsPdl, ChainedCallsSeeEachOthersWrites) {
  for (const char* pdl : {"0", "1"}) {
    ft::ScopedEnv knob("FREEDNN_OPS_PDL", pdl);
    SCOPED_TRACE(std::string("FREEDNN_OPS_PDL=") + pdl);
    run_chain({8, 64, 14, 14}, true, 6);   // 16-byte vectors; the bias broadcast over channels-last
    run_chain({4, 24, 7, 9}, false, 6);    // NCHW planes of 63: the dense kernels' scalar tails
    run_chain({64, 256, 7, 7}, true, 3);   // ResNet-50-like, many blocks
  }
}

}  // namespace
