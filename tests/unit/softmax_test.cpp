// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include <cmath>
#include <cstring>
#include <tuple>

#ifdef FT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include "common/test_util.h"
#include "ref/softmax.h"
#include "unit/pointwise_test_util.h"

namespace {

const cudnnSoftmaxAlgorithm_t kAlgos[] = {CUDNN_SOFTMAX_FAST, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_LOG};
const cudnnSoftmaxMode_t kModes[] = {CUDNN_SOFTMAX_MODE_INSTANCE, CUDNN_SOFTMAX_MODE_CHANNEL};

std::string what(const char* dir, cudnnDataType_t t, cudnnSoftmaxAlgorithm_t a, cudnnSoftmaxMode_t m,
                 const ft::HostTensor& x, const ft::HostTensor& y) {
  return std::string("softmax ") + dir + " " + ft::type_name(t) + " algo " + std::to_string(a) + " mode " +
         std::to_string(m) + " " + x.str() + " -> " + y.str();
}

TEST(Softmax, ForwardRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnDataType_t t : pt::float_types()) {
    for (cudnnSoftmaxAlgorithm_t algo : kAlgos) {
      for (cudnnSoftmaxMode_t mode : kModes) {
        const auto dims = pt::random_dims(rng, ft::uniform_int(rng, 1, 3), 3, 6, 4);
        ft::HostTensor x = pt::random_tensor(rng, t, dims), y = pt::random_tensor(rng, t, dims);
        x.fill_uniform(rng, -4, 4);
        const auto [alpha, beta] = pt::random_alpha_beta(rng);
        pt::prepare_output(rng, y, beta);
        const ft::HostTensor prior = y;
        ft::TensorDesc xd(x), yd(y);
        const pt::Scale a(alpha), b(beta);
        FT_OK(cudnnSoftmaxForward(h, algo, mode, a.ptr(t), xd, x.data(), b.ptr(t), yd, y.data()));
        const auto want = ref::blend(ref::softmax_forward(algo, mode, pt::to_ref(x)).v, prior.values(), a.seen(t),
                                     b.seen(t));
        EXPECT_TRUE(ft::near(y.values(), want, pt::tol(t), what("fwd", t, algo, mode, x, y)));
        EXPECT_TRUE(pt::gaps_untouched(y));
      }
    }
  }
}

TEST(Softmax, ForwardLargeInputsAccurate) {
  // Max subtraction keeps ACCURATE and LOG finite where exp(x) overflows float.
  ft::Handle h;
  const std::vector<int> dims{2, 7, 1, 3};
  ft::HostTensor x(CUDNN_DATA_FLOAT, dims), y(CUDNN_DATA_FLOAT, dims);
  auto rng = ft::make_rng();
  x.fill_uniform(rng, 100, 120);
  ft::TensorDesc d(x);
  const float one = 1, zero = 0;
  for (cudnnSoftmaxAlgorithm_t algo : {CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_LOG}) {
    y.poison();
    FT_OK(cudnnSoftmaxForward(h, algo, CUDNN_SOFTMAX_MODE_CHANNEL, &one, d, x.data(), &zero, d, y.data()));
    EXPECT_TRUE(ft::near(y.values(), ref::softmax_forward(algo, CUDNN_SOFTMAX_MODE_CHANNEL, pt::to_ref(x)).v, 1e-5,
                         "large inputs"));
  }
}

