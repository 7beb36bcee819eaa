// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cuda/conv/cutlass/sm80_common.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "core/dtype.h"
#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/cuda_util.h"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/cutlass/nhwc_staging.h"
#include "cuda/conv/pointer_check.h"
#include "cuda/conv/tf32.h"

namespace fd::cuda::conv::sm80 {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;
using fd::conv::Verdict;

constexpr size_t kAlign = 256;
constexpr size_t kPartialBudget = size_t{256} << 20;  // bytes of wgrad split-K partial sums at most
constexpr int kMaxSplits = 128;

size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

Verdict no(std::string why) { return {CUDNN_STATUS_NOT_SUPPORTED, std::move(why)}; }

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

const KernelOps& pick_kernel(const ConvProblem& p, const ConvSize& s, int sm_count, bool simt, S2d s2d) {
  const bool h = p.xdt == CUDNN_DATA_HALF, bf = p.xdt == CUDNN_DATA_BFLOAT16;
  if (s2d == S2d::few && !simt) return h ? fprop_f16_few() : bf ? fprop_bf16_few() : fprop_tf32_few();
  if (simt) {
    switch (p.dir) {
      case ConvDir::fwd: return simt_fprop_f32();
      case ConvDir::bwd_data:
        return s.stride_h == 1 && s.stride_w == 1 ? simt_dgrad_f32_unity() : simt_dgrad_f32_strided();
      case ConvDir::bwd_filter: return simt_wgrad_f32();
    }
  }
  switch (p.dir) {
    case ConvDir::fwd: {
      if (!h && !bf) return fprop_tf32_128();
      if (s.C == 4) return h ? fprop_f16_fixed4() : fprop_bf16_fixed4();  // make_plan pads C <= 4 to 4
      // The 64x64 tiles when the 128x128 ones would leave SMs idle, or (space-to-depth, the stem's K = 64) half of
      // every tile empty.
      const int64_t tiles = ceil_div(int64_t{s.N} * s.P * s.Q, 128) * ceil_div(s.K, 128);
      if (tiles < sm_count || (s2d != S2d::off && s.K <= 64)) return h ? fprop_f16_64() : fprop_bf16_64();
      return h ? fprop_f16_128() : fprop_bf16_128();
    }
    case ConvDir::bwd_data:
      if (s.stride_h == 1 && s.stride_w == 1)
        return h ? dgrad_f16_unity() : bf ? dgrad_bf16_unity() : dgrad_tf32_unity();
      return h ? dgrad_f16_strided() : bf ? dgrad_bf16_strided() : dgrad_tf32_strided();
    case ConvDir::bwd_filter: break;
  }
  if (s.K <= 64 && (h || bf)) return h ? wgrad_f16_64() : wgrad_bf16_64();  // no half-empty 128-row tiles
  return h ? wgrad_f16() : bf ? wgrad_bf16() : wgrad_tf32();
}

// Space-to-depth for a forward with stride s >= 2 (the same both ways), no dilation and s * s * C <= 16 (the
// stem: 12). FREEDNN_SM80_S2D (read per plan, so that tests can switch it):
//   0  off everywhere;
//   1  S2d::few: 16 taps of 12 channels fill the K tiles of the few-channel kernels, where the kOptimized kernels
//      spend a whole K tile on each of the 49 taps of 3 (TF32: 4 padded) channels; the SIMT kernel runs 2
//      half-full 8-deep tiles per tap on 16 taps instead of one 3/8-full tile on 49. TF32 2.4x faster (run 12),
//      16-bit 1.2x slower than its fixed-4-channel kernel (the few-channel kernel: 457 us for the stem);
//   2  16-bit S2d::wide: 16 taps of 16 channels on the regular kernels (16 K tiles, each a quarter data: they
//      run one K tile per tap);
//   3  16-bit S2d::folded: 4 taps of 48 channels on the regular kernels (4 K tiles, each three quarters data; z
//      2.9x the size of 2's); 2 where the folded channels would exceed s2d_input's table;
//   other values as 1. Unset: off for 16-bit (until an A/B says otherwise), 1 for TF32 and SIMT, which 2 and 3
//   leave at 1.
S2d s2d_form(const ConvProblem& p, bool simt) {
  if (!s2d_applies(p)) return S2d::off;
  const bool b16 = !simt && (p.xdt == CUDNN_DATA_HALF || p.xdt == CUDNN_DATA_BFLOAT16);
  const long long knob = fd::env_int("FREEDNN_SM80_S2D", b16 ? 0 : 1);
  if (knob == 0) return S2d::off;
  if (!b16 || (knob != 2 && knob != 3)) return S2d::few;
  const bool fits = s2d_shape(p.ic, p.kh, p.kw, p.oh, p.ow, static_cast<int>(p.sh), 8, true).Cz <= kS2dMaxChannels;
  return knob == 3 && fits ? S2d::folded : S2d::wide;
}

// Split-K slices for wgrad: its GEMM is (K) x (R*S*C) with a reduction over N*P*Q, so it has few output tiles; the
// slices make about two waves of CTAs (FREEDNN_SM80_WGRAD_WAVES=n for A/B runs: the few-tile 3x3 layers run at a
// third of NVIDIA's speed, run 8), each slice keeping at least 4 K-tiles, and the float partial sums within the
// budget.
int wgrad_waves() {
  static const int w = static_cast<int>(std::clamp<long long>(fd::env_int("FREEDNN_SM80_WGRAD_WAVES", 2), 1, 64));
  return w;
}

int wgrad_splits(const ConvSize& s, const KernelOps& k, int sm_count, size_t part_limit) {
  const int64_t tiles = ceil_div(s.K, k.tile_m) * ceil_div(int64_t{s.R} * s.S * s.C, k.tile_n);
  const int64_t ktiles = ceil_div(int64_t{s.N} * s.P * s.Q, k.tile_k);
  int64_t splits = std::max<int64_t>(1, ceil_div(wgrad_waves() * int64_t{std::max(sm_count, 1)}, tiles));
  splits = std::min<int64_t>({splits, std::max<int64_t>(1, ktiles / 4), kMaxSplits});
  const auto slice = static_cast<size_t>(s.K) * s.R * s.S * s.C * sizeof(float);
  const auto fit = static_cast<int64_t>(std::min(part_limit, kPartialBudget) / slice);
  splits = std::min<int64_t>(splits, std::max<int64_t>(1, fit));
  return static_cast<int>(splits);
}

// ---- the wgrad split-K sum (the layout copies are in nhwc_staging.h) ----------------------------------------

// dw (K, C, R, S through its view) = alpha * (sum of the split-K slices of part, in slice order) + beta * dw. part
// holds slices of pcount floats, each packed (Kp, R, S, Cp) with Kp >= K, Cp >= C (the padding is dropped).
template <class Sx>
__global__ void wgrad_finish_kernel(const float* part, int splits, int64_t count, int64_t pcount, int64_t C,
                                    int64_t Cp, int64_t R, int64_t S, View5 v, Sx* dw, float alpha, float beta) {
  const FusedDev none;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = i % C, t = i / C, s = t % S, t2 = t / S, r = t2 % R, k = t2 / R;
    const int64_t at = t * Cp + c;  // t = (k * R + r) * S + s
    float acc = 0.f;
    for (int j = 0; j < splits; ++j) acc += part[j * pcount + at];
    write_out<Sx, float>(dw, v.at(k, c, 0, r, s), acc, alpha, beta, none, k, c, 0, r, s);
  }
}

