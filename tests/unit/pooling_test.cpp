// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <freednn.h>

#include "common/test_util.h"
#include "ref/pooling.h"

namespace {

struct PoolDesc {
  cudnnPoolingDescriptor_t d = nullptr;
  PoolDesc() { EXPECT_EQ(cudnnCreatePoolingDescriptor(&d), CUDNN_STATUS_SUCCESS); }
  ~PoolDesc() { cudnnDestroyPoolingDescriptor(d); }
  operator cudnnPoolingDescriptor_t() const { return d; }
};

struct Scale {  // alpha/beta in the type cuDNN reads: double for DOUBLE data, float otherwise
  double dv;
  float fv;
  Scale(double v) : dv(v), fv(static_cast<float>(v)) {}
  const void* ptr(cudnnDataType_t t) const { return t == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&dv) : &fv; }
};

struct Case {
  cudnnDataType_t dt = CUDNN_DATA_FLOAT;
  cudnnPoolingMode_t mode = CUDNN_POOLING_MAX;
  cudnnNanPropagation_t nan = CUDNN_NOT_PROPAGATE_NAN;
  std::vector<int> win, pad, stride, xdims, ydims;
  int layout = 0;  // 0 NCHW, 1 NHWC, 2 padded NCHW, 3 padded NHWC
  double alpha = 1, beta = 0;
  std::string str() const {
    std::string s = ft::type_name(dt);
    s += " mode=" + std::to_string(mode) + " nan=" + std::to_string(nan) + " layout=" + std::to_string(layout) +
         " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta) + " x=";
    for (int d : xdims) s += std::to_string(d) + ",";
    s += " win=";
    for (int d : win) s += std::to_string(d) + ",";
    s += " pad=";
    for (int d : pad) s += std::to_string(d) + ",";
    s += " stride=";
    for (int d : stride) s += std::to_string(d) + ",";
    s += " y=";
    for (int d : ydims) s += std::to_string(d) + ",";
    return s;
  }
};

// layout 4: 4-D channels-last with every stride padded by one 16-byte vector (strides stay multiples of it when C is)
ft::HostTensor make_tensor(std::mt19937_64& rng, cudnnDataType_t dt, const std::vector<int>& dims, int layout) {
  if (layout == 4) {
    const int v = 16 / static_cast<int>(ft::type_size(dt));
    const int sw = dims[1] + v, sh = dims[3] * sw + v, sn = dims[2] * sh + v;
    return ft::HostTensor(dt, dims, std::vector<int>{sn, 1, sh, sw});
  }
  const bool nhwc = layout == 1 || layout == 3;
  if (layout >= 2) return ft::HostTensor(dt, dims, ft::padded_strides(rng, dims, nhwc));
  return ft::HostTensor(dt, dims, nhwc);
}

Case random_case(std::mt19937_64& rng, cudnnDataType_t dt, cudnnPoolingMode_t mode) {
  Case c;
  c.dt = dt;
  c.mode = mode;
  c.nan = ft::uniform_int(rng, 0, 1) ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN;
  const int ns = ft::uniform_int(rng, 0, 3) == 0 ? 3 : 2;
  c.xdims = {ft::uniform_int(rng, 1, 2), ft::uniform_int(rng, 1, 3)};
  c.ydims = c.xdims;
  const bool ceil_mode = ft::uniform_int(rng, 0, 3) == 0;
  for (int d = 0; d < ns; ++d) {
    const int in = ft::uniform_int(rng, 1, ns == 3 ? 5 : 8);
    const int w = ft::uniform_int(rng, 1, std::min(in + 1, 4));
    const int p = ft::uniform_int(rng, 0, w - 1);
    const int s = ft::uniform_int(rng, 1, 3);
    int w_fit = std::min(w, in + 2 * p);
    c.win.push_back(w_fit);
    c.pad.push_back(p);
    c.stride.push_back(s);
    c.xdims.push_back(in);
    const int span = in + 2 * p - w_fit;
    c.ydims.push_back(ceil_mode ? 1 + (span + s - 1) / s : ref::pool_out_dim(in, w_fit, p, s));
  }
  c.layout = ft::uniform_int(rng, 0, 3);
  if (dt == CUDNN_DATA_INT8) {
    c.alpha = 1;
    c.beta = ft::uniform_int(rng, 0, 1);
  } else {
    c.alpha = ft::uniform(rng, 0.5, 2);
    c.beta = ft::uniform_int(rng, 0, 1) ? ft::uniform(rng, -1, 1) : 0.0;
  }
  return c;
}

cudnnStatus_t set_desc(cudnnPoolingDescriptor_t d, const Case& c) {
  return cudnnSetPoolingNdDescriptor(d, c.mode, c.nan, static_cast<int>(c.win.size()), c.win.data(), c.pad.data(),
                                     c.stride.data());
}

ref::PoolParams params(const Case& c) {
  ref::PoolParams p;
  p.mode = c.mode;
  p.propagate_nan = c.nan == CUDNN_PROPAGATE_NAN;
  p.window = c.win;
  p.pad = c.pad;
  p.stride = c.stride;
  return p;
}

std::vector<int> spatial(const std::vector<int>& d) { return std::vector<int>(d.begin() + 2, d.end()); }

void fill(std::mt19937_64& rng, ft::HostTensor& t, bool with_nan) {
  if (t.dtype == CUDNN_DATA_INT8) {
    t.fill_ints(rng, -50, 50);
    return;
  }
  t.fill_uniform(rng, -2, 2);
  if (with_nan)
    for (int k = 0; k < 2; ++k) t.set(ft::uniform_int(rng, 0, static_cast<int>(t.count() - 1)), NAN);
}

// out_layout: the layout of y (-1: random); ties: x holds small integers (many equal maxima).
void run_forward(std::mt19937_64& rng, const Case& c, bool with_nan, int out_layout = -1, bool ties = false) {
  SCOPED_TRACE(c.str());
  ft::Handle h;
  PoolDesc pd;
  ASSERT_EQ(set_desc(pd, c), CUDNN_STATUS_SUCCESS);
  ft::HostTensor x = make_tensor(rng, c.dt, c.xdims, c.layout);
  ft::HostTensor y = make_tensor(rng, c.dt, c.ydims, out_layout >= 0 ? out_layout : ft::uniform_int(rng, 0, 3));
  fill(rng, x, with_nan);
  if (ties) x.fill_ints(rng, -2, 2);
  if (c.beta != 0) {
    fill(rng, y, false);
  } else {
    y.poison();
  }
  const std::vector<double> prior = y.values();
  ft::TensorDesc xd(x), yd(y);
  const Scale a(c.alpha), b(c.beta);
  ASSERT_EQ(cudnnPoolingForward(h, pd, a.ptr(c.dt), xd, x.data(), b.ptr(c.dt), yd, y.data()), CUDNN_STATUS_SUCCESS);
  const ref::Tensor r = ref::pooling_forward(params(c), ref::Tensor(c.xdims, x.values()), spatial(c.ydims));
  const std::vector<double> want = ref::blend(r.v, prior, c.alpha, c.beta);
  if (ft::integer_floor(c.dt) > 0)  // integer outputs: rounded once (half a unit; ties either way)
    EXPECT_TRUE(ft::near_units(y.values(), want, 0.5 + 1e-6 * std::max(1.0, ft::max_abs(want)), "y"));
  else
    EXPECT_TRUE(ft::near(y.values(), want, ft::tolerance(c.dt), "y"));
}

const cudnnPoolingMode_t kModes[] = {CUDNN_POOLING_MAX, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                     CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_POOLING_MAX_DETERMINISTIC};

