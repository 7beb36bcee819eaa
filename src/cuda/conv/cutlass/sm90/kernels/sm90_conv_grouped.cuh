// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// A grouped persistent sm_90a forward (sm90_grouped.h has the why): CUTLASS 3.x's conv collectives (TMA im2col
// loads, wgmma, the TMA epilogue) under a kernel of our own. CUTLASS's sm90 convolution kernel is non-persistent
// only (its dispatch policy rejects the cooperative and ping-pong schedules), so this one follows the structure of
// CUTLASS's persistent GEMM kernels: one producer warp group (warp 0 issues the mainloop's TMA loads, warp 2 the
// epilogue's source loads) and one consumer warp group (wgmma, then the epilogue), both walking the same tile
// sequence, tiles blockIdx.x, blockIdx.x + gridDim.x, ... over the problems' tiles laid end to end; the pipeline
// states run on across tiles, and the mainloop and epilogue buffers are separate (CUTLASS's non-persistent kernel
// overlays them). PingPong: two consumer warp groups take the CTA's tiles in turn (as CUTLASS's ping-pong GEMM
// kernel does), an ordered barrier letting one run its wgmma while the other runs its epilogue, so the epilogue no
// longer stalls the tensor cores between tiles (short-K layers: the stride phases' K of 1-4 taps, the 1x1 layers).
// Also CUTLASS's unit-stride dgrad collective under the same kernel (Op = kDgrad: dgrad_*_grouped / _pingpong).
// Included only by the fprop_* / dgrad_* grouped and pingpong instantiation files.
#pragma once
#include "core/env.h"
#include "cuda/conv/cutlass/sm90/kernels/sm90_conv_kernel.cuh"
#include "cuda/conv/cutlass/sm90/kernels/sm90_ws_pipelines.cuh"
#include "cuda/conv/cutlass/sm90/sm90_grouped.h"

namespace fd::cuda::conv::sm90 {

// Op: kFprop, or kDgrad (CUTLASS's unit-stride dgrad collective: a = dy, b = the KRSC filter as it is, d = dx).
template <class T, int TM, int TN, bool PingPong = false, cutlass::conv::Operator Op = cutlass::conv::Operator::kFprop>
struct Sm90ConvGrouped {
  static_assert(Op != cutlass::conv::Operator::kWgrad, "forward and backward data only");
  // The mainloop's stages leave room for the epilogue's buffers beside them (Stages = 0: the builder's carve-out).
  using Base = Sm90Conv<Op, T, TM, TN, 1>;
  using Kernel = typename Base::ConvKernel;  // CUTLASS's kernel for one problem: types and host helpers
  using Mainloop = typename Kernel::CollectiveMainloop;
  using Epilogue = typename Kernel::CollectiveEpilogue;
  static_assert(Kernel::MaxThreadsPerBlock == 2 * cutlass::NumThreadsPerWarpGroup, "one consumer warp group");
  // one producer warp group and one consumer warp group, or (PingPong) two
  static constexpr int kThreads = (PingPong ? 3 : 2) * cutlass::NumThreadsPerWarpGroup;
  static_assert(cute::size(typename Kernel::ClusterShape{}) == 1, "the grouped kernel launches without clusters");
  // PingPong: the consumers' turns, two per tile (wgmma, epilogue), and the registers each warp group keeps
  // (CUTLASS's ping-pong split: the producer needs few, each consumer holds a 128 x 128 float accumulator).
  using Order = cutlass::OrderedSequenceBarrier<2, 2>;
  static constexpr uint32_t kProducerRegs = 40, kConsumerRegs = 232;

  struct PipesOne : cute::aligned_struct<16, cute::_1> {
    alignas(16) typename Mainloop::PipelineStorage mainloop;
    alignas(16) typename Epilogue::PipelineStorage epi_load;
  };
  struct PipesTwo : PipesOne {
    alignas(16) typename Order::SharedStorage order;
  };
  struct SharedStorage {
    struct TensorStorage : cute::aligned_struct<128, cute::_1> {
      typename Epilogue::TensorStorage epilogue;
      typename Mainloop::TensorStorage mainloop;
    } tensors;
    std::conditional_t<PingPong, PipesTwo, PipesOne> pipelines;
  };
  static_assert(sizeof(SharedStorage) <= 227 * 1024, "the pipeline and epilogue buffers fit one SM");

  struct Params {
    typename Kernel::Params base[kMaxGroup];  // per problem: (M, N, K) shape, mainloop and epilogue params
    int tiles_m[kMaxGroup] = {};
    int tiles_n[kMaxGroup] = {};
    // The tile order within a problem: n fastest (default), so that the CTAs running at once share their A tiles (x,
    // or dy) in L2 instead of reading them again for each N tile; m fastest with FREEDNN_SM90_RASTER_N=0. H100 run 29:
    // n fastest took 0.906 of the time over ResNet-50's 16-bit forwards, 0.89 over the stride-2 backward data.
    bool n_fast = true;
    int first[kMaxGroup + 1] = {};  // problem i's tiles are [first[i], first[i + 1])
    int count = 0;
  };