// The tensors of the plan's roles: activations x, filter w, output-side y.
const cudnnTensorStruct& wt(const ConvProblem& p) { return p.w->as_tensor; }

// The bytes every operand the kernels use in place must be aligned to: the tensor-core kernels load 16-byte vectors,
// the SIMT ones single floats.
uintptr_t operand_bytes(bool simt) { return simt ? sizeof(float) : 16; }

}  // namespace

// The call's pointers that the CUTLASS kernel (or the fused in-place pass over y) reads or writes in place; the plan
// stages the others into the workspace. dw goes through wgrad_finish_kernel element by element; the fused z is used
// in the kernel only when aligned and bias is read by element.
Verdict plan_pointers(const ConvProblem& p, const Plan& plan, const ConvArgs& a, bool simt) {
  bool in_staged = false, in2_staged = plan.stage_w, out_staged = false;
  switch (p.dir) {
    case ConvDir::fwd: in_staged = plan.stage_x, out_staged = plan.stage_y; break;
    case ConvDir::bwd_data: in_staged = plan.stage_y, out_staged = plan.stage_x; break;
    case ConvDir::bwd_filter: in_staged = plan.stage_x, in2_staged = plan.stage_y, out_staged = true; break;
  }
  // The fused epilogue's pass over an unstaged y (bias_act_nhwc) takes any y: 16-byte vectors where aligned.
  const Roles r = roles(p.dir);
  const char* id = simt ? "cuda:cutlass_simt" : "cuda:cutlass_sm80";
  return need_aligned(id, operand_bytes(simt), simt ? "element loads" : "16-byte vector loads",
                      {{r.in, in_staged ? nullptr : a.in}, {r.in2, in2_staged ? nullptr : a.in2},
                       {r.out, out_staged ? nullptr : a.out}});
}

