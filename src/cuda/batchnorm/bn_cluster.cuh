// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batch normalization forward training and backward in one kernel, a thread block cluster per group of channels
// (included by batchnorm.cu only, after bn_rows.cuh and bn_coop.cuh). For channels-innermost packed tensors (the
// rows plan: statistic k of row r at r * s + k) small enough to live on chip: ResNet-50's 7x7x2048, 14x14x1024 and
// 28x28x512 at N = 64 in 16-bit (12.8-51 MB). The three-kernel path (stats_rows_w, finalize, apply) pays two launch
// gaps and a latency-bound finalize on them and reads x twice; bn_coop pays a grid-wide barrier.
// Cluster (chunk): G blocks along x split the rows, each block the chunk's cw * V channels of its rows:
//   pass 1  each thread queues its first `stash` row vectors of x (and dy) into shared memory by cp.async, then
//           sums the rest from global memory four rows at a time, then the stashed ones; a fixed-order block
//           reduction (the rows_sums shapes: lanes sharing columns by a butterfly, then row slots in order) into
//           the block's partial sums;
//   cluster barrier; every block adds the G blocks' partials through distributed shared memory in rank order (the
//           same bits in each) and finalizes its chunk's statistics (finalize_stat; rank 0 writes the outputs);
//   apply   the rows not stashed first (read again; only when forced, see plan_cluster), then the stashed rows
//           from shared memory.
// DRAM bytes per element: x (and dy) read once, y (dx) written once. A block keeps its partials alive until every
// block of its cluster has read them (the second barrier, at its end). One block per SM where the stash is large:
// the loops over the stash load kU rows before using them.
// Not here (the other paths take them): the ReLU mask, the add (z / dz), per-column folding of NCHW planes.
// Grid-barrier form (cluster_grid_mode: by default where the cluster plan's row pieces are below 64 bytes): the
// same kernel on a cooperative launch without clusters; a chunk's G blocks exchange their partials through global
// memory (the handle's scratch) across one grid barrier. The device's cluster placement then no longer bounds G, so
// chunks can be 128-byte row pieces where clusters only fit 32-byte ones (14x14x1024 16-bit: chunks of 16 channels
// in clusters of 2, whose stash copies took 15 us to issue against 1.5 us for 128-byte pieces; run 43's stamps).
#pragma once
#include <cooperative_groups.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <map>
#include <mutex>
#include <tuple>

#include "cuda/common/aligned.h"
#include "cuda/common/cp_async.cuh"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/tma.h"

namespace fd::cuda {
namespace {

template <class S>
struct ClusterArgs {
  FinalArgs<Comp<S>> fa;
  Geo g;
  BnMap xm;
  int64_t rows = 0, s = 0;          // rows of s statistics
  int cw = 1;                       // vector columns of a chunk (cw * V statistics), a power of two <= 32
  int stash = 0;                    // row vectors per thread (per tensor) kept in shared memory
  bool pipe = false;                // the stash summed batch by batch as its copies land, the partials loaded
                                    // eight ranks at a time (run 43's scheduling; on by default since run 44)
  bool tma = false;                 // the stash loaded by TMA boxes (x_map, dy_map) instead of cp.async
  const S* x = nullptr;
  const S* dy = nullptr;            // backward
  Comp<S>* partial = nullptr;       // grid form: [chunk][rank][4][kClusterMaxCw * V] partial sums
  const Comp<S>* shift = nullptr;   // backward: the saved mean, or null (x[0, k])
  int64_t shift_step = 1;           // elements between consecutive statistics of the saved mean
  S* out = nullptr;                 // y, or dx
  double alpha = 1, beta = 0;
  // tma: x (and dy) as rows x s, one box = a chunk's cw * V statistics of kBlock / cw rows (a block's rows for one
  // stash index i, in the stash's layout)
  CUtensorMap x_map{}, dy_map{};
};

constexpr int kClusterMaxCw = 32;

// Phase timing for experiments only: built with -DFREEDNN_BN_CLUSTER_TRACE, thread 0 of every block stamps the
// SM clock (durations) and the global timer (alignment across SMs) at each phase and prints one line per block.
#ifdef FREEDNN_BN_CLUSTER_TRACE
struct ClusterTrace {
  long long clk[8] = {};
  unsigned long long gt[8] = {};
  int n = 0;
  __device__ void stamp() {
    if (threadIdx.x == 0 && n < 8) {
      clk[n] = clock64();
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt[n]));
    }
    ++n;
  }
  __device__ void print(int chunk, int rank) const {
    if (threadIdx.x != 0) return;
    printf("bntrace %d %d %llu %lld %lld %lld %lld %lld %lld %lld %llu\n", chunk, rank, gt[0], clk[1] - clk[0],
           clk[2] - clk[0], clk[3] - clk[0], clk[4] - clk[0], clk[5] - clk[0], clk[6] - clk[0], clk[7] - clk[0],
           gt[7] - gt[0]);
  }
};
#else
struct ClusterTrace {
  __device__ void stamp() {}
  __device__ void print(int, int) const {}
};
#endif

