// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Backward of 3x3 stride-2 padding-1 max pooling (ResNet-50's pool1) over channels-last tensors in ONE pass: x and
// dy read once (plus three x rows per strip), dx written once, no argmax codes through memory. Layouts, types and
// semantics as pooling2d_nhwc.cu (unit channel stride, 16-byte channel vectors; ties to the first element in
// window order, the NaN options; a window that reads nothing gives no gradient; dx blended with alpha / beta, each
// element written once, the sums in output order); half and bfloat16 (float and double keep the two passes: run 23
// timed float at 1.14x their time, its pool1 rows leaving one block per SM).
//
// Why: the two-pass path (argmax codes, then the gather) moves 257 MB for the f16 pool1 at N = 64 in 0.094 ms
// (run 19: 58 % of the copy bandwidth), its first pass instruction-bound. Run 18's one-pass kernel (a thread per
// output walking its rows, loads after each row's barrier) was latency-bound at 0.108 ms. This kernel took 0.087 ms
// (65 % of the copy bandwidth), instruction-bound; with the lean loops below (no bounds checks in the windows, no
// divisions) 0.071 ms, 80 % (run 27, H200).
//
// A block owns a strip of output rows of one image and walks it top-down, one output row per step, with whole
// rows of x and dy staged in shared memory by cp.async one step ahead (a ring of 5 x rows, padded, and 3 dy rows;
// three steps ahead, one block per SM, measured no faster: run 24, docs/perf/ops-h200.md):
//   1. the window codes of output row oh (its argmax position in the window per element, 0..8, or -1 for none;
//      kept as numbers of the storage type so that 16-bit pairs compare with one instruction) into a ring of two
//      code rows: each thread reads its window's nine 16-byte vectors from shared memory;
//   2. dx rows 2oh - 1 and 2oh: each of a thread's two columns gathers from the (up to four) outputs whose windows
//      cover it, in output order, the dy whose code is the element's position.
// Step oh also computes output row oh1 (one past the strip) for the strip's last dx row; dx row 2oh0 - 1 belongs to
// the strip above. Strips per image: as many as fill the device's resident blocks once.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <type_traits>

#include "core/api_context.h"
#include "core/env.h"
#include "core/handle.h"
#include "core/log.h"
#include "cuda/common/cp_async.cuh"
#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/pooling/pool_nhwc.cuh"
#include "cuda/pooling/pool_windows.cuh"