TEST(Softmax, BackwardRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (cudnnDataType_t t : pt::float_types()) {
    for (cudnnSoftmaxAlgorithm_t algo : kAlgos) {
      for (cudnnSoftmaxMode_t mode : kModes) {
        const auto dims = pt::random_dims(rng, ft::uniform_int(rng, 1, 3), 3, 6, 4);
        ft::HostTensor x(CUDNN_DATA_DOUBLE, dims);
        x.fill_uniform(rng, -3, 3);
        const ref::Tensor yr = ref::softmax_forward(algo, mode, pt::to_ref(x));
        ft::HostTensor y = pt::random_tensor(rng, t, dims), dy = pt::random_tensor(rng, t, dims),
                       dx = pt::random_tensor(rng, t, dims);
        y.set_values(yr.v);
        dy.fill_uniform(rng, -1, 1);
        const auto [alpha, beta] = pt::random_alpha_beta(rng);
        pt::prepare_output(rng, dx, beta);
        const ft::HostTensor prior = dx;
        ft::TensorDesc yd(y), dyd(dy), dxd(dx);
        const pt::Scale a(alpha), b(beta);
        FT_OK(cudnnSoftmaxBackward(h, algo, mode, a.ptr(t), yd, y.data(), dyd, dy.data(), b.ptr(t), dxd, dx.data()));
        // The reference takes the stored y (what the library reads), so both see the same rounding.
        const auto want = ref::blend(ref::softmax_backward(algo, mode, pt::to_ref(y), pt::to_ref(dy)).v,
                                     prior.values(), a.seen(t), b.seen(t));
        EXPECT_TRUE(ft::near(dx.values(), want, pt::tol(t), what("bwd", t, algo, mode, y, dx)));
        EXPECT_TRUE(pt::gaps_untouched(dx));
      }
    }
  }
}

// Rows contiguous in memory, a multiple of 16 bytes long, 16-byte aligned: the GPU backend's vectorized warp-row
// kernel (CHANNEL with a unit channel stride: NHWC, or H*W == 1; packed INSTANCE rows), forward and backward.
TEST(Softmax, ContiguousRows) {
  auto rng = ft::make_rng();
  ft::Handle h;
  struct Shape {
    std::vector<int> dims;
    bool nhwc;
    cudnnSoftmaxMode_t mode;
  };
  const Shape shapes[] = {{{5, 1000, 1, 1}, false, CUDNN_SOFTMAX_MODE_CHANNEL},
                          {{3, 40, 2, 3}, true, CUDNN_SOFTMAX_MODE_CHANNEL},
                          {{2, 16, 3, 1}, true, CUDNN_SOFTMAX_MODE_CHANNEL},
                          {{4, 24, 2, 2}, false, CUDNN_SOFTMAX_MODE_INSTANCE},
                          {{3, 8, 4, 4}, true, CUDNN_SOFTMAX_MODE_INSTANCE}};
  for (const Shape& sh : shapes) {
    for (cudnnDataType_t t : pt::float_types()) {
      if (!ft::take_case()) continue;
      for (cudnnSoftmaxAlgorithm_t algo : kAlgos) {
        ft::HostTensor x(t, sh.dims, sh.nhwc), y(t, sh.dims, sh.nhwc);
        x.fill_uniform(rng, -4, 4);
        auto [alpha, beta] = pt::random_alpha_beta(rng);
        pt::prepare_output(rng, y, beta);
        ft::HostTensor prior = y;
        ft::TensorDesc xd(x), yd(y);
        pt::Scale a(alpha), b(beta);
        FT_OK(cudnnSoftmaxForward(h, algo, sh.mode, a.ptr(t), xd, x.data(), b.ptr(t), yd, y.data()));
        auto want = ref::blend(ref::softmax_forward(algo, sh.mode, pt::to_ref(x)).v, prior.values(), a.seen(t),
                               b.seen(t));
        EXPECT_TRUE(ft::near(y.values(), want, pt::tol(t), what("fwd", t, algo, sh.mode, x, y)));

        ft::HostTensor dy(t, sh.dims, sh.nhwc), dx(t, sh.dims, sh.nhwc);
        dy.fill_uniform(rng, -1, 1);
        std::tie(alpha, beta) = pt::random_alpha_beta(rng);
        pt::prepare_output(rng, dx, beta);
        prior = dx;
        ft::TensorDesc dyd(dy), dxd(dx);
        a = pt::Scale(alpha);
        b = pt::Scale(beta);
        FT_OK(cudnnSoftmaxBackward(h, algo, sh.mode, a.ptr(t), yd, y.data(), dyd, dy.data(), b.ptr(t), dxd,
                                   dx.data()));
        want = ref::blend(ref::softmax_backward(algo, sh.mode, pt::to_ref(y), pt::to_ref(dy)).v, prior.values(),
                          a.seen(t), b.seen(t));
        EXPECT_TRUE(ft::near(dx.values(), want, pt::tol(t), what("bwd", t, algo, sh.mode, y, dx)));
      }
    }
  }
}