// Dynamic shared memory past the stash: the block reduction's row slots, the block's partial sums (read by the
// cluster), the coefficients and the shifts of the chunk.
template <class S, int V>
constexpr size_t cluster_extra_bytes() {
  return sizeof(Comp<S>) * (size_t(kBlock) * V + (4 + 5 + 1) * size_t(kClusterMaxCw) * V);
}
// The static shared memory before the dynamic (the TMA stash's barriers, the dynamic part aligned to 128 bytes):
// it counts against the same per-block limit, so the plans leave room for it.
constexpr size_t kClusterStaticSmem = 128;

// Without release semantics (the release form fences: waits for this block's global stores, rank 0's statistics):
// for an arrive that only says "done reading", the values read having been used already.
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory"); }

template <class S, int V, bool bwd, bool grid>
__global__ void __launch_bounds__(kBlock, 1) bn_cluster(const __grid_constant__ ClusterArgs<S> p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // thread block clusters (the host plans it on 9.0 only)
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  ClusterTrace trace;
  trace.stamp();  // 0: start
  using C = Comp<S>;
  constexpr int kNt = bwd ? 2 : 1;  // tensors stashed
  constexpr int kNq = bwd ? 4 : 2;  // sums per statistic
  constexpr int kNc = bwd ? 5 : 2;  // coefficients per statistic
  constexpr int kCg = kClusterMaxCw * V;
  extern __shared__ __align__(128) uint4 bn_cluster_smem[];
  __shared__ __align__(8) uint64_t tma_bars[4];  // the TMA stash's batches
  namespace cg = cooperative_groups;
  const int G = grid ? static_cast<int>(gridDim.x) : static_cast<int>(cg::this_cluster().num_blocks());
  const int rank = grid ? static_cast<int>(blockIdx.x) : static_cast<int>(cg::this_cluster().block_rank());
  uint4* stash = bn_cluster_smem;
  C* red = reinterpret_cast<C*>(stash + size_t(p.stash) * kNt * kBlock);
  C* const own = red + kBlock * V;  // shared: [4][kCg] partials (cluster form), then the coefficients, the shifts
  // the partials of rank r: [kNq][kCg], in its shared memory (cluster) or in global memory (grid)
  auto partials_of = [&](int r) -> C* {
    if constexpr (grid) return p.partial + (size_t(blockIdx.y) * G + r) * kNq * kCg;
    else return cg::this_cluster().map_shared_rank(own, r);
  };
  C* part = grid ? partials_of(rank) : own;
  C* co = own + 4 * kCg;       // [kNc][kCg], shared in both forms
  C* ksh = co + 5 * kCg;       // [kCg]

  const int64_t s = p.s, rows = p.rows;
  const int cw = p.cw, R = kBlock / cw;
  const int tc = threadIdx.x % cw, tr = threadIdx.x / cw;
  const int64_t k0 = int64_t(blockIdx.y) * cw * V;
  const int nvec = static_cast<int>(min(int64_t(cw), (s - k0) / V));
  const bool active = tc < nvec;
  const int64_t k = k0 + int64_t(tc) * V;
  const int64_t per = (rows + G - 1) / G;
  const int64_t lo = min(rows, rank * per), hi = min(rows, lo + per);
  const int64_t first = lo + tr;
  const int cnt = active && first < hi ? static_cast<int>((hi - 1 - first) / R + 1) : 0;  // this thread's rows
  const int ns = min(cnt, p.stash);                                                       // stashed: i < ns
  auto row_off = [&](int i) { return (first + int64_t(i) * R) * s + k; };
  auto slot = [&](int i, int t) { return stash + (size_t(i) * kNt + t) * kBlock + threadIdx.x; };

  // The stash in kBatches commit groups: the sums of the first batches overlap the later batches' copies (run 43's
  // stamps: summing the whole stash after the last copy landed took 2.7 us of 14x14x1024's 28). Without pipe, all
  // rows go in the first group and the later groups are empty (the waits below then wait for all of it at once).
  constexpr int kBatches = 4;
  auto batch_end = [&](int b) { return b == 0 ? 0 : p.pipe ? ns * b / kBatches : ns; };
  // With TMA (FREEDNN_BN_CLUSTER_TMA=1, unrun on a GPU): stash index i of every thread of the block is one box, rows
  // lo + i * R .. + R - 1 of the chunk's columns, landing in the layout slot() reads; thread 0 queues the boxes,
  // batch b's on barrier b. A thread's batch b (by its own ns <= the block's nb) lies in batches 0 .. b of the boxes,
  // so waiting for those in order covers it. Rows past hi that a last box brings are read by nobody here (and are
  // written by their own block only after the cluster / grid barrier, which this block reaches after its waits).
  // p.tma as given: the stash's 128-byte alignment is the declaration's (ptxas honours it; a misaligned box would
  // fault, not fall back unseen, so the tests that force TMA see it run)
  const bool tma = p.tma;
  const uint32_t bar0 = shared_addr(tma_bars);
  if (tma) {
    const int nb = static_cast<int>(min(int64_t(p.stash), (hi - lo + R - 1) / R));
    if (threadIdx.x == 0) {
      mbar_init_stages(bar0, kBatches, 1);
      mbar_init_fence();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      const uint32_t box_bytes = uint32_t(kBlock) * 16u;
#pragma unroll 1
      for (int b = 0; b < kBatches; ++b) {
        const int i0 = p.pipe ? nb * b / kBatches : (b == 0 ? 0 : nb);
        const int i1 = p.pipe ? nb * (b + 1) / kBatches : nb;
        const uint32_t bar = bar0 + uint32_t(b * 8);
        mbar_arrive_expect_tx(bar, uint32_t(max(0, i1 - i0)) * kNt * box_bytes);
        for (int i = i0; i < i1; ++i) {
          const int row = static_cast<int>(lo + int64_t(i) * R);
          tma_load_2d(shared_addr(stash + size_t(i) * kNt * kBlock), &p.x_map, bar, static_cast<int>(k0), row);
          if constexpr (bwd)
            tma_load_2d(shared_addr(stash + (size_t(i) * kNt + 1) * kBlock), &p.dy_map, bar, static_cast<int>(k0),
                        row);
        }
      }
    }
  } else {
#pragma unroll
    for (int b = 0; b < kBatches; ++b) {
      for (int i = batch_end(b); i < batch_end(b + 1); ++i) {
        const int64_t off = row_off(i);
        cp_async16(shared_addr(slot(i, 0)), p.x + off, true);
        if constexpr (bwd) cp_async16(shared_addr(slot(i, 1)), p.dy + off, true);
      }
      cp_async_commit();
    }
  }
  trace.stamp();  // 1: the stash's copies issued

  C K[V];
#pragma unroll
  for (int t = 0; t < V; ++t) K[t] = C(0);
  if (active) {
    if (p.shift != nullptr) {
      const int64_t o = p.fa.mv.offset(k);  // one index, not V (the generic one is long)
#pragma unroll
      for (int t = 0; t < V; ++t) K[t] = p.shift[o + t * p.shift_step];
    } else {
      load_vec<S, V>(p.x + k, K);  // row 0: read before any block of the cluster passes the first barrier
    }
    if (tr == 0) {
#pragma unroll
      for (int t = 0; t < V; ++t) ksh[tc * V + t] = K[t];
    }
  }
  C q[kNq][V];
#pragma unroll
  for (int j = 0; j < kNq; ++j)
#pragma unroll
    for (int t = 0; t < V; ++t) q[j][t] = C(0);
  auto add = [&](const uint4& xv, const uint4& dv) {
#pragma unroll
    for (int t = 0; t < V; ++t) {
      const C v = raw_elem<S, V>(xv, t) - K[t];
      q[0][t] += v;
      q[1][t] += v * v;
      if constexpr (bwd) {
        const C d = raw_elem<S, V>(dv, t);
        q[2][t] += d;
        q[3][t] += d * v;
      }
    }
  };
  // This thread's rows i0 .. i1 - 1, kU loaded (from global memory, or from the stash) before any is used: one
  // block per SM leaves few warps to hide latency, and out may alias x or dy (loads before stores).
  constexpr int kU = 4;
  auto walk = [&](int i0, int i1, bool stashed, auto&& use) {
    for (int i = i0; i < i1; i += kU) {
      uint4 xv[kU], dv[kU];
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        if (i + u < i1) {
          xv[u] = stashed ? *slot(i + u, 0) : raw_load<S, V>(p.x + row_off(i + u));
          if constexpr (bwd) dv[u] = stashed ? *slot(i + u, 1) : raw_load<S, V>(p.dy + row_off(i + u));
        }
      }
#pragma unroll
      for (int u = 0; u < kU; ++u)
        if (i + u < i1) use(i + u, xv[u], bwd ? dv[u] : xv[u]);
    }
  };
  // 1. the rows not stashed, then the stashed ones
  auto sum_row = [&](int, const uint4& xv, const uint4& dv) { add(xv, dv); };
  walk(ns, cnt, false, sum_row);
  // each batch once this thread's own copies of it landed (no barrier needed to read them); the same order of sums
  static_assert(kBatches == 4, "one wait per batch below");
  auto landed = [&](int b) { mbar_wait(bar0 + uint32_t(b * 8), 0); };
  tma ? landed(0) : cp_async_wait<3>();
  trace.stamp();  // 2: thread 0's first batch landed
  walk(batch_end(0), batch_end(1), true, sum_row);
  tma ? landed(1) : cp_async_wait<2>();
  walk(batch_end(1), batch_end(2), true, sum_row);
  tma ? landed(2) : cp_async_wait<1>();
  walk(batch_end(2), batch_end(3), true, sum_row);
  tma ? landed(3) : cp_async_wait<0>();
  walk(batch_end(3), batch_end(4), true, sum_row);
  trace.stamp();  // 3: thread 0's rows summed

  const int ncol = nvec * V;
  for (int c = threadIdx.x; c < ncol; c += kBlock) prefetch_stat_inputs(p.fa, k0 + c, rank == 0);

  // the block's sums, in rows_sums' order