namespace fd::cuda {
namespace {

constexpr int kThreads = 512;
// Steps staged ahead: kAhead. Rings: x rows, the step's three and the next kAhead steps' two each; dy rows, the
// step's, the one above it, the next kAhead.
constexpr int kAhead = 1;
constexpr int x_ring(int d) { return 2 * d + 3; }
constexpr int dy_ring(int d) { return d + 2; }

struct Strips {
  int H = 1, W = 1, OH = 1, OW = 1;
  int cvecs = 1;        // 16-byte channel vectors per pixel
  int xrow = 1;         // 16-byte vectors per x row: W * cvecs
  int xpitch = 1;       // per x ring row: one pixel of padding on the left, xrow, pad_r pixels on the right
  int pad_r = 0;        // pixels the last windows read past W: max(0, 2 OW - W)
  int orow = 1;         // per dy / code row: OW * cvecs
  int strips = 1;       // per image
  int rows = 1;         // output rows per strip
  int step_q = 0, step_r = 0;  // kThreads vectors as whole pixels and the vectors left over: kThreads / cvecs, % cvecs
  bool x_packed = false, dy_packed = false;  // pixels C elements apart: a row's vectors are contiguous
  Str xt, dyt, dxt;
};

// A thread's vector e of a row: pixel q, channel vector r (e = q * cvecs + r), stepped by kThreads without a
// division (one per thread at the start: the loops below would otherwise divide at every vector of every step).
struct Slot {
  int e, q, r;
};
__device__ __forceinline__ void next(Slot& s, const Strips& a) {
  s.e += kThreads;
  s.q += a.step_q;
  s.r += a.step_r;
  if (s.r >= a.cvecs) {
    s.r -= a.cvecs;
    ++s.q;
  }
}

size_t smem_bytes(const Strips& a, int d) {
  return sizeof(uint4) * (size_t(x_ring(d)) * a.xpitch + size_t(dy_ring(d) + 2) * a.orow);
}

// The 16-bit pair type of S and the bits of small integers in S (the codes), in both halves of a word.
template <class S>
struct Pair;
template <>
struct Pair<__half> {
  using T = __half2;
  __device__ static constexpr uint32_t pos(int p) {
    constexpr uint32_t k[9] = {0x00000000u, 0x3C003C00u, 0x40004000u, 0x42004200u, 0x44004400u,
                               0x45004500u, 0x46004600u, 0x47004700u, 0x48004800u};
    return k[p];
  }
  static constexpr uint32_t kNone = 0xBC00BC00u;  // -1
};
template <>
struct Pair<__nv_bfloat16> {
  using T = __nv_bfloat162;
  __device__ static constexpr uint32_t pos(int p) {
    constexpr uint32_t k[9] = {0x00000000u, 0x3F803F80u, 0x40004000u, 0x40404040u, 0x40804080u,
                               0x40A040A0u, 0x40C040C0u, 0x40E040E0u, 0x41004100u};
    return k[p];
  }
  static constexpr uint32_t kNone = 0xBF80BF80u;
};

template <class T>
__device__ __forceinline__ T as(uint32_t w) {
  return *reinterpret_cast<const T*>(&w);
}
__device__ __forceinline__ uint32_t word(const uint4& v, int q) {
  return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w;
}
__device__ __forceinline__ void set_word(uint4& v, int q, uint32_t w) {
  if (q == 0) v.x = w;
  else if (q == 1) v.y = w;
  else if (q == 2) v.z = w;
  else v.w = w;
}

// The window codes of one output vector from its nine x vectors (window order; positions not read hold the neutral
// bits: NaN when NaNs are skipped, -inf when they propagate, and valid[] is false there).
template <class S, bool kProp>
__device__ __forceinline__ uint4 window_codes(const uint4 (&v)[9], const bool (&valid)[9]) {
  using P = Pair<S>;
  using T = typename P::T;
  uint4 out;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    T w[9];
#pragma unroll
    for (int p = 0; p < 9; ++p) w[p] = as<T>(word(v[p], q));
    // __hmax2 returns the other operand for one NaN (NaN only when both are); __hmax2_nan the NaN
    T m = w[0];
#pragma unroll
    for (int p = 1; p < 9; ++p) m = kProp ? __hmax2_nan(m, w[p]) : __hmax2(m, w[p]);
    const uint32_t nan_m = kProp ? __hneu2_mask(m, m) : 0u;
    uint32_t c = P::kNone;
#pragma unroll
    for (int p = 8; p >= 0; --p) {  // the first position in window order wins: written last
      uint32_t hit = __heq2_mask(w[p], m);
      if constexpr (kProp) hit = valid[p] ? hit | (__hneu2_mask(w[p], w[p]) & nan_m) : 0u;
      c = (c & ~hit) | (P::pos(p) & hit);
    }
    set_word(out, q, c);
  }
  return out;
}

template <class S>
__device__ __forceinline__ uint4 no_codes() {
  const uint32_t n = Pair<S>::kNone;
  return make_uint4(n, n, n, n);
}

// acc += dy where the code is pos, per element (acc in float, the 8 elements of the 16-byte vector); kInit: acc =
// instead (the first term: no additions of zero).
template <class S, bool kInit = false>
__device__ __forceinline__ void gather(float (&acc)[8], const uint4& code, const uint4& d, int pos) {
  using P = Pair<S>;
  using T = typename P::T;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const uint32_t hit = __heq2_mask(as<T>(word(code, q)), as<T>(P::pos(pos)));
    float2 f;
    if constexpr (std::is_same_v<S, __half>) f = __half22float2(as<T>(word(d, q) & hit));
    else f = __bfloat1622float2(as<T>(word(d, q) & hit));
    acc[2 * q] = kInit ? f.x : acc[2 * q] + f.x;
    acc[2 * q + 1] = kInit ? f.y : acc[2 * q + 1] + f.y;
  }
}