// A copy of t's bytes `elems` elements past the start of a larger buffer: one element puts the pointer off the
// 16-byte grid (the GPU fast paths must decline it); four put 16-bit data on the 8-byte grid only. Packed tensors
// only (span == count).
struct Shifted {
  ft::HostTensor buf;
  size_t es, off;
  explicit Shifted(const ft::HostTensor& t, int elems = 1)
      : buf(t.dtype, {1, static_cast<int>(t.span()) + 16, 1, 1}), es(ft::type_size(t.dtype)), off(es * elems) {
    buf.poison();
    ft::sync_device();
    std::memcpy(static_cast<char*>(buf.data()) + off, t.data(), static_cast<size_t>(t.span()) * es);
  }
  void* data() { return static_cast<char*>(buf.data()) + off; }
  void copy_to(ft::HostTensor& t) {  // the shifted bytes back into t
    ft::sync_device();
    std::memcpy(t.data(), data(), static_cast<size_t>(t.span()) * es);
  }
};

// Short contiguous rows, forward: the GPU backend's latency kernel (one block of 32..256 threads per row, at most two
// vectors per thread; 8-byte vectors of 4 elements for 16-bit types, 16-byte ones for their rows of 2049..4096):
// ResNet-50's 64 x 1000 classifier in NCHW and NHWC (H = W = 1), CHANNEL over NHWC positions, packed INSTANCE rows,
// the longest rows it takes (2048 floats), rows of a multiple of 4 but not 8 elements, x and y on the 8-byte grid
// only (16-bit types), in place; and neighbours that must take the other kernels: rows one vector too long, a
// length that is not a whole number of vectors, x or y off the 16-byte grid.
TEST(Softmax, ShortRowsForward) {
  auto rng = ft::make_rng();
  ft::Handle h;
  struct Shape {
    std::vector<int> dims;
    bool nhwc;
    cudnnSoftmaxMode_t mode;
    // 0: none, 1: x off the 16-byte grid, 2: y off it, 3: in place (y = x), 4: x and y four elements in (16-bit
    // types: on the 8-byte grid only)
    int shift;
  };
  const Shape shapes[] = {{{64, 1000, 1, 1}, false, CUDNN_SOFTMAX_MODE_CHANNEL, 0},
                          {{64, 1000, 1, 1}, true, CUDNN_SOFTMAX_MODE_CHANNEL, 0},
                          {{16, 1000, 1, 1}, false, CUDNN_SOFTMAX_MODE_INSTANCE, 0},
                          {{16, 1000, 1, 1}, false, CUDNN_SOFTMAX_MODE_CHANNEL, 3},
                          {{2, 24, 3, 5}, true, CUDNN_SOFTMAX_MODE_CHANNEL, 0},
                          {{3, 8, 2, 4}, false, CUDNN_SOFTMAX_MODE_INSTANCE, 0},
                          {{3, 8, 2, 4}, true, CUDNN_SOFTMAX_MODE_INSTANCE, 0},
                          {{3, 2048, 1, 1}, false, CUDNN_SOFTMAX_MODE_CHANNEL, 0},
                          {{2, 2056, 1, 1}, false, CUDNN_SOFTMAX_MODE_CHANNEL, 0},
                          {{5, 1001, 1, 1}, false, CUDNN_SOFTMAX_MODE_CHANNEL, 0},
                          {{6, 1000, 1, 1}, false, CUDNN_SOFTMAX_MODE_CHANNEL, 1},
                          {{6, 1000, 1, 1}, true, CUDNN_SOFTMAX_MODE_CHANNEL, 2},
                          {{3, 1004, 1, 1}, true, CUDNN_SOFTMAX_MODE_CHANNEL, 0},
                          {{4, 3, 2, 2}, false, CUDNN_SOFTMAX_MODE_INSTANCE, 0},
                          {{2, 4100, 1, 1}, true, CUDNN_SOFTMAX_MODE_CHANNEL, 0},
                          {{8, 1000, 1, 1}, true, CUDNN_SOFTMAX_MODE_CHANNEL, 4},
                          {{5, 12, 1, 1}, false, CUDNN_SOFTMAX_MODE_CHANNEL, 4}};
  for (const Shape& sh : shapes) {
    for (cudnnDataType_t t : pt::float_types()) {
      if (!ft::take_case()) continue;
      for (cudnnSoftmaxAlgorithm_t algo : kAlgos) {
        ft::HostTensor x(t, sh.dims, sh.nhwc), y(t, sh.dims, sh.nhwc);
        x.fill_uniform(rng, -6, 6);
        const ft::HostTensor x0 = x;
        auto [alpha, beta] = pt::random_alpha_beta(rng);
        if (sh.shift == 3) beta = 0;  // in place: y is x
        pt::prepare_output(rng, y, beta);
        const ft::HostTensor prior = y;
        ft::TensorDesc xd(x), yd(y);
        const pt::Scale a(alpha), b(beta);
        const int elems = sh.shift == 4 ? 4 : 1;
        Shifted xs(x, elems), ys(y, elems);
        void* xp = sh.shift == 1 || sh.shift == 4 ? xs.data() : x.data();
        void* yp = sh.shift == 2 || sh.shift == 4 ? ys.data() : sh.shift == 3 ? x.data() : y.data();
        FT_OK(cudnnSoftmaxForward(h, algo, sh.mode, a.ptr(t), xd, xp, b.ptr(t), yd, yp));
        if (sh.shift == 2 || sh.shift == 4) ys.copy_to(y);
        const ft::HostTensor& got = sh.shift == 3 ? x : y;
        const auto want = ref::blend(ref::softmax_forward(algo, sh.mode, pt::to_ref(x0)).v, prior.values(),
                                     a.seen(t), b.seen(t));
        EXPECT_TRUE(ft::near(got.values(), want, pt::tol(t), what("fwd", t, algo, sh.mode, x0, got) +
                                                                  " shift " + std::to_string(sh.shift)));
      }
    }
  }
}