#pragma unroll
  for (int j = 0; j < kNq; ++j)
    block_column_sums<C, V>(q[j], cw, nvec, red, [&](int c, C sum) { part[j * kCg + c] = sum; });
  trace.stamp();  // 4: the block's partials written
  if constexpr (grid) cg::this_grid().sync();  // every block's partials are written and visible to the grid
  else cg::this_cluster().sync();              // ... to the cluster
  trace.stamp();  // 5: the cluster's partials visible

  // 2. the chunk's statistics in every block, from the G partials in rank order; rank 0 writes the outputs
  for (int c = threadIdx.x; c < ncol; c += kBlock) {
    C qs[4] = {0, 0, 0, 0};
    constexpr int kR = 8;  // ranks loaded before any is added: one L2 (or remote shared) latency per kR, not per rank
    const int step = p.pipe ? kR : 1;  // one at a time without pipe: the loads of the kernel that ran in run 43
    for (int r0 = 0; r0 < G; r0 += step) {
      C v[kR][kNq];
#pragma unroll
      for (int u = 0; u < kR; ++u) {
        if (u < step && r0 + u < G) {
          const C* pr = partials_of(r0 + u);
#pragma unroll
          for (int j = 0; j < kNq; ++j) v[u][j] = grid ? __ldcg(pr + j * kCg + c) : pr[j * kCg + c];
        }
      }
#pragma unroll
      for (int u = 0; u < kR; ++u)
        if (u < step && r0 + u < G)
#pragma unroll
          for (int j = 0; j < kNq; ++j) qs[j] += v[u][j];  // rank order, as before
    }
    finalize_stat<S>(p.fa, p.g, p.xm, p.x, k0 + c, qs, co + c, kCg, ksh, rank == 0, k0);
  }
  if constexpr (!grid) cluster_arrive_relaxed();  // done reading the others' partials (waited for at the end)
  __syncthreads();   // the coefficients are written
  trace.stamp();  // 6: the chunk's coefficients ready

  if (active) {
    C cf[kNc][V];
#pragma unroll
    for (int j = 0; j < kNc; ++j)
#pragma unroll
      for (int t = 0; t < V; ++t) cf[j][t] = co[j * kCg + tc * V + t];
    auto apply = [&](int64_t off, const uint4& xv, const uint4& dv) {
      C v[V];
#pragma unroll
      for (int t = 0; t < V; ++t) {
        const C xe = raw_elem<S, V>(xv, t);
        if constexpr (bwd) {
          v[t] = bn_bwd_value(cf[0][t], cf[1][t], cf[2][t], cf[3][t], cf[4][t], xe, raw_elem<S, V>(dv, t));
        } else {
          bool pos;
          v[t] = bn_fwd_value(cf[0][t], cf[1][t], xe, false, C(0), false, false, &pos);
        }
      }
      bn_store<S, V>(p.out + off, v, p.alpha, p.beta);
    };
    // 3. the rows not stashed, then the stashed rows
    auto apply_row = [&](int i, const uint4& xv, const uint4& dv) { apply(row_off(i), xv, dv); };
    walk(ns, cnt, false, apply_row);
    walk(0, ns, true, apply_row);
  }
  pdl_allow_dependents();
  trace.stamp();  // 7: thread 0's stores issued
  trace.print(blockIdx.y, rank);
  if constexpr (!grid) cluster_wait();  // no block leaves while another may still read its partials