  // The problem of tile t and the tile's (m, n) index within it.
  CUTLASS_DEVICE static int locate(Params const& p, int t, int* m, int* n) {
    int i = 0;
    while (i + 1 < p.count && t >= p.first[i + 1]) ++i;
    const int local = t - p.first[i];
    if (p.n_fast) {
      *n = local % p.tiles_n[i];
      *m = local / p.tiles_n[i];
    } else {
      *m = local % p.tiles_m[i];
      *n = local / p.tiles_m[i];
    }
    return i;
  }

  CUTLASS_DEVICE static void run_device(Params const& p, char* smem) {
    using namespace cute;
    SharedStorage& ss = *reinterpret_cast<SharedStorage*>(smem);
    const int thread = int(threadIdx.x);
    const int warp = cutlass::canonical_warp_idx_sync();
    const int group_thread = thread % cutlass::NumThreadsPerWarpGroup;
    const bool producer = cutlass::canonical_warp_group_idx() == 0;
    const int producer_warp = warp % cutlass::NumWarpsPerWarpGroup;
    const int lane = cutlass::canonical_lane_idx();
    const int total = p.first[p.count];

    if (warp == 0 && cute::elect_one_sync())
      for (int i = 0; i < p.count; ++i) {
        Mainloop::prefetch_tma_descriptors(p.base[i].mainloop);
        Epilogue::prefetch_tma_descriptors(p.base[i].epilogue);
      }

    // Every problem has the same tile sizes, so one stage's transaction bytes are problem 0's.
    WsPipelines<Mainloop, Epilogue, typename Kernel::ClusterShape> pl(
        ss.pipelines, producer, producer_warp, group_thread == 0, p.base[0].mainloop.tma_transaction_bytes,
        p.base[0].epilogue.tma_transaction_bytes, 2);
    auto order = make_order(ss);  // PingPong: the consumers' turns (its barriers initialized by warp 0, as pl's)
    __syncthreads();  // the pipelines' barriers initialized before anyone waits on them

    const auto tile = typename Kernel::TileShape{};
    typename Kernel::TiledMma tiled_mma;
    Mainloop mainloop;
    // Every problem has the same beta (the stride phases of one dx): the source is loaded for all or for none.
    const bool source = Epilogue(p.base[0].epilogue, ss.tensors.epilogue).is_producer_load_needed();

    // Tile t: its problem's params, the (M, N, K, 1) shape, the mainloop's tiled views of A and B, and the
    // tile's (m, n, _, 0) coordinate.
    const auto tile_at = [&](int t) {
      int mi = 0, ni = 0;
      const auto& bp = p.base[locate(p, t, &mi, &ni)];
      const auto mnkl = append<4>(bp.problem_shape, Int<1>{});
      auto inputs = mainloop.load_init(mnkl, bp.mainloop);
      const auto coord = make_coord(idx2crd(mi, shape<2>(get<0>(inputs))), idx2crd(ni, shape<2>(get<1>(inputs))), _,
                                    Int<0>{});
      return cute::make_tuple(&bp, mnkl, inputs, coord);
    };

    if (producer) {
      if constexpr (PingPong) cutlass::arch::warpgroup_reg_dealloc<kProducerRegs>();
      if (producer_warp == 0) {
        for (int t = int(blockIdx.x); t < total; t += int(gridDim.x)) {
          auto [bp, mnkl, inputs, coord] = tile_at(t);
          const int k_count = int(size<3>(get<0>(inputs)));
          auto k_iter = cute::make_coord_iterator(shape<3>(get<0>(inputs)));
          mainloop.load(bp->mainloop, pl.mainloop, pl.mainloop_producer, inputs, coord, k_iter, k_count, lane,
                        cute::block_rank_in_cluster(), ss.tensors.mainloop);
          pl.mainloop_producer.advance(k_count);
        }
        mainloop.load_tail(pl.mainloop, pl.mainloop_producer);
      } else if (producer_warp == 2 && source) {
        for (int t = int(blockIdx.x); t < total; t += int(gridDim.x)) {
          auto [bp, mnkl, inputs, coord] = tile_at(t);
          pl.epi_load_producer = Epilogue(bp->epilogue, ss.tensors.epilogue)
                                     .load(pl.epi_load, pl.epi_load_producer, mnkl, tile, coord, tiled_mma, lane,
                                           ss.tensors.epilogue);
        }
        Epilogue(p.base[0].epilogue, ss.tensors.epilogue).load_tail(pl.epi_load, pl.epi_load_producer);
      }
    } else if constexpr (PingPong) {
      consume_in_turn(p, ss, pl, order, tile_at);
    } else {
      // With a source, the epilogue (C's smem reused for D) releases a C buffer only once it counts more stores
      // in flight than its store pipeline leaves unacquired, and its count lives in the epilogue object, which is
      // per tile here (each problem has its own params): so every tile ends with store_tail, which waits for the
      // tile's stores to read shared memory and releases the buffers still held. Without it the releases fall
      // behind by that many buffers per tile and the source loads of a CTA's second tile wait forever (H200 run
      // 21). Without a source nothing is released, and the stores are waited for once, at the end.
      const auto tile_tail = [&] {
        auto [load_next, store_next] =
            Epilogue(p.base[0].epilogue, ss.tensors.epilogue)
                .store_tail(pl.epi_load, pl.epi_load_consumer, pl.epi_store, pl.epi_store_producer);
        pl.epi_load_consumer = load_next;
        pl.epi_store_producer = store_next;
      };
      for (int t = int(blockIdx.x); t < total; t += int(gridDim.x)) {
        auto [bp, mnkl, inputs, coord] = tile_at(t);
        const int k_count = int(size<3>(get<0>(inputs)));
        Tensor acc = partition_fragment_C(tiled_mma, take<0, 2>(tile));
        mainloop.mma(pl.mainloop, pl.mainloop_consumer, acc, k_count, group_thread, ss.tensors.mainloop,
                     bp->mainloop);
        mainloop.mma_tail(pl.mainloop, pl.mainloop_consumer, k_count);
        pl.mainloop_consumer.advance(k_count);
        auto [load_next, store_next] = Epilogue(bp->epilogue, ss.tensors.epilogue)
                                           .store(pl.epi_load, pl.epi_load_consumer, pl.epi_store,
                                                  pl.epi_store_producer, mnkl, tile, coord, acc, tiled_mma,
                                                  group_thread, ss.tensors.epilogue);
        pl.epi_load_consumer = load_next;
        pl.epi_store_producer = store_next;
        if (source) tile_tail();
      }
      if (!source) tile_tail();
    }
  }