TEST(Pooling, DescriptorRoundTrip) {
  PoolDesc d;
  FT_OK(cudnnSetPooling2dDescriptor(d, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_PROPAGATE_NAN, 3, 2, 1, 0,
                                    2, 1));
  cudnnPoolingMode_t m;
  cudnnNanPropagation_t n;
  int v[6];
  FT_OK(cudnnGetPooling2dDescriptor(d, &m, &n, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]));
  EXPECT_EQ(m, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING);
  EXPECT_EQ(n, CUDNN_PROPAGATE_NAN);
  EXPECT_EQ(std::vector<int>(v, v + 6), (std::vector<int>{3, 2, 1, 0, 2, 1}));

  const int w[3] = {2, 3, 4}, p[3] = {0, 1, 2}, s[3] = {1, 2, 3};
  FT_OK(cudnnSetPoolingNdDescriptor(d, CUDNN_POOLING_MAX_DETERMINISTIC, CUDNN_NOT_PROPAGATE_NAN, 3, w, p, s));
  int nb = 0, gw[3] = {}, gp[3] = {}, gs[3] = {};
  FT_OK(cudnnGetPoolingNdDescriptor(d, 3, &m, &n, &nb, gw, gp, gs));
  EXPECT_EQ(nb, 3);
  EXPECT_EQ(m, CUDNN_POOLING_MAX_DETERMINISTIC);
  EXPECT_EQ(std::vector<int>(gw, gw + 3), std::vector<int>(w, w + 3));
  EXPECT_EQ(std::vector<int>(gp, gp + 3), std::vector<int>(p, p + 3));
  EXPECT_EQ(std::vector<int>(gs, gs + 3), std::vector<int>(s, s + 3));
  EXPECT_EQ(cudnnGetPooling2dDescriptor(d, &m, &n, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]), CUDNN_STATUS_BAD_PARAM);
}

TEST(Pooling, OutputDims) {
  PoolDesc d;
  FT_OK(cudnnSetPooling2dDescriptor(d, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 2, 1, 0, 2, 2));
  ft::TensorDesc x;
  FT_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 5, 7, 9));
  int n, c, h, w;
  FT_OK(cudnnGetPooling2dForwardOutputDim(d, x, &n, &c, &h, &w));
  // 1 + (7 + 2 - 3) / 2 = 4, 1 + (9 + 0 - 2) / 2 = 4
  EXPECT_EQ((std::vector<int>{n, c, h, w}), (std::vector<int>{2, 5, 4, 4}));
  int out[4];
  FT_OK(cudnnGetPoolingNdForwardOutputDim(d, x, 4, out));
  EXPECT_EQ(std::vector<int>(out, out + 4), (std::vector<int>{2, 5, 4, 4}));
  EXPECT_EQ(cudnnGetPoolingNdForwardOutputDim(d, x, 5, out), CUDNN_STATUS_BAD_PARAM);
  const int w3[3] = {2, 2, 2}, p3[3] = {0, 0, 0}, s3[3] = {2, 2, 2};
  FT_OK(cudnnSetPoolingNdDescriptor(d, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, w3, p3, s3));
  const int xd5[5] = {1, 2, 5, 6, 7};
  ft::TensorDesc x5;
  FT_OK(cudnnSetTensorNdDescriptorEx(x5, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 5, xd5));
  int out5[5];
  FT_OK(cudnnGetPoolingNdForwardOutputDim(d, x5, 5, out5));
  EXPECT_EQ(std::vector<int>(out5, out5 + 5), (std::vector<int>{1, 2, 2, 3, 3}));
  EXPECT_EQ(cudnnGetPooling2dForwardOutputDim(d, x, &n, &c, &h, &w), CUDNN_STATUS_BAD_PARAM);  // 3-D desc
  FT_OK(cudnnSetPooling2dDescriptor(d, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 10, 2, 0, 0, 1, 1));
  EXPECT_EQ(cudnnGetPooling2dForwardOutputDim(d, x, &n, &c, &h, &w), CUDNN_STATUS_BAD_PARAM);  // window > input
}

TEST(Pooling, ForwardRandom) {
  auto rng = ft::make_rng();
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                   CUDNN_DATA_INT8};
  for (auto dt : types)
    for (auto m : kModes)
      for (int t = 0; t < 6; ++t) {
        const bool nan = dt != CUDNN_DATA_INT8 && t % 3 == 2;
        run_forward(rng, random_case(rng, dt, m), nan);
        if (HasFatalFailure()) return;
      }
}

void run_backward(std::mt19937_64& rng, const Case& c, int out_layout = -1, bool ties = false) {
  SCOPED_TRACE(c.str());
  ft::Handle h;
  PoolDesc pd;
  ASSERT_EQ(set_desc(pd, c), CUDNN_STATUS_SUCCESS);
  ft::HostTensor x = make_tensor(rng, c.dt, c.xdims, c.layout);
  ft::HostTensor y = make_tensor(rng, c.dt, c.ydims, c.layout);
  ft::HostTensor dy = make_tensor(rng, c.dt, c.ydims, out_layout >= 0 ? out_layout : ft::uniform_int(rng, 0, 3));
  ft::HostTensor dx = make_tensor(rng, c.dt, c.xdims, out_layout >= 0 ? out_layout : ft::uniform_int(rng, 0, 3));
  fill(rng, x, false);
  if (ties) x.fill_ints(rng, -2, 2);
  fill(rng, dy, false);
  if (c.beta != 0) {
    fill(rng, dx, false);
  } else {
    dx.poison();
  }
  const std::vector<double> prior = dx.values();
  ft::TensorDesc xd(x), yd(y), dyd(dy), dxd(dx);
  const Scale one(1.0), zero(0.0), a(c.alpha), b(c.beta);
  ASSERT_EQ(cudnnPoolingForward(h, pd, one.ptr(c.dt), xd, x.data(), zero.ptr(c.dt), yd, y.data()),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnPoolingBackward(h, pd, a.ptr(c.dt), yd, y.data(), dyd, dy.data(), xd, x.data(), b.ptr(c.dt), dxd,
                                 dx.data()),
            CUDNN_STATUS_SUCCESS);
  const ref::Tensor r =
      ref::pooling_backward(params(c), ref::Tensor(c.xdims, x.values()), ref::Tensor(c.ydims, dy.values()));
  EXPECT_TRUE(ft::near(dx.values(), ref::blend(r.v, prior, c.alpha, c.beta), ft::tolerance(c.dt), "dx"));
}

TEST(Pooling, BackwardRandom) {
  auto rng = ft::make_rng();
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
  for (auto dt : types)
    for (auto m : kModes)
      for (int t = 0; t < 5; ++t) {
        run_backward(rng, random_case(rng, dt, m));
        if (HasFatalFailure()) return;
      }
}

// c's x dims, the same window, padding and stride on both spatial dims, and y's extents: the formula's, or with
// ceil_mode the ceiling formula's (the last windows partly in the padding).
void set_square_window(Case& c, const std::vector<int>& x, int win, int pad, int stride, bool ceil_mode) {
  c.xdims = x;
  c.ydims = {x[0], x[1]};
  for (int d = 0; d < 2; ++d) {
    c.win.push_back(win);
    c.pad.push_back(pad);
    c.stride.push_back(stride);
    const int span = x[2 + d] + 2 * pad - win;
    c.ydims.push_back(ceil_mode ? 1 + (span + stride - 1) / stride : ref::pool_out_dim(x[2 + d], win, pad, stride));
  }
}

