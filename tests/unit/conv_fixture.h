// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Helpers shared by the convolution suites: RAII filter/convolution descriptors, a problem description with
// host tensors for all roles, and calls that force one implementation by id.
#pragma once
#include <cudnn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "ref/conv.h"

namespace ft_conv {

struct FilterDesc {
  cudnnFilterDescriptor_t d = nullptr;
  FilterDesc() { cudnnCreateFilterDescriptor(&d); }
  FilterDesc(cudnnDataType_t t, cudnnTensorFormat_t f, const std::vector<int>& dims) : FilterDesc() {
    EXPECT_EQ(cudnnSetFilterNdDescriptor(d, t, f, static_cast<int>(dims.size()), dims.data()), CUDNN_STATUS_SUCCESS);
  }
  ~FilterDesc() { cudnnDestroyFilterDescriptor(d); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
  operator cudnnFilterDescriptor_t() const { return d; }
};

struct ConvDesc {
  cudnnConvolutionDescriptor_t d = nullptr;
  ConvDesc() { cudnnCreateConvolutionDescriptor(&d); }
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
  operator cudnnConvolutionDescriptor_t() const { return d; }
};

// The implementation id of a family on the backend the tests run on: "cpu:<family>", or "cuda:<family>" in GPU
// test mode (the same families exist on both: direct, im2col_gemm; winograd_f2x3 only on the CPU).
inline std::string impl_id(const std::string& family) { return (ft::gpu_mode() ? "cuda:" : "cpu:") + family; }

// Sets FREEDNN_ONLY_IMPL for a scope.
struct OnlyImpl {
  explicit OnlyImpl(const std::string& id) {
    if (id.empty())
      unsetenv("FREEDNN_ONLY_IMPL");
    else
      setenv("FREEDNN_ONLY_IMPL", id.c_str(), 1);
  }
  ~OnlyImpl() { unsetenv("FREEDNN_ONLY_IMPL"); }
};

struct Shape {
  std::string name;
  int n, c, k, g;
  std::vector<int> in, ker, pad, stride, dil;
};

// A full problem: tensors for x, w, y (and their gradients share shapes), descriptors, reference params.
// In GPU test mode float problems use CUDNN_FMA_MATH (no TF32), so that float results can be checked at float
// precision; ConvImpl.DefaultMathFloat covers the TF32-permitting default.
struct Problem {
  Shape s;
  cudnnDataType_t dt = CUDNN_DATA_FLOAT, ydt = CUDNN_DATA_FLOAT, compute = CUDNN_DATA_FLOAT;
  bool nhwc = false, padded = false, conv_mode = false;
  ref::ConvParams params;
  std::vector<int> xdims, wdims, ydims;
  ft::HostTensor x, w, y;
  ft::TensorDesc xd, yd;
  FilterDesc wd;
  ConvDesc cd;

  Problem(const Shape& shape, cudnnDataType_t t, bool nhwc_, bool padded_, bool conv_mode_, std::mt19937_64& rng,
          cudnnDataType_t out_t = CUDNN_DATA_FLOAT, cudnnDataType_t wt = CUDNN_DATA_FLOAT);
  std::string str() const;
};

// Runs one direction with a given algorithm; returns the status. Allocates the workspace it asks for.
cudnnStatus_t forward(cudnnHandle_t h, Problem& p, int algo, double alpha, double beta);
cudnnStatus_t backward_data(cudnnHandle_t h, Problem& p, int algo, double alpha, double beta);
cudnnStatus_t backward_filter(cudnnHandle_t h, Problem& p, int algo, double alpha, double beta);

std::vector<Shape> edge_shapes();

}  // namespace ft_conv
