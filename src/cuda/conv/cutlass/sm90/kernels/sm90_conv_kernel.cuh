// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// One CUTLASS 3.x sm_90a implicit-GEMM convolution, built from the conv and epilogue collective builders:
// TMA im2col loads of the activation (of dy for dgrad and wgrad's B), wgmma from shared memory with float
// accumulators, the warp-specialized TMA epilogue with LinearCombination (d = alpha * acc + beta * c; the source is
// not loaded when beta == 0). Included only by the instantiation files next to it (compiled for sm_90a only).
#pragma once
#include <type_traits>

// clang-format off: CUTLASS's headers expect this order (the conv builders use KernelHardwareInfo undeclared)
#include "cutlass/cutlass.h"
#include "cutlass/kernel_hardware_info.hpp"
#include "cute/tensor.hpp"
#include "cutlass/numeric_types.h"
#include "cutlass/conv/convnd_problem_shape.hpp"
#include "cutlass/conv/device/conv_universal_adapter.hpp"
#include "cutlass/conv/kernel/conv_universal.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/conv/collective/collective_builder.hpp"
#include "cutlass/util/packed_stride.hpp"
// clang-format on
#include "cuda/conv/cutlass/sm90/sm90_kernels.h"

namespace fd::cuda::conv::sm90 {

// Op: kFprop / kDgrad / kWgrad; T: cutlass::half_t or cutlass::bfloat16_t, or float (TF32 wgmma: the tensor cores
// read the float operands' top 19 bits, products summed in float); TM x TN x TK the CTA tile with TK 128 bytes of
// channels (64 16-bit, 32 float; for wgrad the N mode is (C,S,R), hence the nested shape); CM CTAs along M per
// cluster (they share the B tile by TMA multicast). TOut: the type of d (T, or float for wgrad's split partial sums);
// TC: the type of c, void for a kernel without a source (beta must be 0; no smem or TMA load spent on c).
// StrideOut: the output's CuTe stride type instead of the layout's default (void), e.g. one with a batch mode.
// Stages: the mainloop's shared-memory pipeline depth; 0 lets the builder fill shared memory (one CTA per SM for
// the 128 x 64 tiles), a small count leaves room for a second CTA, whose mainloop runs while the first one's
// prologue and epilogue do.
template <cutlass::conv::Operator Op, class T, int TM, int TN, int CM, class TOut = T, class TC = TOut,
          class StrideOut = void, int Stages = 0>
struct Sm90Conv {
  static constexpr bool kWgrad = Op == cutlass::conv::Operator::kWgrad;
  using TileN = std::conditional_t<kWgrad, cute::Shape<cute::Int<TN>>, cute::Int<TN>>;
  static constexpr int kTileK = 1024 / cutlass::sizeof_bits<T>::value;  // 128 bytes: one 128B-swizzled smem row
  using TileShape = cute::Shape<cute::Int<TM>, TileN, cute::Shape<cute::Int<kTileK>>>;
  using ClusterShape = cute::Shape<cute::Int<CM>, cute::_1, cute::_1>;
  using LayoutIn = cutlass::layout::TensorNHWC;
  using LayoutDefault = std::conditional_t<kWgrad, cutlass::layout::TensorKCSR, cutlass::layout::TensorNHWC>;
  using LayoutOut = std::conditional_t<std::is_void_v<StrideOut>, LayoutDefault, StrideOut>;
  static constexpr int kAlign = 128 / cutlass::sizeof_bits<T>::value;  // 8 halves, 4 floats: the 16 bytes TMA needs
  static constexpr int kAlignOut = 128 / cutlass::sizeof_bits<TOut>::value;

  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, TC, LayoutOut, kAlignOut, TOut, LayoutOut,
      kAlignOut, cutlass::epilogue::TmaWarpSpecialized>::CollectiveOp;

  using Mainloop = typename cutlass::conv::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Op, T, LayoutIn, kAlign, T, LayoutIn, kAlign, float,
      TileShape, ClusterShape,
      std::conditional_t<Stages == 0,
                         cutlass::conv::collective::StageCountAutoCarveout<
                             static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
                         cutlass::conv::collective::StageCount<Stages>>,
      cutlass::conv::collective::KernelScheduleAuto>::CollectiveOp;

  using ProblemShape = cutlass::conv::ConvProblemShape<Op, Mainloop::NumSpatialDimensions>;
  using ConvKernel = cutlass::conv::kernel::ConvUniversal<ProblemShape, Mainloop, Epilogue>;
  using Conv = cutlass::conv::device::ConvUniversalAdapter<ConvKernel>;
  using StrideC = typename ConvKernel::StrideC;
  using StrideD = typename ConvKernel::StrideD;
  static_assert(ProblemShape::RankS == 2, "2-D (NHWC) convolutions only");

