// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// What the three sm_90a CUTLASS convolution implementations (cuda:cutlass_sm90_fprop / _dgrad / _wgrad) share:
// the problem checks, the kernel choice, the registry interface. Each direction is one small file next to this
// one; the kernels themselves are in kernels/ (sm90_kernels.h).
//
// Accepted: 2-D, groups 1, cross-correlation, half or bfloat16 x / w / y (compute FLOAT, or HALF for half data:
// the sums are float either way), packed NHWC x and y, NHWC (KRSC) filter, C and K multiples of 8, a compute
// capability 9.0 device, what CUTLASS's can_implement accepts (TMA im2col limits on padding and dilated filter
// extent); dgrad also needs unit stride. Results: out = alpha * conv + beta * out, out not read when beta == 0.
// Every output element is summed by one CTA in a fixed order (no split-K): deterministic.
#pragma once
#include <cudnn.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>

#include "core/dtype.h"
#include "core/handle.h"
#include "cuda/common/cuda_util.h"
#include "cuda/conv/cutlass/sm90/sm90_kernels.h"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv::sm90 {

// Whether t is a packed 4-D NHWC tensor (dims n, c, h, w); the stride of an extent-1 dim does not matter.
inline bool packed_nhwc(const cudnnTensorStruct& t) {
  if (t.nb_dims != 4 || t.vect() != 1) return false;
  const int64_t c = t.dims[1], h = t.dims[2], w = t.dims[3];
  const int64_t want[4] = {h * w * c, 1, w * c, c};
  for (int i = 0; i < 4; ++i)
    if (t.dims[i] != 1 && t.strides[i] != want[i]) return false;
  return true;
}

inline bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

inline Geometry geometry(const ConvProblem& p) {
  Geometry g;
  g.n = static_cast<int>(p.mb), g.h = static_cast<int>(p.ih), g.w = static_cast<int>(p.iw);
  g.c = static_cast<int>(p.ic), g.k = static_cast<int>(p.oc);
  g.r = static_cast<int>(p.kh), g.s = static_cast<int>(p.kw);
  g.p = static_cast<int>(p.oh), g.q = static_cast<int>(p.ow);
  g.pad_h = p.ph, g.pad_w = p.pw, g.stride_h = p.sh, g.stride_w = p.sw, g.dil_h = p.dh, g.dil_w = p.dw;
  return g;
}

// The kernels of one direction: a big tile and a small one for a narrow GEMM side (`narrow` <= 64).
struct KernelSet {
  const Kernel& (*f16_big)();
  const Kernel& (*f16_small)();
  const Kernel& (*bf16_big)();
  const Kernel& (*bf16_small)();
  int64_t (*narrow)(const ConvProblem& p);  // the GEMM extent the small tile is for
};

class Sm90ConvImpl : public fd::conv::ConvImpl {
 public:
  Sm90ConvImpl(const char* id, ConvDir dir, int algo, KernelSet kernels)
      : id_(id), dir_(dir), algo_(algo), kernels_(kernels) {}