#endif
}

template <class S>
const void* cluster_fn(bool bwd, bool grid) {
  constexpr int kV = 16 / sizeof(S);
  if (grid)
    return bwd ? reinterpret_cast<const void*>(bn_cluster<S, kV, true, true>)
               : reinterpret_cast<const void*>(bn_cluster<S, kV, false, true>);
  return bwd ? reinterpret_cast<const void*>(bn_cluster<S, kV, true, false>)
             : reinterpret_cast<const void*>(bn_cluster<S, kV, false, false>);
}

// The launch of bn_cluster on `grid` with clusters of grid.x blocks along x (or, coop: a cooperative launch without
// clusters), a programmatic dependent of the kernel before it when pdl (ops_pdl.h); attr: storage for its two
// attributes.
cudaLaunchConfig_t cluster_config(dim3 grid, size_t smem, cudaStream_t st, bool pdl, cudaLaunchAttribute* attr,
                                  bool coop = false) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(kBlock);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = st;
  if (coop) {
    attr->id = cudaLaunchAttributeCooperative;
    attr->val.cooperative = 1;
  } else {
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = grid.x;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
  }
  // pdl kernels: bn_cluster (tools/check_pdl.py checks that it waits first)
  attr[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[1].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = pdl ? 2 : 1;
  return cfg;
}

