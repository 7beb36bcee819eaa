// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The reduce tensor descriptor, the size queries and cudnnReduceTensor against tests/ref.
#include <cstring>
#include <limits>

#include "ref/tensor_ops.h"
#include "unit/tensor_ops_util.h"

namespace {

using tops::Scale;

struct RedDesc {
  cudnnReduceTensorDescriptor_t d = nullptr;
  RedDesc() { EXPECT_EQ(cudnnCreateReduceTensorDescriptor(&d), CUDNN_STATUS_SUCCESS); }
  ~RedDesc() { cudnnDestroyReduceTensorDescriptor(d); }
  operator cudnnReduceTensorDescriptor_t() const { return d; }
};

const cudnnReduceTensorOp_t kOps[] = {CUDNN_REDUCE_TENSOR_ADD,   CUDNN_REDUCE_TENSOR_MUL,
                                      CUDNN_REDUCE_TENSOR_MIN,   CUDNN_REDUCE_TENSOR_MAX,
                                      CUDNN_REDUCE_TENSOR_AMAX,  CUDNN_REDUCE_TENSOR_AVG,
                                      CUDNN_REDUCE_TENSOR_NORM1, CUDNN_REDUCE_TENSOR_NORM2,
                                      CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS};
const ref::Reduce kRefOps[] = {ref::Reduce::add,  ref::Reduce::mul,   ref::Reduce::min,
                               ref::Reduce::max,  ref::Reduce::amax,  ref::Reduce::avg,
                               ref::Reduce::norm1, ref::Reduce::norm2, ref::Reduce::mul_no_zeros};

bool has_indices(cudnnReduceTensorOp_t op) {
  return op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX || op == CUDNN_REDUCE_TENSOR_AMAX;
}

TEST(ReduceTensor, DescriptorRoundTrip) {
  RedDesc d;
  FT_OK(cudnnSetReduceTensorDescriptor(d, CUDNN_REDUCE_TENSOR_AMAX, CUDNN_DATA_DOUBLE, CUDNN_PROPAGATE_NAN,
                                       CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES));
  cudnnReduceTensorOp_t op;
  cudnnDataType_t t;
  cudnnNanPropagation_t nan;
  cudnnReduceTensorIndices_t ind;
  cudnnIndicesType_t it;
  FT_OK(cudnnGetReduceTensorDescriptor(d, &op, &t, &nan, &ind, &it));
  EXPECT_EQ(op, CUDNN_REDUCE_TENSOR_AMAX);
  EXPECT_EQ(t, CUDNN_DATA_DOUBLE);
  EXPECT_EQ(nan, CUDNN_PROPAGATE_NAN);
  EXPECT_EQ(ind, CUDNN_REDUCE_TENSOR_FLATTENED_INDICES);
  EXPECT_EQ(it, CUDNN_32BIT_INDICES);
  auto set = [&](int o, int c, int n, int i, int ty) {
    return cudnnSetReduceTensorDescriptor(d, static_cast<cudnnReduceTensorOp_t>(o), static_cast<cudnnDataType_t>(c),
                                          static_cast<cudnnNanPropagation_t>(n),
                                          static_cast<cudnnReduceTensorIndices_t>(i),
                                          static_cast<cudnnIndicesType_t>(ty));
  };
  EXPECT_EQ(set(9, 0, 0, 0, 0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(set(0, 99, 0, 0, 0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(set(0, 0, 2, 0, 0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(set(0, 0, 0, 2, 0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(set(0, 0, 0, 0, 4), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetReduceTensorDescriptor(d, &op, &t, nullptr, &ind, &it), CUDNN_STATUS_BAD_PARAM);
  RedDesc fresh;
  EXPECT_EQ(cudnnGetReduceTensorDescriptor(fresh, &op, &t, &nan, &ind, &it), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyReduceTensorDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnCreateReduceTensorDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM);
}

struct Combo {
  cudnnDataType_t a, c;
};
const Combo kCombos[] = {{CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},  {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},
                         {CUDNN_DATA_HALF, CUDNN_DATA_HALF},    {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
                         {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16}, {CUDNN_DATA_INT8, CUDNN_DATA_INT8},
                         {CUDNN_DATA_INT8, CUDNN_DATA_FLOAT}};

// Long slices with few outputs (the GPU backend splits them over blocks, through the workspace) and many short
// ones, for every op, with indices.
TEST(ReduceTensor, LongSlices) {
  auto rng = ft::make_rng();
  ft::Handle h;
  struct Shape {
    std::vector<int> a, c;
  };
  const Shape shapes[] = {{{1, 1, 200, 120}, {1, 1, 1, 1}}, {{3, 2, 100, 90}, {3, 1, 1, 90}},
                          {{300, 8, 2, 2}, {1, 8, 1, 2}},
                          {{4, 6, 7, 7}, {4, 6, 1, 1}},      // GPU: one warp per output (49 contiguous elements)
                          {{2, 3, 1, 3000}, {2, 3, 1, 1}},   // GPU: one warp per output, long run
                          {{3, 5, 20, 20}, {1, 5, 1, 1}}};   // GPU: rows of H*W, split in whole rows
  for (const Shape& sh : shapes) {
    for (int k = 0; k < 9; ++k) {
      const cudnnReduceTensorOp_t op = kOps[k];
      const bool prop = ft::uniform_int(rng, 0, 1) == 1;
      // MIN / MAX / AMAX are exact in float; the sums and products of long slices need double to meet the
      // tolerance.
      const cudnnDataType_t t = has_indices(op) ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
      RedDesc d;
      FT_OK(cudnnSetReduceTensorDescriptor(d, op, t, prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                           CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES));
      ft::HostTensor a(t, sh.a), c(t, sh.c);
      const bool mul = op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
      a.fill_uniform(rng, mul ? 0.9999 : -2.0, mul ? 1.0001 : 2.0);
      if (op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
        for (int64_t i = 0; i < a.count(); i += 7) a.set(i, 0.0);
      if (k % 3 == 0) a.set(a.count() / 3, std::nan(""));  // a NaN in one slice
      c.poison();
      ft::TensorDesc ad(a), cd(c);
      size_t isz = 0, wsz = 0;
      FT_OK(cudnnGetReductionIndicesSize(h, d, ad, cd, &isz));
      FT_OK(cudnnGetReductionWorkspaceSize(h, d, ad, cd, &wsz));
      ft::Buffer<uint32_t> idx(static_cast<size_t>(c.count()), 0xFFFFFFFFu);
      ft::Buffer<unsigned char> ws(wsz + 1);
      const Scale one(1.0), zero(0.0);
      FT_OK(cudnnReduceTensor(h, d, idx.data(), isz, ws.data(), wsz, one.ptr(t), ad, a.data(), zero.ptr(t), cd, c.data()));
      ft::sync_device();
      std::vector<int64_t> ridx;
      const ref::Tensor r = ref::reduce(kRefOps[k], prop, tops::to_ref(a), sh.c, &ridx);
      const std::string what = "reduce op " + std::to_string(k) + " " + a.str() + " -> " + c.str();
      EXPECT_TRUE(tops::check(c, r.v, what, tops::blend_floor(r.v, {}, 1.0, 0.0)));
      if (has_indices(op))
        for (size_t j = 0; j < idx.size(); ++j)
          ASSERT_EQ(static_cast<int64_t>(idx[j]), ridx[j]) << what << " index of output " << j;
    }
  }
}

// ADD / AVG over a contiguous middle run of packed dims (global average pooling as a reduction): the GPU backend's
// one-pass plane sums. ResNet-50's 64x2048x7x7 -> 64x2048x1x1 in NCHW (rows of 49 staged in shared memory) and
// NHWC (16-byte column sums), middle dims of a 4-D tensor, half data into float sums, doubles, A off the 16-byte
// grid (NCHW: realigned copy; NHWC: the other plans), and shapes that must take the other plans (reduced dims not
// one run, padded A).
// ADD and AVG of data of either sign may cancel to almost nothing: their rounding error scales with the summed
// terms, not with the result. The tolerance floor they need: |alpha| x the largest finite |a| x the terms per output
// (one for AVG); 0 for the other ops.
double sum_floor(const ft::HostTensor& a, const ft::HostTensor& c, cudnnReduceTensorOp_t op, double alpha) {
  if (op != CUDNN_REDUCE_TENSOR_ADD && op != CUDNN_REDUCE_TENSOR_AVG) return 0;
  const double terms = op == CUDNN_REDUCE_TENSOR_ADD ? static_cast<double>(a.count() / c.count()) : 1.0;
  return std::fabs(alpha) * ft::max_abs(a.values()) * terms;
}

TEST(ReduceTensor, PlaneSums) {
  auto rng = ft::make_rng();
  ft::Handle h;
  struct Shape {
    cudnnDataType_t a, c;
    std::vector<int> adims, cdims;
    int layout;  // of A and C: 0 NCHW, 1 NHWC, 2 padded NCHW
    bool shifted;
  };
  const Shape shapes[] = {
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {64, 2048, 7, 7}, {64, 2048, 1, 1}, 0, false},
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, {64, 2048, 7, 7}, {64, 2048, 1, 1}, 1, false},
      {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, {3, 5, 7, 7}, {3, 5, 1, 1}, 0, true},
      {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, {2, 3, 5, 3}, {2, 3, 1, 1}, 0, false},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {2, 3, 4, 8}, {2, 1, 1, 8}, 0, false},   // middle dims, I = 8
      {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, {2, 6, 3, 3}, {2, 6, 1, 1}, 1, false},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {2, 12, 3, 5}, {2, 12, 1, 1}, 1, true},  // NHWC off the grid
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {3, 4, 5, 6}, {1, 4, 1, 1}, 0, false},   // reduced dims not one run
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {2, 8, 7, 7}, {2, 8, 1, 1}, 2, false},   // padded A
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {2, 3, 1, 1500}, {2, 3, 1, 1}, 0, false},  // 32 threads per row
  };
  for (const Shape& sh : shapes) {
    if (!ft::take_case()) continue;
    const bool big = sh.adims[0] * sh.adims[1] > 10000;
    for (cudnnReduceTensorOp_t op : {CUDNN_REDUCE_TENSOR_ADD, CUDNN_REDUCE_TENSOR_AVG}) {
      if (big && (op == CUDNN_REDUCE_TENSOR_AVG) != (sh.layout == 0)) continue;  // one op per large shape
      const cudnnDataType_t comp = sh.a == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
      RedDesc d;
      FT_OK(cudnnSetReduceTensorDescriptor(d, op, comp, CUDNN_NOT_PROPAGATE_NAN, CUDNN_REDUCE_TENSOR_NO_INDICES,
                                           CUDNN_32BIT_INDICES));
      auto make = [&](cudnnDataType_t t, const std::vector<int>& dims) {
        if (sh.layout == 2) return ft::HostTensor(t, dims, ft::padded_strides(rng, dims, false));
        return ft::HostTensor(t, dims, sh.layout == 1);
      };
      ft::HostTensor a = make(sh.a, sh.adims), c = make(sh.c, sh.cdims);
      tops::fill(a, rng);
      const Scale alpha(ft::uniform_int(rng, 0, 1) ? 1.0 : tops::rand_scale(rng, 0.25, 2));
      const Scale beta(ft::uniform_int(rng, 0, 1) ? 0.0 : tops::rand_scale(rng, 0.25, 1));
      if (beta.d == 0) c.poison(); else tops::fill(c, rng);
      const auto prior = c.values();
      ft::HostTensor buf(sh.a, {1, static_cast<int>(a.span()) + 16, 1, 1});
      const size_t es = ft::type_size(sh.a);
      ft::sync_device();
      std::memcpy(static_cast<char*>(buf.data()) + es, a.data(), static_cast<size_t>(a.span()) * es);
      const void* ap = sh.shifted ? static_cast<const void*>(static_cast<char*>(buf.data()) + es) : a.data();
      ft::TensorDesc ad(a), cd(c);
      size_t wsz = 0;
      FT_OK(cudnnGetReductionWorkspaceSize(h, d, ad, cd, &wsz));
      ft::Buffer<unsigned char> ws(wsz + 1);
      FT_OK(cudnnReduceTensor(h, d, nullptr, 0, ws.data(), wsz, alpha.ptr(comp), ad, ap, beta.ptr(comp), cd,
                              c.data()));
      const ref::Tensor r = ref::reduce(op == CUDNN_REDUCE_TENSOR_ADD ? ref::Reduce::add : ref::Reduce::avg, false,
                                        tops::to_ref(a), sh.cdims, nullptr);
      const std::string what = std::string(op == CUDNN_REDUCE_TENSOR_ADD ? "add " : "avg ") + a.str() + " -> " +
                                c.str() + (sh.shifted ? " (A shifted)" : "");
      const double floor = std::max(tops::blend_floor(r.v, prior, alpha.value(comp), beta.value(comp)),
                                    sum_floor(a, c, op, alpha.value(comp)));
      EXPECT_TRUE(tops::check(c, ref::blend(r.v, prior, alpha.value(comp), beta.value(comp)), what, floor));
    }
  }
}

TEST(ReduceTensor, Random) {
  auto rng = ft::make_rng();
  ft::Handle h;
  int trial = 0;
  for (const Combo& combo : kCombos) {
    for (int k = 0; k < 9; ++k) {
      for (int rep = 0; rep < 2; ++rep, ++trial) {
        const cudnnReduceTensorOp_t op = kOps[k];
        const cudnnDataType_t comp = combo.a == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
        const bool prop = ft::uniform_int(rng, 0, 1) == 1;
        const bool want_idx = rep == 1;
        RedDesc d;
        FT_OK(cudnnSetReduceTensorDescriptor(d, op, comp, prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                             want_idx ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES
                                                      : CUDNN_REDUCE_TENSOR_NO_INDICES,
                                             CUDNN_32BIT_INDICES));
        const int nb = ft::uniform_int(rng, 2, 4);
        const auto adims = tops::rand_dims(rng, nb, 1, 5);
        std::vector<int> cdims = adims;
        const int mode = trial % 5;  // 0: reduce everything, 1: nothing, else a random subset
        for (int i = 0; i < nb; ++i)
          if (mode == 0 || (mode >= 2 && ft::uniform_int(rng, 0, 1))) cdims[i] = 1;
        ft::HostTensor a = tops::rand_layout(rng, combo.a, adims), c = tops::rand_layout(rng, combo.c, cdims);
        const bool mul = op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
        if (mul && !tops::is_int(combo.a)) {
          a.fill_uniform(rng, 0.9, 1.1);
          const ft::HostPhase host;
          if (op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
            for (int64_t i = 0; i < a.count(); ++i)
              if (ft::uniform_int(rng, 0, 3) == 0) a.set(i, 0.0);
        } else if (mul) {
          a.fill_ints(rng, -1, 1);
        } else {
          tops::fill(a, rng);
        }
        const bool ints = tops::is_int(combo.c);
        const Scale alpha(trial % 3 == 0 ? 1.0 : ints ? 2.0 : tops::rand_scale(rng, 0.25, 2));
        const Scale beta(trial % 2 == 0 ? 0.0 : ints ? 1.0 : tops::rand_scale(rng, 0.25, 1));
        if (beta.d == 0) c.poison(); else tops::fill(c, rng);
        const auto prior = c.values();
        ft::TensorDesc ad(a), cd(c);
        size_t isz = 1, wsz = 1;
        FT_OK(cudnnGetReductionIndicesSize(h, d, ad, cd, &isz));
        FT_OK(cudnnGetReductionWorkspaceSize(h, d, ad, cd, &wsz));
        const size_t need = want_idx && has_indices(op) ? c.count() * sizeof(uint32_t) : 0;
        EXPECT_EQ(isz, need);
        ft::Buffer<uint32_t> idx(static_cast<size_t>(c.count()), 0xFFFFFFFFu);
        ft::Buffer<unsigned char> ws(wsz + 1);
        FT_OK(cudnnReduceTensor(h, d, idx.data(), isz, ws.data(), wsz, alpha.ptr(comp), ad, a.data(), beta.ptr(comp),
                                cd, c.data()));
        ft::sync_device();  // idx is read directly below
        std::vector<int64_t> ridx;
        const ref::Tensor r = ref::reduce(kRefOps[k], prop, tops::to_ref(a), cdims, &ridx);
        const std::string what = "reduce op " + std::to_string(k) + " " + a.str() + " -> " + c.str() +
                                 " alpha=" + std::to_string(alpha.d) + " beta=" + std::to_string(beta.d);
        const double floor = std::max(tops::blend_floor(r.v, prior, alpha.value(comp), beta.value(comp)),
                                      sum_floor(a, c, op, alpha.value(comp)));
        EXPECT_TRUE(tops::check(c, ref::blend(r.v, prior, alpha.value(comp), beta.value(comp)), what, floor));
        if (need) {
          for (size_t j = 0; j < idx.size(); ++j)
            ASSERT_EQ(static_cast<int64_t>(idx[j]), ridx[j]) << what << " index of output " << j;
        } else {
          for (uint32_t v : idx) ASSERT_EQ(v, 0xFFFFFFFFu) << what << ": indices written though none were asked";
        }
      }
    }
  }
}

TEST(ReduceTensor, NanPropagationAndIndices) {
  ft::Handle h;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ft::HostTensor a(CUDNN_DATA_FLOAT, {3, 4}), c(CUDNN_DATA_FLOAT, {3, 1});
  const double v[12] = {1, nan, -3, 2, nan, nan, nan, nan, 5, -7, 7, nan};
  for (int i = 0; i < 12; ++i) a.set(i, v[i]);
  ft::TensorDesc ad(a), cd(c);
  const Scale one(1.0), zero(0.0);
  for (int k : {2, 3, 4}) {
    for (bool prop : {false, true}) {
      RedDesc d;
      FT_OK(cudnnSetReduceTensorDescriptor(d, kOps[k], CUDNN_DATA_FLOAT,
                                           prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                           CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES));
      c.poison();
      ft::Buffer<uint32_t> idx(3);  // device-visible in GPU test mode
      FT_OK(cudnnReduceTensor(h, d, idx.data(), 3 * sizeof(uint32_t), nullptr, 0, &one.f, ad, a.data(), &zero.f, cd,
                              c.data()));
      ft::sync_device();
      std::vector<int64_t> ridx;
      const auto r = ref::reduce(kRefOps[k], prop, tops::to_ref(a), {3, 1}, &ridx);
      EXPECT_TRUE(ft::near(c.values(), r.v, 0, "op " + std::to_string(k) + (prop ? " propagate" : "")));
      for (int j = 0; j < 3; ++j) EXPECT_EQ(idx[j], ridx[j]) << "op " << k << " row " << j;
      EXPECT_EQ(std::isnan(c.get(0)), prop);
    }
  }
  // Known values: AMAX of row 2 is 7 at position 1 (the first of -7 and 7).
  RedDesc d;
  FT_OK(cudnnSetReduceTensorDescriptor(d, CUDNN_REDUCE_TENSOR_AMAX, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                       CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES));
  ft::Buffer<uint32_t> idx(3);
  FT_OK(cudnnReduceTensor(h, d, idx.data(), 3 * sizeof(uint32_t), nullptr, 0, &one.f, ad, a.data(), &zero.f, cd,
                          c.data()));
  EXPECT_EQ(c.get(2), 7.0);  // get() waits for the device
  EXPECT_EQ(idx[2], 1u);
}

// Per-channel reductions without indices of a packed A (the GPU backend's channel path: [N][C][L] planes, NCHW ->
// 1xCx1x1, and [Q][R][I] columns, NHWC -> 1xCx1x1): 16-byte loads (V elements), splits over blocks through the
// workspace, a combine kernel. Data on a grid of 1/4 (products: +-1 and zeros) so that every sum is exact in float
// whatever the order; the shapes reach each GPU branch (noted with the H200's 132 SMs).
struct ChannelCase {
  cudnnDataType_t a, c;
  std::vector<int> adims, cdims;
  bool nhwc;      // A (and C) channel-innermost
  bool shifted;   // A one element off the 16-byte grid: scalar loads
  bool padded_c;  // C with padded strides
  const char* note;
};

void fill_exact(ft::HostTensor& a, std::mt19937_64& rng, cudnnReduceTensorOp_t op) {
  const bool mul = op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
  const int zero_odds = op == CUDNN_REDUCE_TENSOR_MUL ? 99999 : 999;  // MUL: most products stay nonzero
  const ft::HostPhase host;
  for (int64_t i = 0; i < a.count(); ++i) {
    if (mul) {
      const int k = ft::uniform_int(rng, 0, zero_odds);
      a.set(i, k == 0 ? 0.0 : (k & 1) ? 1.0 : -1.0);
    } else {
      a.set(i, 0.25 * ft::uniform_int(rng, -8, 8));
    }
  }
}

// One reduction of a case (A filled by the caller); C compared with the reference, the result returned.
void run_channel(ft::Handle& h, std::mt19937_64& rng, const ChannelCase& cs, int k, bool prop, ft::HostTensor& a,
                 bool random_scales, bool no_workspace = false, std::vector<double>* out = nullptr) {
  const cudnnReduceTensorOp_t op = kOps[k];
  const cudnnDataType_t comp = cs.a == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  RedDesc d;
  FT_OK(cudnnSetReduceTensorDescriptor(d, op, comp, prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                       CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES));
  ft::HostTensor c = cs.padded_c ? ft::HostTensor(cs.c, cs.cdims, ft::padded_strides(rng, cs.cdims, cs.nhwc))
                                 : ft::HostTensor(cs.c, cs.cdims, cs.nhwc);
  const Scale alpha(random_scales && ft::uniform_int(rng, 0, 1) ? tops::rand_scale(rng, 0.5, 2) : 1.0);
  const Scale beta(random_scales && ft::uniform_int(rng, 0, 1) ? tops::rand_scale(rng, 0.25, 1) : 0.0);
  if (beta.d == 0) c.poison(); else c.fill_uniform(rng, -2, 2);
  const auto prior = c.values();
  // A shifted by one element: a copy in a larger buffer
  ft::HostTensor buf(cs.a, {1, static_cast<int>(a.span()) + 16, 1, 1});
  const size_t es = ft::type_size(cs.a);
  ft::sync_device();
  std::memcpy(static_cast<char*>(buf.data()) + es, a.data(), static_cast<size_t>(a.span()) * es);
  const void* ap = cs.shifted ? static_cast<const void*>(static_cast<char*>(buf.data()) + es) : a.data();
  ft::TensorDesc ad(a), cd(c);
  size_t wsz = 0;
  FT_OK(cudnnGetReductionWorkspaceSize(h, d, ad, cd, &wsz));
  ft::Buffer<unsigned char> ws(wsz + 1);
  FT_OK(cudnnReduceTensor(h, d, nullptr, 0, no_workspace ? nullptr : ws.data(), no_workspace ? 0 : wsz,
                          alpha.ptr(comp), ad, ap, beta.ptr(comp), cd, c.data()));
  const ref::Tensor r = ref::reduce(kRefOps[k], prop, tops::to_ref(a), cs.cdims, nullptr);
  const std::string what = std::string(cs.note) + ": reduce op " + std::to_string(k) + (prop ? " prop " : " ") +
                           a.str() + (cs.shifted ? " (shifted)" : "") + " -> " + c.str() +
                           " alpha=" + std::to_string(alpha.d) + " beta=" + std::to_string(beta.d) +
                           (no_workspace ? " (no workspace)" : "");
  // (fill_exact's data sums exactly; the random data of ChannelDeterministic and the bits cases do not)
  const double floor = std::max(tops::blend_floor(r.v, prior, alpha.value(comp), beta.value(comp)),
                                sum_floor(a, c, op, alpha.value(comp)));
  EXPECT_TRUE(tops::check(c, ref::blend(r.v, prior, alpha.value(comp), beta.value(comp)), what, floor));
  if (out) *out = c.values();
}

void run_channel_cases(const ChannelCase* cases, size_t n) {
  auto rng = ft::make_rng();
  ft::Handle h;
  for (size_t i = 0; i < n; ++i) {
    if (!ft::take_case()) continue;
    const ChannelCase& cs = cases[i];
    ft::HostTensor a(cs.a, cs.adims, cs.nhwc);
    for (int k = 0; k < 9; ++k) {
      fill_exact(a, rng, kOps[k]);
      run_channel(h, rng, cs, k, ft::uniform_int(rng, 0, 1) == 1, a, true);
    }
  }
}

TEST(ReduceTensor, ChannelPlanes) {
  const ChannelCase cases[] = {
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {4, 8, 32, 33}, {1, 8, 1, 1}, false, false, false, "one part per output"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {7, 2, 50, 60}, {1, 2, 1, 1}, false, false, false, "2 parts, mid-plane"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {7, 2, 50, 60}, {1, 2, 1, 1}, false, true, true, "shifted A, padded C"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {9, 2, 45, 47}, {1, 2, 1, 1}, false, false, false, "odd L: scalar, 2 parts"},
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, {5, 4, 37, 41}, {1, 4, 1, 1}, false, false, false, "f16, odd L"},
      {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, {16, 3, 32, 32}, {1, 3, 1, 1}, false, false, false, "f16 into f32 C"},
      {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, {1, 2, 256, 128}, {1, 2, 1, 1}, false, false, false,
       "bf16, N = 1 rows, 2 parts"},
      {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, {8, 4, 16, 64}, {1, 1, 16, 1}, false, false, false, "kept H, L = 64"},
      {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, {4, 4, 32, 32}, {1, 1, 1, 1}, false, false, false,
       "f64, everything into one output, 4 parts"},
      {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, {3, 5, 30, 31}, {1, 5, 1, 1}, false, false, true, "f64, odd L"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {2, 3, 48, 48}, {2, 3, 1, 1}, false, false, false, "kept N and C"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {2, 3, 40, 40}, {1, 1, 1, 1}, false, true, false, "all, one block"},
  };
  run_channel_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

TEST(ReduceTensor, ChannelColumns) {
  const ChannelCase cases[] = {
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, {8, 64, 16, 16}, {1, 64, 1, 1}, true, false, false, "f16, 4 parts"},
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, {8, 64, 16, 16}, {1, 64, 1, 1}, true, true, false, "f16, shifted A"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {2, 128, 16, 16}, {1, 128, 1, 1}, true, false, true, "f32, padded C"},
      {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, {2, 37, 16, 16}, {1, 37, 1, 1}, true, false, false,
       "bf16, odd I, one block"},
      {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, {4, 12, 32, 32}, {1, 12, 1, 1}, true, false, false, "I % V != 0"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {8, 4, 32, 32}, {1, 4, 1, 1}, true, false, false,
       "I = V: 256 row groups, two-stage fold"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {4, 3, 16, 16}, {1, 3, 1, 1}, true, false, false, "I = 3: 85 row groups"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {2, 16, 64, 32}, {2, 1, 1, 32}, false, false, false, "Q = 2, 2 parts"},
      {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, {1, 1024, 8, 8}, {1, 1024, 1, 1}, true, false, false,
       "f64, two column tiles"},
      {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, {4, 16, 16, 16}, {1, 16, 1, 1}, true, false, true, "f64, 4 parts"},
      {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, {4, 32, 16, 16}, {4, 32, 1, 1}, true, false, false,
       "Q = 4 images, 64 row groups"},
  };
  run_channel_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

// MIN / MAX / AMAX without indices on the channel path: a channel of NaN only (NaN either way) and a channel with
// one NaN (NaN only with PROPAGATE), through one block per output, the two-stage fold and the combine kernel.
void run_channel_nan() {
  auto rng = ft::make_rng();
  ft::Handle h;
  const ChannelCase cases[] = {
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {2, 4, 32, 64}, {1, 4, 1, 1}, false, false, false, "planes"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {16, 4, 32, 32}, {1, 4, 1, 1}, false, false, false, "planes, 2 parts"},
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, {2, 16, 8, 8}, {1, 16, 1, 1}, true, false, false, "columns"},
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, {4, 16, 32, 32}, {1, 16, 1, 1}, true, false, false, "columns, 2 parts"},
  };
  for (const ChannelCase& cs : cases) {
    if (!ft::take_case()) continue;
    ft::HostTensor a(cs.a, cs.adims, cs.nhwc);
    for (int k : {2, 3, 4}) {
      for (bool prop : {false, true}) {
        fill_exact(a, rng, kOps[k]);
        const int64_t per = a.count() / cs.adims[1];
        int64_t seen = 0;
        {
          const ft::HostPhase host;
          for (int64_t i = 0; i < a.count(); ++i) {  // logical order: channel = (i / (H * W)) % C
            const int ch = static_cast<int>((i / (cs.adims[2] * cs.adims[3])) % cs.adims[1]);
            if (ch == 0) a.set(i, std::nan(""));
            if (ch == 1 && seen++ == per / 2) a.set(i, std::nan(""));
          }
        }
        run_channel(h, rng, cs, k, prop, a, false);
      }
    }
  }
}

