// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cudnnTransformTensor(Ex), cudnnTransformFilter, the transform descriptor, cudnnAddTensor, cudnnSetTensor,
// cudnnScaleTensor against tests/ref.
#include <cstdlib>
#include <cstring>

#include "ref/tensor_ops.h"
#include "unit/tensor_ops_util.h"

namespace {

using tops::Scale;
using tops::Shifted;

const cudnnDataType_t kTransformTypes[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                           CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT8, CUDNN_DATA_UINT8,
                                           CUDNN_DATA_INT32};

struct Transform {
  cudnnTensorTransformDescriptor_t d = nullptr;
  Transform() { EXPECT_EQ(cudnnCreateTensorTransformDescriptor(&d), CUDNN_STATUS_SUCCESS); }
  ~Transform() { cudnnDestroyTensorTransformDescriptor(d); }
  operator cudnnTensorTransformDescriptor_t() const { return d; }
};

TEST(TensorOps, TransformTensorRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (int trial = 0; trial < 60; ++trial) {
    const cudnnDataType_t t = kTransformTypes[trial % 7];
    const int nb = ft::uniform_int(rng, 1, 5);
    const auto dims = tops::rand_dims(rng, nb, 1, 6);
    std::string lx, ly;
    ft::HostTensor x = tops::rand_layout(rng, t, dims, &lx), y = tops::rand_layout(rng, t, dims, &ly);
    tops::fill(x, rng);
    const Scale alpha(trial % 3 == 0 ? 1.0 : (tops::is_int(t) ? 2.0 : tops::rand_scale(rng, 0.25, 2)));
    const Scale beta(trial % 2 == 0 ? 0.0 : (tops::is_int(t) ? -1.0 : tops::rand_scale(rng, 0.25, 1)));
    if (beta.d == 0) y.poison(); else tops::fill(y, rng);
    const auto prior = y.values();
    ft::TensorDesc xd(x), yd(y);
    FT_OK(cudnnTransformTensor(h, alpha.ptr(t), xd, x.data(), beta.ptr(t), yd, y.data()));
    const auto want = ref::blend(x.values(), prior, alpha.value(t), beta.value(t));
    EXPECT_TRUE(tops::check(y, want, "transform " + x.str() + " (" + lx + ") -> " + y.str() + " (" + ly + ")"));
  }
}

// Packed NCHW <-> NHWC of one type with C and H*W multiples of 16 elements: the GPU backend's 64 x 64 tiles with
// 16-byte accesses (partial tiles at the edges), raw copies (alpha 1, beta 0) and blends.
TEST(TensorOps, TransformTensorTransposeTiles) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const std::vector<int> shapes[] = {{2, 80, 9, 16}, {1, 16, 4, 4, 8}, {3, 32, 16, 5}};
  int trial = 0;
  for (const auto& dims : shapes) {
    for (cudnnDataType_t t : kTransformTypes) {
      for (int dir = 0; dir < 2; ++dir, ++trial) {
        ft::HostTensor x(t, dims, dir == 1), y(t, dims, dir == 0);
        tops::fill(x, rng);
        const bool plain = trial % 2 == 0;
        const Scale alpha(plain ? 1.0 : (tops::is_int(t) ? 2.0 : tops::rand_scale(rng, 0.25, 2)));
        const Scale beta(plain ? 0.0 : (tops::is_int(t) ? -1.0 : tops::rand_scale(rng, 0.25, 1)));
        if (beta.d == 0) y.poison(); else tops::fill(y, rng);
        const auto prior = y.values();
        ft::TensorDesc xd(x), yd(y);
        FT_OK(cudnnTransformTensor(h, alpha.ptr(t), xd, x.data(), beta.ptr(t), yd, y.data()));
        const auto want = ref::blend(x.values(), prior, alpha.value(t), beta.value(t));
        EXPECT_TRUE(tops::check(y, want, "transpose " + x.str() + " -> " + y.str() + (dir ? " to NCHW" : " to NHWC")));
      }
    }
  }
}