// Short contiguous rows, backward: the GPU backend's latency kernel (softmax_bwd_rows: one block per row, y, dy and
// dx on the forward's vectors), beta 0 and beta != 0: 1000-class rows (the 64 x 1000 classifier's) in NCHW and NHWC
// (CHANNEL and INSTANCE), CHANNEL over NHWC positions, packed INSTANCE rows, the longest rows it takes (2048 floats),
// rows of a multiple of 4 but not 8 elements, in place (dx = dy), the three tensors on the 8-byte grid only (16-bit
// types); and neighbours that must take the other kernels: rows one vector too long, a length that is not a whole
// number of vectors, each of y, dy and dx off the 16-byte grid. 17000 rows of 8: more rows than the grid's blocks
// on an H200 (blocks loop).
TEST(Softmax, ShortRowsBackward) {
  auto rng = ft::make_rng();
  ft::Handle h;
  struct Shape {
    std::vector<int> dims;
    bool nhwc;
    cudnnSoftmaxMode_t mode;
    // 0: none, 1: y off the 16-byte grid, 2: dy off it, 3: dx off it, 4: in place (dx = dy), 5: y, dy and dx four
    // elements in (16-bit types: on the 8-byte grid only)
    int shift;
  };
  const Shape shapes[] = {{{24, 1000, 1, 1}, false, CUDNN_SOFTMAX_MODE_INSTANCE, 0},
                          {{8, 1000, 1, 1}, false, CUDNN_SOFTMAX_MODE_CHANNEL, 0},
                          {{8, 1000, 1, 1}, true, CUDNN_SOFTMAX_MODE_INSTANCE, 0},
                          {{4, 1000, 1, 1}, false, CUDNN_SOFTMAX_MODE_INSTANCE, 4},
                          {{2, 24, 3, 5}, true, CUDNN_SOFTMAX_MODE_CHANNEL, 0},
                          {{3, 8, 2, 4}, false, CUDNN_SOFTMAX_MODE_INSTANCE, 0},
                          {{3, 8, 2, 4}, true, CUDNN_SOFTMAX_MODE_INSTANCE, 0},
                          {{2, 2048, 1, 1}, false, CUDNN_SOFTMAX_MODE_CHANNEL, 0},
                          {{1, 2056, 1, 1}, false, CUDNN_SOFTMAX_MODE_INSTANCE, 0},
                          {{2, 1001, 1, 1}, false, CUDNN_SOFTMAX_MODE_INSTANCE, 0},
                          {{2, 1000, 1, 1}, false, CUDNN_SOFTMAX_MODE_INSTANCE, 1},
                          {{2, 1000, 1, 1}, true, CUDNN_SOFTMAX_MODE_CHANNEL, 2},
                          {{2, 1000, 1, 1}, false, CUDNN_SOFTMAX_MODE_CHANNEL, 3},
                          {{3, 1004, 1, 1}, true, CUDNN_SOFTMAX_MODE_CHANNEL, 0},
                          {{4, 3, 2, 2}, false, CUDNN_SOFTMAX_MODE_INSTANCE, 0},
                          {{3, 1000, 1, 1}, true, CUDNN_SOFTMAX_MODE_INSTANCE, 5},
                          {{5, 12, 1, 1}, false, CUDNN_SOFTMAX_MODE_CHANNEL, 5},
                          {{300, 40, 1, 1}, false, CUDNN_SOFTMAX_MODE_INSTANCE, 0},
                          {{17000, 8, 1, 1}, true, CUDNN_SOFTMAX_MODE_CHANNEL, 0}};
  // The reference costs O(count x row length): rows of 1000 and more, and the many-row shape, run one algorithm and
  // one beta per type (rotating), the others every combination.
  int pick = 0;  // the combination a long-row (shape, type) runs: algorithm pick % 3, beta != 0 when pick % 6 >= 3
  for (const Shape& sh : shapes) {
    int64_t count = 1;
    for (int d : sh.dims) count *= d;
    const bool long_rows = sh.dims[1] >= 1000 || count > 100000;
    for (cudnnDataType_t t : pt::float_types()) {
      ++pick;
      if (!ft::take_case()) continue;
      for (int ai = 0; ai < 3; ++ai) {
        const cudnnSoftmaxAlgorithm_t algo = kAlgos[ai];
        for (const bool with_beta : {false, true}) {
          if (with_beta && sh.shift == 4) continue;  // in place: the prior dx is dy
          if (long_rows && (ai != pick % 3 || with_beta != (pick % 6 >= 3 && sh.shift != 4))) continue;
          ft::HostTensor x(CUDNN_DATA_DOUBLE, sh.dims, sh.nhwc);
          x.fill_uniform(rng, -4, 4);
          const ref::Tensor yr = ref::softmax_forward(algo, sh.mode, pt::to_ref(x));
          ft::HostTensor y(t, sh.dims, sh.nhwc), dy(t, sh.dims, sh.nhwc), dx(t, sh.dims, sh.nhwc);
          y.set_values(yr.v);
          dy.fill_uniform(rng, -1, 1);
          const ft::HostTensor dy0 = dy;
          const double alpha = ft::uniform_int(rng, 0, 1) ? 1.0 : ft::uniform(rng, 0.5, 2.0);
          const double beta = with_beta ? ft::uniform(rng, -1.0, 1.0) : 0.0;
          pt::prepare_output(rng, dx, beta);
          const ft::HostTensor prior = dx;
          ft::TensorDesc yd(y), dyd(dy), dxd(dx);
          const pt::Scale a(alpha), b(beta);
          const int elems = sh.shift == 5 ? 4 : 1;
          Shifted ys(y, elems), dys(dy, elems), dxs(dx, elems);
          const void* yp = sh.shift == 1 || sh.shift == 5 ? ys.data() : y.data();
          const void* dyp = sh.shift == 2 || sh.shift == 5 ? dys.data() : dy.data();
          void* dxp = sh.shift == 3 || sh.shift == 5 ? dxs.data() : sh.shift == 4 ? dy.data() : dx.data();
          FT_OK(cudnnSoftmaxBackward(h, algo, sh.mode, a.ptr(t), yd, yp, dyd, dyp, b.ptr(t), dxd, dxp));
          if (sh.shift == 3 || sh.shift == 5) dxs.copy_to(dx);
          const ft::HostTensor& got = sh.shift == 4 ? dy : dx;
          const auto want = ref::blend(ref::softmax_backward(algo, sh.mode, pt::to_ref(y), pt::to_ref(dy0)).v,
                                       prior.values(), a.seen(t), b.seen(t));
          EXPECT_TRUE(ft::near(got.values(), want, pt::tol(t), what("bwd", t, algo, sh.mode, y, got) + " shift " +
                                                                   std::to_string(sh.shift) + " beta " +
                                                                   std::to_string(beta)));
        }
      }
    }
  }
}