Verdict make_plan(const ConvProblem& p, int sm_count, size_t ws_limit, Plan* plan, bool simt) {
  *plan = Plan{};
  if (p.nsp != 2) return no("2-D convolutions only (no 3-D kernels are instantiated)");
  if (p.g != 1) return no("grouped convolutions are not supported (groups = " + std::to_string(p.g) + ")");
  if (p.xdt != p.wdt || p.xdt != p.ydt) return no("x, w and y must have one data type");
  const cudnnDataType_t dt = p.xdt;
  if (simt) {  // float FMA: every math type allows it (DEFAULT_MATH permits TF32, it does not require it)
    if (dt != CUDNN_DATA_FLOAT || p.compute != CUDNN_DATA_FLOAT)
      return no(std::string("the SIMT kernels are float data with float compute (got ") + dtype_short_name(dt) +
                " data, " + dtype_short_name(p.compute) + " compute)");
  } else if (dt == CUDNN_DATA_HALF || dt == CUDNN_DATA_BFLOAT16) {
    if (p.compute != CUDNN_DATA_FLOAT)
      return no(std::string("16-bit data is summed in float on tensor cores; compute type ") +
                dtype_short_name(p.compute) + " is declined");
    if (p.math == CUDNN_FMA_MATH) return no("CUDNN_FMA_MATH excludes tensor cores");
  } else if (dt == CUDNN_DATA_FLOAT) {
    if (p.compute != CUDNN_DATA_FLOAT) return no("float data needs compute type float");
    if (p.math == CUDNN_FMA_MATH) return no("float data with CUDNN_FMA_MATH: TF32 tensor cores are not allowed");
    if (tf32_override_off()) return no("float data with NVIDIA_TF32_OVERRIDE=0: TF32 tensor cores are not allowed");
  } else {
    return no(std::string("data type ") + dtype_short_name(dt) +
              " has no tensor-core kernel here (f16, bf16, f32 as TF32)");
  }
  // The kernels load 16-byte vectors along C and K: channels are padded with zeros up to multiples of 8 (16-bit) or
  // 4 (TF32) in staged copies. The 16-bit forward with C <= 4 pads to 4 channels for the fixed-channel kernel. The
  // SIMT kernels load single elements: no padding. Space-to-depth: z's channels to a multiple of 4 for the
  // few-channel kernels' accesses (none for SIMT), of 8 for the regular 16-bit ones.
  const int64_t align = simt ? 1 : dt == CUDNN_DATA_FLOAT ? 4 : 8;
  const S2d form = s2d_form(p, simt);
  const bool s2d = form != S2d::off;
  plan->s2d = form;
  if (s2d)
    plan->s2d_shape = s2d_shape(p.ic, p.kh, p.kw, p.oh, p.ow, p.sh, form != S2d::few ? 8 : simt ? 1 : 4,
                                form == S2d::folded);
  const S2dShape& zs = plan->s2d_shape;
  const bool fixed4 = !s2d && !simt && p.dir == ConvDir::fwd && dt != CUDNN_DATA_FLOAT && p.ic <= 4;
  const int64_t Cp = s2d ? zs.Cz : fixed4 ? 4 : ceil_div(p.ic, align) * align, Kp = ceil_div(p.oc, align) * align;
  const bool pad_c = Cp != p.ic, pad_k = Kp != p.oc;
  const auto es = static_cast<int64_t>(dtype_size(dt));
  // Element counts as the kernel sees them (padded; z and w' for space-to-depth).
  const int64_t kh = s2d ? zs.Rs : p.kh, kw = s2d ? zs.Ss : p.kw;
  const int64_t xs = s2d ? p.mb * Cp * zs.U * zs.V : p.mb * Cp * p.ih * p.iw, ys = p.mb * Kp * p.oh * p.ow,
                ws = Kp * Cp * kh * kw;
  // CUTLASS's limit (its can_implement): every operand under 2 GiB; wgrad's output is float partial sums.
  const int64_t wes = p.dir == ConvDir::bwd_filter ? 4 : es;
  if (std::max(xs, ys) * es >= (int64_t{1} << 31) || ws * wes >= (int64_t{1} << 31))
    return no("a tensor of 2 GiB or more (CUTLASS's 32-bit offsets)");

  ConvSize& s = plan->size;
  s.N = static_cast<int>(p.mb), s.H = static_cast<int>(p.ih), s.W = static_cast<int>(p.iw);
  s.C = static_cast<int>(Cp), s.K = static_cast<int>(Kp);
  s.R = static_cast<int>(p.kh), s.S = static_cast<int>(p.kw);
  s.P = static_cast<int>(p.oh), s.Q = static_cast<int>(p.ow);
  s.pad_h = p.ph, s.pad_w = p.pw, s.stride_h = p.sh, s.stride_w = p.sw, s.dil_h = p.dh, s.dil_w = p.dw;
  s.convolution = p.mode == CUDNN_CONVOLUTION;
  if (s2d) {  // the derived problem: stride 1, no padding, cross-correlation (s2d_filter flips)
    s.H = static_cast<int>(zs.U), s.W = static_cast<int>(zs.V), s.R = static_cast<int>(zs.Rs);
    s.S = static_cast<int>(zs.Ss);
    s.pad_h = s.pad_w = 0, s.stride_h = s.stride_w = 1, s.convolution = false;
  }
  if (p.dir == ConvDir::bwd_data && (p.sh > 1 || p.sw > 1) && (p.dh > 1 || p.dw > 1))
    return no("strided backward data with dilation > 1 (CUTLASS's strided dgrad kernel has no dilation)");

  const KernelOps& k = pick_kernel(p, s, sm_count, simt, form);
  plan->ops = &k;

  // Staging: which operands go through the workspace (not packed NHWC / KRSC, or channels to pad).
  const bool x_ok = !s2d && packed_nhwc(*p.x) && !pad_c, w_ok = !s2d && packed_nhwc(wt(p)) && !pad_c && !pad_k,
             y_ok = packed_nhwc(*p.y) && !pad_k;
  size_t off = 0;
  auto take = [&](size_t bytes) {
    const size_t at = off;
    off += align_up(bytes);
    return at;
  };
  switch (p.dir) {
    case ConvDir::fwd:
    case ConvDir::bwd_data:
      plan->stage_w = !w_ok;
      if (plan->stage_w) plan->off_w = take(static_cast<size_t>(ws * es));
      if (p.dir == ConvDir::fwd) {
        plan->stage_x = !x_ok, plan->stage_y = !y_ok;  // x in, y out
      } else {
        plan->stage_y = !y_ok, plan->stage_x = !x_ok;  // dy in, dx out
      }
      if (plan->stage_x) plan->off_x = take(static_cast<size_t>(xs * es));
      if (plan->stage_y) plan->off_y = take(static_cast<size_t>(ys * es));
      break;
    case ConvDir::bwd_filter: {
      plan->stage_x = !x_ok, plan->stage_y = !y_ok;
      if (plan->stage_x) plan->off_x = take(static_cast<size_t>(xs * es));
      if (plan->stage_y) plan->off_y = take(static_cast<size_t>(ys * es));
      const size_t fixed = off + kAlign;
      const size_t room = ws_limit > fixed ? ws_limit - fixed : 0;
      s.split_k = wgrad_splits(s, k, sm_count, room);
      plan->off_part = take(static_cast<size_t>(s.split_k) * static_cast<size_t>(ws) * sizeof(float));
      break;
    }
  }
  plan->total = off + kAlign;

  const char* why = "";
  if (!k.can_implement(s, &why))
    return no(std::string("CUTLASS ") + k.name + " cannot implement it: " + why);
  return {};
}