// Larger NCHW <-> NHWC transposes: several 64 x 64 tiles of the GPU backend's conflict-free slab kernel (4-byte types
// to NHWC; every 2-, 4- and 8-byte case with FREEDNN_TRANSFORM_SLAB_ALL=1) and of the first 16-byte tile kernel,
// partial tiles on both edges (C = 192, 136, 40), 5-D tensors, channel counts that are no multiple of the 16-element
// int8 vector (the scalar tiles), raw copies and blends; and x or y off the 16-byte grid (the scalar tiles).
TEST(TensorOps, TransformTensorTransposeSlabs) {
  auto rng = ft::make_rng();
  ft::Handle h;
  struct Shape {
    std::vector<int> dims;
    int shift;  // 0: none, 1: x off the 16-byte grid, 2: y off it
  };
  const Shape shapes[] = {{{1, 192, 24, 24}, 0}, {{2, 136, 10, 20}, 0}, {{1, 40, 3, 32}, 0},
                          {{1, 32, 4, 6, 8}, 0},  {{2, 64, 8, 16}, 1},  {{2, 64, 8, 16}, 2}};
  int trial = 0;
  for (const Shape& sh : shapes) {
    for (cudnnDataType_t t : kTransformTypes) {
      for (int dir = 0; dir < 2; ++dir, ++trial) {
        if (!ft::take_case()) continue;
        ft::HostTensor x(t, sh.dims, dir == 1), y(t, sh.dims, dir == 0);
        tops::fill(x, rng);
        const bool plain = trial % 3 != 2;
        const Scale alpha(plain ? 1.0 : (tops::is_int(t) ? 2.0 : tops::rand_scale(rng, 0.25, 2)));
        const Scale beta(plain ? 0.0 : (tops::is_int(t) ? -1.0 : tops::rand_scale(rng, 0.25, 1)));
        if (beta.d == 0) y.poison(); else tops::fill(y, rng);
        const auto prior = y.values();
        Shifted xs(x), ys(y);
        void* xp = sh.shift == 1 ? xs.data() : x.data();
        void* yp = sh.shift == 2 ? ys.data() : y.data();
        ft::TensorDesc xd(x), yd(y);
        FT_OK(cudnnTransformTensor(h, alpha.ptr(t), xd, xp, beta.ptr(t), yd, yp));
        if (sh.shift == 2) ys.copy_to(y);
        const auto want = ref::blend(x.values(), prior, alpha.value(t), beta.value(t));
        EXPECT_TRUE(tops::check(y, want, "transpose " + x.str() + " -> " + y.str() + (dir ? " to NCHW" : " to NHWC") +
                                             " shift " + std::to_string(sh.shift)));
      }
    }
  }
}

// One packed NCHW <-> NHWC transform (dir 0: to NHWC, 1: to NCHW) of type t checked against the reference: a raw
// copy (alpha 1, beta 0) or a blend; shift 1 / 2 puts x / y one element off the 16-byte grid.
void transpose_case(std::mt19937_64& rng, ft::Handle& h, cudnnDataType_t t, const std::vector<int>& dims, int dir,
                    bool plain, int shift) {
  if (!ft::take_case()) return;
  ft::HostTensor x(t, dims, dir == 1), y(t, dims, dir == 0);
  tops::fill(x, rng);
  const Scale alpha(plain ? 1.0 : tops::rand_scale(rng, 0.25, 2));
  const Scale beta(plain ? 0.0 : tops::rand_scale(rng, 0.25, 1));
  if (beta.d == 0) y.poison(); else tops::fill(y, rng);
  const auto prior = y.values();
  Shifted xs(x), ys(y);
  void* xp = shift == 1 ? xs.data() : x.data();
  void* yp = shift == 2 ? ys.data() : y.data();
  ft::TensorDesc xd(x), yd(y);
  FT_OK(cudnnTransformTensor(h, alpha.ptr(t), xd, xp, beta.ptr(t), yd, yp));
  if (shift == 2) ys.copy_to(y);
  const auto want = ref::blend(x.values(), prior, alpha.value(t), beta.value(t));
  EXPECT_TRUE(tops::check(y, want, "transpose " + x.str() + " -> " + y.str() + (dir ? " to NCHW" : " to NHWC") +
                                       (plain ? " plain" : " blend") + " shift " + std::to_string(shift)));
}

const std::vector<int> kTransposeShapes[] = {
    {3, 256, 7, 8},   // H*W = 56: one partial column tile
    {2, 40, 12, 12},  // partial tiles on both edges
    {2, 64, 16, 16},
    {1, 36, 4, 33},   // C and H*W no multiple of 8: the scalar tiles for 16-bit types
    {1, 8, 2, 2},     // one tiny tile
    {2, 16, 3, 4, 8}};  // 5-D

// Packed NCHW <-> NHWC in f32, f16 and bf16 on the shapes above: partial tiles, raw copies and blends, and
// 40 x 64 x 56 x 56 (3920 f32 tiles, more than one wave of blocks on an H200); x or y off the 16-byte grid
// (shift) must take the other kernels.
TEST(TensorOps, TransformTensorTransposeShapes) {
  auto rng = ft::make_rng();
  ft::Handle h;
  int trial = 0;
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16})
    for (const auto& dims : kTransposeShapes)
      for (int dir = 0; dir < 2; ++dir, ++trial) transpose_case(rng, h, t, dims, dir, trial % 3 != 2, 0);
  transpose_case(rng, h, CUDNN_DATA_FLOAT, {40, 64, 56, 56}, 0, true, 0);
  transpose_case(rng, h, CUDNN_DATA_FLOAT, {40, 64, 56, 56}, 0, false, 0);
  transpose_case(rng, h, CUDNN_DATA_FLOAT, {2, 64, 8, 16}, 0, true, 1);
  transpose_case(rng, h, CUDNN_DATA_HALF, {2, 64, 8, 16}, 1, true, 2);
  transpose_case(rng, h, CUDNN_DATA_BFLOAT16, {6, 64, 32, 32}, 0, false, 0);
}

