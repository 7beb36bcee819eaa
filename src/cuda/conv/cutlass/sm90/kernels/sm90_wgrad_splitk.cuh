// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// A split-K sm_90a wgrad: CUTLASS 3.x's wgrad collectives (TMA im2col loads of dy and x, wgmma, the TMA
// epilogue) under a kernel of our own that cuts the N*P*Q reduction into `splits` ranges of whole K tiles, one per
// blockIdx.z, each range's float partial dw written to its own slice of the output (a batch mode of stride
// `d_split_stride` floats). CUTLASS's convolution kernels have no split-K (their persistent and stream-K schedules
// are not built for convolutions), and the batch split that ran instead (one CUTLASS launch per slice of images,
// on as many streams) spent ~10 us of host time per slice (run 12: TMA descriptors, attributes, launch, stream
// fork and join), more than the slices' GPU time on ResNet-50's 3x3 layers. Here: one set of descriptors, one
// launch. The kernel body is the non-persistent warp-specialized GEMM's structure (one producer warp group
// issuing TMA, one consumer warp group issuing wgmma, then the epilogue) with the K range and the output slice
// taken from blockIdx.z. Included only by the wgrad_*_f32out.cu instantiation files.
#pragma once
#include "cuda/conv/cutlass/sm90/kernels/sm90_conv_kernel.cuh"
#include "cuda/conv/cutlass/sm90/kernels/sm90_ws_pipelines.cuh"

namespace fd::cuda::conv::sm90 {

// dw partial-sum output: (K, (C,S,R), split) with a dynamic split stride.
using SplitStrideD = cute::Stride<int64_t, cute::Stride<cute::Int<1>, int64_t, int64_t>, int64_t>;

template <class T, int TM, int TN>
struct Sm90WgradSplitK {
  using Base = Sm90Conv<cutlass::conv::Operator::kWgrad, T, TM, TN, 1, float, void, SplitStrideD>;
  using Kernel = typename Base::ConvKernel;  // CUTLASS's GemmUniversal for the problem: types and host helpers
  using Mainloop = typename Kernel::CollectiveMainloop;
  using Epilogue = typename Kernel::CollectiveEpilogue;
  using SharedStorage = typename Kernel::SharedStorage;
  static constexpr int kThreads = Kernel::MaxThreadsPerBlock;  // one producer + one consumer warp group
  static_assert(cute::size(typename Kernel::ClusterShape{}) == 1, "the split kernel launches without clusters");

  struct Params {
    typename Kernel::Params base;  // linearized problem (K, (C,S,R), N*P*Q, 1), mainloop and epilogue params
    int splits;
  };

  // The K tiles [k0, k1) of split z of kt tiles (sizes differ by at most one; splits <= kt, so none is empty).
  CUTLASS_DEVICE static void k_range(int z, int splits, int kt, int* k0, int* k1) {
    *k0 = static_cast<int>(static_cast<int64_t>(z) * kt / splits);
    *k1 = static_cast<int>(static_cast<int64_t>(z + 1) * kt / splits);
  }

  CUTLASS_DEVICE static void run_device(Params const& p, char* smem) {
    using namespace cute;
    SharedStorage& ss = *reinterpret_cast<SharedStorage*>(smem);
    const int thread = int(threadIdx.x);
    const int warp = cutlass::canonical_warp_idx_sync();
    const int group_thread = thread % cutlass::NumThreadsPerWarpGroup;
    const bool producer = cutlass::canonical_warp_group_idx() == 0;
    const int lane = cutlass::canonical_lane_idx();

    if (warp == 0 && cute::elect_one_sync()) {
      Mainloop::prefetch_tma_descriptors(p.base.mainloop);
      Epilogue::prefetch_tma_descriptors(p.base.epilogue);
    }

    // The epilogue's load pipeline exists even without a source (no c: nothing is loaded through it); its producer
    // is the mainloop's warp, which runs the epilogue's loads after the mainloop's.
    WsPipelines<Mainloop, Epilogue, typename Kernel::ClusterShape> pl(
        ss.pipelines, producer, warp % cutlass::NumWarpsPerWarpGroup, group_thread == 0,
        p.base.mainloop.tma_transaction_bytes, p.base.epilogue.tma_transaction_bytes, 0);
    __syncthreads();  // the pipelines' barriers initialized before anyone waits on them (cluster of one CTA)

    const auto tile = typename Kernel::TileShape{};
    typename Kernel::TiledMma tiled_mma;
    const auto mnkl = append<4>(p.base.problem_shape, cute::Int<1>{});  // (M, N, K, 1) for the mainloop
    Mainloop mainloop;
    Epilogue epilogue(p.base.epilogue, ss.tensors.epilogue);
    auto inputs = mainloop.load_init(mnkl, p.base.mainloop);
    auto gA = get<0>(inputs);
    auto gB = get<1>(inputs);
    const auto m = idx2crd(int(blockIdx.x), shape<2>(gA));
    const auto n = idx2crd(int(blockIdx.y), shape<2>(gB));
    const int z = int(blockIdx.z);
    int k0 = 0, k1 = 0;
    k_range(z, p.splits, int(size<3>(gA)), &k0, &k1);
    const int k_count = k1 - k0;
    auto k_iter = cute::make_coord_iterator(idx2crd(k0, shape<3>(gA)), shape<3>(gA));
    const auto load_coord = make_coord(m, n, _, cute::Int<0>{});
    // The epilogue sees the split as the batch mode: (M, N, K, splits), this CTA's slice z.
    const auto epi_shape = make_shape(get<0>(mnkl), get<1>(mnkl), get<2>(mnkl), p.splits);
    const auto epi_coord = make_coord(m, n, _, z);

    if (producer) {
      if (warp % cutlass::NumWarpsPerWarpGroup == 0) {
        mainloop.load(p.base.mainloop, pl.mainloop, pl.mainloop_producer, inputs, load_coord, k_iter, k_count, lane,
                      cute::block_rank_in_cluster(), ss.tensors.mainloop);
        pl.mainloop_producer.advance(k_count);
        mainloop.load_tail(pl.mainloop, pl.mainloop_producer);
        if (epilogue.is_producer_load_needed()) {
          __syncwarp();
          pl.epi_load_producer = epilogue.load(pl.epi_load, pl.epi_load_producer, epi_shape, tile, epi_coord,
                                               tiled_mma, lane, ss.tensors.epilogue);
          epilogue.load_tail(pl.epi_load, pl.epi_load_producer);
        }
      }
    } else {
      Tensor acc = partition_fragment_C(tiled_mma, take<0, 2>(tile));
      mainloop.mma(pl.mainloop, pl.mainloop_consumer, acc, k_count, group_thread, ss.tensors.mainloop,
                   p.base.mainloop);
      mainloop.mma_tail(pl.mainloop, pl.mainloop_consumer, k_count);
      auto [load_next, store_next] =
          epilogue.store(pl.epi_load, pl.epi_load_consumer, pl.epi_store, pl.epi_store_producer, epi_shape, tile,
                         epi_coord, acc, tiled_mma, group_thread, ss.tensors.epilogue);
      epilogue.store_tail(pl.epi_load, load_next, pl.epi_store, store_next);
    }
  }