double cost_estimate(const ConvProblem& p, bool simt) {
  Plan plan;
  if (!make_plan(p, current_sm_count(), SIZE_MAX, &plan, simt).ok()) return 1e30;
  const double es = static_cast<double>(dtype_size(p.xdt));
  const ConvSize& s = plan.size;
  const KernelOps& k = *plan.ops;
  // Sizes as the kernel sees them (channels padded).
  const double xs = double(p.mb) * s.C * s.H * s.W, ys = double(p.mb) * s.K * p.oh * p.ow,
               ws = double(s.K) * s.C * s.R * s.S;
  double bytes = (xs + ys + ws) * es, launches = 1;
  // Tensor-core work spent on padding: the GEMM-K loop of fprop (dgrad) runs whole K tiles of channels (output
  // channels) per filter tap; the fixed-channel kernel packs taps of 4 channels into its K tiles.
  const auto up = [](double v, double m) { return std::ceil(v / m) * m; };
  const double rs = double(s.R) * s.S;
  double waste = 1;
  switch (p.dir) {
    case ConvDir::fwd:  // (space-to-depth: the few-channel kernels pack (r, s, c) like the fixed-channel one; the
                        // SIMT and regular kernels run whole K tiles per derived tap: the stem's GEMM-K is 1024
                        // wide, 256 folded, 192 few, for 7 x 7 x 3 = 147 products)
      waste = plan.s2d == S2d::few && !simt ? up(rs * s.C, k.tile_k) / (double(p.kh) * p.kw * p.ic)
              : plan.s2d != S2d::off        ? up(s.C, k.tile_k) * rs / (double(p.kh) * p.kw * p.ic)
              : s.C == 4 && p.xdt != CUDNN_DATA_FLOAT ? up(rs * s.C, k.tile_k) / (rs * double(p.ic))
                                                      : up(s.C, k.tile_k) / double(p.ic);
      break;
    case ConvDir::bwd_data: waste = up(s.K, k.tile_k) / double(p.oc); break;
    case ConvDir::bwd_filter: waste = double(s.K) / double(p.oc) * double(s.C) / double(p.ic); break;
  }
  const double xin = plan.s2d != S2d::off ? double(p.mb) * p.ic * p.ih * p.iw : xs;  // s2d: reads x, writes z
  if (plan.stage_x) bytes += (xin + xs) * es, launches += 1;
  if (plan.stage_y) bytes += 2 * ys * es, launches += 1;
  if (plan.stage_w) bytes += 2 * ws * es, launches += 1;
  if (p.dir == ConvDir::bwd_filter) bytes += 2.0 * plan.size.split_k * ws * 4, launches += 1;
  const double rate = simt ? 40e12 : p.xdt == CUDNN_DATA_FLOAT ? 150e12 : 300e12;
  return p.flops() * waste / rate + bytes / 3.5e12 + launches * 4e-6;
}

