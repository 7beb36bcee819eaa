// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The templated launcher behind sm80_kernels.h: builds a CUTLASS 2.x implicit-GEMM convolution kernel (Sm80
// tensor-op, kOptimized iterators, multistage; or kFixedChannels for the forward on 4 channels; or, with Simt, the
// same iterators on float FMA instructions) from a few parameters and wraps it into a KernelOps. Include it only
// from the small per-instantiation .cu files.
#pragma once
#include <type_traits>

#include <cutlass/cutlass.h>
#include <cutlass/conv/conv2d_problem_size.h>
#include <cutlass/conv/device/implicit_gemm_convolution.h>
#include <cutlass/conv/kernel/default_conv2d_dgrad.h>
#include <cutlass/conv/kernel/default_conv2d_fprop.h>
#include <cutlass/conv/kernel/default_conv2d_wgrad.h>
#include <cutlass/conv/threadblock/threadblock_swizzle.h>
#include <cutlass/epilogue/thread/linear_combination.h>
#include <cutlass/gemm/threadblock/threadblock_swizzle.h>

#include "cuda/common/cuda_util.h"
#include "cuda/conv/cutlass/sm80_kernels.h"

namespace fd::cuda::conv::sm80 {

// fprop_fixed4: the forward with exactly C = 4 channels (fewer are zero-padded to 4): CUTLASS's fixed-channel
// iterators load one 8-byte vector per filter tap and fold 16 taps into a 64-deep GEMM-K tile, where the
// kOptimized iterators would spend a whole K tile (64 channels) on each tap.
// fprop_few: the forward over a space-to-depth copy (s2d_staging.h: C a multiple of 4, stride 1, no padding): the
// few-channel iterators run the GEMM-K over (r, s, c) together in 4-element accesses (8 bytes for 16-bit data, 16
// for TF32), so the stem's 4 x 4 x 12 taps fill three 64-deep (six 32-deep) K tiles exactly.
enum class Op { fprop, fprop_fixed4, fprop_few, dgrad_unity, dgrad_strided, wgrad };

namespace detail {

namespace cc = cutlass::conv;
using Nhwc = cutlass::layout::TensorNHWC;

template <Op O, class T, class TC, class TB, class WS, class IS, class Epi, int Stages, class OC>
struct KernelOf;

// OC: cutlass::arch::OpClassTensorOp or OpClassSimt (float FMA; one-element accesses, so any C and K).
template <class T, class TC, class TB, class WS, class IS, class Epi, int Stages, class OC>
struct KernelOf<Op::fprop, T, TC, TB, WS, IS, Epi, Stages, OC> {
  using type = typename cc::kernel::DefaultConv2dFprop<
      T, Nhwc, T, Nhwc, TC, Nhwc, float, OC, cutlass::arch::Sm80, TB, WS, IS, Epi,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<4>, Stages, cutlass::arch::OpMultiplyAdd,
      cc::IteratorAlgorithm::kOptimized, cc::StrideSupport::kUnity>::Kernel;  // kUnity: the output is dense
};

// The fixed- and few-channel forwards: 4-element accesses of A and B, any stride.
template <cc::IteratorAlgorithm Alg, class T, class TC, class TB, class WS, class IS, class Epi, int Stages, class OC>
struct NarrowFprop {
  using type = typename cc::kernel::DefaultConv2dFprop<
      T, Nhwc, T, Nhwc, TC, Nhwc, float, OC, cutlass::arch::Sm80, TB, WS, IS, Epi,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<4>, Stages, cutlass::arch::OpMultiplyAdd, Alg,
      cc::StrideSupport::kStrided, 4, 4>::Kernel;
};

template <class T, class TC, class TB, class WS, class IS, class Epi, int Stages, class OC>
struct KernelOf<Op::fprop_fixed4, T, TC, TB, WS, IS, Epi, Stages, OC>
    : NarrowFprop<cc::IteratorAlgorithm::kFixedChannels, T, TC, TB, WS, IS, Epi, Stages, OC> {};

template <class T, class TC, class TB, class WS, class IS, class Epi, int Stages, class OC>
struct KernelOf<Op::fprop_few, T, TC, TB, WS, IS, Epi, Stages, OC>
    : NarrowFprop<cc::IteratorAlgorithm::kFewChannels, T, TC, TB, WS, IS, Epi, Stages, OC> {};

template <class T, class TC, class TB, class WS, class IS, class Epi, int Stages, class OC>
struct KernelOf<Op::dgrad_unity, T, TC, TB, WS, IS, Epi, Stages, OC> {
  using type = typename cc::kernel::DefaultConv2dDgrad<
      T, Nhwc, T, Nhwc, TC, Nhwc, float, OC, cutlass::arch::Sm80, TB, WS, IS, Epi,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<4>, Stages, cutlass::arch::OpMultiplyAdd,
      cc::IteratorAlgorithm::kOptimized, cc::StrideSupport::kUnity>::Kernel;
};

template <class T, class TC, class TB, class WS, class IS, class Epi, int Stages, class OC>
struct KernelOf<Op::dgrad_strided, T, TC, TB, WS, IS, Epi, Stages, OC> {
  using type = typename cc::kernel::DefaultConv2dDgrad<
      T, Nhwc, T, Nhwc, TC, Nhwc, float, OC, cutlass::arch::Sm80, TB, WS, IS, Epi,
      cc::threadblock::StridedDgradIdentityThreadblockSwizzle<1>, Stages, cutlass::arch::OpMultiplyAdd,
      cc::IteratorAlgorithm::kOptimized, cc::StrideSupport::kStrided>::Kernel;
};

template <class T, class TC, class TB, class WS, class IS, class Epi, int Stages, class OC>
struct KernelOf<Op::wgrad, T, TC, TB, WS, IS, Epi, Stages, OC> {
  using type = typename cc::kernel::DefaultConv2dWgrad<
      T, Nhwc, T, Nhwc, TC, Nhwc, float, OC, cutlass::arch::Sm80, TB, WS, IS, Epi,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<1>, Stages, cutlass::arch::OpMultiplyAdd,
      cc::IteratorAlgorithm::kOptimized>::Kernel;
};

inline cc::Conv2dProblemSize problem_size(const ConvSize& s) {
  return cc::Conv2dProblemSize(s.N, s.H, s.W, s.C, s.K, s.R, s.S, s.P, s.Q, s.pad_h, s.pad_w, s.stride_h, s.stride_w,
                               s.dil_h, s.dil_w, s.convolution ? cc::Mode::kConvolution : cc::Mode::kCrossCorrelation,
                               s.split_k, 1);
}

}  // namespace detail

// T: cutlass::half_t, cutlass::bfloat16_t or float (TF32 products; with Simt, float FMA). The wgrad output is float
// partial sums. Simt: one-element loads and stores (cp.async of 4 bytes), 1x1x1 FMA "instructions", a scalar
// epilogue.
template <Op O, class T, int TM, int TN, int TK, int WM, int WN, int WK, int Stages, bool Simt = false>
struct Sm80Conv {
  static_assert(!Simt || std::is_same_v<T, float>, "the SIMT kernels are float FMA");
  using TC = std::conditional_t<O == Op::wgrad, float, T>;
  using TB = cutlass::gemm::GemmShape<TM, TN, TK>;
  using WS = cutlass::gemm::GemmShape<WM, WN, WK>;
  using OC = std::conditional_t<Simt, cutlass::arch::OpClassSimt, cutlass::arch::OpClassTensorOp>;
  using IS = std::conditional_t<Simt, cutlass::gemm::GemmShape<1, 1, 1>,
                                cutlass::gemm::GemmShape<16, 8, cutlass::sizeof_bits<T>::value == 16 ? 16 : 8>>;
  using Epi = cutlass::epilogue::thread::LinearCombination<TC, Simt ? 1 : 128 / cutlass::sizeof_bits<TC>::value,
                                                           float, float>;
  using Kernel = typename detail::KernelOf<O, T, TC, TB, WS, IS, Epi, Stages, OC>::type;
  using Device = cutlass::conv::device::ImplicitGemmConvolution<Kernel>;
  static constexpr auto kOperator = Kernel::kConvolutionalOperator;