// Clusters of `g` blocks with `smem` bytes each that the device holds at once (cudaOccupancyMaxActiveClusters;
// cached per kernel, size, bytes and device; 0 where the query fails).
int active_clusters(const void* fn, int g, size_t smem, int device) {
  static std::mutex mu;
  static std::map<std::tuple<const void*, int, size_t, int>, int> known;
  const auto key = std::make_tuple(fn, g, smem, device);
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = known.find(key);
    if (it != known.end()) return it->second;
  }
  int n = 0;
  if (allow_dynamic_smem(fn, smem, device) == CUDNN_STATUS_SUCCESS) {
    cudaLaunchAttribute attr[2];
    const cudaLaunchConfig_t cfg = cluster_config(dim3(static_cast<unsigned>(g), 1), smem, nullptr, false, attr);
    if (cudaOccupancyMaxActiveClusters(&n, fn, &cfg) != cudaSuccess) n = 0;
  }
  (void)cudaGetLastError();
  std::lock_guard<std::mutex> lock(mu);
  known[key] = n;
  return n;
}

struct ClusterPlan {
  bool ok = false;
  bool grid = false;  // the grid-barrier form (cooperative launch, partials through global memory)
  int cw = 1, g = 1, stash = 0;
  int64_t chunks = 1;
  size_t smem = 0;
};

// The cluster plan for rows x s (vectors of V, nt tensors read): the widest chunk (cw) and the smallest cluster (g)
// whose blocks fill the device in one resident wave, each stashing as many of its rows as shared memory holds.
// Taken where every row fits in the stash. Knobs (read at every call): FREEDNN_BN_CLUSTER=0 never, =1 wherever the
// plan exists, some rows read twice (for the tests), unset: the size rules; FREEDNN_BN_CLUSTER_G=1|2|4|8 the
// cluster size, FREEDNN_BN_CLUSTER_STASH=n at most n stashed rows per thread.
ClusterPlan plan_cluster(const void* fn, int64_t rows, int64_t s, int v, int nt, size_t extra, size_t elem,
                         int device) {
  ClusterPlan best;
  const long long mode = env_int("FREEDNN_BN_CLUSTER", -1);
  if (mode == 0 || rows <= 0 || s % v != 0) return best;
  const DeviceInfo& di = device_info(device);
  if (!di.sm90_code) return best;  // thread block clusters; the kernel's body is compiled for 9.x only
  const long long force_g = env_int("FREEDNN_BN_CLUSTER_G", 0);
  const long long cap = env_int("FREEDNN_BN_CLUSTER_STASH", -1);
  const int64_t fill = di.sm_count;  // blocks wanted: one per SM (two, smaller, measured slower: run 24)
  const size_t per_iter = size_t(nt) * kBlock * 16;
  if (di.smem_per_block_optin <= kClusterStaticSmem + extra + per_iter) return best;
  const int max_stash = static_cast<int>((di.smem_per_block_optin - kClusterStaticSmem - extra) / per_iter);
  for (int cw = kClusterMaxCw; cw >= 2 && !best.ok; cw /= 2) {
    if (int64_t(cw) * v > s && cw > 2) continue;
    const int64_t chunks = (s / v + cw - 1) / cw;
    for (int g = 1; g <= 8; g *= 2) {
      if (force_g > 0 && g != force_g) continue;
      if (force_g <= 0 && mode != 1 && chunks * g < fill * 9 / 10 && g < 8) continue;  // fill the device
      const int64_t per = (rows + g - 1) / g, R = kBlock / cw;
      const int64_t need = (per + R - 1) / R;
      int st = static_cast<int>(std::min<int64_t>(need, max_stash));
      if (cap >= 0) st = static_cast<int>(std::min<long long>(st, cap));
      const size_t smem = extra + size_t(st) * per_iter;
      const int act = active_clusters(fn, g, smem, device);
      if (act <= 0) continue;
      if (mode != 1 && (chunks > act || chunks * g < fill / 2)) continue;  // one wave, half the SMs
      if (mode != 1 && need > st) continue;  // every row stashed (run 24: 1.12-1.26x the time where half were not)
      best.ok = true;
      best.cw = cw;
      best.g = g;
      best.stash = st;
      best.chunks = chunks;
      best.smem = smem;
      break;
    }
  }
  return best;
}