  const char* id() const override { return id_; }
  fd::Backend backend() const override { return fd::Backend::cuda; }
  bool serves(ConvDir dir, int algo) const override { return dir == dir_ && algo == algo_; }

  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    const fd::conv::Verdict shape = check_problem(p);
    if (!shape.ok()) return shape;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
      (void)cudaGetLastError();
      return no("cannot query the current CUDA device");
    }
    const DeviceInfo& di = device_info(dev);
    if (di.cc_major != 9 || di.cc_minor != 0)
      return no("needs a compute capability 9.0 device (sm_90a wgmma/TMA kernels); device " + std::to_string(dev) +
                " is " + std::to_string(di.cc_major) + "." + std::to_string(di.cc_minor));
    const Kernel& k = kernel(p);
    if (!k.can_implement(geometry(p)))
      return no(std::string("CUTLASS ") + k.name +
                " cannot implement it (TMA im2col limits: padding <= 128 per side, (filter-1)*dilation < 255, "
                "N*P*Q < 2^31)");
    return {};
  }

  size_t workspace_size(const ConvProblem& p) const override {
    if (!check_problem(p).ok()) return 0;
    return kernel(p).workspace_size(geometry(p));
  }
  bool deterministic() const override { return true; }
  cudnnMathType_t math_type(const ConvProblem&) const override { return CUDNN_TENSOR_OP_MATH; }
  // Placeholder rates (the lead calibrates them on the H200): 500 TFLOP/s of tensor-core math, 3.5 TB/s of DRAM.
  double cost_estimate(const ConvProblem& p) const override {
    const double bytes = static_cast<double>(dtype_size(p.xdt)) *
                         static_cast<double>(p.mb * p.ic * p.isp() + p.oc * p.ic * p.ksp() + p.mb * p.oc * p.osp());
    return p.flops() / 500e12 + bytes / 3.5e12;
  }

  cudnnStatus_t run(const ConvProblem& p, const fd::conv::ConvArgs& a) const override {
    FD_CHECK(a.fused == nullptr, CUDNN_STATUS_INTERNAL_ERROR, "%s: no fused epilogue in this direction", id_);
    return launch(p, a, a.out, a.alpha, a.beta);
  }

 protected:
  static fd::conv::Verdict no(std::string why) { return {CUDNN_STATUS_NOT_SUPPORTED, std::move(why)}; }

  const Kernel& kernel(const ConvProblem& p) const {
    const bool small = kernels_.narrow(p) <= 64;
    if (p.xdt == CUDNN_DATA_BFLOAT16) return small ? kernels_.bf16_small() : kernels_.bf16_big();
    return small ? kernels_.f16_small() : kernels_.f16_big();
  }

  // out = alpha * conv + beta * c (c has out's layout; c == out for cuDNN's blending, never read when beta == 0).
  cudnnStatus_t launch(const ConvProblem& p, const fd::conv::ConvArgs& a, const void* c, double alpha,
                       double beta) const {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "%s called without a handle", id_);
    const DeviceInfo& di = device_info(a.handle->device);
    FD_CHECK_SUPPORTED(di.cc_major == 9 && di.cc_minor == 0,
                       "%s needs a compute capability 9.0 device; the handle's device %d is %d.%d", id_,
                       a.handle->device, di.cc_major, di.cc_minor);
    FD_CHECK_SUPPORTED(aligned16(a.in) && aligned16(a.in2) && aligned16(a.out) && aligned16(c),
                       "%s needs 16-byte aligned data pointers (TMA)", id_);
    const Geometry g = geometry(p);
    const Kernel& k = kernel(p);
    const size_t ws = k.workspace_size(g);
    FD_CHECK_PARAM(a.workspace_size >= ws && (ws == 0 || a.workspace != nullptr), "%s needs %zu bytes of workspace",
                   id_, ws);
    Operands o;
    // fwd: in = x, in2 = w. bwd_data: in = dy, in2 = w. bwd_filter: in = x, in2 = dy, and CUTLASS's wgrad takes
    // A = dy, B = x.
    o.a = dir_ == ConvDir::bwd_filter ? a.in2 : a.in;
    o.b = dir_ == ConvDir::bwd_filter ? a.in : a.in2;
    o.c = c;
    o.d = a.out;
    o.alpha = static_cast<float>(alpha);
    o.beta = static_cast<float>(beta);
    o.workspace = a.workspace;
    o.workspace_size = a.workspace_size;
    o.stream = a.handle->stream;
    switch (k.run(g, o)) {
      case RunStatus::ok: return CUDNN_STATUS_SUCCESS;
      case RunStatus::not_implementable:
        FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "%s: CUTLASS %s cannot implement %s", id_, k.name, p.to_string().c_str());
      case RunStatus::init_failed:
      case RunStatus::launch_failed: break;
    }
    const cudaError_t e = cudaGetLastError();
    FD_FAIL(CUDNN_STATUS_EXECUTION_FAILED, "%s: CUTLASS %s failed to %s (CUDA: %s)", id_, k.name,
            "initialize or launch", cudaGetErrorName(e));
  }

  fd::conv::Verdict check_problem(const ConvProblem& p) const {
    if (p.dir != dir_) return no("wrong direction");
    if (p.xdt != CUDNN_DATA_HALF && p.xdt != CUDNN_DATA_BFLOAT16)
      return no(std::string("data type ") + dtype_short_name(p.xdt) + ": the sm90 kernels take half or bfloat16");
    if (p.wdt != p.xdt || p.ydt != p.xdt) return no("x, w and y must have one data type");
    if (p.compute != CUDNN_DATA_FLOAT && !(p.compute == CUDNN_DATA_HALF && p.xdt == CUDNN_DATA_HALF))
      return no(std::string("compute type ") + dtype_short_name(p.compute) + " (FLOAT, or HALF for half data)");
    if (p.math == CUDNN_FMA_MATH) return no("CUDNN_FMA_MATH rules out tensor cores");
    if (p.nsp != 2) return no("3-D convolution: only 2-D NHWC kernels are built");
    if (p.g != 1) return no("groups=" + std::to_string(p.g) + ": the sm90 collectives take groups == 1");
    if (p.mode != CUDNN_CROSS_CORRELATION)
      return no("CUDNN_CONVOLUTION mode: the sm90 collectives compute cross-correlation only");
    if (!packed_nhwc(*p.x) || !packed_nhwc(*p.y)) return no("x and y must be packed NHWC");
    if (p.w->format != CUDNN_TENSOR_NHWC || !packed_nhwc(p.w->as_tensor)) return no("the filter must be NHWC (KRSC)");
    if (p.ic % 8 != 0 || p.oc % 8 != 0)
      return no("C=" + std::to_string(p.ic) + ", K=" + std::to_string(p.oc) +
                ": both must be multiples of 8 (16-byte TMA rows)");
    if (dir_ == ConvDir::bwd_data && (p.sh != 1 || p.sw != 1))
      return no("stride " + std::to_string(p.sh) + "x" + std::to_string(p.sw) +
                ": the sm90 dgrad collective handles unit stride only");
    const int64_t big = std::max({p.mb, p.ih, p.iw, p.ic, p.oc, p.oh, p.ow, p.mb * p.ih * p.iw * p.ic,
                                  p.mb * p.oh * p.ow * p.oc, p.oc * p.kh * p.kw * p.ic});
    if (big > INT_MAX) return no("a tensor exceeds 2^31 elements");
    return {};
  }

 private:
  const char* id_;
  ConvDir dir_;
  int algo_;
  KernelSet kernels_;
};

}  // namespace fd::cuda::conv::sm90