// Shapes of the GPU fast paths (tiles of 16-byte channel vectors for NHWC with C % (16 / size) == 0; tiles of
// whole rows or planes for NCHW, odd widths included; several tiles per plane; windows that overlap and that do
// not), every tensor in one layout, against the reference; ties and NaNs included.
TEST(Pooling, FastPathShapes) {
  auto rng = ft::make_rng();
  struct Shape {
    cudnnDataType_t dt;
    int layout;  // of every tensor
    std::vector<int> x;
    int win, pad, stride;
  };
  const Shape shapes[] = {
      {CUDNN_DATA_BFLOAT16, 1, {2, 16, 13, 11}, 3, 1, 2},  // NHWC, 16-byte vectors of 8 channels
      {CUDNN_DATA_BFLOAT16, 1, {1, 16, 40, 37}, 3, 1, 2},  // several tiles along H and W
      {CUDNN_DATA_HALF, 1, {2, 24, 9, 9}, 2, 0, 2},        // non-overlapping windows
      {CUDNN_DATA_FLOAT, 1, {2, 8, 12, 12}, 3, 1, 1},      // 4 floats per vector, stride 1
      {CUDNN_DATA_DOUBLE, 1, {1, 6, 7, 7}, 7, 0, 1},       // global pooling, 2 doubles per vector
      {CUDNN_DATA_BFLOAT16, 1, {2, 12, 10, 9}, 3, 1, 2},   // NHWC, C % 8 != 0: scalar channels-last tiles
      {CUDNN_DATA_BFLOAT16, 1, {1, 48, 7, 7}, 7, 0, 1},    // NHWC global pooling: channel groups grow
      {CUDNN_DATA_HALF, 1, {3, 16, 5, 5}, 5, 0, 1},        // NHWC global pooling, N > 1: broadcast backward
      {CUDNN_DATA_FLOAT, 1, {2, 12, 4, 4}, 4, 0, 3},       // NHWC global pooling, 4 floats per vector
      {CUDNN_DATA_FLOAT, 0, {2, 3, 13, 11}, 3, 1, 2},      // NCHW, odd width: unaligned rows copied
      {CUDNN_DATA_FLOAT, 0, {1, 2, 70, 37}, 3, 1, 1},      // NCHW, several row tiles
      {CUDNN_DATA_FLOAT, 0, {2, 40, 7, 7}, 7, 0, 1},       // NCHW global pooling: many planes per tile
      {CUDNN_DATA_HALF, 0, {2, 5, 8, 8}, 2, 0, 2},         // NCHW, 16-bit, non-overlapping
      {CUDNN_DATA_FLOAT, 2, {2, 3, 11, 9}, 3, 1, 2},       // padded NCHW: strided row loads
      {CUDNN_DATA_BFLOAT16, 3, {1, 16, 9, 9}, 3, 1, 2},    // padded NHWC
      {CUDNN_DATA_FLOAT, 0, {1, 3, 30, 90}, 3, 1, 2},      // NCHW rows wider than a warp (warp-per-row loops)
      {CUDNN_DATA_DOUBLE, 0, {2, 4, 9, 70}, 2, 0, 2},      // NCHW doubles, several planes per tile
      {CUDNN_DATA_FLOAT, 0, {1, 2, 20, 40}, 3, 0, 3},      // NCHW stride 3: non-power-of-2 backward dividers
  };
  for (const Shape& sh : shapes)
    for (auto m : kModes) {
      Case c;
      c.dt = sh.dt;
      c.mode = m;
      c.nan = ft::uniform_int(rng, 0, 1) ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN;
      set_square_window(c, sh.x, sh.win, sh.pad, sh.stride, false);
      c.layout = sh.layout;
      c.alpha = ft::uniform(rng, 0.5, 2);
      c.beta = ft::uniform_int(rng, 0, 1) ? ft::uniform(rng, -1, 1) : 0.0;
      const bool ties = m == CUDNN_POOLING_MAX || m == CUDNN_POOLING_MAX_DETERMINISTIC;
      run_forward(rng, c, true, sh.layout, false);
      run_forward(rng, c, false, sh.layout, ties);
      run_backward(rng, c, sh.layout, ties);
      if (HasFatalFailure()) return;
    }
  // int8 forward, NHWC with 16 channels per vector.
  Case c;
  c.dt = CUDNN_DATA_INT8;
  c.mode = CUDNN_POOLING_MAX;
  c.xdims = {2, 32, 9, 8};
  c.win = {3, 3};
  c.pad = {1, 1};
  c.stride = {2, 2};
  c.ydims = {2, 32, ref::pool_out_dim(9, 3, 1, 2), ref::pool_out_dim(8, 3, 1, 2)};
  c.layout = 1;
  run_forward(rng, c, false, 1);
  c.mode = CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
  run_forward(rng, c, false, 1);
}

// Planar max pooling with the common square windows (the GPU's register path, pooling2d_planar.cu: unit column
// stride, 3x3 s2 p1, 2x2 s2 p0, 3x3 s2 p0, 3x3 s1 p1, float / half / bfloat16 / double): forward and backward with
// NaNs planted in x under both NaN options, ties, beta != 0, odd sizes, planes narrower than a warp, rows wider than
// one (halo columns shuffled between lanes, loaded by a warp's first lane), outputs larger than the floor formula
// (windows in the padding), padded strides (scalar loads), and every tensor one element off the 16-byte grid.
void run_planar(std::mt19937_64& rng, ft::Handle& h, const Case& c, bool nan, bool ties, int shift) {
  SCOPED_TRACE(c.str() + " nan planted=" + std::to_string(nan) + " ties=" + std::to_string(ties) +
               " shift=" + std::to_string(shift));
  PoolDesc pd;
  ASSERT_EQ(set_desc(pd, c), CUDNN_STATUS_SUCCESS);
  ft::HostTensor x = make_tensor(rng, c.dt, c.xdims, c.layout), y = make_tensor(rng, c.dt, c.ydims, c.layout),
                 dy = make_tensor(rng, c.dt, c.ydims, c.layout), dx = make_tensor(rng, c.dt, c.xdims, c.layout);
  if (ties) x.fill_ints(rng, -2, 2);
  else x.fill_uniform(rng, -2, 2);
  if (nan)
    for (int k = 0; k < 3; ++k) x.set(ft::uniform_int(rng, 0, static_cast<int>(x.count() - 1)), NAN);
  dy.fill_uniform(rng, -1, 1);
  if (c.beta != 0) {
    y.fill_uniform(rng, -1, 1);
    dx.fill_uniform(rng, -1, 1);
  } else {
    y.poison();
    dx.poison();
  }
  // Each tensor's elements `shift` elements into a larger buffer (the rest poisoned).
  const size_t es = ft::type_size(c.dt);
  auto place = [&](const ft::HostTensor& t) {
    ft::HostTensor buf(c.dt, {1, static_cast<int>(t.span()) + shift, 1, 1});
    buf.poison();
    const ft::HostPhase host;
    for (int64_t i = 0; i < t.count(); ++i) buf.set_raw(shift + t.offset(i), t.get(i));
    return buf;
  };
  auto at = [&](ft::HostTensor& buf) { return static_cast<void*>(static_cast<char*>(buf.data()) + shift * es); };
  auto read = [&](const ft::HostTensor& buf, const ft::HostTensor& t) {
    std::vector<double> v(static_cast<size_t>(t.count()));
    const ft::HostPhase host;
    for (int64_t i = 0; i < t.count(); ++i) v[i] = buf.get_raw(shift + t.offset(i));
    return v;
  };
  ft::HostTensor xb = place(x), yb = place(y), dyb = place(dy), dxb = place(dx);
  ft::TensorDesc xd(x), yd(y), dyd(dy), dxd(dx);
  const Scale a(c.alpha), b(c.beta);
  ASSERT_EQ(cudnnPoolingForward(h, pd, a.ptr(c.dt), xd, at(xb), b.ptr(c.dt), yd, at(yb)), CUDNN_STATUS_SUCCESS);
  const ref::Tensor rx(c.xdims, x.values());
  const ref::Tensor ry = ref::pooling_forward(params(c), rx, spatial(c.ydims));
  EXPECT_TRUE(ft::near(read(yb, y), ref::blend(ry.v, y.values(), c.alpha, c.beta), ft::tolerance(c.dt), "y"));
  ASSERT_EQ(cudnnPoolingBackward(h, pd, a.ptr(c.dt), yd, at(yb), dyd, at(dyb), xd, at(xb), b.ptr(c.dt), dxd, at(dxb)),
            CUDNN_STATUS_SUCCESS);
  const ref::Tensor rdx = ref::pooling_backward(params(c), rx, ref::Tensor(c.ydims, dy.values()));
  EXPECT_TRUE(ft::near(read(dxb, dx), ref::blend(rdx.v, dx.values(), c.alpha, c.beta), ft::tolerance(c.dt), "dx"));
}