// The opt-in transpose kernels of the GPU backend (FREEDNN_TRANSFORM_NCHW2NHWC / _NHWC2NCHW = stream | wide | wider |
// slab; raw copies of 2-, 4- and 8-byte types) in both directions: partial tiles of every tile shape (H*W = 400, C =
// 96 or 520), the shapes and cases they decline (C or H*W off the vector, x off the 16-byte grid, blends), and
// 40 x 64 x 56 x 56 (several tiles per block of the resident grid).
void transpose_variant(const char* variant) {
  if (!ft::gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  auto rng = ft::make_rng();
  ft::Handle h;
  const std::vector<int> extra[] = {{3, 96, 20, 20}, {2, 520, 8, 8}, {1, 64, 2, 600}, {2, 24, 5, 5}};
  ft::ScopedEnv to_nhwc("FREEDNN_TRANSFORM_NCHW2NHWC", variant), to_nchw("FREEDNN_TRANSFORM_NHWC2NCHW", variant);
  int trial = 0;
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_DOUBLE}) {
    if (t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_HALF)  // the shared shapes for one type of each width class
      for (const auto& dims : kTransposeShapes)
        for (int dir = 0; dir < 2; ++dir, ++trial) transpose_case(rng, h, t, dims, dir, trial % 4 != 3, 0);
    for (const auto& dims : extra)
      for (int dir = 0; dir < 2; ++dir) transpose_case(rng, h, t, dims, dir, true, 0);
  }
  for (int dir = 0; dir < 2; ++dir) {
    transpose_case(rng, h, CUDNN_DATA_INT32, {3, 96, 20, 20}, dir, true, 0);
    transpose_case(rng, h, CUDNN_DATA_FLOAT, {8, 64, 56, 56}, dir, true, 0);  // several tiles per block
    transpose_case(rng, h, CUDNN_DATA_HALF, {4, 128, 28, 28}, dir, true, 0);
    transpose_case(rng, h, CUDNN_DATA_FLOAT, {2, 64, 8, 16}, dir, true, 1 + dir);
  }
}

// The opt-in transpose kernels (FREEDNN_TRANSFORM_NCHW2NHWC / _NHWC2NCHW), one test each (a GPU run of all four in
// one test ran past ctest's limit).
TEST(TensorOps, TransformTransposeSlab) { transpose_variant("slab"); }
TEST(TensorOps, TransformTransposeStream) { transpose_variant("stream"); }
TEST(TensorOps, TransformTransposeWide) { transpose_variant("wide"); }
TEST(TensorOps, TransformTransposeWider) { transpose_variant("wider"); }

// INT8 / UINT8 in NCHW_VECT_C: vectors of 4 or 32 channels, the lanes past C zero.
struct VectTensor {
  std::vector<int> dims;
  int v;
  ft::Buffer<int8_t> bytes;  // device-visible in GPU test mode
  VectTensor(std::vector<int> d, int vect) : dims(std::move(d)), v(vect) {
    bytes.assign(static_cast<size_t>(outer() * cv() * spatial() * v), 0x7F);
  }
  int64_t spatial() const {
    int64_t s = 1;
    for (size_t i = 2; i < dims.size(); ++i) s *= dims[i];
    return s;
  }
  int64_t outer() const { return dims[0]; }
  int64_t cv() const { return (dims[1] + v - 1) / v; }
  int64_t offset(int64_t n, int64_t c, int64_t s) const { return ((n * cv() + c / v) * spatial() + s) * v + c % v; }
};

TEST(TensorOps, TransformTensorVectC) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const Scale one(1.0), zero(0.0);
  for (int trial = 0; trial < 12; ++trial) {
    const bool u8 = trial % 3 == 2;
    const int v = trial % 2 ? 32 : 4;
    const cudnnDataType_t st = u8 ? CUDNN_DATA_UINT8 : CUDNN_DATA_INT8;
    const cudnnDataType_t vt = u8 ? CUDNN_DATA_UINT8x4 : v == 4 ? CUDNN_DATA_INT8x4 : CUDNN_DATA_INT8x32;
    const int vv = u8 ? 4 : v;
    std::vector<int> dims = {ft::uniform_int(rng, 1, 3), ft::uniform_int(rng, 1, 40), ft::uniform_int(rng, 1, 4),
                             ft::uniform_int(rng, 1, 4)};
    if (trial % 4 == 3) dims.push_back(2);
    ft::HostTensor x = tops::rand_layout(rng, st, dims);
    tops::fill(x, rng, -30, 30);
    VectTensor y(dims, vv);
    ft::TensorDesc xd(x), yd;
    FT_OK(cudnnSetTensorNdDescriptorEx(yd, CUDNN_TENSOR_NCHW_VECT_C, vt, static_cast<int>(dims.size()), dims.data()));
    FT_OK(cudnnTransformTensor(h, one.ptr(st), xd, x.data(), zero.ptr(st), yd, y.bytes.data()));
    ft::sync_device();  // the bytes are read directly below
    const int64_t S = y.spatial();
    for (int64_t n = 0; n < dims[0]; ++n)
      for (int64_t c = 0; c < y.cv() * vv; ++c)
        for (int64_t s = 0; s < S; ++s) {
          const int8_t got = y.bytes[static_cast<size_t>(y.offset(n, c, s))];
          const double want = c < dims[1] ? x.get((n * dims[1] + c) * S + s) : 0.0;
          const double g = u8 ? static_cast<double>(static_cast<uint8_t>(got)) : got;
          ASSERT_EQ(g, want) << "n=" << n << " c=" << c << " s=" << s << " vect " << vv << " " << x.str();
        }
    // And back, into NHWC with beta = 1: z = x + z.
    ft::HostTensor z(st, dims, true);
    tops::fill(z, rng, -30, 30);
    const auto prior = z.values();
    ft::TensorDesc zd(z);
    FT_OK(cudnnTransformTensor(h, one.ptr(st), yd, y.bytes.data(), one.ptr(st), zd, z.data()));
    EXPECT_TRUE(tops::check(z, ref::blend(x.values(), prior, 1.0, 1.0), "vect_c -> nhwc"));
  }
}