// Rows longer than a warp's share (INSTANCE over 2 x 20 x 26) and CHANNEL groups with many channels: the GPU
// backend's block-row and column kernels.
TEST(Softmax, LongRows) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const std::vector<std::vector<int>> shapes{{1, 2, 20, 26}, {2, 1030, 1, 1}, {1, 120, 3, 5}};
  for (const auto& dims : shapes) {
    for (cudnnSoftmaxAlgorithm_t algo : kAlgos) {
      for (cudnnSoftmaxMode_t mode : kModes) {
        const cudnnDataType_t t = algo == CUDNN_SOFTMAX_LOG ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
        const bool nhwc = ft::uniform_int(rng, 0, 1) == 1;
        ft::HostTensor x(t, dims, nhwc), y(t, dims, nhwc), dy(t, dims, !nhwc), dx(t, dims);
        x.fill_uniform(rng, -3, 3);
        dy.fill_uniform(rng, -1, 1);
        y.poison();
        dx.poison();
        ft::TensorDesc xd(x), yd(y), dyd(dy), dxd(dx);
        const pt::Scale one(1.0), zero(0.0);
        FT_OK(cudnnSoftmaxForward(h, algo, mode, one.ptr(t), xd, x.data(), zero.ptr(t), yd, y.data()));
        EXPECT_TRUE(ft::near(y.values(), ref::softmax_forward(algo, mode, pt::to_ref(x)).v, pt::tol(t),
                             what("fwd", t, algo, mode, x, y)));
        FT_OK(cudnnSoftmaxBackward(h, algo, mode, one.ptr(t), yd, y.data(), dyd, dy.data(), zero.ptr(t), dxd,
                                   dx.data()));
        EXPECT_TRUE(ft::near(dx.values(), ref::softmax_backward(algo, mode, pt::to_ref(y), pt::to_ref(dy)).v,
                             pt::tol(t), what("bwd", t, algo, mode, y, dx)));
      }
    }
  }
}

