// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// What the three sm_90a CUTLASS convolution implementations (cuda:cutlass_sm90_fprop / _dgrad / _wgrad) share:
// the problem checks, the kernel choice, the registry interface. Each direction is one small file next to this
// one; the kernels themselves are in kernels/ (sm90_kernels.h).
//
// Accepted: 2-D, groups 1, cross-correlation, a compute capability 9.0 device, what CUTLASS's can_implement accepts
// (TMA im2col limits on padding and dilated filter extent); the 16-bit dgrad runs a stride above 1 as forwards per
// stride phase (dgrad_phases16.h). Data:
// - half or bfloat16 x / w / y (compute FLOAT, or HALF for half data: the sums are float either way): packed NHWC x
//   and y, NHWC (KRSC) filter, C and K multiples of 8 (backward directions);
// - float x / w / y with compute FLOAT, every direction, when TF32 is allowed (tf32.h: not CUDNN_FMA_MATH, not
//   NVIDIA_TF32_OVERRIDE=0); the backward directions run as forwards over copies in the workspace, any 4-D layout:
//   the backward filter over transposed x and dy (wgrad_tf32.h), backward data over dy in NHWC and sub-filters,
//   one forward per stride phase (dgrad_tf32.h, any stride);
// - forward, every data type: any 4-D layout and channel count; operands that are not packed NHWC / KRSC or whose
//   C / K is not a multiple of the 16-byte vector (4 floats, 8 halves) go through packed, channel-padded copies in
//   the workspace and the output is written back from one (nhwc_staging.h, as cuda:cutlass_sm80_fprop does). This
//   is how a first layer with C=3 reaches the tensor cores: C padded to 8. A stem-like forward (s2d_applies: the
//   ResNet stem) runs instead as the stride-1 forward over folded space-to-depth copies of x and w (s2d_staging.h:
//   the stem becomes 4 x 1 taps of 48 channels, 4 K tiles instead of 49; FREEDNN_SM90_S2D=0 turns it off).
// Results: out = alpha * conv + beta * out, out not read when beta == 0. Every output element is summed by one CTA
// in a fixed order, the copies are elementwise: deterministic. The wgrad's split-K (wgrad_split.h) and its float
// path's row slices (wgrad_tf32.h) sum their float partials in a fixed order: deterministic too.
#pragma once
#include <cudnn.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>

#include "core/dtype.h"
#include "core/handle.h"
#include "cuda/common/cc90.h"
#include "cuda/common/cuda_util.h"
#include "core/env.h"
#include "cuda/conv/cutlass/nhwc_staging.h"
#include "cuda/conv/cutlass/s2d_staging.h"
#include "cuda/conv/cutlass/sm90/sm90_grouped.h"
#include "cuda/conv/cutlass/sm90/sm90_kernels.h"
#include "cuda/conv/pointer_check.h"
#include "cuda/conv/tf32.h"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv::sm90 {

using fd::cuda::aligned16;

// Which operands of a forward go through packed NHWC / KRSC copies in the workspace, channels zero-padded to c / k
// (multiples of the 16 bytes a TMA row needs: 4 floats, 8 halves), and the workspace layout. The backward directions
// never stage (c and k are the problem's; the checks demand packed NHWC). Depends on the problem only, so the
// workspace query and the call agree.
struct Staging {
  int64_t c = 0, k = 0;  // the channel counts the kernel sees
  bool x = false, w = false, y = false;
  bool s2d = false;  // x and w as folded space-to-depth copies: the kernel runs the derived stride-1 problem
  bool sub = false;  // x staged as just the pixels a strided 1x1 filter reads: the kernel runs it at stride 1
  S2dShape zs;       // its shape (s2d only)
  // Byte offsets from the 256-byte aligned workspace start; the kernel's own workspace (if any) at off_kernel. The
  // caller provides off_kernel + the kernel's workspace + 256 bytes of alignment slack when anything is staged.
  size_t off_x = 0, off_w = 0, off_y = 0, off_kernel = 0;
  bool any() const { return x || w || y; }
};

constexpr size_t kWsAlign = 256;
inline size_t ws_align_up(size_t v) { return (v + kWsAlign - 1) / kWsAlign * kWsAlign; }

