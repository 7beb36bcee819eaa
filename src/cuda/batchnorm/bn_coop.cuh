// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batch normalization forward training and backward in one cooperative kernel over rows (included by batchnorm.cu
// only, after bn_rows.cuh and the helpers it defines): the statistic is the unit-stride index as for stats_rows_w
// (NHWC-like packed x, per activation on a row-major x, NCHW with small planes folded), every other tensor in x's
// packed layout. For small tensors the three-kernel path (stats_rows_w, finalize_kernel / finalize_wide, apply_fwd /
// apply_bwd) spends as long on its two launch gaps and its latency-bound finalize as on the data (7x7x2048 f16,
// N=64: 24.7 us for 12.8 MB of x). Block (split, chunk) owns a strip: rows [split * per_split, ...) x cw vector
// columns.
//   1. pass 1: rows_sums, the body of stats_rows_w (the same strips, the same partial sums bit for bit);
//   grid barrier (the launch is cooperative: the driver makes every block resident and owns the barrier state);
//   2. finalize, one of two ways:
//      own   the block finalizes the statistics of its own columns itself, a thread per statistic adding the
//            partials in finalize_kernel's order (thread_sum64, per_stat <= 64); the split-0 block of the chunk
//            holding a statistic's first column writes its outputs (saved / running statistics, dscale / dbias).
//            No second barrier, but every block loads nq * statistics * per_stat partials (from L2), redundantly
//            across the splits of a chunk;
//      grid  the statistics spread over the grid's warps (finalize_kernel) or blocks (finalize_wide, per_stat > 64)
//            as the separate kernels do, coefficients through scratch, a second grid barrier;
//   3. the apply pass over the block's own strip, rows in reverse order (the rows read last in pass 1 are the
//      likeliest still in L2), 16-byte accesses, z and the ReLU mask bits (forward), the mask and dz (backward),
//      apply_fwd / apply_bwd's element functions (bn_fwd_value, bn_bwd_value, bn_store).
// Same bits as the three-kernel path whenever the splits agree (this kernel's resident wave is not below
// stats_rows_w's, or the size bounds the splits first): every formula is a shared function with its roundings
// explicit (batchnorm.cu), so no kernel's surroundings can contract it differently.
// Bytes per element (E elements of sizeof(S)): forward x read twice, y written (+ z, + 1/8 byte of mask): 3E moved,
// the second x read from L2 when x fits there, so DRAM sees 2E; backward x and dy read twice, dx written (+ dz):
// 5E moved, 3E from DRAM. 7x7x2048 f16 forward (E = 6.4M): 38.5 MB moved, 10.8 us at 85 % of 4.2 TB/s; the DRAM
// floor is 25.7 MB, 6.1 us.
#pragma once
#include <cooperative_groups.h>

#include <atomic>