// Rows whose shared-memory copy would fill the device's per-block limit exactly: the kernels' own static scratch
// counts against the same limit, so these take the paths that read twice (before: an execution failure). Float rows
// of optin / 4 elements (forward) and optin / 8 (backward, two tensors); channel-mode columns of optin / 256 channels
// (backward: 32 columns of two tensors).
TEST(Softmax, RowsAtTheSharedMemoryLimit) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "a GPU limit";
#ifdef FT_WITH_CUDA
  int dev = 0, optin = 0;
  ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), cudaSuccess);
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t t = CUDNN_DATA_FLOAT;
  const pt::Scale one(1.0), zero(0.0);
  struct Case {
    std::vector<int> dims;
    cudnnSoftmaxMode_t mode;
    bool fwd;
  };
  const Case cases[] = {{{2, 1, 1, optin / 4}, CUDNN_SOFTMAX_MODE_INSTANCE, true},
                        {{2, 1, 1, optin / 8}, CUDNN_SOFTMAX_MODE_INSTANCE, false},
                        {{1, optin / 256, 2, 2}, CUDNN_SOFTMAX_MODE_CHANNEL, false}};
  for (const Case& c : cases) {
    const cudnnSoftmaxAlgorithm_t algo = CUDNN_SOFTMAX_ACCURATE;
    ft::HostTensor x(t, c.dims), y(t, c.dims), dy(t, c.dims), dx(t, c.dims);
    x.fill_uniform(rng, -3, 3);
    dy.fill_uniform(rng, -1, 1);
    y.poison();
    dx.poison();
    ft::TensorDesc xd(x), yd(y), dyd(dy), dxd(dx);
    FT_OK(cudnnSoftmaxForward(h, algo, c.mode, one.ptr(t), xd, x.data(), zero.ptr(t), yd, y.data()));
    EXPECT_TRUE(ft::near(y.values(), ref::softmax_forward(algo, c.mode, pt::to_ref(x)).v, pt::tol(t),
                         what("fwd", t, algo, c.mode, x, y)));
    if (c.fwd) continue;
    FT_OK(cudnnSoftmaxBackward(h, algo, c.mode, one.ptr(t), yd, y.data(), dyd, dy.data(), zero.ptr(t), dxd,
                               dx.data()));
    EXPECT_TRUE(ft::near(dx.values(), ref::softmax_backward(algo, c.mode, pt::to_ref(y), pt::to_ref(dy)).v,
                         pt::tol(t), what("bwd", t, algo, c.mode, y, dx)));
  }