  // PingPong's order barrier. Every thread constructs it (warp 0 initializes the barriers) before the block syncs;
  // warp group g (1, 2) is the sequence's group g - 1. Nothing without PingPong.
  CUTLASS_DEVICE static auto make_order(SharedStorage& ss) {
    if constexpr (PingPong) {
      typename Order::Params op;
      op.group_id = static_cast<uint32_t>(cute::max(cutlass::canonical_warp_group_idx() - 1, 0));
      op.group_size = cutlass::NumThreadsPerWarpGroup;
      return Order(ss.pipelines.order, op);
    } else {
      return 0;
    }
  }

  // PingPong's consumers: consumer c (0 or 1: warp group c + 1) takes the CTA's tiles j = c, c + 2, ... (tile
  // blockIdx.x + j * gridDim.x). The producers load every tile in order, so each consumer's pipeline states step
  // over the other's tile: its mainloop stages (that tile's K), its source and store buffers. Turns: wgmma of tile
  // j, then of j + 1 (the other consumer) while j's epilogue runs, and each epilogue ends with store_tail (its TMA
  // stores done reading shared memory) before the other consumer's epilogue reuses the buffers.
  template <class Pipes, class TileAt>
  CUTLASS_DEVICE static void consume_in_turn(Params const& p, SharedStorage& ss, Pipes& pl, Order& order,
                                             TileAt const& tile_at) {
    using namespace cute;
    cutlass::arch::warpgroup_reg_alloc<kConsumerRegs>();
    const int c = cutlass::canonical_warp_group_idx() - 1;
    const int group_thread = int(threadIdx.x) % cutlass::NumThreadsPerWarpGroup;
    const auto tile = typename Kernel::TileShape{};
    constexpr auto c_step = Epilogue::get_load_pipe_increment(typename Kernel::TileShape{});
    constexpr auto d_step = Epilogue::get_store_pipe_increment(typename Kernel::TileShape{});
    typename Kernel::TiledMma tiled_mma;
    Mainloop mainloop;
    const int total = p.first[p.count];
    const auto k_tiles = [&](int t) { return int(size<3>(get<0>(get<2>(tile_at(t))))); };
    const auto skip = [&](int t) {  // the other consumer's tile t (if any)
      if (t >= total) return;
      pl.mainloop_consumer.advance(k_tiles(t));
      pl.epi_load_consumer.advance(c_step);
      pl.epi_store_producer.advance(d_step);
    };
    if (c == 1) skip(int(blockIdx.x));
    for (int t = int(blockIdx.x) + c * int(gridDim.x); t < total; t += 2 * int(gridDim.x)) {
      auto [bp, mnkl, inputs, coord] = tile_at(t);
      const int k_count = int(size<3>(get<0>(inputs)));
      Tensor acc = partition_fragment_C(tiled_mma, take<0, 2>(tile));
      order.wait();
      mainloop.mma(pl.mainloop, pl.mainloop_consumer, acc, k_count, group_thread, ss.tensors.mainloop, bp->mainloop);
      order.arrive();
      mainloop.mma_tail(pl.mainloop, pl.mainloop_consumer, k_count);
      pl.mainloop_consumer.advance(k_count);
      order.wait();
      Epilogue epi(bp->epilogue, ss.tensors.epilogue);
      auto [load_next, store_next] = epi.store(pl.epi_load, pl.epi_load_consumer, pl.epi_store, pl.epi_store_producer,
                                               mnkl, tile, coord, acc, tiled_mma, group_thread, ss.tensors.epilogue);
      auto [load_done, store_done] = epi.store_tail(pl.epi_load, load_next, pl.epi_store, store_next);
      pl.epi_load_consumer = load_done;
      pl.epi_store_producer = store_done;
      order.arrive();
      skip(t + int(gridDim.x));
    }
  }