// The grid-barrier form (read at every call): FREEDNN_BN_CLUSTER_GRID=1 wherever its plan exists, 0 never, unset:
// in place of a cluster plan whose row pieces are below 64 bytes (run 43, H100: 14x14x1024 16-bit training, 32-byte
// pieces in clusters of 2, took 0.82x the time in the grid form's 128-byte ones; 7x7x2048's 64-byte clusters were
// faster than the grid form, 1.16x training, 1.04x backward). The partial sums' bytes it may need on `device` (the
// caller reserves them in the handle's scratch).
long long cluster_grid_mode() { return env_int("FREEDNN_BN_CLUSTER_GRID", -1); }
bool cluster_grid_wanted() { return cluster_grid_mode() != 0; }
constexpr int kClusterGridBlocksPerSm = 4;  // the partials reserved bound the grid at this many blocks per SM
// stashed: the bytes of x (and dy) the kernel would keep on chip; none is reserved where they exceed the device's
// shared memory (no plan then but FREEDNN_BN_CLUSTER=1's, whose grid form falls back to clusters without room).
template <class C, int V>
constexpr size_t kGridPartialBytesPerBlock = sizeof(C) * 4 * size_t(kClusterMaxCw) * V;  // the kernel's [4][kCg]
template <class C, int V>
size_t cluster_grid_partial_bytes(int device, size_t stashed) {
  const DeviceInfo& di = device_info(device);
  if (!cluster_grid_wanted() || stashed > di.smem_per_block_optin * size_t(di.sm_count)) return 0;
  return kGridPartialBytesPerBlock<C, V> * kClusterGridBlocksPerSm * size_t(di.sm_count);
}

// The grid-barrier plan for rows x s: the chunk width first with 128-byte row pieces (then wider, then narrower;
// FREEDNN_BN_CLUSTER_GRID_CW=n forces it), as many blocks per chunk as fill the device's SMs once (any count;
// FREEDNN_BN_CLUSTER_G forces it), every block resident (the launch is cooperative), the rules of plan_cluster
// otherwise (every row stashed unless FREEDNN_BN_CLUSTER=1).
ClusterPlan plan_cluster_grid(const void* fn, int64_t rows, int64_t s, int v, int nt, size_t extra, int device) {
  ClusterPlan best;
  const long long mode = env_int("FREEDNN_BN_CLUSTER", -1);
  if (mode == 0 || rows <= 0 || s % v != 0) return best;
  const DeviceInfo& di = device_info(device);
  if (!di.sm90_code) return best;
  const long long force_g = env_int("FREEDNN_BN_CLUSTER_G", 0);
  const long long force_cw = env_int("FREEDNN_BN_CLUSTER_GRID_CW", 0);
  const long long cap = env_int("FREEDNN_BN_CLUSTER_STASH", -1);
  const int64_t fill = di.sm_count;
  const size_t per_iter = size_t(nt) * kBlock * 16;
  if (di.smem_per_block_optin <= kClusterStaticSmem + extra + per_iter) return best;
  const int max_stash = static_cast<int>((di.smem_per_block_optin - kClusterStaticSmem - extra) / per_iter);
  constexpr int pref = 128 / 16;  // vector columns of a 128-byte row piece
  for (int cw : {pref, 2 * pref, 4 * pref, pref / 2, pref / 4}) {
    if (cw < 2 || cw > kClusterMaxCw || (force_cw > 0 && cw != force_cw)) continue;
    if (int64_t(cw) * v > s && cw > 2) continue;
    const int64_t chunks = (s / v + cw - 1) / cw;
    const int64_t g = force_g > 0 ? force_g : fill / chunks;
    if (g < 1 || g > 65535) continue;
    const int64_t per = (rows + g - 1) / g, R = kBlock / cw;
    const int64_t need = (per + R - 1) / R;
    int st = static_cast<int>(std::min<int64_t>(need, max_stash));
    if (cap >= 0) st = static_cast<int>(std::min<long long>(st, cap));
    const size_t smem = extra + size_t(st) * per_iter;
    if (allow_dynamic_smem(fn, smem, device) != CUDNN_STATUS_SUCCESS) continue;
    const int per_sm = std::min(resident_blocks(fn, kBlock, smem, device), kClusterGridBlocksPerSm);
    if (chunks * g > int64_t(per_sm) * di.sm_count) continue;  // every block resident
    if (mode != 1 && (chunks * g < fill * 9 / 10 || need > st)) continue;
    best.ok = true;
    best.grid = true;
    best.cw = cw;
    best.g = static_cast<int>(g);
    best.stash = st;
    best.chunks = chunks;
    best.smem = smem;
    break;
  }
  return best;
}