// Square max-pooling windows over a list of shapes, each under `variants` variants: odd variants
// MAX_DETERMINISTIC, variants 0..1 PROPAGATE_NAN, alpha 1 at 0 and random otherwise, beta != 0 from 2, NaNs planted
// except at 1, ties (small integers) where ties_at(variant), tensors one element off the 16-byte grid at 2;
// layout_of(variant) picks the layout (make_tensor's codes).
struct SquareShape {
  cudnnDataType_t dt;
  std::vector<int> x;
  int win, pad, stride;
  bool ceil_mode;  // output extents by the ceiling formula (the last windows partly in the padding)
};
template <class LayoutOf, class TiesAt>
void run_square_max(std::mt19937_64& rng, ft::Handle& h, const std::vector<SquareShape>& shapes, int variants,
                    LayoutOf layout_of, TiesAt ties_at) {
  for (const SquareShape& sh : shapes)
    for (int variant = 0; variant < variants; ++variant) {
      if (!ft::take_case()) continue;
      Case c;
      c.dt = sh.dt;
      c.mode = variant % 2 ? CUDNN_POOLING_MAX_DETERMINISTIC : CUDNN_POOLING_MAX;
      c.nan = variant < 2 ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN;
      set_square_window(c, sh.x, sh.win, sh.pad, sh.stride, sh.ceil_mode);
      c.layout = layout_of(variant);
      c.alpha = variant == 0 ? 1.0 : ft::uniform(rng, 0.5, 2);
      c.beta = variant >= 2 ? ft::uniform(rng, -1, 1) : 0.0;
      run_planar(rng, h, c, variant != 1, ties_at(variant), variant == 2 ? 1 : 0);
      if (::testing::Test::HasFatalFailure()) return;
    }
}

std::vector<SquareShape> planar_max_shapes() {
  return {
      {CUDNN_DATA_FLOAT, {2, 3, 28, 28}, 3, 1, 2, false},  // ResNet-50 pool1 in small
      {CUDNN_DATA_FLOAT, {1, 2, 13, 11}, 3, 1, 2, false},  // odd sizes
      {CUDNN_DATA_FLOAT, {1, 2, 9, 150}, 3, 1, 2, false},  // rows of 38 column groups: warps straddle rows
      {CUDNN_DATA_FLOAT, {2, 5, 7, 7}, 3, 1, 2, false},    // planes narrower than a warp
      {CUDNN_DATA_FLOAT, {1, 1, 1, 1}, 3, 1, 2, false},    // a single element
      {CUDNN_DATA_FLOAT, {1, 2, 6, 6}, 3, 1, 2, true},     // ceiling extents: last windows mostly padding
      {CUDNN_DATA_FLOAT, {1, 3, 10, 38}, 2, 0, 2, false},  // 2x2 s2
      {CUDNN_DATA_FLOAT, {1, 2, 11, 9}, 2, 0, 2, true},    // 2x2 s2, odd, ceiling extents
      {CUDNN_DATA_FLOAT, {1, 2, 11, 71}, 3, 0, 2, false},  // 3x3 s2 p0: right halo
      {CUDNN_DATA_FLOAT, {1, 2, 9, 70}, 3, 1, 1, false},   // 3x3 s1 p1: halos both sides
      {CUDNN_DATA_HALF, {2, 3, 15, 67}, 3, 1, 2, false},
      {CUDNN_DATA_HALF, {1, 2, 8, 36}, 2, 0, 2, false},
      {CUDNN_DATA_HALF, {1, 2, 7, 70}, 3, 1, 1, false},
      {CUDNN_DATA_HALF, {1, 3, 5, 5}, 3, 0, 2, false},
      {CUDNN_DATA_BFLOAT16, {1, 2, 9, 33}, 3, 0, 2, false},
      {CUDNN_DATA_BFLOAT16, {2, 2, 12, 20}, 3, 1, 2, false},
      {CUDNN_DATA_DOUBLE, {2, 2, 11, 13}, 3, 1, 2, false},
      {CUDNN_DATA_DOUBLE, {1, 2, 8, 40}, 2, 0, 2, false},
      {CUDNN_DATA_DOUBLE, {1, 2, 6, 9}, 3, 1, 1, false},
      {CUDNN_DATA_DOUBLE, {1, 1, 9, 70}, 3, 0, 2, true},
  };
}

TEST(Pooling, PlanarMax) {
  auto rng = ft::make_rng();
  ft::Handle h;
  // NCHW, or padded NCHW
  run_square_max(rng, h, planar_max_shapes(), 4, [](int variant) { return variant == 3 ? 2 : 0; },
                 [](int variant) { return variant == 1 || variant == 2; });
}

// Channels-last max pooling with the common square windows (the GPU's register path, pooling2d_nhwc.cu: unit channel
// stride, C a multiple of the 16-byte vector, 3x3 s2 p1, 2x2 s2 p0, 3x3 s2 p0, 3x3 s1 p1, float / half / bfloat16 /
// double): forward and backward (argmax codes + gather) with NaNs planted under both NaN options, ties (small
// integers: the first maximum in window order takes the gradient), beta != 0, odd sizes with windows clipped at
// the border, outputs larger than the floor formula, several row strips, channel-vector counts that do not divide a
// warp and more than a warp holds (no shuffles), strides padded by whole vectors (layout 4), and the fallbacks to the
// tiles: every tensor one element off the 16-byte grid, randomly padded strides, C not a multiple of the vector.
std::vector<SquareShape> nhwc_max_shapes() {
  return {
      {CUDNN_DATA_HALF, {2, 64, 56, 56}, 3, 1, 2, false},      // ResNet-50 pool1 in small: 8 vectors, 4 columns a warp
      {CUDNN_DATA_HALF, {2, 64, 23, 21}, 3, 1, 2, false},      // odd sizes, a partial last strip
      {CUDNN_DATA_BFLOAT16, {1, 24, 9, 13}, 3, 1, 2, false},   // 3 vectors: warps straddle columns and rows
      {CUDNN_DATA_HALF, {1, 264, 5, 6}, 3, 1, 2, false},       // 33 vectors: no neighbour lanes, direct halo loads
      {CUDNN_DATA_FLOAT, {2, 8, 11, 10}, 3, 1, 2, false},      // floats, 2 vectors
      {CUDNN_DATA_FLOAT, {1, 64, 13, 12}, 3, 1, 2, true},      // 16 vectors, ceiling extents
      {CUDNN_DATA_FLOAT, {1, 4, 6, 6}, 3, 1, 2, true},         // last windows mostly padding
      {CUDNN_DATA_HALF, {1, 8, 1, 1}, 3, 1, 2, false},         // a single pixel
      {CUDNN_DATA_HALF, {1, 16, 10, 9}, 2, 0, 2, false},       // 2x2 s2: no shared columns; odd width uncovered
      {CUDNN_DATA_BFLOAT16, {1, 16, 11, 9}, 2, 0, 2, true},    // 2x2 s2, ceiling extents
      {CUDNN_DATA_BFLOAT16, {1, 32, 11, 11}, 3, 0, 2, false},  // 3x3 s2 p0
      {CUDNN_DATA_HALF, {1, 16, 9, 10}, 3, 1, 1, false},       // 3x3 s1 p1: two shared columns
      {CUDNN_DATA_FLOAT, {2, 4, 7, 9}, 3, 1, 1, false},
      {CUDNN_DATA_DOUBLE, {1, 6, 9, 9}, 3, 1, 2, false},       // 2 doubles per vector
      {CUDNN_DATA_DOUBLE, {1, 4, 8, 7}, 2, 0, 2, false},
      {CUDNN_DATA_DOUBLE, {1, 2, 7, 7}, 3, 1, 1, false},
      {CUDNN_DATA_DOUBLE, {1, 2, 9, 9}, 3, 0, 2, true},
      {CUDNN_DATA_HALF, {1, 12, 9, 9}, 3, 1, 2, false},        // C % 8 != 0: the tiles
  };
}