cudnnStatus_t run_plan(const ConvProblem& p, const ConvArgs& a, bool simt) {
  FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:cutlass_sm80 called without a handle");
  const cudaStream_t st = a.handle->stream;
  const int dev = a.handle->device;
  Plan plan;
  const Verdict v = make_plan(p, device_info(dev).sm_count, a.workspace_size, &plan, simt);
  FD_CHECK_SUPPORTED(v.ok(), "cuda:cutlass_sm80: %s", v.reason.c_str());
  const Verdict ptrs = plan_pointers(p, plan, a, simt);  // before anything is queued
  FD_CHECK_SUPPORTED(ptrs.ok(), "%s", ptrs.reason.c_str());
  FD_CHECK_PARAM(plan.total <= kAlign || (a.workspace != nullptr && a.workspace_size >= plan.total),
                 "cuda:cutlass_sm80 needs %zu bytes of workspace, got %zu", plan.total, a.workspace_size);
  char* ws = nullptr;
  if (a.workspace != nullptr)
    ws = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(a.workspace) + kAlign - 1) / kAlign * kAlign);
  const cudnnDataType_t dt = p.xdt;
  const KernelOps& k = *plan.ops;
  const ConvSize& s = plan.size;
  const float alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);

  // Inputs and the output by role (x, w, y as the forward names them).
  const void* x_in = p.dir == ConvDir::bwd_data ? nullptr : a.in;
  const void* w_in = p.dir == ConvDir::bwd_filter ? nullptr : a.in2;
  const void* y_in = p.dir == ConvDir::fwd ? nullptr : p.dir == ConvDir::bwd_data ? a.in : a.in2;
  const void* x = x_in;
  const void* w = w_in;
  const void* y = y_in;
  // Staged inputs: packed NHWC / KRSC with C padded to s.C and K to s.K (zeros).
  if (x_in != nullptr && plan.stage_x) {
    if (plan.s2d != S2d::off) FD_TRY(s2d_input(st, dev, dt, *p.x, x_in, plan.s2d_shape, p.ph, p.pw, ws + plan.off_x));
    else FD_TRY(to_nhwc(st, dev, dt, *p.x, x_in, ws + plan.off_x, p.mb, s.C));
    x = ws + plan.off_x;
  }
  if (w_in != nullptr && plan.stage_w) {
    if (plan.s2d != S2d::off)
      FD_TRY(s2d_filter(st, dev, dt, wt(p), w_in, plan.s2d_shape, s.K, p.mode == CUDNN_CONVOLUTION, ws + plan.off_w));
    else FD_TRY(to_nhwc(st, dev, dt, wt(p), w_in, ws + plan.off_w, s.K, s.C));
    w = ws + plan.off_w;
  }
  if (y_in != nullptr && plan.stage_y) {
    FD_TRY(to_nhwc(st, dev, dt, *p.y, y_in, ws + plan.off_y, p.mb, s.K));
    y = ws + plan.off_y;
  }
  if (p.dir == ConvDir::bwd_filter) {
    auto* part = reinterpret_cast<float*>(ws + plan.off_part);
    FD_TRY(k.run(s, y, x, nullptr, part, 1.f, 0.f, st));
    const int64_t count = p.oc * s.R * s.S * p.ic, pcount = int64_t{s.K} * s.R * s.S * s.C;
    with_tensor_core_storage(dt, [&](auto tag) {
      using S = decltype(tag);
      wgrad_finish_kernel<S><<<grid_size(count, kBlock, dev), kBlock, 0, st>>>(
          part, s.split_k, count, pcount, p.ic, s.C, s.R, s.S, view5(wt(p)), static_cast<S*>(a.out), alpha, beta);
    });
    FD_CUDA_LAUNCHED();
    return CUDNN_STATUS_SUCCESS;
  }

  // fprop / dgrad: the output is y (fwd) or dx (bwd_data).
  const bool fwd = p.dir == ConvDir::fwd;
  const cudnnTensorStruct& out_t = fwd ? *p.y : *p.x;
  const bool stage_out = fwd ? plan.stage_y : plan.stage_x;
  const void* a_op = fwd ? x : y;
  const fd::conv::FusedEpilogue* fused = fwd ? a.fused : nullptr;
  // CUTLASS (or the write-back) writes y before every z element is read: z may be y only in y's own layout (found
  // by review; cutlass_sm90_fprop refuses the same)
  FD_CHECK_SUPPORTED(
      fused == nullptr || fused->alpha2 == 0.0 || fused->z_data != a.out || same_layout(*fused->z, out_t),
      "cuda:cutlass_sm80: z aliases y with another layout");
  if (stage_out) {
    void* buf = ws + (fwd ? plan.off_y : plan.off_x);
    FD_TRY(k.run(s, a_op, w, nullptr, buf, 1.f, 0.f, st));
    return from_nhwc(st, dev, dt, buf, fwd ? s.K : s.C, out_t, a.out, alpha, beta, fused);
  }
  if (fused == nullptr) return k.run(s, a_op, w, a.out, a.out, alpha, beta, st);
  // Fused forward into a packed NHWC y: CUTLASS writes alpha1 * conv (+ alpha2 * z when z is stored like y), then
  // one pass adds the bias (and z otherwise) and applies the activation in place.
  const fd::conv::FusedEpilogue& e = *fused;
  const bool z_in_cutlass = e.alpha2 != 0.0 && packed_nhwc(*e.z) && aligned_to(e.z_data, operand_bytes(simt));
  FD_TRY(k.run(s, a_op, w, z_in_cutlass ? e.z_data : nullptr, a.out, alpha,
               z_in_cutlass ? static_cast<float>(e.alpha2) : 0.f, st));
  if (z_in_cutlass || e.alpha2 == 0.0)
    return bias_act_nhwc(st, dev, dt, a.out, int64_t{s.N} * s.P * s.Q * s.K, s.K, e);
  return from_nhwc(st, dev, dt, a.out, s.K, out_t, a.out, 1.f, 0.f, fused);  // adds alpha2 * z read through its view
}

Verdict Sm80ConvImpl::accepts_pointers(const ConvProblem& p, const ConvArgs& a) const {
  Plan plan;
  const Verdict v = make_plan(p, current_sm_count(), SIZE_MAX, &plan, simt_);  // staging depends on the problem only
  return v.ok() ? plan_pointers(p, plan, a, simt_) : v;
}

Verdict Sm80ConvImpl::applicable(const ConvProblem& p) const {
  if (p.dir != dir_) return no("serves one direction only");
  Plan plan;
  return make_plan(p, current_sm_count(), SIZE_MAX, &plan, simt_);
}

size_t Sm80ConvImpl::workspace_size(const ConvProblem& p) const {
  Plan plan;
  if (!make_plan(p, current_sm_count(), SIZE_MAX, &plan, simt_).ok()) return 0;
  return plan.total <= kAlign ? 0 : plan.total;
}

cudnnStatus_t Sm80ConvImpl::run(const ConvProblem& p, const ConvArgs& a) const { return run_plan(p, a, simt_); }

}  // namespace fd::cuda::conv::sm80
