// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Backward of 3x3 stride-2 padding-1 max pooling (ResNet-50's pool1) over channels-last tensors in ONE pass: x and
// dy read once, dx written once, no argmax codes through memory. Layouts, types and semantics as
// pooling2d_nhwc.cu (unit channel stride, 16-byte channel vectors; ties to the first element in window order, the
// NaN options; a window that reads nothing gives no gradient; dx blended with alpha / beta, each element written
// once, sums in output order as the CPU's). Why: the two-pass path moves 257 MB for the f16 pool1 at N = 64 (x,
// codes written and read, dy, dx) in 0.094 ms, 58 % of the copy bandwidth; this pass moves 231 MB.
//
// Ownership: the thread of output (oh, ow) and channel vector owns the dx elements of its window's rows 1..2 and
// columns 1..2 (dx rows 2oh, 2oh + 1, columns 2ow, 2ow + 1); window row 0 / column 0 belong to the outputs above /
// to the left. So an element receives from its owner's output and from the outputs below, right and below-right.
// - Columns: the block holds tc consecutive output columns of one strip (all channel vectors); per output row each
//   thread publishes its argmax codes and dy in shared memory and reads its right neighbour's (column-0 entries go
//   to the neighbour's left). The block's last column is a halo: computed for its left neighbour, never stored.
// - Rows: a thread walks kStrip output rows top-down, carrying window row 2 (its row maximum, and the dx sums of the
//   row) into the next output's row 0; one more output row below the strip is computed for the strip's last dx row.
// The halos cost 1 / kStrip more rows and 1 / (tc - 1) more columns of window work (x rows from L2).
// Used where FREEDNN_POOL_BWD_ONEPASS=1 (opt-in): run 18 timed it at 1.15x the two-pass path's time on the f16 pool1
// (0.1076 against 0.0935 ms) and 0.98x in f32; 114 registers (f16) leave two blocks of 232 threads per SM.
#include <algorithm>
#include <cstdint>

#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/cuda_util.h"
#include "cuda/pooling/pool_nhwc.cuh"