// Set once the driver refused the grid form as a programmatic dependent (then it runs without PDL: one launch a call).
std::atomic<bool>& coop_pdl_refused() {
  static std::atomic<bool> refused{false};
  return refused;
}

// Launches bn_cluster (cudaLaunchKernelEx with the cluster dimension). *launched = false where the driver refused.
template <class S>
cudnnStatus_t launch_cluster(const ClusterArgs<S>& a, const ClusterPlan& pl, bool bwd, cudaStream_t st, bool pdl,
                             bool* launched) {
  constexpr int kV = 16 / sizeof(S);
  cudaLaunchAttribute attr[2];
  if (pl.grid && coop_pdl_refused().load(std::memory_order_relaxed)) pdl = false;
  const cudaLaunchConfig_t cfg = cluster_config(dim3(static_cast<unsigned>(pl.g), static_cast<unsigned>(pl.chunks)),
                                                pl.smem, st, pdl, attr, pl.grid);
  cudaError_t e;
  if (pl.grid)
    e = bwd ? cudaLaunchKernelEx(&cfg, bn_cluster<S, kV, true, true>, a)
            : cudaLaunchKernelEx(&cfg, bn_cluster<S, kV, false, true>, a);
  else
    e = bwd ? cudaLaunchKernelEx(&cfg, bn_cluster<S, kV, true, false>, a)
            : cudaLaunchKernelEx(&cfg, bn_cluster<S, kV, false, false>, a);
  if (e != cudaSuccess && pl.grid && pdl) {  // a cooperative launch the driver refuses as a programmatic dependent
    (void)cudaGetLastError();
    coop_pdl_refused().store(true, std::memory_order_relaxed);  // later calls launch it without
    return launch_cluster<S>(a, pl, bwd, st, false, launched);
  }
  *launched = e == cudaSuccess;
  if (!*launched) {
    (void)cudaGetLastError();
    if (log::enabled(CUDNN_SEV_INFO))
      log::emit(CUDNN_SEV_INFO, current_api_context().function,
                std::string("    batch norm: cluster launch refused (") + cudaGetErrorName(e) +
                    "), running the other paths",
                CUDNN_STATUS_SUCCESS);
    return CUDNN_STATUS_SUCCESS;
  }
  if (log::enabled(CUDNN_SEV_INFO)) {  // which path ran: the tests check it
    char what[200];
    std::snprintf(what, sizeof what,
                  "    batch norm: cluster kernel%s, %lld chunks of %d channels, %d blocks per %s, %d rows stashed "
                  "per thread%s",
                  pl.grid ? " (grid barrier)" : "", static_cast<long long>(pl.chunks), pl.cw * kV, pl.g,
                  pl.grid ? "chunk" : "cluster", pl.stash,
                  a.tma ? (a.pipe ? ", TMA, summed in batches" : ", TMA") : a.pipe ? ", summed in batches" : "");
    log::emit(CUDNN_SEV_INFO, current_api_context().function, what, CUDNN_STATUS_SUCCESS);
  }
  return CUDNN_STATUS_SUCCESS;
}

// The TMA stash's maps (ClusterArgs::tma): x and dy as rows x s, boxes of a chunk's cw * V statistics by
// kBlock / cw rows. False (cp.async then) where TMA cannot take them: an unaligned base or row, more than 2^31 rows.
template <class S>
bool encode_stash_maps(ClusterArgs<S>& a, cudnnDataType_t dt, bool bwd) {
  constexpr int kV = 16 / sizeof(S);
  const uint64_t row_bytes = uint64_t(a.s) * sizeof(S);
  if (row_bytes % 16 != 0 || a.rows > INT_MAX || !aligned16(a.x) || (bwd && !aligned16(a.dy))) return false;
  const uint64_t dims[2] = {uint64_t(a.s), uint64_t(a.rows)}, strides[1] = {row_bytes};
  const uint32_t box[2] = {uint32_t(a.cw * kV), uint32_t(kBlock / a.cw)};
  if (encode_tma_map(&a.x_map, a.x, dt, 2, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_NONE, "bn_cluster x") !=
      CUDNN_STATUS_SUCCESS)
    return false;
  return !bwd || encode_tma_map(&a.dy_map, a.dy, dt, 2, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_NONE,
                                "bn_cluster dy") == CUDNN_STATUS_SUCCESS;
}