  static typename Device::Arguments arguments(const ConvSize& s, const void* a, const void* b, const void* c, void* d,
                                              float alpha, float beta) {
    using namespace cutlass::conv;
    const Conv2dProblemSize ps = detail::problem_size(s);
    using RefA = typename Kernel::TensorRefA;
    using RefB = typename Kernel::TensorRefB;
    using RefC = typename Kernel::TensorRefC;
    using EA = typename Device::ElementA;
    using EB = typename Device::ElementB;
    using EC = typename Device::ElementC;
    const RefA ra(static_cast<EA*>(const_cast<void*>(a)),
                  detail::Nhwc::packed(implicit_gemm_tensor_a_extent(kOperator, ps)));
    const RefB rb(static_cast<EB*>(const_cast<void*>(b)),
                  detail::Nhwc::packed(implicit_gemm_tensor_b_extent(kOperator, ps)));
    const auto lc = detail::Nhwc::packed(implicit_gemm_tensor_c_extent(kOperator, ps));
    const RefC rc(static_cast<EC*>(const_cast<void*>(c != nullptr ? c : d)), lc);
    const RefC rd(static_cast<EC*>(d), lc);
    return typename Device::Arguments(ps, ra, rb, rc, rd, typename Epi::Params(alpha, beta),
                                      s.split_k > 1 ? SplitKMode::kParallel : SplitKMode::kSerial);
  }

  static bool can_implement(const ConvSize& s, const char** why) {
    const auto args = arguments(s, nullptr, nullptr, nullptr, nullptr, 1.f, 0.f);
    const cutlass::Status st = Device::can_implement(args);
    if (why != nullptr) *why = cutlass::cutlassGetStatusString(st);
    return st == cutlass::Status::kSuccess;
  }

  // Launches the kernel itself rather than through Device::initialize, which would clear a parallel split-K
  // buffer that every slice overwrites anyway (and would need a separate semaphore workspace otherwise).
  static cudnnStatus_t run(const ConvSize& s, const void* a, const void* b, const void* c, void* d, float alpha,
                           float beta, cudaStream_t stream) {
    const auto args = arguments(s, a, b, c, d, alpha, beta);
    const typename Kernel::Params params(args, nullptr);
    typename Kernel::ThreadblockSwizzle swizzle;
    const dim3 grid = swizzle.get_grid_shape(params.grid_tiled_shape);
    const dim3 block(32 * Device::kWarpCount, 1, 1);
    constexpr int smem = static_cast<int>(sizeof(typename Kernel::SharedStorage));
    if constexpr (smem >= (48 << 10)) {  // once per kernel and device (allow_dynamic_smem caches it)
      int dev = 0;
      FD_CUDA_CHECK(cudaGetDevice(&dev));
      FD_TRY(allow_dynamic_smem(reinterpret_cast<const void*>(cutlass::Kernel<Kernel>), smem, dev));
    }
    cutlass::Kernel<Kernel><<<grid, block, smem, stream>>>(params);
    FD_CUDA_LAUNCHED();
    return CUDNN_STATUS_SUCCESS;
  }

  static KernelOps ops(const char* name) { return KernelOps{name, TM, TN, TK, &can_implement, &run}; }
};

}  // namespace fd::cuda::conv::sm80