TEST(Pooling, NhwcMax) {
  auto rng = ft::make_rng();
  ft::Handle h;
  ft::ScopedEnv two_pass("FREEDNN_POOL_BWD_ONEPASS", "0");  // the 3x3 s2 p1 shapes too: codes + gather
  // packed NHWC; vector-padded; randomly padded
  run_square_max(rng, h, nhwc_max_shapes(), 5, [](int variant) { return variant == 3 ? 4 : variant == 4 ? 3 : 1; },
                 [](int variant) { return variant == 1 || variant == 2 || variant == 3; });
}

// The register kernels' backward with the gather launched as a programmatic dependent of the argmax pass
// (FREEDNN_POOL_PDL=1, read at every call; compute capability 9.0, elsewhere the plain launch): the planar and
// channels-last shapes above, packed, with NaNs, ties and blends.
TEST(Pooling, MaxBackwardPdl) {
  auto rng = ft::make_rng();
  ft::Handle h;
  ft::ScopedEnv pdl("FREEDNN_POOL_PDL", "1");
  ft::ScopedEnv two_pass("FREEDNN_POOL_BWD_ONEPASS", "0");
  run_square_max(rng, h, planar_max_shapes(), 3, [](int) { return 0; },
                 [](int variant) { return variant == 1 || variant == 2; });
  run_square_max(rng, h, nhwc_max_shapes(), 3, [](int) { return 1; },
                 [](int variant) { return variant == 1 || variant == 2; });
}

// The one-pass backward of 3x3 stride-2 padding-1 max pooling (pooling2d_nhwc_bwd1.cu, the default; the forward
// of each case runs the register kernel): rows longer than the block's threads (several vectors per thread), strips
// of one output row (small images: as many strips as rows) and forced counts (one strip; three, a partial last
// strip), one and three steps staged ahead, odd and even planes, ceiling extents (windows past the input), channel-vector counts from 1 to 66, half and
// bfloat16, NaNs under both options, ties, beta != 0, padded strides. Float and double, C not a multiple of the
// vector and rows too long for shared memory take the two passes (or the tiles).
std::vector<SquareShape> onepass_shapes() {
  return {
      {CUDNN_DATA_HALF, {2, 64, 34, 114}, 3, 1, 2, false},   // pool1's C: 912 vectors a row
      {CUDNN_DATA_HALF, {1, 16, 34, 35}, 3, 1, 2, false},    // odd width
      {CUDNN_DATA_BFLOAT16, {2, 8, 19, 23}, 3, 1, 2, true},  // ceiling extents, 1 vector
      {CUDNN_DATA_BFLOAT16, {1, 264, 9, 31}, 3, 1, 2, false},  // 33 vectors
      {CUDNN_DATA_HALF, {1, 528, 5, 7}, 3, 1, 2, false},       // 66 vectors
      {CUDNN_DATA_HALF, {2, 8, 6, 6}, 3, 1, 2, true},          // last windows mostly padding
      {CUDNN_DATA_HALF, {1, 8, 1, 1}, 3, 1, 2, false},         // a single pixel
      {CUDNN_DATA_BFLOAT16, {1, 8, 2, 3}, 3, 1, 2, false},     // one output row, both dx rows under it
      {CUDNN_DATA_FLOAT, {1, 132, 9, 31}, 3, 1, 2, false},     // float: two passes
      {CUDNN_DATA_DOUBLE, {1, 6, 17, 16}, 3, 1, 2, false},     // two passes
      {CUDNN_DATA_HALF, {1, 12, 9, 9}, 3, 1, 2, false},        // C % 8 != 0: the tiles
      {CUDNN_DATA_HALF, {1, 2048, 3, 64}, 3, 1, 2, false},     // 256 KB x rows: two passes
  };
}

TEST(Pooling, NhwcMaxBackwardOnePass) {
  auto rng = ft::make_rng();
  ft::Handle h;
  ft::ScopedEnv onepass("FREEDNN_POOL_BWD_ONEPASS", "1");
  // packed NHWC; vector-padded; randomly padded
  const auto layout_of = [](int variant) { return variant == 3 ? 4 : variant == 4 ? 3 : 1; };
  const auto ties_at = [](int variant) { return variant == 1 || variant == 2 || variant == 3; };
  run_square_max(rng, h, onepass_shapes(), 5, layout_of, ties_at);
  for (const char* strips : {"1", "3"}) {
    SCOPED_TRACE(std::string("FREEDNN_POOL_BWD_STRIPS=") + strips);
    ft::ScopedEnv forced("FREEDNN_POOL_BWD_STRIPS", strips);
    const auto all = onepass_shapes();
    run_square_max(rng, h, {all[0], all[2], all[3]}, 3, layout_of, ties_at);
  }
}

// The info log names the one-pass kernel where it applies, and only there.
TEST(Pooling, NhwcMaxBackwardOnePassRuns) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "a GPU kernel";
  auto rng = ft::make_rng();
  ft::Handle h;
  ft::InfoLog log;
  const auto all = onepass_shapes();
  const std::string name = "one-pass max backward";
  int checked = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const bool takes = i <= 7;  // the rest: float, double, C % 8 != 0, rows too long
    log.text.clear();
    run_square_max(rng, h, {all[i]}, 1, [](int) { return 1; }, [](int) { return false; });
    if (log.text.empty()) continue;  // the case was another shard's (FREEDNN_TEST_PART)
    ++checked;
    EXPECT_EQ(log.text.find(name) != std::string::npos, takes) << "shape " << i;
  }
  if (std::getenv("FREEDNN_TEST_PART") == nullptr)  // unsharded: every case ran and logged
    EXPECT_EQ(checked, static_cast<int>(all.size()));
}