TEST(TensorOps, TransformTensorBadArguments) {
  ft::Handle h;
  ft::HostTensor x(CUDNN_DATA_FLOAT, {2, 3, 4, 5}), y(CUDNN_DATA_FLOAT, {2, 3, 4, 5}, true);
  ft::HostTensor y2(CUDNN_DATA_FLOAT, {2, 3, 5, 4}), yh(CUDNN_DATA_HALF, {2, 3, 4, 5});
  ft::TensorDesc xd(x), yd(y), y2d(y2), yhd(yh), unset;
  const Scale one(1.0), zero(0.0);
  EXPECT_EQ(cudnnTransformTensor(nullptr, &one.f, xd, x.data(), &zero.f, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, &one.f, nullptr, x.data(), &zero.f, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, &one.f, xd, x.data(), &zero.f, unset, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, &one.f, xd, nullptr, &zero.f, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, nullptr, xd, x.data(), &zero.f, yd, y.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, &one.f, xd, x.data(), &zero.f, y2d, y2.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, &one.f, xd, x.data(), &zero.f, yhd, yh.data()), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnTransformTensor(h, &one.f, xd, x.data(), &zero.f, yd, y.data()));
}

TEST(TensorOps, TransformDescriptorRoundTrip) {
  Transform t;
  const int32_t pb[4] = {0, 1, 2, 0}, pa[4] = {1, 0, 0, 3};
  const uint32_t fold[2] = {2, 3};
  FT_OK(cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NHWC, pb, pa, fold, CUDNN_TRANSFORM_UNFOLD));
  cudnnTensorFormat_t f;
  cudnnFoldingDirection_t dir;
  int32_t gb[4] = {}, ga[4] = {};
  uint32_t gf[2] = {};
  FT_OK(cudnnGetTensorTransformDescriptor(t, 4, &f, gb, ga, gf, &dir));
  EXPECT_EQ(f, CUDNN_TENSOR_NHWC);
  EXPECT_EQ(dir, CUDNN_TRANSFORM_UNFOLD);
  EXPECT_EQ(std::vector<int32_t>(gb, gb + 4), std::vector<int32_t>(pb, pb + 4));
  EXPECT_EQ(std::vector<int32_t>(ga, ga + 4), std::vector<int32_t>(pa, pa + 4));
  EXPECT_EQ(std::vector<uint32_t>(gf, gf + 2), std::vector<uint32_t>(fold, fold + 2));
  // Bad arguments.
  EXPECT_EQ(cudnnSetTensorTransformDescriptor(nullptr, 4, CUDNN_TENSOR_NHWC, pb, pa, fold, CUDNN_TRANSFORM_FOLD),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensorTransformDescriptor(t, 2, CUDNN_TENSOR_NHWC, pb, pa, fold, CUDNN_TRANSFORM_FOLD),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensorTransformDescriptor(t, 4, static_cast<cudnnTensorFormat_t>(9), pb, pa, fold,
                                              CUDNN_TRANSFORM_FOLD),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NHWC, pb, pa, fold,
                                              static_cast<cudnnFoldingDirection_t>(2)),
            CUDNN_STATUS_BAD_PARAM);
  const int32_t neg[4] = {0, -1, 0, 0};
  EXPECT_EQ(cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NHWC, neg, pa, fold, CUDNN_TRANSFORM_FOLD),
            CUDNN_STATUS_BAD_PARAM);
  const uint32_t zero_fold[2] = {0, 1};
  EXPECT_EQ(cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NHWC, pb, pa, zero_fold, CUDNN_TRANSFORM_FOLD),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetTensorTransformDescriptor(t, 4, nullptr, gb, ga, gf, &dir), CUDNN_STATUS_BAD_PARAM);
  Transform fresh;
  EXPECT_EQ(cudnnGetTensorTransformDescriptor(fresh, 4, &f, gb, ga, gf, &dir), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyTensorTransformDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnCreateTensorTransformDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM);
}

