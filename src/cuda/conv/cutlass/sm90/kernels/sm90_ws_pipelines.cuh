// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The pipelines of our own warp-specialized sm_90a kernels around CUTLASS's collectives (sm90_conv_grouped.cuh,
// sm90_wgrad_splitk.cuh), set up as CUTLASS's kernels set theirs: one producer warp group (its warp 0 issues the
// mainloop's TMA loads, warp `epi_warp` the epilogue's source loads) and one consumer warp group (wgmma, then the
// epilogue), each pipeline with its start states. For CTAs without a cluster; the caller syncs the block before
// anyone waits on a barrier.
#pragma once
#include <cstdint>

#include "cuda/conv/cutlass/sm90/kernels/sm90_conv_kernel.cuh"

namespace fd::cuda::conv::sm90 {

template <class Mainloop, class Epilogue, class ClusterShape>
struct WsPipelines {
  using MainloopPipeline = typename Mainloop::MainloopPipeline;
  using EpiLoadPipeline = typename Epilogue::LoadPipeline;
  using EpiStorePipeline = typename Epilogue::StorePipeline;

  // storage: the pipelines' shared memory, with fields `mainloop` and `epi_load`. producer: this thread is in the
  // producer warp group, warp: its warp in the group, leader: thread 0 of its group. The transaction bytes: one
  // stage of the mainloop's TMA loads, one of the epilogue's source loads (used where the epilogue needs them).
  template <class Storage>
  CUTLASS_DEVICE WsPipelines(Storage& storage, bool producer, int warp, bool leader, uint32_t mainloop_bytes,
                             uint32_t epi_bytes, int epi_warp)
      : mainloop(storage.mainloop, mainloop_params(producer, warp, leader, mainloop_bytes), ClusterShape{}),
        epi_load(storage.epi_load, epi_load_params(producer, warp == epi_warp, epi_bytes)),
        epi_store(epi_store_params()) {}

  MainloopPipeline mainloop;
  EpiLoadPipeline epi_load;
  EpiStorePipeline epi_store;
  typename Mainloop::PipelineState mainloop_consumer{};
  typename Epilogue::LoadPipelineState epi_load_consumer{};
  decltype(cutlass::make_producer_start_state<MainloopPipeline>()) mainloop_producer =
      cutlass::make_producer_start_state<MainloopPipeline>();
  decltype(cutlass::make_producer_start_state<EpiLoadPipeline>()) epi_load_producer =
      cutlass::make_producer_start_state<EpiLoadPipeline>();
  decltype(cutlass::make_producer_start_state<EpiStorePipeline>()) epi_store_producer =
      cutlass::make_producer_start_state<EpiStorePipeline>();

 private:
  CUTLASS_DEVICE static typename MainloopPipeline::Params mainloop_params(bool producer, int warp, bool leader,
                                                                         uint32_t bytes) {
    typename MainloopPipeline::Params mp;
    if (producer && warp == 0) mp.role = MainloopPipeline::ThreadCategory::Producer;
    if (!producer) mp.role = MainloopPipeline::ThreadCategory::Consumer;
    mp.is_leader = leader;
    mp.num_consumers = cutlass::NumThreadsPerWarpGroup;
    mp.transaction_bytes = bytes;
    return mp;
  }

  CUTLASS_DEVICE static typename EpiLoadPipeline::Params epi_load_params(bool producer, bool epi_warp,
                                                                        [[maybe_unused]] uint32_t bytes) {
    typename EpiLoadPipeline::Params ep;
    if (producer && epi_warp) ep.role = EpiLoadPipeline::ThreadCategory::Producer;
    if (!producer) ep.role = EpiLoadPipeline::ThreadCategory::Consumer;
    ep.dst_blockid = cute::block_rank_in_cluster();
    ep.producer_arv_count = cutlass::NumThreadsPerWarp;
    ep.consumer_arv_count = cutlass::NumThreadsPerWarpGroup;
    if constexpr (Epilogue::RequiresTransactionBytes) ep.transaction_bytes = bytes;
    return ep;
  }

  CUTLASS_DEVICE static typename EpiStorePipeline::Params epi_store_params() {
    typename EpiStorePipeline::Params sp;
    sp.always_wait = true;
    return sp;
  }
};

}  // namespace fd::cuda::conv::sm90