// freednnGetLastCallBytesMoved after a max-pooling backward: on the GPU the count of the path taken (x and dy read
// and dx written at least; NCHW half: the argmax-codes pair, two passes; NHWC half: the one-pass kernel), on the
// CPU none.
TEST(Pooling, MaxBackwardReportsBytesMoved) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (int layout : {0, 1}) {
    SCOPED_TRACE("layout " + std::to_string(layout));
    PoolDesc pd;
    FT_OK(cudnnSetPooling2dDescriptor(pd.d, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 3, 1, 1, 2, 2));
    const cudnnDataType_t dt = CUDNN_DATA_HALF;
    ft::HostTensor x = make_tensor(rng, dt, {2, 16, 20, 20}, layout), dx = x;
    ft::HostTensor y = make_tensor(rng, dt, {2, 16, 10, 10}, layout), dy = y;
    x.fill_uniform(rng, -1, 1);
    dy.fill_uniform(rng, -1, 1);
    ft::TensorDesc xd(x), yd(y);
    const Scale one(1.0), zero(0.0);
    FT_OK(cudnnPoolingForward(h, pd.d, one.ptr(dt), xd, x.data(), zero.ptr(dt), yd, y.data()));
    FT_OK(cudnnPoolingBackward(h, pd.d, one.ptr(dt), yd, y.data(), yd, dy.data(), xd, x.data(), zero.ptr(dt), xd,
                               dx.data()));
    double bytes = 0;
    int passes = -1;
    FT_OK(freednnGetLastCallBytesMoved(h, &bytes, &passes));
    if (ft::gpu_mode()) {
      EXPECT_EQ(passes, layout == 1 ? 1 : 2);
      EXPECT_GE(bytes, 2.0 * (2 * x.count() + y.count()));
    } else {
      EXPECT_EQ(bytes, -1);
      EXPECT_EQ(passes, 0);
    }
  }
}

// Backward of global average pooling (the GPU's broadcast kernel: packed NCHW-like planes of equal values, packed
// channels-last dx; 16-byte stores when dx is aligned, element stores otherwise): the ResNet-50 head in both
// layouts, element counts that are not a multiple of the vector (a partial last vector), 1x1 planes, C == 1, 3-D
// pooling, channels not a multiple of the vector, strided dy, dx one element off the 16-byte grid, beta != 0; padded
// dx takes the tiles.
TEST(Pooling, GlobalAverageBackward) {
  auto rng = ft::make_rng();
  ft::Handle h;
  struct Shape {
    cudnnDataType_t dt;
    int layout;  // of dx (and x)
    std::vector<int> x;
    int shift;   // dx this many elements past a 16-byte boundary
  };
  const Shape shapes[] = {
      {CUDNN_DATA_FLOAT, 0, {16, 2048, 7, 7}, 0},  // ResNet-50 head (N = 16), NCHW
      {CUDNN_DATA_HALF, 1, {16, 2048, 7, 7}, 0},   // the same, NHWC
      {CUDNN_DATA_BFLOAT16, 0, {3, 5, 7, 7}, 0},   // 735 elements: a partial last vector
      {CUDNN_DATA_BFLOAT16, 0, {3, 5, 7, 7}, 1},   // off the grid: element stores
      {CUDNN_DATA_FLOAT, 0, {2, 3, 5, 3}, 0},      // planes of 15: vectors across planes
      {CUDNN_DATA_FLOAT, 0, {2, 3, 1, 2}, 0},      // planes of 2: several planes per vector
      {CUDNN_DATA_HALF, 0, {2, 3, 1, 1}, 0},       // 1x1 planes
      {CUDNN_DATA_FLOAT, 0, {1, 1, 4, 5}, 0},      // C == 1
      {CUDNN_DATA_DOUBLE, 0, {2, 3, 4, 4}, 0},
      {CUDNN_DATA_DOUBLE, 1, {2, 6, 3, 3}, 0},
      {CUDNN_DATA_BFLOAT16, 1, {2, 12, 3, 3}, 0},  // NHWC, C % 8 != 0: vectors across pixels
      {CUDNN_DATA_FLOAT, 1, {2, 12, 3, 5}, 1},     // NHWC off the grid
      {CUDNN_DATA_FLOAT, 0, {2, 4, 3, 4, 5}, 0},   // 3-D, NCDHW
      {CUDNN_DATA_HALF, 1, {2, 16, 2, 3, 4}, 0},   // 3-D, NDHWC
      {CUDNN_DATA_FLOAT, 2, {2, 8, 7, 7}, 0},      // padded NCHW: tiles
  };
  for (const Shape& sh : shapes) {
    if (!ft::take_case()) continue;
    const bool big = sh.x[0] * sh.x[1] > 10000;
    for (auto m : {CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING}) {
      if (big && m == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING) continue;  // one run of the large shapes
      Case c;
      c.dt = sh.dt;
      c.mode = m;
      c.xdims = sh.x;
      c.ydims = {sh.x[0], sh.x[1]};
      for (size_t d = 2; d < sh.x.size(); ++d) {
        c.win.push_back(sh.x[d]);
        c.pad.push_back(0);
        c.stride.push_back(ft::uniform_int(rng, 1, 2));
        c.ydims.push_back(1);
      }
      c.layout = sh.layout;
      c.alpha = ft::uniform_int(rng, 0, 1) ? 1.0 : ft::uniform(rng, 0.5, 2);
      c.beta = ft::uniform_int(rng, 0, 1) ? ft::uniform(rng, -1, 1) : 0.0;
      SCOPED_TRACE(c.str() + " shift=" + std::to_string(sh.shift));
      PoolDesc pd;
      ASSERT_EQ(set_desc(pd, c), CUDNN_STATUS_SUCCESS);
      ft::HostTensor x = make_tensor(rng, c.dt, c.xdims, c.layout), y = make_tensor(rng, c.dt, c.ydims, 0);
      ft::HostTensor dy = make_tensor(rng, c.dt, c.ydims, ft::uniform_int(rng, 0, 3));
      ft::HostTensor dx = make_tensor(rng, c.dt, c.xdims, c.layout);
      fill(rng, x, false);
      fill(rng, dy, false);
      if (c.beta != 0) fill(rng, dx, false);
      else dx.poison();
      // dx's elements `shift` elements into a larger, poisoned buffer
      ft::HostTensor dxb(c.dt, {1, static_cast<int>(dx.span()) + sh.shift, 1, 1});
      dxb.poison();
      {
        const ft::HostPhase host;
        for (int64_t i = 0; i < dx.count(); ++i) dxb.set_raw(sh.shift + dx.offset(i), dx.get(i));
      }
      void* dxp = static_cast<char*>(dxb.data()) + sh.shift * ft::type_size(c.dt);
      ft::TensorDesc xd(x), yd(y), dyd(dy), dxd(dx);
      const Scale a(c.alpha), b(c.beta);
      ASSERT_EQ(cudnnPoolingBackward(h, pd, a.ptr(c.dt), yd, y.data(), dyd, dy.data(), xd, x.data(), b.ptr(c.dt), dxd,
                                     dxp),
                CUDNN_STATUS_SUCCESS);
      std::vector<double> got(static_cast<size_t>(dx.count()));
      {
        const ft::HostPhase host;
        for (int64_t i = 0; i < dx.count(); ++i) got[i] = dxb.get_raw(sh.shift + dx.offset(i));
      }
      const ref::Tensor r =
          ref::pooling_backward(params(c), ref::Tensor(c.xdims, x.values()), ref::Tensor(c.ydims, dy.values()));
      EXPECT_TRUE(ft::near(got, ref::blend(r.v, dx.values(), c.alpha, c.beta), ft::tolerance(c.dt), "dx"));
      // packed dx beyond the element range untouched
      for (int k = 0; k < sh.shift; ++k) EXPECT_TRUE(std::isnan(dxb.get_raw(k)));
    }
  }
}