// Random padding and folding, both directions, through cudnnInitTransformDest and a strided destination.
TEST(TensorOps, TransformTensorExPadFold) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_INT8};
  for (int trial = 0; trial < 32; ++trial) {
    const cudnnDataType_t t = types[trial % 4];
    const bool unfold = trial % 2 == 1;
    const bool nhwc = ft::uniform_int(rng, 0, 1) == 1;
    const int nb = ft::uniform_int(rng, 4, 5);
    std::vector<int> pb(nb), pa(nb), fold(nb - 2);
    for (int i = 0; i < nb; ++i) {
      pb[i] = ft::uniform_int(rng, 0, i == 0 ? 1 : 2);
      pa[i] = ft::uniform_int(rng, 0, i == 0 ? 1 : 2);
    }
    int F = 1;
    for (int& f : fold) F *= (f = ft::uniform_int(rng, 1, 3));
    auto dims = tops::rand_dims(rng, nb, 1, 5);
    if (unfold) {  // a folded source: channels a multiple of F, extents that survive the cropping
      dims[0] += pb[0] + pa[0];
      dims[1] = (dims[1] + pb[1] + pa[1]) * F;
      for (int i = 2; i < nb; ++i) dims[i] += (pb[i] + pa[i] + fold[i - 2] - 1) / fold[i - 2];
    }
    ft::HostTensor x = tops::rand_layout(rng, t, dims);
    tops::fill(x, rng);
    Transform td;
    std::vector<uint32_t> ufold(fold.begin(), fold.end());
    FT_OK(cudnnSetTensorTransformDescriptor(td, nb, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, pb.data(), pa.data(),
                                            ufold.data(), unfold ? CUDNN_TRANSFORM_UNFOLD : CUDNN_TRANSFORM_FOLD));
    ft::TensorDesc xd(x), init;
    size_t bytes = 0;
    FT_OK(cudnnInitTransformDest(td, xd, init, &bytes));
    const ref::Tensor want = ref::fold_transform(tops::to_ref(x), pb, pa, fold, unfold);
    // The initialized destination: the reference's dims, packed in the requested format.
    ft::HostTensor packed(t, want.dims, nhwc);
    cudnnDataType_t gt;
    int gnb = 0;
    std::vector<int> gd(nb), gs(nb);
    FT_OK(cudnnGetTensorNdDescriptor(init, nb, &gt, &gnb, gd.data(), gs.data()));
    EXPECT_EQ(gt, t);
    EXPECT_EQ(gd, want.dims) << "trial " << trial;
    EXPECT_EQ(gs, packed.strides);
    EXPECT_EQ(bytes, packed.bytes.size());
    // Run into a strided destination of those dims.
    ft::HostTensor y = tops::rand_layout(rng, t, want.dims);
    const Scale alpha(trial % 3 ? 1.0 : 2.0), beta(trial % 4 < 2 ? 0.0 : -1.0);
    if (beta.d == 0) y.poison(); else tops::fill(y, rng);
    const auto prior = y.values();
    ft::TensorDesc yd(y);
    FT_OK(cudnnTransformTensorEx(h, td, alpha.ptr(t), xd, x.data(), beta.ptr(t), yd, y.data()));
    EXPECT_TRUE(tops::check(y, ref::blend(want.v, prior, alpha.value(t), beta.value(t)),
                            std::string(unfold ? "unfold " : "fold ") + x.str() + " -> " + y.str()));
    // A destination of other dims is refused.
    std::vector<int> wrong = want.dims;
    wrong[nb - 1] += 1;
    ft::HostTensor w(t, wrong);
    ft::TensorDesc wd(w);
    EXPECT_EQ(cudnnTransformTensorEx(h, td, alpha.ptr(t), xd, x.data(), beta.ptr(t), wd, w.data()),
              CUDNN_STATUS_BAD_PARAM);
  }
}