  // The K tiles of the reduction (N*P*Q rows in 64-deep tiles, 128 bytes of 16-bit data).
  static int k_tiles(const Geometry& g) {
    const int64_t rows = int64_t{g.n} * g.p * g.q;
    return static_cast<int>((rows + Base::kTileK - 1) / Base::kTileK);
  }

  static bool can_implement(const Geometry& g) { return Base::can_implement(g); }
  static size_t workspace_size(const Geometry&) { return 0; }
  static RunStatus run(const Geometry& g, const Operands& o);
  static const sm90::Kernel& instance(const char* name) {
    static const sm90::Kernel k{name, &can_implement, &workspace_size, &run};
    return k;
  }
};

template <class SK>
__global__ void __launch_bounds__(SK::kThreads, 1) wgrad_splitk_kernel(const __grid_constant__ typename SK::Params p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ char smem[];
  SK::run_device(p, smem);
#endif
}

// d (o.d) = alpha * the partial dw of split z at o.d + z * o.d_split_stride floats, for z < o.splits.
template <class T, int TM, int TN>
RunStatus Sm90WgradSplitK<T, TM, TN>::run(const Geometry& g, const Operands& o) {
  const int splits = o.splits < 1 ? 1 : o.splits;
  if (o.beta != 0.0f || splits > k_tiles(g) || (splits > 1 && o.d_split_stride <= 0))
    return RunStatus::not_implementable;
  auto args = Base::arguments(g, o);
  cute::get<2>(args.epilogue.dD) = splits > 1 ? o.d_split_stride : 0;
  if (!Base::same_output(g) || Base::Conv::can_implement(args) != cutlass::Status::kSuccess)
    return RunStatus::not_implementable;
  Params p{};
  p.splits = splits;
  using cutlass::conv::detail::get_transformed_problem_shape_MNKL;
  p.base.problem_shape = Mainloop::get_problem_shape_MNKL(args.problem_shape);
  p.base.mainloop = Mainloop::to_underlying_arguments(args.problem_shape, args.mainloop, nullptr);
  const auto xf = get_transformed_problem_shape_MNKL(args.problem_shape);
  const auto epi_shape = cute::make_shape(cute::get<0>(xf), cute::get<1>(xf), cute::get<2>(xf), splits);
  p.base.epilogue = Epilogue::to_underlying_arguments(epi_shape, args.epilogue, nullptr);
  dim3 grid = Kernel::get_grid_shape(p.base);
  grid.z = static_cast<unsigned>(splits);
  constexpr int smem = static_cast<int>(sizeof(SharedStorage));
  auto* fn = &wgrad_splitk_kernel<Sm90WgradSplitK>;
  if (cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess)
    return RunStatus::init_failed;
  fn<<<grid, kThreads, smem, o.stream>>>(p);
  return cudaPeekAtLastError() == cudaSuccess ? RunStatus::ok : RunStatus::launch_failed;
}

}  // namespace fd::cuda::conv::sm90

// One instantiation file: FD_SM90_WGRAD_F32OUT(wgrad_f16_64x128_f32out, cutlass::half_t, 64, 128).
#define FD_SM90_WGRAD_F32OUT(NAME, T, TM, TN)                                                     \
  namespace fd::cuda::conv::sm90 {                                                                \
  const Kernel& NAME() { return Sm90WgradSplitK<T, TM, TN>::instance(#NAME); }                    \
  }