// grid: images x strips; kThreads threads walk the row's vectors. Shared memory: the x and dy rings, two
// code rows. The x ring's rows carry neutral padding pixels left and right, and rows outside the image are filled
// with neutral bits, so that a window's nine loads need no bounds checks (run 25's ncu: the kernel issued an
// instruction every 9.4 cycles per warp at 65 % SM throughput, instruction-bound; the checks and the neutral
// registers were half of the codes' instructions).
template <class S, bool kProp>
__global__ void __launch_bounds__(kThreads, 2)
    max3s2_bwd_strips(Strips a, const S* __restrict__ x, const S* __restrict__ dy, S* __restrict__ dx, double alpha,
                      double beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  constexpr int D = kAhead;
  constexpr int V = 16 / static_cast<int>(sizeof(S));
  extern __shared__ uint4 sm[];
  uint4* xr = sm;
  constexpr int kXRing = x_ring(D), kDyRing = dy_ring(D);
  uint4* dr = xr + kXRing * a.xpitch;
  uint4* cr = dr + kDyRing * a.orow;
  const int strip = static_cast<int>(blockIdx.x) % a.strips, n = static_cast<int>(blockIdx.x) / a.strips;
  const int oh0 = strip * a.rows, oh1 = min(oh0 + a.rows, a.OH);  // owned outputs [oh0, oh1); step oh1: the halo
  const int xbase = 2 * oh0 - 1;                                  // the ring's first x row
  // offsets in 32 bits: pool_tensor_fits keeps every offset below 2^30
  const S* xb = x + n * a.xt.n;
  const S* dyb = dy + n * a.dyt.n;
  S* dxb = dx + n * a.dxt.n;
  const int t = static_cast<int>(threadIdx.x);
  const Slot mine{t, t / a.cvecs, t % a.cvecs};
  auto xrow = [&](int r) { return xr + ((r - xbase) % kXRing) * a.xpitch; };  // the row's padding pixel first
  auto dyrow = [&](int oh) { return dr + ((oh - oh0 + kDyRing) % kDyRing) * a.orow; };
  auto coderow = [&](int oh) { return cr + ((oh - oh0) & 1) * a.orow; };

  // x rows 2oh (2oh - 1 first) .. 2oh + 1 and dy row oh of step oh, as one cp.async group
  auto issue = [&](int oh, bool first) {
    for (int r = first ? 2 * oh - 1 : 2 * oh; r <= 2 * oh + 1; ++r) {
      uint4* s = xrow(r);
      if (r < 0 || r >= a.H) {  // read only by windows that reach outside: neutral (visible after the next barrier)
        for (int e = t; e < a.xpitch; e += kThreads) s[e] = neutral_bits<S, kProp>();
        continue;
      }
      s += a.cvecs;
      const S* src = xb + r * a.xt.h;
      if (a.x_packed)  // the common case: no pixel / vector split per load
        for (int e = t; e < a.xrow; e += kThreads) cp_async16(shared_addr(s + e), src + e * V, true);
      else
        for (Slot p = mine; p.e < a.xrow; next(p, a))
          cp_async16(shared_addr(s + p.e), src + p.q * a.xt.w + p.r * V, true);
    }
    if (oh < a.OH) {
      uint4* s = dyrow(oh);
      const S* src = dyb + oh * a.dyt.h;
      if (a.dy_packed)
        for (int e = t; e < a.orow; e += kThreads) cp_async16(shared_addr(s + e), src + e * V, true);
      else
        for (Slot p = mine; p.e < a.orow; next(p, a))
          cp_async16(shared_addr(s + p.e), src + p.q * a.dyt.w + p.r * V, true);
    }
    cp_async_commit();
  };

  // the padding pixels of every ring row (cp.async writes between them only)
  for (int e = t; e < kXRing * (1 + a.pad_r) * a.cvecs; e += kThreads) {
    const int slot = e / ((1 + a.pad_r) * a.cvecs), k = e - slot * (1 + a.pad_r) * a.cvecs;
    xr[slot * a.xpitch + (k < a.cvecs ? k : a.xrow + k)] = neutral_bits<S, kProp>();
  }
  // one group per step, empty past the halo step, so that D - 1 groups in flight means step oh's is in
#pragma unroll
  for (int j = 0; j < D; ++j) {
    if (oh0 + j <= oh1) issue(oh0 + j, j == 0);
    else cp_async_commit();
  }
  for (int oh = oh0; oh <= oh1; ++oh) {
    cp_async_wait<D - 1>();
    __syncthreads();  // step oh's rows are in; every thread is past step oh - 1 (its ring slots are free)
    if (oh + D <= oh1) issue(oh + D, false);
    else cp_async_commit();
    // 1. codes of output row oh
    uint4* cw = coderow(oh);
    const uint4* rows[3] = {xrow(2 * oh - 1), xrow(2 * oh), xrow(2 * oh + 1)};
    for (Slot p = mine; p.e < a.orow; next(p, a)) {
      const int e = p.e, ow = p.q, cv = p.r;
      if (oh >= a.OH) {
        cw[e] = no_codes<S>();
        continue;
      }
      uint4 v[9];
      bool valid[9];  // read by the NaN-propagating codes only (neutral -inf must not take the gradient)
      const int at = 2 * ow * a.cvecs + cv;  // column 2ow - 1, behind the padding pixel
#pragma unroll
      for (int ti = 0; ti < 3; ++ti) {
        const int r = 2 * oh - 1 + ti;
#pragma unroll
        for (int tj = 0; tj < 3; ++tj) {
          const int c = 2 * ow - 1 + tj;
          valid[ti * 3 + tj] = r >= 0 && r < a.H && c >= 0 && c < a.W;
          v[ti * 3 + tj] = rows[ti][at + tj * a.cvecs];
        }
      }
      cw[e] = window_codes<S, kProp>(v, valid);
    }
    __syncthreads();  // the code row is complete
    // 2. dx rows 2oh - 1 (not at the strip's first step: the strip above owns it) and 2oh (not at the halo step)
    const uint4* c1 = coderow(oh);
    const uint4* d1 = dyrow(oh);
    const uint4* c0 = coderow(oh - 1);
    const uint4* d0 = dyrow(oh - 1);
    const bool top = oh > oh0 && 2 * oh - 1 < a.H, mid = oh < oh1 && 2 * oh < a.H;
    S* dx_top = dxb + (2 * oh - 1) * a.dxt.h;
    S* dx_mid = dxb + 2 * oh * a.dxt.h;
    for (Slot p = mine; p.e < a.orow; next(p, a)) {
      const int e = p.e, ow = p.q, cv = p.r;
      const bool right = ow + 1 < a.OW;  // the output to the right exists
      const int er = e + a.cvecs;
      const int col = 2 * ow * a.dxt.w + cv * V;  // dx column 2ow's offset in its row
      S* const top_at = dx_top + col;
      S* const mid_at = dx_mid + col;
      // each code / dy vector read from shared memory once (the four stores below use them up to four times); the
      // right neighbour's as no codes past the last output
      const uint4 c1e = c1[e], d1e = d1[e], c0e = c0[e], d0e = d0[e];
      const uint4 c1r = right ? c1[er] : no_codes<S>(), d1r = right ? d1[er] : d1e;
      const uint4 c0r = right ? c0[er] : no_codes<S>(), d0r = right ? d0[er] : d0e;
#pragma unroll
      for (int j = 0; j < 2; ++j) {  // columns 2ow (window column 1) and 2ow + 1 (column 2; column 0 of ow + 1)
        const int iw = 2 * ow + j;
        if (iw >= a.W) continue;
        if (top) {  // window row 2 of oh - 1, row 0 of oh
          float acc[V];
          gather<S, true>(acc, c0e, d0e, 7 + j);
          if (j == 1) gather<S>(acc, c0r, d0r, 6);
          gather<S>(acc, c1e, d1e, 1 + j);
          if (j == 1) gather<S>(acc, c1r, d1r, 0);
          blend_store_vec<S, V>(top_at + j * a.dxt.w, acc, alpha, beta);
        }
        if (mid) {  // window row 1 of oh
          float acc[V];
          gather<S, true>(acc, c1e, d1e, 4 + j);
          if (j == 1) gather<S>(acc, c1r, d1r, 3);
          blend_store_vec<S, V>(mid_at + j * a.dxt.w, acc, alpha, beta);
        }
      }
    }
  }
  pdl_allow_dependents();
}

}  // namespace