TEST(TensorOps, TransformTensorExRoundTripAndConversion) {
  auto rng = ft::make_rng();
  ft::Handle h;
  // float NCHW -> (fold, pad) half NHWC -> (unfold) float NCHW gives x back within half precision.
  const std::vector<int> dims = {2, 3, 6, 4};
  ft::HostTensor x(CUDNN_DATA_FLOAT, dims);
  tops::fill(x, rng);
  const int32_t pb[4] = {0, 0, 1, 0}, pa[4] = {0, 0, 1, 2};
  const uint32_t fold[2] = {2, 3};
  Transform f, u;
  FT_OK(cudnnSetTensorTransformDescriptor(f, 4, CUDNN_TENSOR_NHWC, pb, pa, fold, CUDNN_TRANSFORM_FOLD));
  FT_OK(cudnnSetTensorTransformDescriptor(u, 4, CUDNN_TENSOR_NCHW, pb, pa, fold, CUDNN_TRANSFORM_UNFOLD));
  ft::HostTensor folded(CUDNN_DATA_HALF, {2, 18, 4, 2}, true), back(CUDNN_DATA_FLOAT, dims);
  folded.poison();
  back.poison();
  ft::TensorDesc xd(x), fd(folded), bd(back);
  const Scale one(1.0), zero(0.0);
  FT_OK(cudnnTransformTensorEx(h, f, &one.f, xd, x.data(), &zero.f, fd, folded.data()));
  FT_OK(cudnnTransformTensorEx(h, u, &one.f, fd, folded.data(), &zero.f, bd, back.data()));
  EXPECT_TRUE(ft::near(back.values(), x.values(), ft::tolerance(CUDNN_DATA_HALF), "fold/unfold round trip"));
  // Rank mismatch between the transform and the tensors.
  ft::HostTensor x5(CUDNN_DATA_FLOAT, {1, 2, 2, 2, 2});
  ft::TensorDesc x5d(x5);
  EXPECT_EQ(cudnnTransformTensorEx(h, f, &one.f, x5d, x5.data(), &zero.f, fd, folded.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensorEx(h, nullptr, &one.f, xd, x.data(), &zero.f, fd, folded.data()),
            CUDNN_STATUS_BAD_PARAM);
  size_t sz = 0;
  EXPECT_EQ(cudnnInitTransformDest(f, x5d, fd, &sz), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnInitTransformDest(f, xd, fd, nullptr), CUDNN_STATUS_BAD_PARAM);
  // UNFOLD of a channel count that the folds do not divide.
  ft::HostTensor odd(CUDNN_DATA_FLOAT, {1, 5, 2, 2});
  ft::TensorDesc oddd(odd), init;
  EXPECT_EQ(cudnnInitTransformDest(u, oddd, init, &sz), CUDNN_STATUS_BAD_PARAM);
}

TEST(TensorOps, InitTransformDestVectC) {
  Transform t;
  const int32_t zeros[4] = {};
  const uint32_t ones[2] = {1, 1};
  FT_OK(cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NCHW_VECT_C, zeros, zeros, ones, CUDNN_TRANSFORM_FOLD));
  ft::TensorDesc src, dst;
  FT_OK(cudnnSetTensor4dDescriptor(src, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, 2, 6, 3, 3));
  size_t sz = 0;
  FT_OK(cudnnInitTransformDest(t, src, dst, &sz));
  EXPECT_EQ(sz, 2u * 8 * 3 * 3);
  cudnnDataType_t dt;
  int n, c, hh, w, ns, cs, hs, ws;
  FT_OK(cudnnGetTensor4dDescriptor(dst, &dt, &n, &c, &hh, &w, &ns, &cs, &hs, &ws));
  EXPECT_EQ(dt, CUDNN_DATA_INT8x4);
  EXPECT_EQ(c, 6);
  FT_OK(cudnnSetTensor4dDescriptor(src, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 6, 3, 3));
  EXPECT_EQ(cudnnInitTransformDest(t, src, dst, &sz), CUDNN_STATUS_BAD_PARAM);
}

TEST(TensorOps, TransformFilter) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (int trial = 0; trial < 6; ++trial) {
    const cudnnDataType_t t = trial % 2 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
    const std::vector<int> dims = {ft::uniform_int(rng, 1, 5), ft::uniform_int(rng, 1, 5), ft::uniform_int(rng, 1, 4),
                                   ft::uniform_int(rng, 1, 4)};
    const std::vector<int> pb = {0, ft::uniform_int(rng, 0, 2), 1, 0}, pa = {ft::uniform_int(rng, 0, 1), 0, 0, 1};
    const std::vector<int> fold = {1 + trial % 2, 1};
    ft::HostTensor src(t, dims, false);
    tops::fill(src, rng);
    const ref::Tensor want = ref::fold_transform(tops::to_ref(src), pb, pa, fold, false);
    ft::HostTensor dst(t, want.dims, true);
    dst.poison();
    cudnnFilterDescriptor_t sd, dd;
    FT_OK(cudnnCreateFilterDescriptor(&sd));
    FT_OK(cudnnCreateFilterDescriptor(&dd));
    FT_OK(cudnnSetFilterNdDescriptor(sd, t, CUDNN_TENSOR_NCHW, 4, dims.data()));
    FT_OK(cudnnSetFilterNdDescriptor(dd, t, CUDNN_TENSOR_NHWC, 4, want.dims.data()));
    Transform td;
    const uint32_t ufold[2] = {static_cast<uint32_t>(fold[0]), 1};
    FT_OK(cudnnSetTensorTransformDescriptor(td, 4, CUDNN_TENSOR_NHWC, pb.data(), pa.data(), ufold,
                                            CUDNN_TRANSFORM_FOLD));
    const Scale one(1.0), zero(0.0);
    FT_OK(cudnnTransformFilter(h, td, &one.f, sd, src.data(), &zero.f, dd, dst.data()));
    EXPECT_TRUE(tops::check(dst, want.v, "filter " + src.str() + " -> " + dst.str()));
    EXPECT_EQ(cudnnTransformFilter(h, td, &one.f, dd, dst.data(), &zero.f, dd, dst.data()), CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(cudnnTransformFilter(h, td, &one.f, nullptr, src.data(), &zero.f, dd, dst.data()),
              CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyFilterDescriptor(sd);
    cudnnDestroyFilterDescriptor(dd);
  }
}

TEST(TensorOps, AddTensorRandom) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                   CUDNN_DATA_INT8};
  for (int trial = 0; trial < 40; ++trial) {
    const cudnnDataType_t t = types[trial % 5];
    const int nb = ft::uniform_int(rng, 2, 5);
    const auto cdims = tops::rand_dims(rng, nb, 1, 6);
    std::vector<int> adims = cdims;
    const int kind = trial % 4;  // 0: bias (1,C,1,1...), 1: same shape, 2, 3: random broadcast
    for (int i = 0; i < nb; ++i) {
      if (kind == 0) adims[i] = i == 1 ? cdims[i] : 1;
      if (kind >= 2 && ft::uniform_int(rng, 0, 1)) adims[i] = 1;
    }
    ft::HostTensor a = tops::rand_layout(rng, t, adims), c = tops::rand_layout(rng, t, cdims);
    tops::fill(a, rng);
    const Scale alpha(trial % 3 == 0 ? 1.0 : (tops::is_int(t) ? 3.0 : tops::rand_scale(rng, 0.25, 2)));
    const Scale beta(trial % 2 == 0 ? 0.0 : (tops::is_int(t) ? 1.0 : tops::rand_scale(rng, 0.25, 1)));
    if (beta.d == 0) c.poison(); else tops::fill(c, rng);
    const auto prior = c.values();
    ft::TensorDesc ad(a), cd(c);
    FT_OK(cudnnAddTensor(h, alpha.ptr(t), ad, a.data(), beta.ptr(t), cd, c.data()));
    const auto want = ref::blend(ref::broadcast(tops::to_ref(a), cdims).v, prior, alpha.value(t), beta.value(t));
    EXPECT_TRUE(tops::check(c, want, "add " + a.str() + " into " + c.str()));
  }
}

