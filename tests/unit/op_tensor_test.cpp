// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The op tensor descriptor and cudnnOpTensor against tests/ref.
#include <cstring>
#include <limits>

#include "ref/tensor_ops.h"
#include "unit/tensor_ops_util.h"

namespace {

using tops::Scale;
using tops::Shifted;

struct OpDesc {
  cudnnOpTensorDescriptor_t d = nullptr;
  OpDesc() { EXPECT_EQ(cudnnCreateOpTensorDescriptor(&d), CUDNN_STATUS_SUCCESS); }
  ~OpDesc() { cudnnDestroyOpTensorDescriptor(d); }
  operator cudnnOpTensorDescriptor_t() const { return d; }
};

struct Combo {
  cudnnDataType_t ab, c;
};
// cuDNN's table of supported (A = B, C) types.
const Combo kCombos[] = {
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},       {CUDNN_DATA_INT8, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},        {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF},        {CUDNN_DATA_HALF, CUDNN_DATA_HALF},
    {CUDNN_DATA_INT8, CUDNN_DATA_INT8},         {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16},    {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16},
    {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},
};

const cudnnOpTensorOp_t kOps[] = {CUDNN_OP_TENSOR_ADD, CUDNN_OP_TENSOR_MUL, CUDNN_OP_TENSOR_MIN,
                                  CUDNN_OP_TENSOR_MAX, CUDNN_OP_TENSOR_SQRT, CUDNN_OP_TENSOR_NOT};
const ref::Op kRefOps[] = {ref::Op::add, ref::Op::mul, ref::Op::min, ref::Op::max, ref::Op::sqrt,
                           ref::Op::logical_not};

