// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// One CUTLASS 3.x sm_90a batched GEMM over NCHW planes (sm90_plane_gemm.h), from the GEMM and epilogue collective
// builders: float operands on TF32 wgmma with float sums; A column-major (MN-major: the builder loads it through
// registers), B K-major or MN-major, D column-major with LinearCombination (d = alpha * acc + beta * d). Included
// only by the instantiation files next to it (compiled for sm_90a only).
#pragma once
#include <type_traits>

// clang-format off: CUTLASS's headers expect this order
#include "cutlass/cutlass.h"
#include "cute/tensor.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
// clang-format on
#include "cuda/conv/cutlass/sm90/sm90_plane_gemm.h"

namespace fd::cuda::conv::sm90 {

// BnMajor: B's n dim contiguous (backward data's W) instead of its k dim (the forward's). Tma: TMA loads and
// stores (16-byte aligned rows and pointers) instead of cp.async of single floats and register stores.
template <bool BnMajor, bool Tma>
struct Sm90PlaneGemm {
  using LayoutA = cutlass::layout::ColumnMajor;
  using LayoutB = std::conditional_t<BnMajor, cutlass::layout::RowMajor, cutlass::layout::ColumnMajor>;
  using LayoutD = cutlass::layout::ColumnMajor;
  static constexpr int kAlign = Tma ? 4 : 1;
  using Tile = cute::Shape<cute::_128, cute::_128, cute::_32>;
  using Cluster = cute::Shape<cute::_1, cute::_1, cute::_1>;
  using EpiSchedule = std::conditional_t<Tma, cutlass::epilogue::TmaWarpSpecializedCooperative,
                                         cutlass::epilogue::NoSmemWarpSpecialized>;
  using MainSchedule = std::conditional_t<Tma, cutlass::gemm::KernelTmaWarpSpecializedCooperative,
                                          cutlass::gemm::KernelCpAsyncWarpSpecializedCooperative>;
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Tile, Cluster,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, float, LayoutD, kAlign, float, LayoutD, kAlign,
      EpiSchedule>::CollectiveOp;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, float, LayoutA, kAlign, float, LayoutB, kAlign, float, Tile,
      Cluster,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      MainSchedule>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

  static typename Gemm::Arguments arguments(const PlaneGemm& g, const PlaneOperands& o) {
    using namespace cute;
    typename Kernel::StrideA sa = make_stride(Int<1>{}, int64_t(g.m), g.a_batch);
    typename Kernel::StrideB sb{};
    if constexpr (BnMajor)
      sb = make_stride(Int<1>{}, g.b_ld, int64_t(0));  // (n, k, image): n contiguous
    else
      sb = make_stride(g.b_ld, Int<1>{}, int64_t(0));  // k contiguous
    typename Kernel::StrideD sd = make_stride(Int<1>{}, int64_t(g.m), g.d_batch);
    return typename Gemm::Arguments{cutlass::gemm::GemmUniversalMode::kGemm,
                                    {g.m, g.n, g.k, g.batch},
                                    {o.a, sa, o.b, sb},
                                    {{o.alpha, o.beta}, o.d, sd, o.d, sd}};
  }

  static bool can_implement(const PlaneGemm& g) {
    if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.batch <= 0) return false;
    if (Tma && (g.m % 4 != 0 || g.b_ld % 4 != 0 || g.a_batch % 4 != 0 || g.d_batch % 4 != 0)) return false;
    return Gemm::can_implement(arguments(g, PlaneOperands{})) == cutlass::Status::kSuccess;
  }

  static size_t workspace_size(const PlaneGemm& g) { return Gemm::get_workspace_size(arguments(g, PlaneOperands{})); }

  static RunStatus run(const PlaneGemm& g, const PlaneOperands& o) {
    const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    if (Tma && !(aligned(o.a) && aligned(o.b) && aligned(o.d))) return RunStatus::not_implementable;
    if (!can_implement(g)) return RunStatus::not_implementable;
    const auto args = arguments(g, o);
    if (Gemm::get_workspace_size(args) > o.workspace_size) return RunStatus::not_implementable;
    Gemm op;
    if (op.initialize(args, o.workspace, o.stream) != cutlass::Status::kSuccess) return RunStatus::init_failed;
    if (op.run(o.stream) != cutlass::Status::kSuccess) return RunStatus::launch_failed;
    return RunStatus::ok;
  }

  static const PlaneKernel& instance(const char* name) {
    static const PlaneKernel k{name, &can_implement, &workspace_size, &run};
    return k;
  }
};

}  // namespace fd::cuda::conv::sm90

// One instantiation file: FD_SM90_PLANE_GEMM(gemm_tf32_planes_bn_tma, true, true).
#define FD_SM90_PLANE_GEMM(NAME, BN_MAJOR, TMA)                                                      \
  namespace fd::cuda::conv::sm90 {                                                                   \
  const PlaneKernel& NAME() { return Sm90PlaneGemm<BN_MAJOR, TMA>::instance(#NAME); }              \
  }