#endif
}

TEST(Softmax, BackwardFiniteDifference) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t t = CUDNN_DATA_DOUBLE;
  for (cudnnSoftmaxAlgorithm_t algo : kAlgos) {
    for (cudnnSoftmaxMode_t mode : kModes) {
      const std::vector<int> dims{2, 3, 2, 2};
      ft::HostTensor x(t, dims, true), y(t, dims), dy(t, dims, true), dx(t, dims);
      x.fill_uniform(rng, -2, 2);
      dy.fill_uniform(rng, -1, 1);
      ft::TensorDesc xd(x), yd(y), dyd(dy), dxd(dx);
      const double one = 1, zero = 0;
      FT_OK(cudnnSoftmaxForward(h, algo, mode, &one, xd, x.data(), &zero, yd, y.data()));
      dx.poison();
      FT_OK(cudnnSoftmaxBackward(h, algo, mode, &one, yd, y.data(), dyd, dy.data(), &zero, dxd, dx.data()));
      auto objective = [&](const ft::HostTensor& xp) {
        ft::HostTensor yp(t, dims);
        EXPECT_EQ(cudnnSoftmaxForward(h, algo, mode, &one, xd, xp.data(), &zero, yd, yp.data()),
                  CUDNN_STATUS_SUCCESS);
        double s = 0;
        for (int64_t i = 0; i < yp.count(); ++i) s += yp.get(i) * dy.get(i);
        return s;
      };
      std::vector<double> num(static_cast<size_t>(x.count()));
      const double eps = 1e-6;
      for (int64_t i = 0; i < x.count(); ++i) {
        ft::HostTensor xp = x, xm = x;
        xp.set(i, x.get(i) + eps);
        xm.set(i, x.get(i) - eps);
        num[i] = (objective(xp) - objective(xm)) / (2 * eps);
      }
      EXPECT_TRUE(ft::near(dx.values(), num, 1e-6,
                           "finite differences algo " + std::to_string(algo) + " mode " + std::to_string(mode)));
    }
  }
}

TEST(Softmax, InPlace) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const std::vector<int> dims{2, 5, 3, 2};
  ft::HostTensor x(CUDNN_DATA_FLOAT, dims, ft::padded_strides(rng, dims, true));
  x.poison();
  x.fill_uniform(rng, -2, 2);
  const ft::HostTensor x0 = x;
  ft::TensorDesc d(x);
  const float one = 1, zero = 0;
  FT_OK(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, d, x.data(), &zero, d,
                            x.data()));
  EXPECT_TRUE(ft::near(x.values(),
                       ref::softmax_forward(CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, pt::to_ref(x0)).v,
                       1e-5, "in-place forward"));
  EXPECT_TRUE(pt::gaps_untouched(x));
  ft::HostTensor g(CUDNN_DATA_FLOAT, dims);
  g.fill_uniform(rng, -1, 1);
  const ft::HostTensor g0 = g;
  ft::TensorDesc gd(g);
  FT_OK(cudnnSoftmaxBackward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, d, x.data(), gd, g.data(),
                             &zero, gd, g.data()));
  EXPECT_TRUE(ft::near(
      g.values(), ref::softmax_backward(CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, pt::to_ref(x), pt::to_ref(g0)).v,
      1e-5, "in-place backward"));
}

