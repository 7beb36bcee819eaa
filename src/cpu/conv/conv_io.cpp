// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cpu/conv/conv_io.h"

#include <cmath>
#include <utility>

#include "core/status.h"
#include "cpu/common/parallel.h"
#include "cpu/common/tensor_io.h"

namespace fd::cpu::conv {
namespace {

// Reverses the spatial dims of a packed [oc][icg][kd][kh][kw] buffer in place.
template <class T>
void flip_filter(const ConvProblem& p, std::vector<T>& w) {
  const int64_t ks = p.ksp();
  const int64_t planes = p.oc * p.icg();
  parallel_for(planes, [&](int64_t i) {
    T* b = w.data() + i * ks;
    for (int64_t a = 0, z = ks - 1; a < z; ++a, --z) std::swap(b[a], b[z]);
  }, 64);
}

template <class T>
T activate(T v, const fd::conv::FusedEpilogue& e) {
  if (std::isnan(v)) return e.nan_opt == CUDNN_PROPAGATE_NAN || e.act == CUDNN_ACTIVATION_IDENTITY ? v : T(0);
  switch (e.act) {
    case CUDNN_ACTIVATION_RELU: return v > T(0) ? v : T(0);
    default: return v;  // IDENTITY (the only other mode the API lets through)
  }
}

}  // namespace

template <class T>
std::vector<T> read_activation(const cudnnTensorStruct& d, const void* data) {
  return fd::cpu::read_tensor<T>(d, data);
}

template <class T>
std::vector<T> read_filter(const ConvProblem& p, const void* data) {
  std::vector<T> w = fd::cpu::read_tensor<T>(p.w->as_tensor, data);
  if (p.mode == CUDNN_CONVOLUTION) flip_filter(p, w);
  return w;
}

template <class T>
cudnnStatus_t write_output(const ConvProblem& p, const ConvArgs& a, std::vector<T>& r) {
  switch (p.dir) {
    case ConvDir::bwd_data: fd::cpu::write_tensor<T>(*p.x, a.out, r.data(), a.alpha, a.beta); break;
    case ConvDir::bwd_filter:
      if (p.mode == CUDNN_CONVOLUTION) flip_filter(p, r);
      fd::cpu::write_tensor<T>(p.w->as_tensor, a.out, r.data(), a.alpha, a.beta);
      break;
    case ConvDir::fwd:
      if (a.fused == nullptr) {
        fd::cpu::write_tensor<T>(*p.y, a.out, r.data(), a.alpha, a.beta);
        break;
      }
      {
        const auto& e = *a.fused;
        std::vector<T> z;
        if (e.alpha2 != 0.0) z = fd::cpu::read_tensor<T>(*e.z, e.z_data);
        const std::vector<T> bias = fd::cpu::read_tensor<T>(*e.bias, e.bias_data);
        const T a1 = static_cast<T>(a.alpha), a2 = static_cast<T>(e.alpha2);
        const int64_t plane = p.osp();
        parallel_for(p.mb * p.oc, [&](int64_t nc) {
          const T b = bias[static_cast<size_t>(nc % p.oc)];
          T* o = r.data() + nc * plane;
          const T* zz = z.empty() ? nullptr : z.data() + nc * plane;
          for (int64_t i = 0; i < plane; ++i) {
            T v = a1 * o[i] + b;
            if (zz) v += a2 * zz[i];
            o[i] = activate(v, e);
          }
        }, 16);
        fd::cpu::write_tensor<T>(*p.y, a.out, r.data(), 1.0, 0.0);
      }
      break;
  }
  return CUDNN_STATUS_SUCCESS;
}

template std::vector<float> read_activation<float>(const cudnnTensorStruct&, const void*);
template std::vector<double> read_activation<double>(const cudnnTensorStruct&, const void*);
template std::vector<float> read_filter<float>(const ConvProblem&, const void*);
template std::vector<double> read_filter<double>(const ConvProblem&, const void*);
template cudnnStatus_t write_output<float>(const ConvProblem&, const ConvArgs&, std::vector<float>&);
template cudnnStatus_t write_output<double>(const ConvProblem&, const ConvArgs&, std::vector<double>&);

}  // namespace fd::cpu::conv