// Stem-like forwards through folded space-to-depth copies; FREEDNN_SM90_S2D=0 turns it off (read at every call, so
// that tests can switch it). Run 13 on the H200: the ResNet-50 stem at N=64 0.452 -> 0.319 ms in f16, 0.448 ->
// 0.318 bf16, 0.608 -> 0.492 TF32 (Find's best with and without it).
inline bool sm90_s2d(const ConvProblem& p, int64_t v, S2dShape* zs) {
  if (fd::env_int("FREEDNN_SM90_S2D", 1) == 0 || !s2d_applies(p)) return false;
  *zs = s2d_shape(p.ic, p.kh, p.kw, p.oh, p.ow, static_cast<int>(p.sh), v, /*fold_w=*/true);
  return zs->Cz <= kS2dMaxChannels && p.mb * zs->U * zs->V * zs->Cz <= INT_MAX;
}

// A 1x1 filter without padding at a stride above 1 reads only x's pixels (sh * i, sw * j), so a staged x is copied
// as just those (a quarter of the pixels at stride 2) and the kernel runs the stride-1 problem over the copy;
// FREEDNN_SM90_SUBSAMPLE=0 (read at every call) copies all of x and lets the kernel stride.
inline bool sm90_subsample(const ConvProblem& p) {
  return p.kh == 1 && p.kw == 1 && p.ph == 0 && p.pw == 0 && (p.sh > 1 || p.sw > 1) &&
         fd::env_flag_or("FREEDNN_SM90_SUBSAMPLE", true);
}

inline Staging staging(const ConvProblem& p) {
  Staging s;
  s.c = p.ic, s.k = p.oc;
  if (p.dir != ConvDir::fwd) return s;
  const int64_t v = 16 / static_cast<int64_t>(dtype_size(p.xdt));  // elements per 16 bytes
  s.s2d = sm90_s2d(p, v, &s.zs);
  s.c = s.s2d ? s.zs.Cz : (p.ic + v - 1) / v * v, s.k = (p.oc + v - 1) / v * v;
  const bool pad_c = s.c != p.ic, pad_k = s.k != p.oc;
  s.x = s.s2d || pad_c || !packed_nhwc(*p.x);
  s.w = s.s2d || pad_c || pad_k || !packed_nhwc(p.w->as_tensor);
  s.y = pad_k || !packed_nhwc(*p.y);
  s.sub = s.x && !s.s2d && sm90_subsample(p);
  const size_t es = dtype_size(p.xdt);
  const int64_t taps = s.s2d ? s.zs.Rs * s.zs.Ss : p.kh * p.kw;
  const int64_t pixels = s.s2d ? s.zs.U * s.zs.V : s.sub ? p.oh * p.ow : p.ih * p.iw;
  size_t off = 0;
  if (s.w) s.off_w = off, off += ws_align_up(static_cast<size_t>(s.k * taps * s.c) * es);
  if (s.x) s.off_x = off, off += ws_align_up(static_cast<size_t>(p.mb * pixels * s.c) * es);
  if (s.y) s.off_y = off, off += ws_align_up(static_cast<size_t>(p.mb * p.oh * p.ow * s.k) * es);
  s.off_kernel = off;
  return s;
}

inline Geometry geometry(const ConvProblem& p, const Staging& s) {
  Geometry g;
  g.n = static_cast<int>(p.mb), g.h = static_cast<int>(p.ih), g.w = static_cast<int>(p.iw);
  g.c = static_cast<int>(s.c), g.k = static_cast<int>(s.k);
  g.r = static_cast<int>(p.kh), g.s = static_cast<int>(p.kw);
  g.p = static_cast<int>(p.oh), g.q = static_cast<int>(p.ow);
  g.pad_h = p.ph, g.pad_w = p.pw, g.stride_h = p.sh, g.stride_w = p.sw, g.dil_h = p.dh, g.dil_w = p.dw;
  if (s.s2d) {  // the derived problem: z (U x V), w' (Rs x Ss), stride 1, no padding, the same output
    g.h = static_cast<int>(s.zs.U), g.w = static_cast<int>(s.zs.V);
    g.r = static_cast<int>(s.zs.Rs), g.s = static_cast<int>(s.zs.Ss);
    g.pad_h = g.pad_w = 0, g.stride_h = g.stride_w = 1, g.dil_h = g.dil_w = 1;
  }
  if (s.sub) {  // the subsampled copy: one input pixel per output pixel
    g.h = static_cast<int>(p.oh), g.w = static_cast<int>(p.ow);
    g.stride_h = g.stride_w = 1, g.dil_h = g.dil_w = 1;
  }
  return g;
}