TEST(ReduceTensor, ChannelNan) { run_channel_nan(); }

// The columns plan on columns_wave (FREEDNN_REDUCE_COLUMNS=wave: one wave of blocks, then the combine kernel; fused:
// one cooperative launch that combines after a grid barrier; read at every call): the columns cases and a few more
// (I = 200: not a multiple of the 256-column tile; I = 1100: two tiles, the second partial; C % 8 != 0: scalar
// loads; many parts) against the reference, the NaN rules, and the same bits from run to run and between the two
// forms (the same parts added in the same order).
TEST(ReduceTensor, ChannelColumnsWave) {
  const ChannelCase cases[] = {
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, {8, 64, 16, 16}, {1, 64, 1, 1}, true, false, false, "f16, parts"},
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, {8, 64, 16, 16}, {1, 64, 1, 1}, true, true, false, "f16, shifted A"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {2, 128, 16, 16}, {1, 128, 1, 1}, true, false, true, "f32, padded C"},
      {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, {2, 37, 16, 16}, {1, 37, 1, 1}, true, false, false, "bf16, odd I"},
      {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, {4, 12, 32, 32}, {1, 12, 1, 1}, true, false, false, "I % V != 0"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {8, 4, 32, 32}, {1, 4, 1, 1}, true, false, false, "I = V: two-stage fold"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {4, 3, 16, 16}, {1, 3, 1, 1}, true, false, false, "I = 3: 85 row groups"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {2, 16, 64, 32}, {2, 1, 1, 32}, false, false, false, "Q = 2"},
      {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, {1, 1024, 8, 8}, {1, 1024, 1, 1}, true, false, false, "f64, 2 tiles"},
      {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, {4, 32, 16, 16}, {4, 32, 1, 1}, true, false, false, "Q = 4 images"},
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, {4, 200, 9, 7}, {1, 200, 1, 1}, true, false, true, "f16, I = 200"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {3, 1100, 5, 5}, {1, 1100, 1, 1}, true, false, false, "f32, I = 1100"},
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, {16, 64, 28, 28}, {1, 64, 1, 1}, true, false, false, "f16, many parts"},
  };
  for (const char* form : {"wave", "fused"}) {
    ft::ScopedEnv knob("FREEDNN_REDUCE_COLUMNS", form);
    run_channel_cases(cases, sizeof(cases) / sizeof(cases[0]));
    run_channel_nan();
  }
  auto rng = ft::make_rng();
  ft::Handle h;
  const ChannelCase bits[] = {
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, {16, 32, 16, 16}, {1, 32, 1, 1}, true, false, false, "f16"},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {8, 100, 20, 20}, {1, 100, 1, 1}, true, false, false, "f32, I = 100"},
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, {32, 256, 14, 14}, {1, 256, 1, 1}, true, false, false, "f16, I = 256"},
  };
  for (const ChannelCase& cs : bits) {
    if (!ft::take_case()) continue;
    ft::HostTensor a(cs.a, cs.adims, cs.nhwc);
    a.fill_uniform(rng, -1, 1);
    for (int k : {0, 7}) {  // ADD, NORM2
      std::vector<double> first;
      for (const char* form : {"wave", "wave", "fused", "fused"}) {
        ft::ScopedEnv knob("FREEDNN_REDUCE_COLUMNS", form);
        std::vector<double> out;
        run_channel(h, rng, cs, k, false, a, false, false, &out);
        if (first.empty()) first = out;
        ASSERT_EQ(out.size(), first.size());
        for (size_t i = 0; i < out.size(); ++i)
          ASSERT_EQ(std::memcmp(&out[i], &first[i], sizeof(double)), 0)
              << cs.note << " op " << k << " " << form << " output " << i;
      }
    }
  }
}