// A bias (1 x C x 1 ...) or a single value added into packed C: the GPU backend's one-pass broadcast kernel (NHWC:
// V consecutive channels per vector; NCHW: one channel per vector when H*W is a multiple of V, else per element),
// beta 0, 1 and other, and its fallbacks (C off the 16-byte grid, element counts that are no whole vectors).
TEST(TensorOps, AddTensorChannelBias) {
  auto rng = ft::make_rng();
  ft::Handle h;
  struct Shape {
    std::vector<int> dims;
    bool nhwc, scalar;
    bool shift;  // C off the 16-byte grid
  };
  const Shape shapes[] = {{{2, 32, 4, 6}, false, false, false}, {{2, 32, 4, 6}, true, false, false},
                          {{2, 24, 3, 5}, false, false, false}, {{3, 12, 2, 3}, true, false, false},
                          {{2, 16, 2, 2, 3}, true, false, false}, {{2, 8, 4, 4}, false, true, false},
                          {{1, 3, 1, 3}, true, false, false},    {{2, 32, 4, 6}, true, false, true}};
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_DOUBLE};
  int trial = 0;
  for (const Shape& sh : shapes) {
    for (cudnnDataType_t t : types) {
      for (int rep = 0; rep < 3; ++rep, ++trial) {
        std::vector<int> adims(sh.dims.size(), 1);
        if (!sh.scalar) adims[1] = sh.dims[1];
        ft::HostTensor a(t, adims, sh.nhwc), c(t, sh.dims, sh.nhwc);
        tops::fill(a, rng);
        const Scale alpha(rep == 0 ? 1.0 : tops::rand_scale(rng, 0.25, 2));
        const Scale beta(rep == 0 ? 1.0 : rep == 1 ? 0.0 : tops::rand_scale(rng, 0.25, 1));
        if (beta.d == 0) c.poison(); else tops::fill(c, rng);
        const auto prior = c.values();
        Shifted cs(c);
        void* cp = sh.shift ? cs.data() : c.data();
        ft::TensorDesc ad(a), cd(c);
        FT_OK(cudnnAddTensor(h, alpha.ptr(t), ad, a.data(), beta.ptr(t), cd, cp));
        if (sh.shift) cs.copy_to(c);
        const auto want = ref::blend(ref::broadcast(tops::to_ref(a), sh.dims).v, prior, alpha.value(t), beta.value(t));
        EXPECT_TRUE(tops::check(c, want, "add " + a.str() + " into " + c.str() + (sh.shift ? " shifted" : "")));
      }
    }
  }
}

// 32-bit integers past float's 2^24 stay exact (they went through float on the CPU: 16777217 came back as
// 16777216; found by review, run 40). Fixed values: the point is the magnitude.
TEST(TensorOps, AddTensorInt32Exact) {
  ft::Handle h;
  ft::HostTensor a(CUDNN_DATA_INT32, {1, 3, 1, 1}), c(CUDNN_DATA_INT32, {1, 3, 1, 1});
  a.set_values({0, 1, -7});
  c.set_values({16777217, 2000000001, -1073741827});
  ft::TensorDesc ad(a), cd(c);
  const float one = 1.0f;
  FT_OK(cudnnAddTensor(h, &one, ad, a.data(), &one, cd, c.data()));  // INT32 is served on both backends
  EXPECT_EQ(c.values(), (std::vector<double>{16777217, 2000000002, -1073741834}));
}