TEST(Softmax, BadArguments) {
  ft::Handle h;
  ft::HostTensor x(CUDNN_DATA_FLOAT, {2, 3, 4, 5}), y(CUDNN_DATA_FLOAT, {2, 3, 4, 5});
  ft::HostTensor small(CUDNN_DATA_FLOAT, {2, 3, 4, 4}), hx(CUDNN_DATA_HALF, {2, 3, 4, 5});
  ft::HostTensor xs(CUDNN_DATA_FLOAT, {2, 3, 4, 5}, true), i8(CUDNN_DATA_INT8, {2, 3, 4, 5});
  ft::TensorDesc xd(x), yd(y), sd(small), hd(hx), xsd(xs), id(i8), unset;
  const float one = 1, zero = 0;
  const auto A = CUDNN_SOFTMAX_ACCURATE;
  const auto M = CUDNN_SOFTMAX_MODE_CHANNEL;
  EXPECT_EQ(cudnnSoftmaxForward(nullptr, A, M, &one, xd, x.data(), &zero, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSoftmaxForward(h, static_cast<cudnnSoftmaxAlgorithm_t>(3), M, &one, xd, x.data(), &zero, yd,
                                y.data()),
            CUDNN_STATUS_BAD_PARAM);
#ifndef __SANITIZE_ADDRESS__  // values outside the enum's range: UB that UBSan (sanitizer build) traps on
  EXPECT_EQ(cudnnSoftmaxForward(h, A, static_cast<cudnnSoftmaxMode_t>(2), &one, xd, x.data(), &zero, yd, y.data()),
            CUDNN_STATUS_BAD_PARAM);
#endif
  EXPECT_EQ(cudnnSoftmaxForward(h, A, M, nullptr, xd, x.data(), &zero, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSoftmaxForward(h, A, M, &one, nullptr, x.data(), &zero, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSoftmaxForward(h, A, M, &one, unset, x.data(), &zero, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSoftmaxForward(h, A, M, &one, xd, nullptr, &zero, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSoftmaxForward(h, A, M, &one, xd, x.data(), &zero, sd, small.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSoftmaxForward(h, A, M, &one, xd, x.data(), &zero, hd, hx.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSoftmaxForward(h, A, M, &one, xd, x.data(), &zero, xsd, x.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSoftmaxForward(h, A, M, &one, id, i8.data(), &zero, id, i8.data()), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnSoftmaxForward(h, A, M, &one, xd, x.data(), &zero, xsd, xs.data()), CUDNN_STATUS_SUCCESS);

  ft::HostTensor dy(CUDNN_DATA_FLOAT, {2, 3, 4, 5}), dx(CUDNN_DATA_FLOAT, {2, 3, 4, 5});
  ft::TensorDesc dyd(dy), dxd(dx);
  EXPECT_EQ(cudnnSoftmaxBackward(h, A, M, &one, yd, y.data(), dyd, dy.data(), &zero, dxd, dx.data()),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSoftmaxBackward(nullptr, A, M, &one, yd, y.data(), dyd, dy.data(), &zero, dxd, dx.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSoftmaxBackward(h, A, M, &one, yd, nullptr, dyd, dy.data(), &zero, dxd, dx.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSoftmaxBackward(h, A, M, &one, yd, y.data(), dyd, dy.data(), nullptr, dxd, dx.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSoftmaxBackward(h, A, M, &one, yd, y.data(), dyd, dy.data(), &zero, sd, small.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSoftmaxBackward(h, A, M, &one, yd, y.data(), dyd, dy.data(), &zero, hd, hx.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSoftmaxBackward(h, A, M, &one, yd, y.data(), dyd, dy.data(), &zero, xsd, dy.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSoftmaxBackward(h, static_cast<cudnnSoftmaxAlgorithm_t>(3), M, &one, yd, y.data(), dyd, dy.data(),
                                 &zero, dxd, dx.data()),
            CUDNN_STATUS_BAD_PARAM);
}

}  // namespace