// Global average pooling (windows = the whole plane, no padding, a 1 x 1 output): the GPU backend's one-pass plane
// sums (packed NCHW: planes staged in shared memory with 16-byte loads from any start; packed NHWC: 16-byte column
// sums), with the ResNet-50 head 64x2048x7x7 in both layouts, 3-D pooling, odd sizes; and the cases that must take
// the tiled kernels: NHWC with C not a multiple of the vector, x off the 16-byte grid in NHWC, padded layouts, planes
// too large to stage.
TEST(Pooling, GlobalAverage) {
  auto rng = ft::make_rng();
  ft::Handle h;
  struct Shape {
    cudnnDataType_t dt;
    int layout;
    std::vector<int> x;
    bool shifted;  // x one element past a 16-byte boundary
  };
  const Shape shapes[] = {
      {CUDNN_DATA_FLOAT, 0, {64, 2048, 7, 7}, false},  // ResNet-50 head, NCHW
      {CUDNN_DATA_HALF, 1, {64, 2048, 7, 7}, false},   // ResNet-50 head, NHWC
      {CUDNN_DATA_BFLOAT16, 0, {3, 5, 7, 7}, true},    // NCHW from an odd start
      {CUDNN_DATA_FLOAT, 0, {2, 3, 5, 3}, false},      // odd plane
      {CUDNN_DATA_FLOAT, 0, {1, 3, 30, 30}, false},    // 900-element planes: 32 threads per plane
      {CUDNN_DATA_DOUBLE, 0, {2, 3, 40, 40}, false},   // planes too large to stage: tiles
      {CUDNN_DATA_DOUBLE, 1, {2, 6, 3, 3}, false},     // NHWC doubles
      {CUDNN_DATA_BFLOAT16, 1, {2, 40, 2, 3}, false},  // NHWC, C = 5 vectors of 8 (a partial column group)
      {CUDNN_DATA_FLOAT, 1, {2, 12, 3, 5}, true},      // NHWC off the grid: tiles
      {CUDNN_DATA_HALF, 1, {2, 12, 3, 3}, false},      // NHWC, C % 8 != 0: tiles
      {CUDNN_DATA_FLOAT, 1, {2, 64, 20, 20}, false},   // NHWC, long columns, few of them: tiles
      {CUDNN_DATA_FLOAT, 2, {2, 8, 7, 7}, false},      // padded NCHW: tiles
      {CUDNN_DATA_FLOAT, 0, {2, 4, 3, 4, 5}, false},   // 3-D, NCDHW
      {CUDNN_DATA_HALF, 1, {2, 16, 2, 3, 4}, false},   // 3-D, NDHWC
  };
  for (const Shape& sh : shapes) {
    if (!ft::take_case()) continue;
    const bool big = sh.x[0] * sh.x[1] > 10000;
    for (auto m : {CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING}) {
      if (big && m == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING) continue;  // one run of the large shapes
      Case c;
      c.dt = sh.dt;
      c.mode = m;
      c.xdims = sh.x;
      c.ydims = {sh.x[0], sh.x[1]};
      for (size_t d = 2; d < sh.x.size(); ++d) {
        c.win.push_back(sh.x[d]);
        c.pad.push_back(0);
        c.stride.push_back(ft::uniform_int(rng, 1, 2));
        c.ydims.push_back(1);
      }
      c.layout = sh.layout;
      c.alpha = ft::uniform_int(rng, 0, 1) ? 1.0 : ft::uniform(rng, 0.5, 2);
      c.beta = ft::uniform_int(rng, 0, 1) ? ft::uniform(rng, -1, 1) : 0.0;
      SCOPED_TRACE(c.str() + (sh.shifted ? " x shifted" : ""));
      PoolDesc pd;
      ASSERT_EQ(set_desc(pd, c), CUDNN_STATUS_SUCCESS);
      ft::HostTensor x = make_tensor(rng, c.dt, c.xdims, c.layout);
      ft::HostTensor y = make_tensor(rng, c.dt, c.ydims, ft::uniform_int(rng, 0, 3));
      fill(rng, x, false);
      if (c.beta != 0) fill(rng, y, false);
      else y.poison();
      const std::vector<double> prior = y.values();
      // x's bytes one element into a larger buffer (x is packed here)
      ft::HostTensor buf(c.dt, {1, static_cast<int>(x.span()) + 16, 1, 1});
      const size_t es = ft::type_size(c.dt);
      ft::sync_device();
      std::memcpy(static_cast<char*>(buf.data()) + es, x.data(), static_cast<size_t>(x.span()) * es);
      const void* xp = sh.shifted ? static_cast<const void*>(static_cast<char*>(buf.data()) + es) : x.data();
      ft::TensorDesc xd(x), yd(y);
      const Scale a(c.alpha), b(c.beta);
      ASSERT_EQ(cudnnPoolingForward(h, pd, a.ptr(c.dt), xd, xp, b.ptr(c.dt), yd, y.data()), CUDNN_STATUS_SUCCESS);
      const ref::Tensor r = ref::pooling_forward(params(c), ref::Tensor(c.xdims, x.values()), spatial(c.ydims));
      EXPECT_TRUE(ft::near(y.values(), ref::blend(r.v, prior, c.alpha, c.beta), ft::tolerance(c.dt), "y"));
    }
  }
}

// Central differences of the library's own forward, projected on dy, against the library's backward.
TEST(Pooling, BackwardFiniteDifference) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (auto m : kModes)
    for (int t = 0; t < 3; ++t) {
      Case c = random_case(rng, CUDNN_DATA_DOUBLE, m);
      c.alpha = 1;
      c.beta = 0;
      SCOPED_TRACE(c.str());
      PoolDesc pd;
      ASSERT_EQ(set_desc(pd, c), CUDNN_STATUS_SUCCESS);
      ft::HostTensor x(CUDNN_DATA_DOUBLE, c.xdims), y(CUDNN_DATA_DOUBLE, c.ydims), dy(CUDNN_DATA_DOUBLE, c.ydims),
          dx(CUDNN_DATA_DOUBLE, c.xdims);
      x.fill_uniform(rng, -1, 1);
      dy.fill_uniform(rng, -1, 1);
      ft::TensorDesc xd(x), yd(y), dyd(dy), dxd(dx);
      const double one = 1, zero = 0;
      auto f = [&](const ft::HostTensor& xin) {
        EXPECT_EQ(cudnnPoolingForward(h, pd, &one, xd, xin.data(), &zero, yd, y.data()), CUDNN_STATUS_SUCCESS);
        double s = 0;
        for (int64_t j = 0; j < y.count(); ++j) s += y.get(j) * dy.get(j);
        return s;
      };
      f(x);
      ASSERT_EQ(cudnnPoolingBackward(h, pd, &one, yd, y.data(), dyd, dy.data(), xd, x.data(), &zero, dxd, dx.data()),
                CUDNN_STATUS_SUCCESS);
      const double eps = 1e-6;
      std::vector<double> fd(static_cast<size_t>(x.count()));
      for (int64_t i = 0; i < x.count(); ++i) {
        ft::HostTensor xp = x, xm = x;
        xp.set(i, x.get(i) + eps);
        xm.set(i, x.get(i) - eps);
        fd[i] = (f(xp) - f(xm)) / (2 * eps);
      }
      EXPECT_TRUE(ft::near(dx.values(), fd, 1e-6, "dx vs finite differences"));
    }
}

// Ties: the first maximum in window order takes the whole gradient, overlapping windows accumulate.
TEST(Pooling, MaxBackwardTieRule) {
  ft::Handle h;
  PoolDesc pd;
  FT_OK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 1, 1));
  ft::HostTensor x(CUDNN_DATA_FLOAT, {1, 1, 3, 3}), y(CUDNN_DATA_FLOAT, {1, 1, 2, 2}), dy(CUDNN_DATA_FLOAT, {1, 1, 2, 2}),
      dx(CUDNN_DATA_FLOAT, {1, 1, 3, 3});
  for (int i = 0; i < 9; ++i) x.set(i, 1.0);
  for (int i = 0; i < 4; ++i) dy.set(i, 1.0 + i);
  dx.poison();
  ft::TensorDesc xd(x), yd(y), dyd(dy), dxd(dx);
  const float one = 1, zero = 0;
  FT_OK(cudnnPoolingBackward(h, pd, &one, yd, y.data(), dyd, dy.data(), xd, x.data(), &zero, dxd, dx.data()));
  // Window (i, j) starts at x(i, j): each picks its own top-left element.
  EXPECT_EQ(dx.values(), (std::vector<double>{1, 2, 0, 3, 4, 0, 0, 0, 0}));
}