  static ProblemShape problem(const Geometry& g) {
    typename ProblemShape::TensorExtent act{}, flt{};
    act[0] = g.n, act[1] = g.h, act[2] = g.w, act[3] = g.c;
    flt[0] = g.k, flt[1] = g.r, flt[2] = g.s, flt[3] = g.c;
    typename ProblemShape::ShapePadding lo{}, hi{};
    typename ProblemShape::TraversalStride stride{};
    typename ProblemShape::ShapeDilation dil{};
    lo[0] = g.pad_h, lo[1] = g.pad_w;
    // cuDNN pads both sides alike; the float wgrad's windows (Geometry) pad the two sides differently.
    hi[0] = g.pad_h_hi < 0 ? g.pad_h : g.pad_h_hi, hi[1] = g.pad_w_hi < 0 ? g.pad_w : g.pad_w_hi;
    stride[0] = g.stride_h, stride[1] = g.stride_w;
    dil[0] = g.dil_h, dil[1] = g.dil_w;
    // Packed NHWC / KRSC strides, except an image / output-channel stride given for a window of a larger tensor.
    typename ProblemShape::TensorStride act_st{}, flt_st{};
    act_st[3] = 1, act_st[2] = g.c, act_st[1] = int64_t{g.w} * g.c, act_st[0] = int64_t{g.h} * g.w * g.c;
    flt_st[3] = 1, flt_st[2] = g.c, flt_st[1] = int64_t{g.s} * g.c, flt_st[0] = int64_t{g.r} * g.s * g.c;
    if (g.act_stride_n > 0) act_st[0] = g.act_stride_n;
    if (g.flt_stride_k > 0) flt_st[0] = g.flt_stride_k;
    // The output extent CUTLASS derives is cuDNN's (floor division).
    return ProblemShape(cutlass::conv::Mode::kCrossCorrelation, act, act_st, flt, flt_st, lo, hi, stride, dil, 1);
  }

  // A wgrad output stride (K, (1, S, R)[, batch]) from dw's KRSC strides; a batch mode is left as it is.
  template <class St>
  static void for_krsc(St& st, const typename ProblemShape::TensorStride& krsc) {
    cute::get<0>(st) = krsc[0];
    cute::get<1, 1>(st) = krsc[2];
    cute::get<1, 2>(st) = krsc[1];
  }

  static typename Conv::Arguments arguments(const Geometry& g, const Operands& o) {
    const ProblemShape ps = problem(g);
    StrideC dC{};
    StrideD dD{};
    if constexpr (kWgrad) {  // dw: (K, (C,S,R)) from the KRSC strides (C's stride is a static 1)
      for_krsc(dC, ps.stride_C);
      for_krsc(dD, ps.stride_C);
    } else {  // y / dx: ((W,H,N), C) from the NHWC strides, or the caller's (Operands::d_strides)
      cute::for_each(cute::make_seq<cute::rank<0>(StrideC{})>{}, [&](auto i) {
        const int64_t given = i < 3 ? o.d_strides[i] : 0;
        cute::get<0, i>(dC) = given > 0 ? given : ps.stride_C[ProblemShape::RankT - 2 - i];
        cute::get<0, i>(dD) = given > 0 ? given : ps.stride_C[ProblemShape::RankT - 2 - i];
      });
    }
    using EA = typename Mainloop::ElementA;
    using EB = typename Mainloop::ElementB;
    using EC = typename Epilogue::ElementC;  // void without a source
    typename Conv::Arguments args(
        ps, {static_cast<const EA*>(o.a), static_cast<const EB*>(o.b)},
        {{}, static_cast<const EC*>(o.c), dC, static_cast<TOut*>(o.d), dD});
    args.epilogue.thread.alpha = o.alpha;
    args.epilogue.thread.beta = o.beta;
    return args;
  }

  // The output extent CUTLASS computes must be the caller's (it is the xformed activation for every operator).
  static bool same_output(const Geometry& g) {
    const ProblemShape ps = problem(g);
    const auto& out = Op == cutlass::conv::Operator::kFprop ? ps.shape_C : ps.shape_A;
    return out[0] == g.n && out[1] == g.p && out[2] == g.q && out[3] == g.k;
  }

  static bool can_implement(const Geometry& g) {
    if (!same_output(g)) return false;
    const Operands none{};
    return Conv::can_implement(arguments(g, none)) == cutlass::Status::kSuccess;
  }

  static size_t workspace_size(const Geometry& g) {
    const Operands none{};
    return Conv::get_workspace_size(arguments(g, none));
  }

  static RunStatus run(const Geometry& g, const Operands& o) {
    if (std::is_void_v<TC> && o.beta != 0.0f) return RunStatus::not_implementable;  // no source to blend
    const auto args = arguments(g, o);
    if (!same_output(g) || Conv::can_implement(args) != cutlass::Status::kSuccess)
      return RunStatus::not_implementable;
    if (Conv::get_workspace_size(args) > o.workspace_size) return RunStatus::not_implementable;
    Conv op;
    if (op.initialize(args, o.workspace, o.stream) != cutlass::Status::kSuccess) return RunStatus::init_failed;
    if (op.run(o.stream) != cutlass::Status::kSuccess) return RunStatus::launch_failed;
    return RunStatus::ok;
  }

  static const Kernel& instance(const char* name) {
    static const Kernel k{name, &can_implement, &workspace_size, &run};
    return k;
  }
};

}  // namespace fd::cuda::conv::sm90

// One instantiation file: FD_SM90_CONV(fprop_f16_128x128_c2, kFprop, cutlass::half_t, 128, 128, 2); float storage
// with TF32 math: FD_SM90_CONV(fprop_tf32_128x128_c2, kFprop, float, 128, 128, 2).
#define FD_SM90_CONV(NAME, OP, T, TM, TN, CM)                                                   \
  namespace fd::cuda::conv::sm90 {                                                              \
  const Kernel& NAME() { return Sm90Conv<cutlass::conv::Operator::OP, T, TM, TN, CM>::instance(#NAME); } \
  }
// The same with a fixed pipeline depth (stages), e.g.
// FD_SM90_CONV_STAGES(fprop_f16_128x64_s4, kFprop, cutlass::half_t, 128, 64, 1, 4).
#define FD_SM90_CONV_STAGES(NAME, OP, T, TM, TN, CM, STAGES)                                    \
  namespace fd::cuda::conv::sm90 {                                                              \
  const Kernel& NAME() {                                                                        \
    return Sm90Conv<cutlass::conv::Operator::OP, T, TM, TN, CM, T, T, void, STAGES>::instance(#NAME); \
  }                                                                                             \
  }