namespace fd::cuda {
namespace {

template <class S>
struct CoopArgs {
  FinalArgs<Comp<S>> fa;
  Geo g;
  BnMap xm;
  int64_t rows = 0, rs = 0, fold = 1, per_split = 1, per_stat = 1;  // per_stat = splits * fold
  int cw = 1;
  bool own = false;                     // the finalize mode (above)
  bool relu = false, keep_nan = false;  // forward with an activation
  const S* x = nullptr;
  const S* dy = nullptr;                // backward
  const S* z = nullptr;                 // forward with the add
  S* out = nullptr;                     // y, or dx
  S* dz = nullptr;                      // backward with the add (written only with a mask, as apply_bwd)
  const uint8_t* mask_in = nullptr;     // backward's ReLU bits (bit = offset)
  uint8_t* mask_out = nullptr;          // forward training's ReLU bits
  const Comp<S>* shift = nullptr;       // backward: the saved mean
  Comp<S>* partial = nullptr;
  Comp<S>* coef = nullptr;              // grid mode: 5 * s coefficients
  Comp<S>* kbuf = nullptr;              // own mode without a saved mean: the shifts x[0, k, 0] per statistic
  double alpha = 1, beta = 0;
};

// The V mask bits of the thread's vector at offset off (a multiple of V). V < 8: the 8 / V lanes of a byte
// (consecutive columns of one row: the same trip counts) combine theirs; the host asks rs % 8 == 0 and cw * V >= 8,
// so that those lanes are one aligned group of one row.
template <int V>
__device__ __forceinline__ void put_row_mask(uint8_t* m, int64_t off, unsigned bits, int tc) {
  if constexpr (V >= 8) {
    static_assert(V == 8, "at most 8 bits per vector");
    m[off >> 3] = static_cast<uint8_t>(bits);
  } else {
    constexpr int kG = 8 / V;
    const int lane = threadIdx.x & 31;
    const unsigned group = ((1u << kG) - 1u) << (lane & ~(kG - 1));
    unsigned w = bits << ((tc % kG) * V);
#pragma unroll
    for (int o = 1; o < kG; o <<= 1) w |= __shfl_xor_sync(group, w, o);
    if (tc % kG == 0) m[off >> 3] = static_cast<uint8_t>(w);
  }
}

// Blocks per SM the register budget must allow, and rows per step of the apply pass: 16-bit backward as
// stats_rows_w (2 blocks); the others 3 (stats_rows_w: 4-5 forward, 3 backward): fewer splits than the three-kernel
// path only where the resident wave bounds them (large tensors). ptxas spilled in the apply loop at 4 blocks.
constexpr int coop_min_blocks(bool bwd, int v) { return bwd && v >= 8 ? 2 : 3; }
constexpr int coop_apply_rows(bool bwd, int v) { return bwd && v < 8 ? 2 : 4; }

template <class S, int V, bool bwd>
__global__ void __launch_bounds__(kBlock, coop_min_blocks(bwd, V)) bn_coop(CoopArgs<S> p) {
  using C = Comp<S>;
  constexpr int kU = coop_apply_rows(bwd, V);
  constexpr int kNc = bwd ? 5 : 2;  // coefficients per column (finalize_stat)
  __shared__ C red[kBlock * V];
  C K[V];
  rows_sums<S, V, bwd>(p.rows, p.rs, p.fold, p.cw, p.x, p.dy, p.mask_in, p.fa.mv, p.shift, p.per_split, p.partial,
                       red, K);
  const Geo& g = p.g;
  const int64_t split = blockIdx.x, fold = p.fold, rs = p.rs;
  const int cw = p.cw, R = kBlock / cw;
  const int tc = threadIdx.x % cw, tr = threadIdx.x / cw;
  const int64_t k0 = int64_t(blockIdx.y) * cw * V;
  const int nvec = static_cast<int>(min(int64_t(cw), (rs - k0) / V));
  const bool active = tc < nvec;
  const int64_t k = k0 + int64_t(tc) * V;
  // Own mode: another block's apply may overwrite x (y == x in place) before this block's finalize reads x[0, k].
  if (p.kbuf != nullptr && split == 0 && tr == 0 && active) {
#pragma unroll
    for (int t = 0; t < V; ++t)
      if ((k + t) % fold == 0) p.kbuf[(k + t) / fold] = K[t];
  }
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  grid.sync();

  const int nq = bwd ? 4 : 2;
  C co[kNc][V];
  if (p.own) {
    const int64_t ks = k0 / fold, nst = (k0 + int64_t(nvec) * V - 1) / fold + 1 - ks;  // statistics of the chunk
    C* sh = red;  // pass 1's reads of red ended before the barrier
    if (threadIdx.x < nst) {
      const int64_t kk = ks + threadIdx.x;
      C q[4] = {0, 0, 0, 0};
      for (int i = 0; i < nq; ++i) q[i] = thread_sum64(p.partial + (i * g.s + kk) * p.per_stat, p.per_stat);
      finalize_stat<S>(p.fa, g, p.xm, p.x, kk, q, sh + threadIdx.x, nst, p.kbuf, split == 0 && kk * fold >= k0);
    }
    __syncthreads();
    if (active) {
#pragma unroll
      for (int t = 0; t < V; ++t)
#pragma unroll
        for (int i = 0; i < kNc; ++i) co[i][t] = sh[i * nst + (k + t) / fold - ks];
    }
  } else {
    const int64_t nb = int64_t(gridDim.x) * gridDim.y, b = int64_t(blockIdx.y) * gridDim.x + blockIdx.x;
    if (p.per_stat > 64) {
      for (int64_t kk = b; kk < g.s; kk += nb) wide_stat<S>(p.fa, g, p.xm, p.x, p.per_stat, p.partial, kk, red, p.coef);
    } else {
      constexpr int kW = kBlock / 32;
      const int lane = threadIdx.x & 31;
      for (int64_t kk = b * kW + (threadIdx.x >> 5); kk < g.s; kk += nb * kW) {
        C q[4] = {0, 0, 0, 0};
        for (int i = 0; i < nq; ++i)
          q[i] = warp_sum(lane_sum(p.partial + (i * g.s + kk) * p.per_stat, p.per_stat, lane));
        if (lane == 0) finalize_stat<S>(p.fa, g, p.xm, p.x, kk, q, p.coef + kk, g.s);
      }
    }
    grid.sync();
    if (active) {
#pragma unroll
      for (int t = 0; t < V; ++t)
#pragma unroll
        for (int i = 0; i < kNc; ++i) co[i][t] = p.coef[i * g.s + (k + t) / fold];
    }
  }
  if (!active) return;

  // 3. Apply, the strip's rows last to first; kU rows loaded before any store (the stores may alias the loads as
  // far as the compiler knows).
  const int64_t lo = split * p.per_split;
  const int64_t hi = lo + p.per_split < p.rows ? lo + p.per_split : p.rows;
  const int64_t first = lo + tr;
  const int64_t cnt = first < hi ? (hi - 1 - first) / R + 1 : 0;
  for (int64_t i = cnt - 1; i >= 0; i -= kU) {
    RawT<S, V> xv[kU], ov[kU];  // ov: dy (backward) or z
    unsigned mb[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      mb[u] = ~0u;
      if (i - u < 0) continue;
      const int64_t off = (first + (i - u) * R) * rs + k;
      xv[u] = raw_load<S, V>(p.x + off);
      if constexpr (bwd) {
        ov[u] = raw_load<S, V>(p.dy + off);
        if (p.mask_in != nullptr) mb[u] = mask_bits<V>(p.mask_in, off);
      } else {
        if (p.z != nullptr) ov[u] = raw_load<S, V>(p.z + off);
      }
    }
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      if (i - u < 0) continue;
      const int64_t off = (first + (i - u) * R) * rs + k;
      C v[V];
      if constexpr (bwd) {
        C d[V];
#pragma unroll
        for (int t = 0; t < V; ++t) d[t] = raw_elem<S, V>(ov[u], t);
        if (p.mask_in != nullptr) {
#pragma unroll
          for (int t = 0; t < V; ++t)
            if (!((mb[u] >> t) & 1u)) d[t] = C(0);
          if (p.dz != nullptr) bn_store<S, V>(p.dz + off, d, p.alpha, p.beta);
        }
#pragma unroll
        for (int t = 0; t < V; ++t)
          v[t] = bn_bwd_value(co[0][t], co[1][t], co[2][t], co[3][t], co[4][t], raw_elem<S, V>(xv[u], t), d[t]);
      } else {
        unsigned bits = 0;
        const bool has_z = p.z != nullptr;
#pragma unroll
        for (int t = 0; t < V; ++t) {
          bool pos;
          v[t] = bn_fwd_value(co[0][t], co[1][t], raw_elem<S, V>(xv[u], t), has_z,
                              has_z ? raw_elem<S, V>(ov[u], t) : C(0), p.relu, p.keep_nan, &pos);
          if (pos) bits |= 1u << t;
        }
        if (p.mask_out != nullptr) put_row_mask<V>(p.mask_out, off, bits, tc);
      }
      bn_store<S, V>(p.out + off, v, p.alpha, p.beta);
    }
  }
}

// Per device: 0 not asked yet, 1 takes cooperative launches, 2 not (the attribute, or a refused launch).
constexpr int kCoopDevices = 64;
std::atomic<int>& coop_state(int device) {
  static std::atomic<int> state[kCoopDevices] = {};
  return state[device];
}

// Whether `device` takes cooperative launches (cudaDevAttrCooperativeLaunch, asked once per device).
bool coop_device_ok(int device) {
  if (device < 0 || device >= kCoopDevices) return false;
  std::atomic<int>& known = coop_state(device);
  int v = known.load(std::memory_order_relaxed);
  if (v == 0) {
    int a = 0;
    if (cudaDeviceGetAttribute(&a, cudaDevAttrCooperativeLaunch, device) != cudaSuccess) {
      (void)cudaGetLastError();
      a = 0;
    }
    int unknown = 0;  // a refusal stored meanwhile (2) stays: the first answer wins
    if (!known.compare_exchange_strong(unknown, a != 0 ? 1 : 2, std::memory_order_relaxed)) return unknown == 1;
    v = a != 0 ? 1 : 2;
  }
  return v == 1;
}

template <class S>
const void* coop_fn(int rv, bool bwd) {
  constexpr int kV = 16 / sizeof(S);
  if (rv > 1) return bwd ? reinterpret_cast<const void*>(bn_coop<S, kV, true>)
                         : reinterpret_cast<const void*>(bn_coop<S, kV, false>);
  return bwd ? reinterpret_cast<const void*>(bn_coop<S, 1, true>) : reinterpret_cast<const void*>(bn_coop<S, 1, false>);
}

// Blocks of bn_coop resident on the whole device at once: the most a cooperative launch may have.
template <class S>
int64_t coop_wave(int rv, bool bwd, int device) {
  return int64_t(resident_blocks(coop_fn<S>(rv, bwd), kBlock, 0, device)) * device_info(device).sm_count;
}

// Whether the rows plan (rv, cw, rs) of this call may run as bn_coop, before the grid size is known. Knobs:
// FREEDNN_BN_NO_COOP=1 never (the three-kernel path); FREEDNN_BN_COOP_MAX_MB=n (read at every call) only where x
// (+ dy) takes at most n MiB (40: what stays in the H200's L2 between the two passes). Default 0, never: at 40 it
// gained nothing on the ops batch (run 11: 0.99-1.00x the three kernels' time); on every size the 16-bit backward
// of 51-103 MB tensors took 0.92-0.94x, to be weighed once its bit identity has run on the GPU.
bool coop_wanted(int device, const NormCall& c, size_t elem_bytes, int rv, int cw, int64_t rs, bool writes_mask) {
  static const bool off = env_flag("FREEDNN_BN_NO_COOP");
  if (off) return false;
  const bool bwd = c.dir == NormDir::backward;
  const long long max_mb = env_int("FREEDNN_BN_COOP_MAX_MB", 0);
  const double bytes = double(c.x_desc->element_count()) * double(elem_bytes) * (bwd ? 2.0 : 1.0);
  if (max_mb <= 0 || bytes > double(max_mb) * double(1 << 20)) return false;
  if (!coop_device_ok(device)) return false;
  const cudnnTensorStruct& xd = *c.x_desc;
  const bool vec = rv > 1;
  const cudnnTensorStruct* out = bwd ? c.dx_desc : c.y_desc;
  if (!same_packed_layout(xd, *out) || (vec && !aligned16(bwd ? c.dx : c.y))) return false;
  if (c.has_add() && (!same_packed_layout(xd, *c.z_desc) || (vec && !aligned16(bwd ? c.dz : c.z)))) return false;
  if (writes_mask && (rs % 8 != 0 || int64_t(cw) * rv < 8)) return false;  // put_row_mask's byte groups
  return true;
}

// The finalize mode: own where the partials every block reads (nq * statistics * per_stat per block, times the
// blocks per SM) stay below 64 KiB per SM (about the cost of the second barrier they save; not measured yet), grid
// otherwise. Own needs per_stat <= 64 (finalize_kernel's order) and the per-channel outputs apart from the inputs
// (param_outputs_alias_inputs: the writer's stores must not reach another block's loads).
// FREEDNN_BN_COOP_FINALIZE=own|grid forces one (own only where it is possible).
bool coop_own(const NormCall& c, int64_t per_stat, int64_t cols, int64_t fold, int64_t blocks, int sm_count,
              size_t comp_bytes) {
  static const int forced = [] {
    const std::string v = env_string("FREEDNN_BN_COOP_FINALIZE");
    return v == "own" ? 1 : v == "grid" ? 2 : 0;
  }();
  if (forced == 2 || per_stat > 64) return false;
  if (param_outputs_alias_inputs(c)) return false;
  if (forced == 1) return true;
  const int64_t nq = c.dir == NormDir::backward ? 4 : 2;
  const int64_t nst = (cols + fold - 1) / fold + 1;
  const int64_t per_sm = (blocks + sm_count - 1) / sm_count;
  return nq * nst * per_stat * int64_t(comp_bytes) * per_sm <= 64 * 1024;
}

// Launches bn_coop (cudaLaunchKernelEx with the cooperative attribute: also what a stream capture records as a
// cooperative kernel node). *launched = false when the driver refused the launch (e.g. fewer SMs under MPS than
// the occupancy query saw): the caller runs the three kernels instead, and later calls on the device skip bn_coop.
template <class S>
cudnnStatus_t launch_coop(const CoopArgs<S>& a, int rv, bool bwd, dim3 grid, cudaStream_t st, int device,
                          bool* launched) {
  constexpr int kV = 16 / sizeof(S);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(kBlock);
  cfg.dynamicSmemBytes = 0;
  cfg.stream = st;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeCooperative;
  attr[0].val.cooperative = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  cudaError_t e;
  if (rv > 1) e = bwd ? cudaLaunchKernelEx(&cfg, bn_coop<S, kV, true>, a) : cudaLaunchKernelEx(&cfg, bn_coop<S, kV, false>, a);
  else e = bwd ? cudaLaunchKernelEx(&cfg, bn_coop<S, 1, true>, a) : cudaLaunchKernelEx(&cfg, bn_coop<S, 1, false>, a);
  *launched = e == cudaSuccess;
  if (e == cudaErrorCooperativeLaunchTooLarge || e == cudaErrorNotSupported) {
    (void)cudaGetLastError();
    coop_state(device).store(2, std::memory_order_relaxed);
    if (log::enabled(CUDNN_SEV_INFO))
      log::emit(CUDNN_SEV_INFO, current_api_context().function,
                std::string("    batch norm: cooperative launch refused (") + cudaGetErrorName(e) +
                    "), running the three-kernel path",
                CUDNN_STATUS_SUCCESS);
    return CUDNN_STATUS_SUCCESS;
  }
  FD_CUDA_CHECK(e);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace
}  // namespace fd::cuda