// The kernels of one direction: a big tile and a small one for a narrow GEMM side (`narrow` <= 64). tf32_*: float
// data (null where the direction has none: float problems are declined; the wgrad names the forward kernels its
// float path runs, which overrides the base class's choice).
struct KernelSet {
  const Kernel& (*f16_big)();
  const Kernel& (*f16_small)();
  const Kernel& (*bf16_big)();
  const Kernel& (*bf16_small)();
  const Kernel& (*tf32_big)();
  const Kernel& (*tf32_small)();
  int64_t (*narrow)(const ConvProblem& p);  // the GEMM extent the small tile is for
  // The small tiles with a 4-stage pipeline, two CTAs per SM (null where the direction has none).
  const Kernel& (*f16_small_s4)() = nullptr;
  const Kernel& (*bf16_small_s4)() = nullptr;
  const Kernel& (*tf32_small_s4)() = nullptr;
};

// The kernel of a set for data type t (half, bfloat16, or float as TF32) when the GEMM side the small tile is for
// is `narrow`. The small tiles run with 4 stages, two CTAs per SM, one's prologue and epilogue overlapping the
// other's mainloop (FREEDNN_SM90_STAGES=0, read at every call: as many stages as shared memory holds, one CTA):
// 0.62-0.78x the time of ResNet's 56 x 56 x 64 layers in 16 bits, 0.88x in TF32 (H200, run 20). The big tile
// with 3 stages and two CTAs was slower (1.07-1.12x over ResNet's layers, run 20): it keeps the deep pipeline.
inline const Kernel& pick_kernel(const KernelSet& k, cudnnDataType_t t, int64_t narrow) {
  const bool f32 = t == CUDNN_DATA_FLOAT, bf16 = t == CUDNN_DATA_BFLOAT16;
  if (narrow > 64) return f32 ? k.tf32_big() : bf16 ? k.bf16_big() : k.f16_big();
  const auto four_stage = f32 ? k.tf32_small_s4 : bf16 ? k.bf16_small_s4 : k.f16_small_s4;
  if (four_stage != nullptr && fd::env_int("FREEDNN_SM90_STAGES", 4) == 4) return four_stage();
  return f32 ? k.tf32_small() : bf16 ? k.bf16_small() : k.f16_small();
}