bool pooling2d_nhwc_backward_onepass(cudnnContext* h, const cudnnPoolingStruct& p, double alpha,
                                     const cudnnTensorStruct& dyd, const void* dy, const cudnnTensorStruct& xd,
                                     const void* x, double beta, const cudnnTensorStruct& dxd, void* dx,
                                     cudnnStatus_t* status) {
  if (!fd::env_flag_or("FREEDNN_POOL_BWD_ONEPASS", true)) return false;  // read at every call
  if (!nhwc_on(p) || xd.nb_dims != 4 || dyd.nb_dims != 4 || dxd.nb_dims != 4) return false;
  if (p.window[0] != 3 || p.window[1] != 3 || p.stride[0] != 2 || p.stride[1] != 2 || p.padding[0] != 1 ||
      p.padding[1] != 1)
    return false;
  // 16-bit only: run 23 timed float (one block of 215 KB per SM for pool1) at 1.14x the two passes' time
  if (dxd.dtype != CUDNN_DATA_HALF && dxd.dtype != CUDNN_DATA_BFLOAT16) return false;
  bool launched = false;
  with_float_storage(dxd.dtype, [&](auto tag) {
    using S = decltype(tag);
    if constexpr (sizeof(S) == 2) {
      constexpr int V = 16 / static_cast<int>(sizeof(S));
      if (!nhwc_vec(xd, x, V) || !nhwc_vec(dyd, dy, V) || !nhwc_vec(dxd, dx, V)) return;
      const Geo g = make_geo(p, xd, dyd);
      // every dx row and column under some window (dy may be smaller than the formula: then the two-pass gather,
      // which writes the uncovered elements too)
      if (2 * int64_t(g.out_h) < g.in_h || 2 * int64_t(g.out_w) < g.in_w) return;
      Strips a;
      a.H = g.in_h, a.W = g.in_w, a.OH = g.out_h, a.OW = g.out_w;
      a.cvecs = static_cast<int>(xd.dims[1] / V);
      const int64_t xrow = int64_t(a.W) * a.cvecs, orow = int64_t(a.OW) * a.cvecs;
      if (xrow > (1 << 20) || orow > (1 << 20)) return;
      a.xrow = static_cast<int>(xrow), a.orow = static_cast<int>(orow);
      a.pad_r = std::max(0, 2 * a.OW - a.W);
      a.xpitch = a.xrow + (1 + a.pad_r) * a.cvecs;
      const size_t smem = smem_bytes(a, kAhead);
      if (smem > static_cast<size_t>(device_info(h->device).smem_per_block_optin)) return;  // rows too long: two passes
      a.xt = str_of(xd), a.dyt = str_of(dyd), a.dxt = str_of(dxd);
      a.x_packed = a.W == 1 || a.xt.w == a.cvecs * V;
      a.dy_packed = a.OW == 1 || a.dyt.w == a.cvecs * V;
      const bool prop = p.nan_opt == CUDNN_PROPAGATE_NAN;
      auto kern = prop ? max3s2_bwd_strips<S, true> : max3s2_bwd_strips<S, false>;
      const void* kfn = reinterpret_cast<const void*>(kern);
      if (allow_dynamic_smem(kfn, smem, h->device) != CUDNN_STATUS_SUCCESS) {
        (void)cudaGetLastError();
        return;
      }
      // strips per image: as many as fill the device's resident blocks once (at least one output row each)
      const int64_t images = xd.dims[0];
      const int64_t resident =
          int64_t(resident_blocks(kfn, kThreads, smem, h->device)) * device_info(h->device).sm_count;
      int strips = static_cast<int>(std::clamp<int64_t>(resident / std::max<int64_t>(images, 1), 1, a.OH));
      const long long env = fd::env_int("FREEDNN_POOL_BWD_STRIPS", 0);  // A/B: strips per image
      if (env > 0) strips = static_cast<int>(std::min<long long>(env, a.OH));
      a.step_q = kThreads / a.cvecs;
      a.step_r = kThreads % a.cvecs;
      a.rows = static_cast<int>(cdiv64(a.OH, strips));
      a.strips = static_cast<int>(cdiv64(a.OH, a.rows));
      const int64_t blocks = images * a.strips;
      if (blocks >= (int64_t{1} << 31)) return;
      (void)launch_pdl(ops_pdl(h->device), kern, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), smem, h->stream,
                       a, static_cast<const S*>(x), static_cast<const S*>(dy), static_cast<S*>(dx), alpha, beta);
      launched = true;
      // one pass; each strip boundary reads three x rows and one dy row twice
      const double halo = static_cast<double>(images) * (a.strips - 1) * (3.0 * a.xrow + a.orow) * 16.0;
      note_pool_backward_bytes(xd, dyd, dxd, beta, halo, 1);
      if (log::enabled(CUDNN_SEV_INFO)) {  // which path ran: the tests check it
        char what[128];
        std::snprintf(what, sizeof what, "cuda:pooling: one-pass max backward, %d strips of %d output rows per image",
                      a.strips, a.rows);
        log::emit(CUDNN_SEV_INFO, current_api_context().function, what, CUDNN_STATUS_SUCCESS);
      }
    }
  });
  if (!launched) return false;
  *status = FD_LAUNCH_STATUS(CUDNN_STATUS_SUCCESS);
  return true;
}

}  // namespace fd::cuda