TEST(Pooling, NanPropagation) {
  ft::Handle h;
  PoolDesc pd;
  ft::HostTensor x(CUDNN_DATA_FLOAT, {1, 1, 2, 4}), y(CUDNN_DATA_FLOAT, {1, 1, 1, 2});
  const double xv[8] = {1, NAN, 5, 6, 2, 3, 7, 8};
  for (int i = 0; i < 8; ++i) x.set(i, xv[i]);
  ft::TensorDesc xd(x), yd(y);
  const float one = 1, zero = 0;
  FT_OK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
  FT_OK(cudnnPoolingForward(h, pd, &one, xd, x.data(), &zero, yd, y.data()));
  EXPECT_TRUE(std::isnan(y.get(0)));
  EXPECT_EQ(y.get(1), 8.0);
  FT_OK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
  FT_OK(cudnnPoolingForward(h, pd, &one, xd, x.data(), &zero, yd, y.data()));
  EXPECT_EQ(y.get(0), 3.0);
  EXPECT_EQ(y.get(1), 8.0);
}

TEST(Pooling, BadArguments) {
  PoolDesc pd;
  const int w[2] = {2, 2}, p[2] = {0, 0}, s[2] = {2, 2}, bad[2] = {0, 2}, neg[2] = {-1, 0};
  auto nan = CUDNN_NOT_PROPAGATE_NAN;
  EXPECT_EQ(cudnnCreatePoolingDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetPooling2dDescriptor(nullptr, CUDNN_POOLING_MAX, nan, 2, 2, 0, 0, 2, 2), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetPooling2dDescriptor(pd, static_cast<cudnnPoolingMode_t>(9), nan, 2, 2, 0, 0, 2, 2),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, static_cast<cudnnNanPropagation_t>(5), 2, 2, 0, 0, 2, 2),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, nan, 0, 2, 0, 0, 2, 2), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, nan, 2, 2, -1, 0, 2, 2), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, nan, 2, 2, 0, 0, 2, 0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetPoolingNdDescriptor(pd, CUDNN_POOLING_MAX, nan, 2, bad, p, s), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetPoolingNdDescriptor(pd, CUDNN_POOLING_MAX, nan, 2, w, neg, s), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetPoolingNdDescriptor(pd, CUDNN_POOLING_MAX, nan, 0, w, p, s), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetPoolingNdDescriptor(pd, CUDNN_POOLING_MAX, nan, 2, nullptr, p, s), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetPoolingNdDescriptor(pd, CUDNN_POOLING_MAX, nan, 7, w, p, s), CUDNN_STATUS_NOT_SUPPORTED);
  cudnnPoolingMode_t m;
  cudnnNanPropagation_t nn;
  int nb, o[2];
  EXPECT_EQ(cudnnGetPoolingNdDescriptor(pd, 2, &m, &nn, &nb, o, o, o), CUDNN_STATUS_BAD_PARAM);  // never set
  FT_OK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, nan, 2, 2, 0, 0, 2, 2));
  EXPECT_EQ(cudnnGetPoolingNdDescriptor(pd, 2, nullptr, &nn, &nb, o, o, o), CUDNN_STATUS_BAD_PARAM);

  ft::Handle h;
  ft::HostTensor x(CUDNN_DATA_FLOAT, {1, 2, 4, 4}), y(CUDNN_DATA_FLOAT, {1, 2, 2, 2});
  ft::HostTensor yc(CUDNN_DATA_FLOAT, {1, 3, 2, 2}), ybig(CUDNN_DATA_FLOAT, {1, 2, 4, 2});
  ft::HostTensor yh(CUDNN_DATA_HALF, {1, 2, 2, 2}), x5(CUDNN_DATA_FLOAT, {1, 2, 4, 4, 4});
  ft::HostTensor xi(CUDNN_DATA_INT32, {1, 2, 4, 4}), yi(CUDNN_DATA_INT32, {1, 2, 2, 2});
  ft::HostTensor x8(CUDNN_DATA_INT8, {1, 2, 4, 4}), y8(CUDNN_DATA_INT8, {1, 2, 2, 2});
  ft::TensorDesc xd(x), yd(y), ycd(yc), ybd(ybig), yhd(yh), x5d(x5), xid(xi), yid(yi), x8d(x8), y8d(y8);
  const float one = 1, zero = 0;
  const auto fwd = [&](cudnnHandle_t hh, cudnnPoolingDescriptor_t d, const void* a, cudnnTensorDescriptor_t xx,
                       const void* xp, cudnnTensorDescriptor_t yy, void* yp) {
    return cudnnPoolingForward(hh, d, a, xx, xp, &zero, yy, yp);
  };
  EXPECT_EQ(fwd(nullptr, pd, &one, xd, x.data(), yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, nullptr, &one, xd, x.data(), yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, pd, nullptr, xd, x.data(), yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, pd, &one, nullptr, x.data(), yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, pd, &one, xd, nullptr, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, pd, &one, xd, x.data(), yd, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(h, pd, &one, xd, x.data(), ycd, yc.data()), CUDNN_STATUS_BAD_PARAM);   // C differs
  EXPECT_EQ(fwd(h, pd, &one, xd, x.data(), ybd, ybig.data()), CUDNN_STATUS_BAD_PARAM);  // too many windows
  EXPECT_EQ(fwd(h, pd, &one, xd, x.data(), yhd, yh.data()), CUDNN_STATUS_BAD_PARAM);    // dtype differs
  EXPECT_EQ(fwd(h, pd, &one, x5d, x5.data(), yd, y.data()), CUDNN_STATUS_BAD_PARAM);    // rank differs
  EXPECT_EQ(fwd(h, pd, &one, xid, xi.data(), yid, yi.data()), CUDNN_STATUS_NOT_SUPPORTED);
  FT_OK(fwd(h, pd, &one, x8d, x8.data(), y8d, y8.data()));
  ft::HostTensor dx(CUDNN_DATA_FLOAT, {1, 2, 4, 4}), dy(CUDNN_DATA_FLOAT, {1, 2, 2, 2});
  ft::TensorDesc dxd(dx), dyd(dy);
  EXPECT_EQ(cudnnPoolingBackward(h, pd, &one, yd, y.data(), dyd, dy.data(), xd, x.data(), &zero, dxd, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnPoolingBackward(h, pd, &one, yd, y.data(), xd, dy.data(), xd, x.data(), &zero, dxd, dx.data()),
            CUDNN_STATUS_BAD_PARAM);  // dy shape differs from y
  EXPECT_EQ(cudnnPoolingBackward(h, pd, &one, yd, y.data(), dyd, dy.data(), xd, x.data(), &zero, yd, dx.data()),
            CUDNN_STATUS_BAD_PARAM);  // dx shape differs from x
  EXPECT_EQ(cudnnPoolingBackward(h, pd, &one, y8d, y8.data(), y8d, y8.data(), x8d, x8.data(), &zero, x8d, x8.data()),
            CUDNN_STATUS_NOT_SUPPORTED);
  FT_OK(cudnnPoolingBackward(h, pd, &one, yd, y.data(), dyd, dy.data(), xd, x.data(), &zero, dxd, dx.data()));
  EXPECT_EQ(cudnnDestroyPoolingDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
}

}  // namespace