TEST(TensorOps, AddTensorBadArguments) {
  ft::Handle h;
  ft::HostTensor a(CUDNN_DATA_FLOAT, {1, 3, 1, 1}), c(CUDNN_DATA_FLOAT, {2, 3, 4, 5});
  ft::HostTensor a2(CUDNN_DATA_FLOAT, {1, 2, 1, 1}), ah(CUDNN_DATA_HALF, {1, 3, 1, 1}), a3(CUDNN_DATA_FLOAT, {3, 1, 1});
  ft::HostTensor a6(CUDNN_DATA_FLOAT, {1, 2, 1, 1, 1, 1}), c6(CUDNN_DATA_FLOAT, {1, 2, 2, 2, 2, 2});
  ft::TensorDesc ad(a), cd(c), a2d(a2), ahd(ah), a3d(a3), a6d(a6), c6d(c6);
  const Scale one(1.0);
  EXPECT_EQ(cudnnAddTensor(nullptr, &one.f, ad, a.data(), &one.f, cd, c.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h, &one.f, nullptr, a.data(), &one.f, cd, c.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h, &one.f, ad, nullptr, &one.f, cd, c.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h, &one.f, ad, a.data(), nullptr, cd, c.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h, &one.f, a2d, a2.data(), &one.f, cd, c.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h, &one.f, ahd, ah.data(), &one.f, cd, c.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h, &one.f, a3d, a3.data(), &one.f, cd, c.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h, &one.f, a6d, a6.data(), &one.f, c6d, c6.data()), CUDNN_STATUS_NOT_SUPPORTED);
}

TEST(TensorOps, SetTensorAllTypes) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                   CUDNN_DATA_INT8, CUDNN_DATA_UINT8, CUDNN_DATA_INT32, CUDNN_DATA_INT64};
  for (cudnnDataType_t t : types) {
    const auto dims = tops::rand_dims(rng, 4, 1, 5);
    ft::HostTensor y(t, dims, ft::padded_strides(rng, dims, ft::uniform_int(rng, 0, 1) == 1));
    ft::HostTensor ref_y = y;
    std::fill(y.bytes.begin(), y.bytes.end(), 0xAB);
    std::fill(ref_y.bytes.begin(), ref_y.bytes.end(), 0xAB);
    // The value, stored in the tensor's own type: written through a one-element tensor of that type.
    ft::HostTensor value(t, {1});
    const double v = tops::is_int(t) ? (t == CUDNN_DATA_UINT8 ? 200 : -77) : ft::uniform(rng, -3, 3);
    value.set(0, v);
    for (int64_t i = 0; i < ref_y.count(); ++i) ref_y.set(i, value.get(0));
    ft::TensorDesc yd(y);
    FT_OK(cudnnSetTensor(h, yd, y.data(), value.data()));
    ft::sync_device();  // the bytes are compared directly below
    EXPECT_EQ(y.bytes, ref_y.bytes) << "set " << y.str() << " to " << v << " (the gaps must stay untouched)";
  }
  ft::HostTensor y(CUDNN_DATA_FLOAT, {2, 2});
  ft::TensorDesc yd(y), unset;
  const float v = 1;
  EXPECT_EQ(cudnnSetTensor(nullptr, yd, y.data(), &v), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor(h, unset, y.data(), &v), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor(h, yd, nullptr, &v), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor(h, yd, y.data(), nullptr), CUDNN_STATUS_BAD_PARAM);
}

TEST(TensorOps, ScaleTensorAllTypes) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                   CUDNN_DATA_INT8, CUDNN_DATA_INT32};
  for (cudnnDataType_t t : types) {
    const auto dims = tops::rand_dims(rng, ft::uniform_int(rng, 2, 5), 1, 5);
    ft::HostTensor y = tops::rand_layout(rng, t, dims);
    tops::fill(y, rng);
    const auto before = y.values();
    const Scale alpha(tops::is_int(t) ? -3.0 : tops::rand_scale(rng, 0.25, 2));
    ft::TensorDesc yd(y);
    FT_OK(cudnnScaleTensor(h, yd, y.data(), alpha.ptr(t)));
    EXPECT_TRUE(tops::check(y, ref::blend(before, before, alpha.value(t), 0.0), "scale " + y.str()));
  }
  ft::HostTensor y(CUDNN_DATA_FLOAT, {2, 2});
  ft::TensorDesc yd(y);
  EXPECT_EQ(cudnnScaleTensor(h, yd, y.data(), nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnScaleTensor(h, nullptr, y.data(), &h), CUDNN_STATUS_BAD_PARAM);
}

}  // namespace
