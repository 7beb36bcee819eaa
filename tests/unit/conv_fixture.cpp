// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "unit/conv_fixture.h"

#include <sstream>

namespace ft_conv {

Problem::Problem(const Shape& shape, cudnnDataType_t t, bool nhwc_, bool padded_, bool conv_mode_,
                 std::mt19937_64& rng, cudnnDataType_t out_t, cudnnDataType_t wt)
    : s(shape), dt(t), nhwc(nhwc_), padded(padded_), conv_mode(conv_mode_) {
  const bool int8 = t == CUDNN_DATA_INT8 || t == CUDNN_DATA_UINT8;
  ydt = int8 ? out_t : t;
  compute = int8 ? CUDNN_DATA_INT32 : t == CUDNN_DATA_BFLOAT16 || t == CUDNN_DATA_HALF ? CUDNN_DATA_FLOAT : t;
  params.groups = s.g;
  params.pad = s.pad;
  params.stride = s.stride;
  params.dilation = s.dil;
  params.convolution = conv_mode;
  xdims = {s.n, s.c};
  wdims = {s.k, s.c / s.g};
  for (int v : s.in) xdims.push_back(v);
  for (int v : s.ker) wdims.push_back(v);
  ydims = ref::conv_output_dims(xdims, wdims, params);
  auto make = [&](cudnnDataType_t type, const std::vector<int>& d) {
    return padded ? ft::HostTensor(type, d, ft::padded_strides(rng, d, nhwc)) : ft::HostTensor(type, d, nhwc);
  };
  x = make(t, xdims);
  y = make(ydt, ydims);
  w = ft::HostTensor(int8 ? wt : t, wdims, nhwc);
  EXPECT_EQ(cudnnSetTensorNdDescriptor(xd, x.dtype, static_cast<int>(xdims.size()), xdims.data(), x.strides.data()),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetTensorNdDescriptor(yd, y.dtype, static_cast<int>(ydims.size()), ydims.data(), y.strides.data()),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetFilterNdDescriptor(wd, w.dtype, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                       static_cast<int>(wdims.size()), wdims.data()),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetConvolutionNdDescriptor(cd, static_cast<int>(s.in.size()), s.pad.data(), s.stride.data(),
                                            s.dil.data(), conv_mode ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
                                            compute),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetConvolutionGroupCount(cd, s.g), CUDNN_STATUS_SUCCESS);
  if (ft::gpu_mode() && t == CUDNN_DATA_FLOAT)
    EXPECT_EQ(cudnnSetConvolutionMathType(cd, CUDNN_FMA_MATH), CUDNN_STATUS_SUCCESS);
}

std::string Problem::str() const {
  std::ostringstream o;
  o << s.name << " " << ft::type_name(dt) << (nhwc ? " nhwc" : " nchw") << (padded ? " padded" : "")
    << (conv_mode ? " conv" : " xcorr") << " x=" << x.str() << " y=" << y.str();
  return o.str();
}

namespace {
void put_scale(double v, cudnnDataType_t t, float* f, double* d, const void** p) {
  *f = static_cast<float>(v);
  *d = v;
  *p = t == CUDNN_DATA_DOUBLE ? static_cast<const void*>(d) : static_cast<const void*>(f);
}
}  // namespace

cudnnStatus_t forward(cudnnHandle_t h, Problem& p, int algo, double alpha, double beta) {
  size_t ws = 0;
  const auto a = static_cast<cudnnConvolutionFwdAlgo_t>(algo);
  cudnnStatus_t st = cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, a, &ws);
  if (st != CUDNN_STATUS_SUCCESS) return st;
  ft::Bytes buf(ws);
  float af, bf;
  double ad, bd;
  const void *ap, *bp;
  put_scale(alpha, p.dt, &af, &ad, &ap);
  put_scale(beta, p.dt, &bf, &bd, &bp);
  return cudnnConvolutionForward(h, ap, p.xd, p.x.data(), p.wd, p.w.data(), p.cd, a, ws ? buf.data() : nullptr, ws,
                                 bp, p.yd, p.y.data());
}

cudnnStatus_t backward_data(cudnnHandle_t h, Problem& p, int algo, double alpha, double beta) {
  size_t ws = 0;
  const auto a = static_cast<cudnnConvolutionBwdDataAlgo_t>(algo);
  cudnnStatus_t st = cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.wd, p.yd, p.cd, p.xd, a, &ws);
  if (st != CUDNN_STATUS_SUCCESS) return st;
  ft::Bytes buf(ws);
  float af, bf;
  double ad, bd;
  const void *ap, *bp;
  put_scale(alpha, p.dt, &af, &ad, &ap);
  put_scale(beta, p.dt, &bf, &bd, &bp);
  return cudnnConvolutionBackwardData(h, ap, p.wd, p.w.data(), p.yd, p.y.data(), p.cd, a, ws ? buf.data() : nullptr,
                                      ws, bp, p.xd, p.x.data());
}

cudnnStatus_t backward_filter(cudnnHandle_t h, Problem& p, int algo, double alpha, double beta) {
  size_t ws = 0;
  const auto a = static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo);
  cudnnStatus_t st = cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.xd, p.yd, p.cd, p.wd, a, &ws);
  if (st != CUDNN_STATUS_SUCCESS) return st;
  ft::Bytes buf(ws);
  float af, bf;
  double ad, bd;
  const void *ap, *bp;
  put_scale(alpha, p.dt, &af, &ad, &ap);
  put_scale(beta, p.dt, &bf, &bd, &bp);
  return cudnnConvolutionBackwardFilter(h, ap, p.xd, p.x.data(), p.yd, p.y.data(), p.cd, a,
                                        ws ? buf.data() : nullptr, ws, bp, p.wd, p.w.data());
}

std::vector<Shape> edge_shapes() {
  return {
      {"1x1", 2, 4, 6, 1, {5, 6}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
      {"3x3pad1", 2, 3, 4, 1, {6, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"7x7s2", 1, 3, 4, 1, {11, 12}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},
      {"stride_gt_kernel", 2, 2, 3, 1, {9, 10}, {2, 2}, {0, 1}, {3, 3}, {1, 1}},
      {"dilation2", 2, 3, 2, 1, {9, 8}, {3, 2}, {2, 1}, {1, 2}, {2, 2}},
      {"groups2", 2, 4, 6, 2, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"depthwise", 2, 5, 5, 5, {6, 6}, {3, 3}, {1, 1}, {2, 1}, {1, 1}},
      {"odd_channels", 3, 3, 5, 1, {5, 4}, {2, 3}, {0, 1}, {1, 2}, {1, 1}},
      {"3d", 2, 2, 3, 1, {4, 5, 4}, {2, 3, 2}, {1, 1, 0}, {1, 2, 1}, {1, 1, 2}},
      {"n1_large_pad", 1, 2, 3, 1, {3, 4}, {3, 3}, {3, 4}, {1, 1}, {1, 1}},
      {"1x1_strided", 2, 3, 2, 1, {7, 6}, {1, 1}, {1, 0}, {2, 2}, {1, 1}},
  };
}

}  // namespace ft_conv