// Forward training or backward of a rows plan (nrows x s, 16-byte vectors, no fold) on bn_cluster where its plan
// exists and every tensor shares x's packed layout; *launched = false: the caller takes the other paths.
// partial / partial_bytes: the handle scratch's room for the grid form's partial sums (cluster_grid_partial_bytes).
template <class S>
cudnnStatus_t run_cluster(cudnnContext* h, const NormCall& c, const FinalArgs<Comp<S>>& fa, const Geo& g,
                          const BnMap& xm, int64_t nrows, int64_t s, const Comp<S>* shift, Comp<S>* partial,
                          size_t partial_bytes, bool* launched) {
  *launched = false;
  constexpr int kV = 16 / sizeof(S);
  const bool bwd = c.dir == NormDir::backward;
  const cudnnTensorStruct* out = bwd ? c.dx_desc : c.y_desc;
  void* outp = bwd ? c.dx : c.y;
  if (!same_packed_layout(*c.x_desc, *out) || !aligned16(outp)) return CUDNN_STATUS_SUCCESS;
  if (param_outputs_alias_inputs(c)) return CUDNN_STATUS_SUCCESS;  // every block of a chunk reads them
  // the saved mean's statistics evenly spaced: packed, or spatial (1 x C x 1 x 1: strides[1] apart)
  int64_t shift_step = 1;
  if (shift != nullptr && !fa.mv.row_major_packed) {
    for (int i = 0; i < fa.mv.nb_dims; ++i)
      if (i != 1 && fa.mv.dims[i] != 1) return CUDNN_STATUS_SUCCESS;  // per activation, padded: the other paths
    shift_step = fa.mv.strides[1];
  }
  const int nt = bwd ? 2 : 1;
  auto cluster_plan = [&] {
    return plan_cluster(cluster_fn<S>(bwd, false), nrows, s, kV, nt, cluster_extra_bytes<S, kV>(), sizeof(S),
                        h->device);
  };
  auto grid_plan = [&] {  // taken where the reserved partials hold its blocks
    ClusterPlan pg = plan_cluster_grid(cluster_fn<S>(bwd, true), nrows, s, kV, nt, cluster_extra_bytes<S, kV>(),
                                       h->device);
    if (kGridPartialBytesPerBlock<Comp<S>, kV> * size_t(pg.chunks) * pg.g > partial_bytes) pg.ok = false;
    return pg;
  };
  const long long grid_mode = cluster_grid_mode();
  ClusterPlan pl;
  if (grid_mode == 1) {  // the grid form wherever it plans, else clusters
    pl = grid_plan();
    if (!pl.ok) pl = cluster_plan();
  } else {
    pl = cluster_plan();
    if (grid_mode == -1 && pl.ok && pl.cw * 16 < 64) {  // the default rule: row pieces below 64 bytes
      const ClusterPlan pg = grid_plan();
      if (pg.ok) pl = pg;
    }
  }
  if (!pl.ok) return CUDNN_STATUS_SUCCESS;
  const void* fn = cluster_fn<S>(bwd, pl.grid);
  FD_TRY(allow_dynamic_smem(fn, pl.smem, h->device));
  ClusterArgs<S> a;
  a.fa = fa;
  a.g = g;
  a.xm = xm;
  a.rows = nrows;
  a.s = s;
  a.cw = pl.cw;
  a.stash = pl.stash;
  a.pipe = env_int("FREEDNN_BN_CLUSTER_PIPE", 1) != 0;  // run 44 (H100): 0.94x the time on 14x14 train, 0.98-1.00x else
  a.x = static_cast<const S*>(c.x);
  a.dy = static_cast<const S*>(c.dy);
  a.partial = partial;
  a.shift = shift;
  a.shift_step = shift_step;
  a.out = static_cast<S*>(outp);
  a.alpha = c.alpha;
  a.beta = c.beta;
  if (env_int("FREEDNN_BN_CLUSTER_TMA", 0) == 1) a.tma = encode_stash_maps(a, c.x_desc->dtype, bwd);  // opt-in, unrun on a GPU
  return launch_cluster<S>(a, pl, bwd, h->stream, ops_pdl(h->device), launched);
}

}  // namespace
}  // namespace fd::cuda