TEST(OpTensor, DescriptorRoundTrip) {
  OpDesc d;
  FT_OK(cudnnSetOpTensorDescriptor(d, CUDNN_OP_TENSOR_MAX, CUDNN_DATA_DOUBLE, CUDNN_PROPAGATE_NAN));
  cudnnOpTensorOp_t op;
  cudnnDataType_t t;
  cudnnNanPropagation_t nan;
  FT_OK(cudnnGetOpTensorDescriptor(d, &op, &t, &nan));
  EXPECT_EQ(op, CUDNN_OP_TENSOR_MAX);
  EXPECT_EQ(t, CUDNN_DATA_DOUBLE);
  EXPECT_EQ(nan, CUDNN_PROPAGATE_NAN);
  EXPECT_EQ(cudnnSetOpTensorDescriptor(d, static_cast<cudnnOpTensorOp_t>(6), CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetOpTensorDescriptor(d, CUDNN_OP_TENSOR_ADD, static_cast<cudnnDataType_t>(77), CUDNN_PROPAGATE_NAN),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetOpTensorDescriptor(d, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, static_cast<cudnnNanPropagation_t>(2)),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetOpTensorDescriptor(nullptr, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetOpTensorDescriptor(d, nullptr, &t, &nan), CUDNN_STATUS_BAD_PARAM);
  OpDesc fresh;
  EXPECT_EQ(cudnnGetOpTensorDescriptor(fresh, &op, &t, &nan), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyOpTensorDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnCreateOpTensorDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM);
}

// Every op, every type combination of the table, B broadcast, random layouts, alpha1/alpha2/beta.
TEST(OpTensor, Random) {
  auto rng = ft::make_rng();
  ft::Handle h;
  int trial = 0;
  for (const Combo& combo : kCombos) {
    for (int k = 0; k < 6; ++k) {
      for (int rep = 0; rep < 2; ++rep, ++trial) {
        const cudnnOpTensorOp_t op = kOps[k];
        const bool dbl = combo.ab == CUDNN_DATA_DOUBLE;
        const cudnnDataType_t comp = dbl ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
        const cudnnNanPropagation_t nan = rep ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN;
        OpDesc d;
        FT_OK(cudnnSetOpTensorDescriptor(d, op, comp, nan));
        const int nb = ft::uniform_int(rng, 2, 5);
        const auto cdims = tops::rand_dims(rng, nb, 1, 5);
        std::vector<int> bdims = cdims;
        for (int i = 0; i < nb; ++i)
          if (trial % 3 && ft::uniform_int(rng, 0, 1)) bdims[i] = 1;
        ft::HostTensor a = tops::rand_layout(rng, combo.ab, cdims), b = tops::rand_layout(rng, combo.ab, bdims);
        ft::HostTensor c = tops::rand_layout(rng, combo.c, cdims);
        const bool sqrt = op == CUDNN_OP_TENSOR_SQRT;
        tops::fill(a, rng, sqrt ? 0 : -2, 2);
        tops::fill(b, rng);
        const bool ints = tops::is_int(combo.ab) || tops::is_int(combo.c);
        const double a1 = sqrt ? (ints ? 1.0 : ft::uniform(rng, 0.5, 2)) : ints ? 2.0 : tops::rand_scale(rng, 0.25, 2);
        const Scale alpha1(a1);
        const Scale alpha2(ints ? -1.0 : tops::rand_scale(rng, 0.25, 2));
        const Scale beta(rep == 0 ? 0.0 : ints ? 1.0 : tops::rand_scale(rng, 0.25, 1));
        if (beta.d == 0) c.poison(); else tops::fill(c, rng);
        const auto prior = c.values();
        ft::TensorDesc ad(a), bd(b), cd(c);
        FT_OK(cudnnOpTensor(h, d, alpha1.ptr(comp), ad, a.data(), alpha2.ptr(comp), bd, b.data(), beta.ptr(comp), cd,
                            c.data()));
        const ref::Tensor r = ref::elementwise(kRefOps[k], rep == 1, tops::to_ref(a), alpha1.value(comp),
                                               tops::to_ref(b), alpha2.value(comp));
        // Compared with the tolerance of C's type (exact to half a unit for INT8 C).
        EXPECT_TRUE(tops::check(c, ref::blend(r.v, prior, 1.0, beta.value(comp)),
                                std::string("op ") + std::to_string(k) + " a=" + a.str() + " b=" + b.str() +
                                    " c=" + c.str(),
                                tops::blend_floor(r.v, prior, 1.0, beta.value(comp))));
      }
    }
  }
}

// C may be A (in place); SQRT and NOT ignore B entirely (NULL descriptor and pointer).
TEST(OpTensor, InPlaceAndUnary) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const std::vector<int> dims = {2, 3, 4, 5};
  ft::HostTensor a(CUDNN_DATA_FLOAT, dims, true), b(CUDNN_DATA_FLOAT, {1, 3, 1, 1});
  tops::fill(a, rng);
  tops::fill(b, rng);
  const ref::Tensor ra = tops::to_ref(a);
  OpDesc d;
  FT_OK(cudnnSetOpTensorDescriptor(d, CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
  const Scale a1(1.5), a2(-0.5), beta(0.25);
  ft::TensorDesc ad(a), bd(b);
  FT_OK(cudnnOpTensor(h, d, &a1.f, ad, a.data(), &a2.f, bd, b.data(), &beta.f, ad, a.data()));
  const auto r = ref::elementwise(ref::Op::mul, false, ra, a1.value(CUDNN_DATA_FLOAT), tops::to_ref(b),
                                  a2.value(CUDNN_DATA_FLOAT));
  EXPECT_TRUE(ft::near(a.values(), ref::blend(r.v, ra.v, 1.0, beta.value(CUDNN_DATA_FLOAT)), 1e-5, "in place"));
  // Unary ops: bDesc, B and alpha2 may be NULL.
  ft::HostTensor x(CUDNN_DATA_FLOAT, dims), y(CUDNN_DATA_FLOAT, dims);
  x.fill_uniform(rng, 0, 3);
  y.poison();
  ft::TensorDesc xd(x), yd(y);
  const Scale zero(0.0);
  FT_OK(cudnnSetOpTensorDescriptor(d, CUDNN_OP_TENSOR_SQRT, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
  FT_OK(cudnnOpTensor(h, d, &a1.f, xd, x.data(), nullptr, nullptr, nullptr, &zero.f, yd, y.data()));
  const auto s = ref::elementwise(ref::Op::sqrt, false, tops::to_ref(x), a1.value(CUDNN_DATA_FLOAT), ref::Tensor(), 0);
  EXPECT_TRUE(ft::near(y.values(), s.v, 1e-5, "sqrt"));
}

TEST(OpTensor, NanPropagation) {
  ft::Handle h;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ft::HostTensor a(CUDNN_DATA_FLOAT, {1, 4}), b(CUDNN_DATA_FLOAT, {1, 4}), c(CUDNN_DATA_FLOAT, {1, 4});
  const double av[4] = {nan, 1, nan, -2}, bv[4] = {3, nan, nan, 5};
  for (int i = 0; i < 4; ++i) {
    a.set(i, av[i]);
    b.set(i, bv[i]);
  }
  ft::TensorDesc ad(a), bd(b), cd(c);
  const Scale one(1.0), zero(0.0);
  for (cudnnOpTensorOp_t op : {CUDNN_OP_TENSOR_MIN, CUDNN_OP_TENSOR_MAX}) {
    for (bool prop : {false, true}) {
      OpDesc d;
      FT_OK(cudnnSetOpTensorDescriptor(d, op, CUDNN_DATA_FLOAT, prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN));
      c.poison();
      FT_OK(cudnnOpTensor(h, d, &one.f, ad, a.data(), &one.f, bd, b.data(), &zero.f, cd, c.data()));
      const auto r = ref::elementwise(op == CUDNN_OP_TENSOR_MIN ? ref::Op::min : ref::Op::max, prop, tops::to_ref(a),
                                      1.0, tops::to_ref(b), 1.0);
      EXPECT_TRUE(ft::near(c.values(), r.v, 0, prop ? "propagate" : "no propagate"));
      EXPECT_EQ(std::isnan(c.get(0)), prop);
      EXPECT_TRUE(std::isnan(c.get(2)));
    }
  }
}

// B a per-channel coefficient (1 x C x 1 ...) or a single value over A and C packed in one layout: the GPU backend's
// one-pass broadcast kernel with its channel maps (NHWC-like: V consecutive channels per vector, B as one vector or
// V loads; NCHW with H*W a multiple of V: one channel per vector; otherwise per element; a single value), every
// binary op, beta 0 and not, NaN operands for MIN / MAX; and its fallbacks: element counts that are no whole number
// of vectors, A or C off the 16-byte grid. float, half, bfloat16, double (V = 4, 8, 8, 2).
TEST(OpTensor, ChannelBroadcast) {
  auto rng = ft::make_rng();
  ft::Handle h;
  struct Shape {
    std::vector<int> dims;
    bool nhwc;
    int b;      // 0: 1 x C x 1 ..., 1: a single value, 2: 1 x C x 1 ... with channel stride 3
    int shift;  // 0: none, 1: A off the 16-byte grid, 2: C off it
  };
  const Shape shapes[] = {{{2, 24, 5, 8}, false, 0, 0},    // H*W 40: one channel per vector
                          {{2, 24, 3, 5}, false, 0, 0},    // H*W 15: channels per element
                          {{2, 24, 3, 5}, true, 0, 0},     // NHWC, C % 8 == 0
                          {{3, 20, 2, 3}, true, 0, 0},     // NHWC, C % 8 != 0 (per element for 16-bit types)
                          {{2, 6, 3, 3}, true, 0, 0},      // NHWC, C = 6
                          {{2, 16, 2, 2, 4}, false, 0, 0}, // NCDHW
                          {{2, 16, 2, 3, 4}, true, 0, 0},  // NDHWC
                          {{2, 16, 4, 4}, false, 1, 0},    // a single value
                          {{2, 16, 3, 4}, true, 2, 0},     // NHWC, B strided: V loads
                          {{2, 16, 4, 4}, false, 2, 0},    // NCHW, B strided
                          {{1, 3, 1, 3}, false, 0, 0},     // 9 elements
                          {{2, 24, 5, 8}, false, 0, 1},
                          {{2, 24, 3, 5}, true, 0, 2}};
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_DOUBLE};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  int trial = 0;
  for (const Shape& sh : shapes) {
    for (cudnnDataType_t t : types) {
      for (int k = 0; k < 4; ++k, ++trial) {
        const cudnnDataType_t comp = t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
        const bool prop = trial % 3 == 1;
        OpDesc d;
        FT_OK(cudnnSetOpTensorDescriptor(d, kOps[k], comp, prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN));
        const int nb = static_cast<int>(sh.dims.size());
        std::vector<int> bdims(sh.dims.size(), 1);
        if (sh.b != 1) bdims[1] = sh.dims[1];
        ft::HostTensor a(t, sh.dims, sh.nhwc), c(t, sh.dims, sh.nhwc);
        ft::HostTensor b(t, bdims, sh.nhwc);
        if (sh.b == 2) {
          std::vector<int> bs(sh.dims.size(), 3 * sh.dims[1]);
          bs[1] = 3;
          b = ft::HostTensor(t, bdims, bs);
        }
        tops::fill(a, rng);
        tops::fill(b, rng);
        if (k >= 2) {  // MIN / MAX: NaN operands
          a.set(1, nan);
          b.set(0, nan);
        }
        const Scale alpha1(tops::rand_scale(rng, 0.25, 2)), alpha2(tops::rand_scale(rng, 0.25, 2));
        const Scale beta(trial % 2 == 0 ? 0.0 : tops::rand_scale(rng, 0.25, 1));
        if (beta.d == 0) c.poison(); else tops::fill(c, rng);
        const auto prior = c.values();
        Shifted as(a), cs(c);
        void* ap = sh.shift == 1 ? as.data() : a.data();
        void* cp = sh.shift == 2 ? cs.data() : c.data();
        ft::TensorDesc ad(a), bd(b), cd(c);
        FT_OK(cudnnOpTensor(h, d, alpha1.ptr(comp), ad, ap, alpha2.ptr(comp), bd, b.data(), beta.ptr(comp), cd, cp));
        if (sh.shift == 2) cs.copy_to(c);
        const ref::Tensor r = ref::elementwise(kRefOps[k], prop, tops::to_ref(a), alpha1.value(comp), tops::to_ref(b),
                                               alpha2.value(comp));
        EXPECT_TRUE(tops::check(c, ref::blend(r.v, prior, 1.0, beta.value(comp)),
                                std::string("op ") + std::to_string(k) + " nb " + std::to_string(nb) + " a=" + a.str() +
                                    " b=" + b.str() + " c=" + c.str() + " shift " + std::to_string(sh.shift),
                                tops::blend_floor(r.v, prior, 1.0, beta.value(comp))));
      }
    }
  }
}

TEST(OpTensor, BadArguments) {
  ft::Handle h;
  OpDesc d, unset;
  FT_OK(cudnnSetOpTensorDescriptor(d, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
  ft::HostTensor a(CUDNN_DATA_FLOAT, {2, 3, 4}), b(CUDNN_DATA_FLOAT, {1, 3, 1}), c(CUDNN_DATA_FLOAT, {2, 3, 4});
  ft::HostTensor b2(CUDNN_DATA_FLOAT, {1, 2, 1}), bh(CUDNN_DATA_HALF, {1, 3, 1}), ch(CUDNN_DATA_HALF, {2, 3, 4});
  ft::HostTensor c2(CUDNN_DATA_FLOAT, {2, 3, 5}), ad_(CUDNN_DATA_DOUBLE, {2, 3, 4}), cd_(CUDNN_DATA_DOUBLE, {2, 3, 4});
  ft::HostTensor a8(CUDNN_DATA_INT8, {2, 3, 4}), c8h(CUDNN_DATA_HALF, {2, 3, 4});
  ft::HostTensor a6(CUDNN_DATA_FLOAT, {1, 2, 1, 1, 1, 2});
  ft::TensorDesc A(a), B(b), C(c), B2(b2), BH(bh), CH(ch), C2(c2), AD(ad_), CD(cd_), A8(a8), C8H(c8h), A6(a6);
  const Scale one(1.0);
  auto run = [&](cudnnOpTensorDescriptor_t od, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t y,
                 cudnnTensorDescriptor_t z) {
    return cudnnOpTensor(h, od, &one.d, x, a.data(), &one.d, y, b.data(), &one.d, z, c.data());
  };
  EXPECT_EQ(cudnnOpTensor(nullptr, d, &one.f, A, a.data(), &one.f, B, b.data(), &one.f, C, c.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(run(nullptr, A, B, C), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(run(unset, A, B, C), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(run(d, A, nullptr, C), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(run(d, A, B2, C), CUDNN_STATUS_BAD_PARAM);   // B dim neither C's nor 1
  EXPECT_EQ(run(d, A, B, C2), CUDNN_STATUS_BAD_PARAM);   // A and C differ
  EXPECT_EQ(run(d, A, BH, C), CUDNN_STATUS_BAD_PARAM);   // A and B differ in type
  EXPECT_EQ(run(d, A6, A6, A6), CUDNN_STATUS_BAD_PARAM); // more than 5 dims
  EXPECT_EQ(run(d, AD, AD, CD), CUDNN_STATUS_BAD_PARAM); // FLOAT compute for DOUBLE data
  EXPECT_EQ(run(d, A8, A8, C8H), CUDNN_STATUS_NOT_SUPPORTED);  // INT8 -> HALF is not in the table
  EXPECT_EQ(run(d, A, B, CD), CUDNN_STATUS_NOT_SUPPORTED);     // FLOAT -> DOUBLE neither
  EXPECT_EQ(cudnnOpTensor(h, d, &one.f, A, nullptr, &one.f, B, b.data(), &one.f, C, c.data()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, d, &one.f, A, a.data(), nullptr, B, b.data(), &one.f, C, c.data()),
            CUDNN_STATUS_BAD_PARAM);
  OpDesc half_comp;
  FT_OK(cudnnSetOpTensorDescriptor(half_comp, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_HALF, CUDNN_NOT_PROPAGATE_NAN));
  EXPECT_EQ(run(half_comp, A, B, C), CUDNN_STATUS_BAD_PARAM);
  ft::TensorDesc v;
  FT_OK(cudnnSetTensor4dDescriptor(v, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 1, 4, 2, 2));
  std::vector<int8_t> vb(16);
  EXPECT_EQ(cudnnOpTensor(h, d, &one.f, v, vb.data(), &one.f, v, vb.data(), &one.f, v, vb.data()),
            CUDNN_STATUS_NOT_SUPPORTED);
}

}  // namespace
