// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The NCHW <-> NHWC staging copies around the CUTLASS convolutions (src/cuda/conv/cutlass/nhwc_staging.cu): packed
// NCHW float/half/bf16 operands with channel counts off the 16-byte vector (C = 3, 5, 12, 68; K = 6, 20, 70),
// pixel counts that are and are not multiples of the vector (16-byte or scalar NCHW side), several 64 x 64 tiles per
// image, alpha/beta with beta != 0, and the fused bias/z/ReLU write-back (z a separate NCHW tensor, and z aliasing
// y), forced onto cuda:cutlass_sm80_* (all directions) and cuda:cutlass_sm90_fprop, against the double reference.
// GPU suite only (and only in builds with the CUTLASS headers; the sm90 part only on compute capability 9.0).
#include <string>
#include <vector>

#ifdef FT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include "unit/conv_check.h"
#include "unit/conv_fixture.h"

namespace {

using ft_conv::OnlyImpl;
using ft_conv::Problem;
using ft_conv::Shape;

bool hopper_with_kernels() {
#if defined(FT_WITH_CUDA) && defined(FT_WITH_CUTLASS_SM90)
  if (!ft::gpu_mode()) return false;
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) return false;
  return prop.major == 9 && prop.minor == 0;
#else
  return false;
#endif
}

constexpr int kFwdAlgo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
constexpr int kBwdDataAlgo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
constexpr int kBwdFilterAlgo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;

// {name, n, c, k, g, in, kernel, pad, stride, dilation}: odd C and K; 8x8 = 64 pixels (a multiple of every vector
// width: 16-byte NCHW accesses), 9x7 = 63 and 13x11 (scalar NCHW side), 12x12 with stride 2 (output 6x6 = 36: a
// multiple of 4, not 8), 20x20 (400 pixels: several pixel tiles), 68/70 channels (two channel tiles).
std::vector<Shape> shapes() {
  return {
      {"c3_k6", 2, 3, 6, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"c5_k20", 2, 5, 20, 1, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"c12_k6_s2", 3, 12, 6, 1, {12, 12}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
      {"c12_k20", 2, 12, 20, 1, {20, 20}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"c5_k6_odd", 3, 5, 6, 1, {13, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"c68_k70", 2, 68, 70, 1, {10, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
  };
}

double tol(cudnnDataType_t t) { return t == CUDNN_DATA_FLOAT ? 5e-3 : ft::tolerance(t) * 2; }

// TF32 for float (the default math type lets the tensor cores run).
void set_math(Problem& p) {
  if (p.dt == CUDNN_DATA_FLOAT) FT_OK(cudnnSetConvolutionMathType(p.cd, CUDNN_DEFAULT_MATH));
}

TEST(ConvStagingCopies, Sm80NchwAllDirections) {
  SKIP_UNLESS_CUTLASS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm80_");
  int i = 0;
  for (const Shape& s : shapes()) {
    for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
      Problem p(s, t, false, false, i % 4 == 3, rng);
      set_math(p);
      const bool blend = i % 2 == 0;
      ft_conv_check::check_directions(h, p, {kFwdAlgo, kBwdDataAlgo, kBwdFilterAlgo}, rng, blend ? 0.75 : 1.0,
                                      blend ? -0.5 : 0.0, tol(t), "staging sm80");
      ++i;
    }
  }
}

TEST(ConvStagingCopies, Sm80NchwFused) {
  SKIP_UNLESS_CUTLASS_GPU();
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm80_fprop");
  int i = 0;
  for (const Shape& s : shapes()) {
    for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF}) {
      Problem p(s, t, false, false, false, rng);
      set_math(p);
      const double tl = t == CUDNN_DATA_FLOAT ? 5e-3 : ft::tolerance(t) * 4;
      ft_conv_check::check_fused(h, p, kFwdAlgo, rng, i % 3 == 1, tl, "staging sm80 fused",
                                 {.alpha1 = 0.5, .alpha2 = i % 3 == 2 ? 0.0 : -1.25,
                                  .nan = i % 2 == 0 ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN});
      ++i;
    }
  }
}

// cuda:cutlass_sm90_fprop (Hopper): the same copies in front of and behind the TMA kernels.
TEST(ConvStagingCopies, Sm90NchwForward) {
  if (!hopper_with_kernels())
    GTEST_SKIP() << "needs the GPU suite on a compute capability 9.0 device and a build with the sm90 kernels";
  ft::Handle h;
  auto rng = ft::make_rng();
  OnlyImpl only("cuda:cutlass_sm90_fprop");
  int i = 0;
  for (const Shape& s : shapes()) {
    for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
      Problem p(s, t, false, false, false, rng);  // sm90: cross-correlation only
      set_math(p);
      const double alpha = i % 2 == 0 ? 0.75 : 1.0, beta = i % 2 == 0 ? 0.5 : 0.0;
      ft_conv_check::check_forward(h, p, kFwdAlgo, rng, alpha, beta, tol(t), "staging sm90");
      if (HasFatalFailure()) return;
      if (i % 3 == 0) {
        const double tl = t == CUDNN_DATA_FLOAT ? 5e-3 : ft::tolerance(t) * 4;
        ft_conv_check::check_fused(h, p, kFwdAlgo, rng, i % 2 == 1, tl, "staging sm90 fused",
                                   {.alpha1 = 1.5, .alpha2 = 0.5, .nan = CUDNN_PROPAGATE_NAN});
      }
      ++i;
    }
  }
}

}  // namespace