// The channel path sums in a fixed order: two runs give the same bits (random data, so the order matters); and
// without a workspace the call still succeeds on a slower plan.
TEST(ReduceTensor, ChannelDeterministic) {
  auto rng = ft::make_rng();
  ft::Handle h;
  const ChannelCase cases[] = {
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {16, 3, 32, 32}, {1, 3, 1, 1}, false, false, false, "planes"},
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, {16, 32, 16, 16}, {1, 32, 1, 1}, true, false, false, "columns"},
  };
  for (const ChannelCase& cs : cases) {
    ft::HostTensor a(cs.a, cs.adims, cs.nhwc);
    a.fill_uniform(rng, -1, 1);
    for (int k : {0, 7}) {  // ADD, NORM2
      std::vector<double> first, second, fallback;
      run_channel(h, rng, cs, k, false, a, false, false, &first);
      run_channel(h, rng, cs, k, false, a, false, false, &second);
      for (size_t i = 0; i < first.size(); ++i)
        ASSERT_EQ(std::memcmp(&first[i], &second[i], sizeof(double)), 0) << cs.note << " op " << k << " output " << i;
      run_channel(h, rng, cs, k, false, a, false, true, &fallback);
    }
  }
}

TEST(ReduceTensor, BadArguments) {
  ft::Handle h;
  RedDesc d, unset, i16, half_comp;
  FT_OK(cudnnSetReduceTensorDescriptor(d, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                       CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES));
  FT_OK(cudnnSetReduceTensorDescriptor(i16, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                       CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_16BIT_INDICES));
  FT_OK(cudnnSetReduceTensorDescriptor(half_comp, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_HALF, CUDNN_NOT_PROPAGATE_NAN,
                                       CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES));
  ft::HostTensor a(CUDNN_DATA_FLOAT, {2, 3, 4}), c(CUDNN_DATA_FLOAT, {2, 1, 4}), c2(CUDNN_DATA_FLOAT, {2, 2, 4});
  ft::HostTensor cdim(CUDNN_DATA_FLOAT, {2, 1}), ch(CUDNN_DATA_HALF, {2, 1, 4}), cd_(CUDNN_DATA_DOUBLE, {2, 1, 4});
  ft::TensorDesc A(a), C(c), C2(c2), CDIM(cdim), CH(ch), CDD(cd_);
  const Scale one(1.0), zero(0.0);
  ft::Buffer<uint32_t> idx(8);
  const size_t isz = idx.size() * 4;
  auto run = [&](cudnnReduceTensorDescriptor_t rd, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t y, void* ind,
                 size_t n) {
    return cudnnReduceTensor(h, rd, ind, n, nullptr, 0, &one.f, x, a.data(), &zero.f, y, c.data());
  };
  FT_OK(run(d, A, C, idx.data(), isz));
  EXPECT_EQ(cudnnReduceTensor(nullptr, d, idx.data(), isz, nullptr, 0, &one.f, A, a.data(), &zero.f, C, c.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(run(nullptr, A, C, idx.data(), isz), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(run(unset, A, C, idx.data(), isz), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(run(d, A, nullptr, idx.data(), isz), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(run(d, A, C2, idx.data(), isz), CUDNN_STATUS_BAD_PARAM);     // C dim neither A's nor 1
  EXPECT_EQ(run(d, A, CDIM, idx.data(), isz), CUDNN_STATUS_BAD_PARAM);   // rank mismatch
  EXPECT_EQ(run(d, A, C, nullptr, isz), CUDNN_STATUS_BAD_PARAM);         // indices needed
  EXPECT_EQ(run(d, A, C, idx.data(), isz - 1), CUDNN_STATUS_BAD_PARAM);  // too small
  EXPECT_EQ(run(d, A, CDD, idx.data(), isz), CUDNN_STATUS_BAD_PARAM);    // FLOAT compute, DOUBLE C
  EXPECT_EQ(run(i16, A, C, idx.data(), isz), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(run(half_comp, A, C, idx.data(), isz), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnReduceTensor(h, d, idx.data(), isz, nullptr, 0, &one.f, A, a.data(), &zero.f, CH, c.data()),
            CUDNN_STATUS_NOT_SUPPORTED);  // FLOAT A into HALF C
  EXPECT_EQ(cudnnReduceTensor(h, d, idx.data(), isz, nullptr, 0, nullptr, A, a.data(), &zero.f, C, c.data()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnReduceTensor(h, d, idx.data(), isz, nullptr, 0, &one.f, A, nullptr, &zero.f, C, c.data()),
            CUDNN_STATUS_BAD_PARAM);
  size_t sz = 0;
  EXPECT_EQ(cudnnGetReductionIndicesSize(h, d, A, C, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetReductionIndicesSize(h, d, A, C2, &sz), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetReductionWorkspaceSize(nullptr, d, A, C, &sz), CUDNN_STATUS_BAD_PARAM);
  FT_OK(cudnnGetReductionIndicesSize(h, d, A, C, &sz));
  EXPECT_EQ(sz, 8u * sizeof(uint32_t));
  // No indices for ADD, whatever the descriptor's index mode says.
  RedDesc add;
  FT_OK(cudnnSetReduceTensorDescriptor(add, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                       CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES));
  FT_OK(cudnnGetReductionIndicesSize(h, add, A, C, &sz));
  EXPECT_EQ(sz, 0u);
  FT_OK(run(add, A, C, nullptr, 0));
}

}  // namespace