// The forward kernels (fprop.cu); the 16-bit dgrad's stride phases run them too (dgrad_phases16.cu), and the
// TF32 dgrad and wgrad paths (dgrad_tf32.cu, wgrad_tf32.cu).
KernelSet fprop_kernel_set();

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
    const fd::conv::Verdict device = check_device();
    if (!device.ok()) return device;
    const Kernel& k = kernel(p);
    if (!k.can_implement(geometry(p, staging(p))))
      return no(std::string("CUTLASS ") + k.name +
                " cannot implement it (TMA im2col limits: padding <= 128 per side, (filter-1)*dilation < 255, "
                "N*P*Q < 2^31)");
    return {};
  }

  size_t workspace_size(const ConvProblem& p) const override {
    if (!check_problem(p).ok()) return 0;
    const Staging s = staging(p);
    const size_t kernel_ws = kernel(p).workspace_size(geometry(p, s));
    return s.any() ? s.off_kernel + kernel_ws + kWsAlign : kernel_ws;
  }
  bool deterministic() const override { return true; }
  // Tensor cores for every accepted problem: 16-bit data, or float data as TF32 (only where tf32_allowed).
  cudnnMathType_t math_type(const ConvProblem&) const override { return CUDNN_TENSOR_OP_MATH; }
  // Placeholder rates (the lead calibrates them on the H200): 500 TFLOP/s of 16-bit tensor-core math, 250 of TF32,
  // 3.5 TB/s of DRAM (a staged operand is read and written once more, and read by the kernel).
  double cost_estimate(const ConvProblem& p) const override {
    const Staging s = staging(p);
    const double xs = static_cast<double>(p.mb * p.ic * p.isp()), ws = static_cast<double>(p.oc * p.ic * p.ksp()),
                 ys = static_cast<double>(p.mb * p.oc * p.osp());
    const double xcopy = s.sub ? xs / static_cast<double>(p.sh * p.sw) : xs;  // the staged x's elements
    const double elems = xs + (s.x ? 2 * xcopy : 0) + ws * (s.w ? 3 : 1) + ys * (s.y ? 3 : 1);
    const double rate = p.xdt == CUDNN_DATA_FLOAT ? 250e12 : 500e12;
    // The kernels step the GEMM's K through each filter tap's channels in 128-byte tiles: a tap with fewer
    // channels (C = 3 padded to 8 in ResNet's stem) still costs a whole tile (measured: 1.7 ms on the stem).
    const int64_t tile_k = 128 / static_cast<int64_t>(dtype_size(p.xdt));
    const int64_t inner = dir_ == ConvDir::fwd ? p.ic : dir_ == ConvDir::bwd_data ? p.oc : tile_k;
    double waste = static_cast<double>((inner + tile_k - 1) / tile_k * tile_k) / static_cast<double>(inner);
    double moved = elems;
    if (s.s2d) {  // K tiles of the derived taps against the 7 x 7 x 3 products; x read once, z written and read
      const double zs = static_cast<double>(p.mb * s.zs.U * s.zs.V * s.c);
      waste = static_cast<double>((s.c + tile_k - 1) / tile_k * tile_k * s.zs.Rs * s.zs.Ss) /
              static_cast<double>(p.ic * p.ksp());
      moved = xs + 2 * zs + 3 * ws + ys * (s.y ? 3 : 1);
    }
    return p.flops() * waste / rate + static_cast<double>(dtype_size(p.xdt)) * moved / 3.5e12;
  }

  // The call's pointers that reach the kernel in place (not staged copies) are TMA operands: 16-byte aligned. x, w
  // and y of a forward unless staged (staging() depends on the problem alone; y is also the fused pass's vectors),
  // all three operands of the 16-bit backward directions (nothing staged; the split wgrad reads and writes the same:
  // wgrad_split.h). The fused z goes into the kernel only when aligned, and bias is read by element: neither has to
  // be. run_kernel's check stays as the safety net. The float dgrad and wgrad paths and the strided 16-bit dgrad
  // override this with their plans' conditions.
  fd::conv::Verdict accepts_pointers(const ConvProblem& p, const fd::conv::ConvArgs& a) const override {
    const Staging s = staging(p);
    const Roles r = roles(dir_);
    return need_aligned(id_, 16, "TMA", {{r.in, s.x ? nullptr : a.in}, {r.in2, s.w ? nullptr : a.in2},
                                         {r.out, s.y ? nullptr : a.out}});
  }

  cudnnStatus_t run(const ConvProblem& p, const fd::conv::ConvArgs& a) const override {
    FD_CHECK(a.fused == nullptr, CUDNN_STATUS_INTERNAL_ERROR, "%s: no fused epilogue in this direction", id_);
    return launch(p, a, a.out, a.alpha, a.beta);
  }

 protected:
  static fd::conv::Verdict no(std::string why) { return {CUDNN_STATUS_NOT_SUPPORTED, std::move(why)}; }

  // Whether a 16-bit problem with a stride above 1 has a path of the derived class's own (the dgrad's phases).
  virtual bool takes_strided(const ConvProblem&) const { return false; }

  // The current device (the one the handle's calls are made on) is compute capability 9.0.
  static fd::conv::Verdict check_device() {
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
      (void)cudaGetLastError();
      return no("cannot query the current CUDA device");
    }
    const DeviceInfo& di = device_info(dev);
    if (!is_cc90(dev))
      return no("needs a compute capability 9.0 device (sm_90a wgmma/TMA kernels); device " + std::to_string(dev) +
                " is " + std::to_string(di.cc_major) + "." + std::to_string(di.cc_minor));
    return {};
  }

  const Kernel& kernel(const ConvProblem& p) const {
    return pick_kernel(kernels_, p.xdt, kernels_.narrow(p));  // tf32 kernels: check_problem made sure
  }

  // The grouped persistent forward kernel (sm90_grouped.h) for one 16-bit forward unless FREEDNN_SM90_PERSISTENT=0
  // (read at every call), else null: one CTA per SM walks the tiles, the next tile's loads overlapping the last
  // one's epilogue, as NVIDIA's persistent engines do (run 19's ncu: their 256x64 forward of ResNet's 3x3 56x56x64
  // layer at 39.5 us, ours at 66, 49.7 with the 4-stage tiles of run 20). H200 run 21: 0.67-1.01x the time of the
  // non-persistent kernels on ResNet-50's 16-bit forward layers (geomean 0.91), slower on none.
  // Float data (TF32) on 128x128 tiles (K > 64) unless FREEDNN_SM90_TF32_PERSISTENT=0: H100 run 29, 0.905 of the
  // non-persistent kernels' time over ResNet-50's TF32 NCHW forwards (0.79-1.00 per layer).
  // The unit-stride 16-bit dgrad (the strided one runs its own way: dgrad_phases16.h) on the grouped dgrad kernels
  // unless FREEDNN_SM90_DGRAD16_GROUPED=0.
  const GroupKernel* persistent(const ConvProblem& p) const {
    if (dir_ == ConvDir::bwd_data) {
      if (p.xdt == CUDNN_DATA_FLOAT || p.sh != 1 || p.sw != 1 || !dgrad16_grouped_wanted()) return nullptr;
      const bool bf16 = p.xdt == CUDNN_DATA_BFLOAT16;
      if (kernels_.narrow(p) <= 64) return bf16 ? &dgrad_bf16_128x64_grouped() : &dgrad_f16_128x64_grouped();
      return bf16 ? &dgrad_bf16_128x128_pingpong() : &dgrad_f16_128x128_pingpong();
    }
    if (dir_ != ConvDir::fwd || !fd::env_flag_or("FREEDNN_SM90_PERSISTENT", true)) return nullptr;
    if (p.xdt == CUDNN_DATA_FLOAT)
      return kernels_.narrow(p) > 64 && fd::env_flag_or("FREEDNN_SM90_TF32_PERSISTENT", true)
                 ? &fprop_tf32_128x128_grouped()
                 : nullptr;
    const bool bf16 = p.xdt == CUDNN_DATA_BFLOAT16;
    if (kernels_.narrow(p) <= 64) return bf16 ? &fprop_bf16_128x64_grouped() : &fprop_f16_128x64_grouped();
    return &grouped_16bit_128x128(bf16);
  }

  // out = alpha * conv + beta * c (c has out's layout; c == out for cuDNN's blending, never read when beta == 0), on
  // the operands as given (nothing staged).
  cudnnStatus_t launch(const ConvProblem& p, const fd::conv::ConvArgs& a, const void* c, double alpha,
                       double beta) const {
    // fwd: in = x, in2 = w. bwd_data: in = dy, in2 = w. bwd_filter: in = x, in2 = dy, and CUTLASS's wgrad takes
    // A = dy, B = x.
    const void* op_a = dir_ == ConvDir::bwd_filter ? a.in2 : a.in;
    const void* op_b = dir_ == ConvDir::bwd_filter ? a.in : a.in2;
    const Staging s = staging(p);
    FD_CHECK(!s.any(), CUDNN_STATUS_INTERNAL_ERROR, "%s: a problem with staged operands reached launch()", id_);
    return run_kernel(p, a, s, op_a, op_b, c, a.out, alpha, beta);
  }

  // The 256-byte aligned start of the caller's workspace (where the staged copies go).
  static char* ws_base(const fd::conv::ConvArgs& a) {
    const auto at = reinterpret_cast<uintptr_t>(a.workspace);
    return a.workspace == nullptr ? nullptr : reinterpret_cast<char*>((at + kWsAlign - 1) / kWsAlign * kWsAlign);
  }

  // The direction's kernel: d = alpha * conv(op_a, op_b) + beta * c with s's channel counts (op_a / op_b / c / d
  // packed, the caller's tensors or staged copies). The kernel's own workspace: after the staged copies when there
  // are any, else the caller's workspace as given.
  cudnnStatus_t run_kernel(const ConvProblem& p, const fd::conv::ConvArgs& a, const Staging& s, const void* op_a,
                           const void* op_b, const void* c, void* d, double alpha, double beta) const {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "%s called without a handle", id_);
    FD_TRY(require_cc90(a.handle->device, id_));
    FD_CHECK_SUPPORTED(aligned16(op_a) && aligned16(op_b) && aligned16(d) && aligned16(c),
                       "%s needs 16-byte aligned data pointers (TMA)", id_);
    const Geometry g = geometry(p, s);
    const Kernel& k = kernel(p);
    const size_t ws = k.workspace_size(g);
    const size_t need = s.any() ? s.off_kernel + ws + kWsAlign : ws;
    FD_CHECK_PARAM(a.workspace_size >= need && (need == 0 || a.workspace != nullptr),
                   "%s needs %zu bytes of workspace, got %zu", id_, need, a.workspace_size);
    Operands o;
    o.a = op_a;
    o.b = op_b;
    o.c = c;
    o.d = d;
    o.alpha = static_cast<float>(alpha);
    o.beta = static_cast<float>(beta);
    if (s.any()) {
      o.workspace = ws == 0 ? nullptr : ws_base(a) + s.off_kernel;
      o.workspace_size = ws;
    } else {
      o.workspace = a.workspace;
      o.workspace_size = a.workspace_size;
    }
    o.stream = a.handle->stream;
    if (const GroupKernel* pk = persistent(p)) {
      const RunStatus r = pk->run(&g, &o, 1, o.stream);
      if (r == RunStatus::ok) return CUDNN_STATUS_SUCCESS;
      FD_CHECK(r == RunStatus::not_implementable, CUDNN_STATUS_EXECUTION_FAILED,
               "%s: CUTLASS %s failed to initialize or launch (CUDA: %s)", id_, pk->name,
               cudaGetErrorName(cudaGetLastError()));
      // not implementable (no cluster: another can_implement): the non-persistent kernel below
    }
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
    const bool tf32 = p.xdt == CUDNN_DATA_FLOAT;
    if (tf32 && kernels_.tf32_big == nullptr)
      return no("float data: this direction has no TF32 kernels here (the sm80 implementation serves it)");
    if (p.xdt != CUDNN_DATA_HALF && p.xdt != CUDNN_DATA_BFLOAT16 && !tf32)
      return no(std::string("data type ") + dtype_short_name(p.xdt) +
                ": the sm90 kernels take half, bfloat16, or float as TF32");
    if (p.wdt != p.xdt || p.ydt != p.xdt) return no("x, w and y must have one data type");
    if (tf32) {
      if (p.compute != CUDNN_DATA_FLOAT)
        return no(std::string("float data needs compute type FLOAT, not ") + dtype_short_name(p.compute));
      if (p.math == CUDNN_FMA_MATH) return no("float data with CUDNN_FMA_MATH: TF32 tensor cores are not allowed");
      if (tf32_override_off())
        return no("float data with NVIDIA_TF32_OVERRIDE=0: TF32 tensor cores are not allowed");
    } else {
      if (p.compute != CUDNN_DATA_FLOAT && !(p.compute == CUDNN_DATA_HALF && p.xdt == CUDNN_DATA_HALF))
        return no(std::string("compute type ") + dtype_short_name(p.compute) + " (FLOAT, or HALF for half data)");
      if (p.math == CUDNN_FMA_MATH) return no("CUDNN_FMA_MATH rules out tensor cores");
    }
    if (p.nsp != 2) return no("3-D convolution: only 2-D NHWC kernels are built");
    if (p.g != 1) return no("groups=" + std::to_string(p.g) + ": the sm90 collectives take groups == 1");
    if (p.mode != CUDNN_CROSS_CORRELATION && !(tf32 && dir_ == ConvDir::bwd_data))  // that one flips its copies
      return no("CUDNN_CONVOLUTION mode: the sm90 collectives compute cross-correlation only");
    // Forward operands in other layouts or channel counts are staged, and so are the float wgrad's (transposed).
    if (!tf32 && dir_ != ConvDir::fwd) {
      if (!packed_nhwc(*p.x) || !packed_nhwc(*p.y)) return no("x and y must be packed NHWC");
      if (p.w->format != CUDNN_TENSOR_NHWC || !packed_nhwc(p.w->as_tensor))
        return no("the filter must be NHWC (KRSC)");
      if (p.ic % 8 != 0 || p.oc % 8 != 0)
        return no("C=" + std::to_string(p.ic) + ", K=" + std::to_string(p.oc) +
                  ": both must be multiples of 8 (16-byte TMA rows)");
    } else if (p.x->nb_dims != 4 || p.y->nb_dims != 4 || p.x->vect() != 1 || p.y->vect() != 1) {
      return no("staged operands: 4-D x and y without vectorized channels");
    }
    // the float path runs stride phases, and so does the 16-bit one where it is on (takes_strided)
    if (dir_ == ConvDir::bwd_data && !tf32 && (p.sh != 1 || p.sw != 1) && !takes_strided(p))
      return no("stride " + std::to_string(p.sh) + "x" + std::to_string(p.sw) +
                ": the sm90 dgrad collective handles unit stride only");
    const int64_t c = (p.ic + 7) / 8 * 8, k = (p.oc + 7) / 8 * 8;  // the channels as a kernel sees them, at most
    const int64_t big = std::max({p.mb, p.ih, p.iw, c, k, p.oh, p.ow, p.mb * p.ih * p.iw * c, p.mb * p.oh * p.ow * k,
                                  k * p.kh * p.kw * c});
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