  static RunStatus run(const Geometry* g, const Operands* o, int n, cudaStream_t st);
  static const GroupKernel& instance(const char* name) {
    static const GroupKernel k{name, &run};
    return k;
  }
};

template <class GK>
__global__ void __launch_bounds__(GK::kThreads, 1) conv_grouped_kernel(const __grid_constant__ typename GK::Params p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ char smem[];
  GK::run_device(p, smem);
#endif
}

template <class T, int TM, int TN, bool PingPong, cutlass::conv::Operator Op>
RunStatus Sm90ConvGrouped<T, TM, TN, PingPong, Op>::run(const Geometry* g, const Operands* o, int n, cudaStream_t st) {
  if (n < 1 || n > kMaxGroup) return RunStatus::not_implementable;
  Params p{};
  p.count = n;
  p.n_fast = fd::env_flag_or("FREEDNN_SM90_RASTER_N", true);  // read at every call
  for (int i = 0; i < n; ++i) {
    if (o[i].beta != o[0].beta) return RunStatus::not_implementable;  // the source is loaded for all or for none
    const auto args = Base::arguments(g[i], o[i]);
    if (!Base::same_output(g[i]) || Base::Conv::can_implement(args) != cutlass::Status::kSuccess ||
        Base::Conv::get_workspace_size(args) != 0)
      return RunStatus::not_implementable;
    auto& bp = p.base[i];
    bp.problem_shape = Mainloop::get_problem_shape_MNKL(args.problem_shape);
    bp.mainloop = Mainloop::to_underlying_arguments(args.problem_shape, args.mainloop, nullptr);
    const auto xf = cutlass::conv::detail::get_transformed_problem_shape_MNKL(args.problem_shape);
    bp.epilogue = Epilogue::to_underlying_arguments(
        cute::make_shape(cute::get<0>(xf), cute::get<1>(xf), cute::get<2>(xf), 1), args.epilogue, nullptr);
    const dim3 tiles = Kernel::get_grid_shape(bp);
    if (tiles.z != 1) return RunStatus::not_implementable;
    p.tiles_m[i] = static_cast<int>(tiles.x);
    p.tiles_n[i] = static_cast<int>(tiles.y);
    p.first[i + 1] = p.first[i] + static_cast<int>(tiles.x * tiles.y);
  }
  int dev = 0, sms = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
    return RunStatus::init_failed;
  constexpr int smem = static_cast<int>(sizeof(SharedStorage));
  auto* fn = &conv_grouped_kernel<Sm90ConvGrouped>;
  if (cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess)
    return RunStatus::init_failed;
  const int ctas = p.first[n] < sms ? p.first[n] : sms;  // one CTA per SM (the pipeline fills shared memory)
  if (ctas < 1) return RunStatus::ok;
  fn<<<ctas, kThreads, smem, st>>>(p);
  return cudaPeekAtLastError() == cudaSuccess ? RunStatus::ok : RunStatus::launch_failed;
}

}  // namespace fd::cuda::conv::sm90

// One instantiation file: FD_SM90_CONV_GROUPED(NAME, OP, T, TM, TN, PINGPONG), OP kFprop or kDgrad, e.g.
// FD_SM90_CONV_GROUPED(fprop_f16_128x128_pingpong, kFprop, cutlass::half_t, 128, 128, true).
#define FD_SM90_CONV_GROUPED(NAME, OP, T, TM, TN, PINGPONG)                                       \
  namespace fd::cuda::conv::sm90 {                                                                \
  const GroupKernel& NAME() {                                                                     \
    return Sm90ConvGrouped<T, TM, TN, PINGPONG, cutlass::conv::Operator::OP>::instance(#NAME);    \
  }                                                                                               \
  }
