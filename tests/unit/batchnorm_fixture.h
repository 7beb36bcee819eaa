// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Helpers shared by batchnorm_test.cpp and normalization_test.cpp: random problems, layouts, scaling factors,
// an activation descriptor holder.
#pragma once
#include <cudnn.h>

#include <sstream>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "ref/batchnorm.h"
#include "ref/ref_tensor.h"

namespace bnt {

inline const cudnnDataType_t kTypes[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};

inline cudnnDataType_t param_type(cudnnDataType_t x) {
  return x == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

// Dims of the scale/bias/mean/var tensors: 1xCx1x1(x1), or 1xCxHxW(xD) per activation.
inline std::vector<int> param_dims(const std::vector<int>& x, bool per_activation) {
  std::vector<int> d(x.size(), 1);
  d[1] = x[1];
  if (per_activation)
    for (size_t i = 2; i < x.size(); ++i) d[i] = x[i];
  return d;
}

// Layouts: 0 NCHW packed, 1 NHWC packed, 2 NCHW padded, 3 NHWC padded.
inline ft::HostTensor make_tensor(std::mt19937_64& rng, cudnnDataType_t t, const std::vector<int>& dims,
                                  int layout) {
  const bool nhwc = layout % 2 == 1;
  if (layout >= 2) return ft::HostTensor(t, dims, ft::padded_strides(rng, dims, nhwc));
  return ft::HostTensor(t, dims, nhwc);
}

inline ref::Tensor to_ref(const ft::HostTensor& t) { return ref::Tensor(t.dims, t.values()); }

// dx cancels terms of the size of dy * scale * inv_std, and its rounding follows them (a statistic of 3 samples
// can have a small variance, whose inv_std amplifies the rounding of x - mean): near()'s min_scale for dx (seeds
// 581747447 in normalization_test.cpp, 3331419605 in batchnorm_test.cpp failed without it).
inline double dx_terms(const ft::HostTensor& dy, const ft::HostTensor& scale,
                       const std::vector<double>& inv_std) {
  return ft::max_abs(dy.values()) * ft::max_abs(scale.values()) * ft::max_abs(inv_std);
}

// dx, dScale and dBias of a backward call against the reference gradients g, each blended over what it held before
// (prior_*) with (ad, bd) for dx and (ap, bp) for the parameter gradients: dx within 4x the data type's tolerance at
// the size of its terms; dScale / dBias, sums of terms of either sign rounded at the terms' size (max |dy|) rather
// than the sum's, within 4x the parameter type's.
struct BackwardOutputs {
  const ft::HostTensor &dx, &dscale, &dbias;
  const std::vector<double> &prior_dx, &prior_ds, &prior_db;
};
inline void expect_backward_near(const ref::BnGrads& g, const BackwardOutputs& o, double ad, double bd, double ap,
                                 double bp, const ft::HostTensor& dy, const ft::HostTensor& scale,
                                 const std::vector<double>& inv_std, const std::string& what) {
  const cudnnDataType_t t = o.dx.dtype, pt = o.dscale.dtype;
  EXPECT_TRUE(ft::near(o.dx.values(), ref::blend(g.dx.v, o.prior_dx, ad, bd), ft::tolerance(t) * 4, "dx " + what,
                       dx_terms(dy, scale, inv_std)));
  const double dy_scale = ft::max_abs(dy.values());
  EXPECT_TRUE(ft::near(o.dscale.values(), ref::blend(g.dscale, o.prior_ds, ap, bp), ft::tolerance(pt) * 4,
                       "dScale " + what, dy_scale));
  EXPECT_TRUE(ft::near(o.dbias.values(), ref::blend(g.dbias, o.prior_db, ap, bp), ft::tolerance(pt) * 4,
                       "dBias " + what, dy_scale));
}

// A host scaling factor in both precisions (double for DOUBLE data, float otherwise).
struct Scale {
  float f;
  double d;
  explicit Scale(double v = 0) : f(static_cast<float>(v)), d(v) {}
  const void* ptr(cudnnDataType_t t) const {
    return t == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&d) : static_cast<const void*>(&f);
  }
};

// alpha, beta pairs, beta != 0 included.
inline std::pair<double, double> random_blend(std::mt19937_64& rng) {
  static const std::pair<double, double> kChoices[] = {{1, 0}, {0.5, 0}, {1, 0.5}, {-0.75, 2}, {1.5, -1}};
  return kChoices[ft::uniform_int(rng, 0, 4)];
}

// Output tensor before a call: random prior when beta != 0, poison otherwise. Returns the prior values.
inline std::vector<double> prepare_output(std::mt19937_64& rng, ft::HostTensor& t, double beta) {
  if (beta != 0) {
    t.fill_uniform(rng, -1, 1);
  } else {
    t.poison();
  }
  return t.values();
}

struct Shape {
  std::vector<int> dims;
  int x_layout = 0, y_layout = 0, param_layout = 0;
  std::string str() const {
    std::ostringstream o;
    for (size_t i = 0; i < dims.size(); ++i) o << (i ? "x" : "") << dims[i];
    o << " layouts x" << x_layout << " y" << y_layout << " p" << param_layout;
    return o.str();
  }
};

inline Shape random_shape(std::mt19937_64& rng) {
  Shape s;
  const int rank = ft::uniform_int(rng, 0, 3) == 0 ? 5 : 4;
  s.dims.push_back(ft::uniform_int(rng, 3, 5));  // N >= 3: per-activation statistics reduce over >= 3
  s.dims.push_back(ft::uniform_int(rng, 1, 5));
  for (int i = 2; i < rank; ++i) s.dims.push_back(ft::uniform_int(rng, 1, rank == 5 ? 3 : 5));
  s.x_layout = ft::uniform_int(rng, 0, 3);
  s.y_layout = ft::uniform_int(rng, 0, 3);
  s.param_layout = ft::uniform_int(rng, 0, 2) == 0 ? 2 : 0;  // params sometimes padded too
  return s;
}

inline double random_epsilon(std::mt19937_64& rng) {
  static const double kEps[] = {1e-5, 1e-3, 0.1};
  return kEps[ft::uniform_int(rng, 0, 2)];
}

// An activation descriptor, when this build implements them (the status says).
struct ActDesc {
  cudnnActivationDescriptor_t d = nullptr;
  cudnnStatus_t status = CUDNN_STATUS_NOT_INITIALIZED;
  explicit ActDesc(cudnnActivationMode_t mode, double coef = 0.0) {
    status = cudnnCreateActivationDescriptor(&d);
    if (status == CUDNN_STATUS_SUCCESS) status = cudnnSetActivationDescriptor(d, mode, CUDNN_NOT_PROPAGATE_NAN, coef);
  }
  ~ActDesc() {
    if (d) cudnnDestroyActivationDescriptor(d);
  }
  ActDesc(const ActDesc&) = delete;
  ActDesc& operator=(const ActDesc&) = delete;
};

#define BNT_REQUIRE_ACTIVATION(a)                                                                           \
  if ((a).status == CUDNN_STATUS_NOT_SUPPORTED)                                                             \
    GTEST_SKIP() << "activation descriptors are not implemented in this build (cudnnCreate/SetActivation" \
                    "Descriptor returned NOT_SUPPORTED); fused BN+activation is tested once they are";      \
  ASSERT_EQ((a).status, CUDNN_STATUS_SUCCESS)

}  // namespace bnt