namespace fd::cuda {
namespace {

constexpr int kMaxThreads = 256;
constexpr int kStrip = 8;  // output rows a block owns (plus one halo row below)

struct OnePass {
  Geo g;
  Str xt, dyt, dxt;
  int cvecs = 1;   // 16-byte channel vectors per pixel
  int tc = 2;      // output columns per block, the last a halo
  int groups = 1;  // column groups per strip
  int strips = 1;  // strips per image
};

// V one-byte codes (position ti * 3 + tj in the window, 0xFF: none) as two 32-bit words.
template <int V>
__device__ __forceinline__ uint2 pack_codes(const int (&arg)[V]) {
  uint32_t w[2] = {0xFFFFFFFFu, 0xFFFFFFFFu};
#pragma unroll
  for (int k = 0; k < V; ++k) {
    const uint32_t c = arg[k] >= 0 ? uint32_t(arg[k]) : 0xFFu;
    w[k / 4] = (w[k / 4] & ~(0xFFu << (8 * (k % 4)))) | (c << (8 * (k % 4)));
  }
  return make_uint2(w[0], w[1]);
}
__device__ __forceinline__ int code_at(uint2 w, int k) { return int(((k < 4 ? w.x : w.y) >> (8 * (k % 4))) & 0xFFu); }

// grid: images x strips x column groups, blocks of tc * cvecs threads (channel vectors innermost).
template <class S, bool kProp>
__global__ void __launch_bounds__(kMaxThreads) nhwc_max3s2_bwd(OnePass a, const S* __restrict__ x,
                                                               const S* __restrict__ dy, S* __restrict__ dx,
                                                               double alpha, double beta) {
  using C = Comp<S>;
  constexpr int V = 16 / static_cast<int>(sizeof(S));
  static_assert(V <= 8, "codes of at most 8 elements per vector");
  __shared__ uint2 sh_code[2][kMaxThreads];
  __shared__ uint4 sh_dy[2][kMaxThreads];
  const Geo& g = a.g;
  int b = int(blockIdx.x);
  const int grp = b % a.groups;
  b /= a.groups;
  const int strip = b % a.strips, n = b / a.strips;
  const int t = int(threadIdx.x), cv = t % a.cvecs, col = t / a.cvecs;
  const int ow = grp * (a.tc - 1) + col;
  const bool active = ow < g.out_w;
  const bool owner = active && col < a.tc - 1;
  const bool right_ok = active && col + 1 < a.tc && ow + 1 < g.out_w;
  const int c0 = 2 * ow - 1;  // input column of window column 0
  bool colv[3];
#pragma unroll
  for (int j = 0; j < 3; ++j) colv[j] = active && static_cast<unsigned>(c0 + j) < static_cast<unsigned>(g.in_w);
  const S* xb = x + (n * a.xt.n + cv * V);
  S* dxb = dx + (n * a.dxt.n + cv * V);

  // Row maximum and its column of input row ih over this thread's window columns.
  auto row_max = [&](int ih, C (&hv)[V], int (&ht)[V]) {
    const bool rv = active && static_cast<unsigned>(ih) < static_cast<unsigned>(g.in_h);
    C v[3][V];
#pragma unroll
    for (int j = 0; j < 3; ++j) {
      uint4 raw = neutral_bits<S, kProp>();
      if (rv && colv[j]) raw = *reinterpret_cast<const uint4*>(xb + (ih * a.xt.h + (c0 + j) * a.xt.w));
      load_vec<S, V>(reinterpret_cast<const S*>(&raw), v[j]);
    }
    row_arg<C, 3, V, kProp>(v, rv, colv, hv, ht);
  };
  // dx row `row`, this thread's columns 2ow (sums s[0]) and 2ow + 1 (s[1]).
  auto store_row = [&](int row, const C (&s)[2][V]) {
    if (!owner || row < 0 || row >= g.in_h) return;
#pragma unroll
    for (int j = 0; j < 2; ++j)
      if (2 * ow + j < g.in_w) blend_store_vec<S, V>(dxb + (row * a.dxt.h + (2 * ow + j) * a.dxt.w), s[j], alpha, beta);
  };

  const int oh0 = strip * kStrip;
  C hv0[V];  // window row 0 of the current output: the previous output's row 2
  int ht0[V];
  row_max(2 * oh0 - 1, hv0, ht0);
  C pend[2][V];  // dx row 2oh - 1 (window row 0 of output oh), sums of the outputs above
#pragma unroll
  for (int j = 0; j < 2; ++j)
#pragma unroll
    for (int k = 0; k < V; ++k) pend[j][k] = C(0);

  for (int i = 0; i <= kStrip; ++i) {  // i == kStrip: the halo row below the strip
    const int oh = oh0 + i;
    if (oh >= g.out_h) break;  // the same for the whole block
    C hv1[V], hv2[V];
    int ht1[V], ht2[V];
    row_max(2 * oh, hv1, ht1);
    row_max(2 * oh + 1, hv2, ht2);
    const C neutral = kProp ? C(-INFINITY) : C(NAN);
    int arg[V];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      C best = neutral;
      arg[k] = -1;
      arg_fold(best, arg[k], hv0[k], ht0[k] >= 0, ht0[k], kProp);
      arg_fold(best, arg[k], hv1[k], ht1[k] >= 0, 3 + ht1[k], kProp);
      arg_fold(best, arg[k], hv2[k], ht2[k] >= 0, 6 + ht2[k], kProp);
    }
    uint4 draw = make_uint4(0, 0, 0, 0);
    if (active) draw = *reinterpret_cast<const uint4*>(dy + (n * a.dyt.n + oh * a.dyt.h + ow * a.dyt.w + cv * V));
    const int buf = i & 1;  // two buffers: one barrier per row (a writer of row i + 1 passed row i's barrier)
    sh_code[buf][t] = pack_codes<V>(arg);
    sh_dy[buf][t] = draw;
    __syncthreads();
    uint2 rcode = make_uint2(0xFFFFFFFFu, 0xFFFFFFFFu);
    uint4 rraw = make_uint4(0, 0, 0, 0);
    if (right_ok) {
      rcode = sh_code[buf][t + a.cvecs];
      rraw = sh_dy[buf][t + a.cvecs];
    }
    C d[V], dr[V];
    load_vec<S, V>(reinterpret_cast<const S*>(&draw), d);
    load_vec<S, V>(reinterpret_cast<const S*>(&rraw), dr);
    // Window row ti's sums for this thread's two columns: mine at (ti, 1) and (ti, 2), the right neighbour's at
    // (ti, 0) after mine (output order).
    auto row_sums = [&](int ti, C (&s)[2][V], const C (&prior)[2][V]) {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const int rc = code_at(rcode, k);
        s[0][k] = prior[0][k] + (arg[k] == 3 * ti + 1 ? d[k] : C(0));
        s[1][k] = prior[1][k] + (arg[k] == 3 * ti + 2 ? d[k] : C(0));
        s[1][k] += rc == 3 * ti ? dr[k] : C(0);
      }
    };
    C zero[2][V], s[2][V];
#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
      for (int k = 0; k < V; ++k) zero[j][k] = C(0);
    if (i > 0) {  // dx row 2oh - 1: complete (the strip's first output's row 0 belongs to the strip above)
      row_sums(0, s, pend);
      store_row(2 * oh - 1, s);
    }
    if (i < kStrip) {
      row_sums(1, s, zero);
      store_row(2 * oh, s);
      row_sums(2, pend, zero);
      if (oh == g.out_h - 1) store_row(2 * oh + 1, pend);  // no output below
    }
#pragma unroll
    for (int k = 0; k < V; ++k) {
      hv0[k] = hv2[k];
      ht0[k] = ht2[k];
    }
  }
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

bool pooling2d_nhwc_backward_onepass(cudnnContext* h, const cudnnPoolingStruct& p, double alpha,
                                     const cudnnTensorStruct& dyd, const void* dy, const cudnnTensorStruct& xd,
                                     const void* x, double beta, const cudnnTensorStruct& dxd, void* dx,
                                     cudnnStatus_t* status) {
  if (fd::env_string("FREEDNN_POOL_BWD_ONEPASS") != "1") return false;  // opt-in, read at every call
  if (!nhwc_on(p) || xd.nb_dims != 4 || dyd.nb_dims != 4 || dxd.nb_dims != 4) return false;
  if (p.window[0] != 3 || p.window[1] != 3 || p.stride[0] != 2 || p.stride[1] != 2 || p.padding[0] != 1 ||
      p.padding[1] != 1)
    return false;
  bool launched = false;
  with_float_storage(dxd.dtype, [&](auto tag) {
    using S = decltype(tag);
    constexpr int V = 16 / static_cast<int>(sizeof(S));
    if (!nhwc_vec(xd, x, V) || !nhwc_vec(dyd, dy, V) || !nhwc_vec(dxd, dx, V)) return;
    OnePass a;
    a.g = make_geo(p, xd, dyd);
    // every dx row and column owned by some output (y may be smaller than the formula: then the two-pass gather,
    // which writes the uncovered elements too)
    if (2 * int64_t(a.g.out_h) < a.g.in_h || 2 * int64_t(a.g.out_w) < a.g.in_w) return;
    a.xt = str_of(xd);
    a.dyt = str_of(dyd);
    a.dxt = str_of(dxd);
    const int64_t cvecs = xd.dims[1] / V;
    if (2 * cvecs > kMaxThreads) return;  // at least one owned and one halo column per block
    const int64_t max_tc = std::max<int64_t>(2, kMaxThreads / cvecs);
    const int64_t groups = cdiv(a.g.out_w, max_tc - 1), owned = cdiv(a.g.out_w, groups);
    const int64_t strips = cdiv(a.g.out_h, kStrip);
    const int64_t blocks = xd.dims[0] * strips * groups;
    if (blocks >= (int64_t{1} << 31)) return;
    a.cvecs = static_cast<int>(cvecs);
    a.tc = static_cast<int>(owned + 1);
    a.groups = static_cast<int>(groups);
    a.strips = static_cast<int>(strips);
    auto kern = p.nan_opt == CUDNN_PROPAGATE_NAN ? nhwc_max3s2_bwd<S, true> : nhwc_max3s2_bwd<S, false>;
    kern<<<static_cast<unsigned>(blocks), static_cast<unsigned>(a.tc * cvecs), 0, h->stream>>>(
        a, static_cast<const S*>(x), static_cast<const S*>(dy), static_cast<S*>(dx), alpha, beta);
    launched = true;
  });
  if (!launched) return false;
  *status = [&]() -> cudnnStatus_t {
    FD_CUDA_LAUNCHED();
    return CUDNN_STATUS_SUCCESS;
  }();
  return true;
}

}  // namespace fd::cuda
