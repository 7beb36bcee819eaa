// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cudnnReduceTensor on the GPU: C = alpha * reduce(A) + beta * C over the dims where C is 1, indices for
// MIN / MAX / AMAX (row-major position in the reduced slice, the first one on ties, NaN rules as the CPU's).
// Three plans, chosen from the shape and the SM count:
//   per-thread  one thread scans one output's slice (short slices, or outputs adjacent in memory);
//   per-block   one block reduces one output's slice;
//   split       several blocks per output write partial results to the workspace, a second kernel combines
//               them (few outputs, long slices). Its workspace is what cudnnGetReductionWorkspaceSize reports.
// ADD / AVG over one contiguous run of dims of a packed A (global average pooling as a reduction: NCHW or NHWC
// 64x2048x7x7 -> 64x2048x1x1) first go to plane_sum (plane_sum.h): one kernel, one pass, no workspace.
// Fast paths when the innermost reduced dim is contiguous in A (same element / combine / finish functions, so the
// same ops, indices, NaN rules and alpha/beta):
//   per-warp    the whole slice is one contiguous run of 32 < K <= 4096 elements (NCHW spatial reductions such as
//               64x2048x7x7 -> 64x2048x1x1): one warp per output, coalesced loads, one pass, A read once, C written
//               once (bytes per element: 1 A element + 1 / K of a C element). Before, a 256-thread block per output
//               had K of its 256 threads busy.
//   rows        per-block and split over slices made of contiguous rows of length L >= 128 (1xCx1x1 from NCHW:
//               rows of H*W): the row offset is walked once per row (64-bit divisions per row, not per element),
//               threads read consecutive elements with 4 loads in flight each; split parts are whole rows, and
//               enough of them for about 8 blocks per SM (the partials in the workspace, a second deterministic
//               kernel combines them). One pass over A; partials: M * parts * 16 bytes.
// Without indices, per-channel reductions of a packed A (NCHW or NHWC 64x256x56x56 -> 1x256x1x1: [N][C][L] planes
// or [Q][R][I] columns) go to the channel path (channel_reduce.h) after plane_sum: typed 16-byte loads, a split
// over about two waves of blocks and a deterministic combine kernel (FREEDNN_REDUCE_NO_CHANNEL=1: off).
#include <algorithm>

#include "core/dtype.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/dyn_tensor.cuh"
#include "cuda/tensor_ops/channel_reduce.h"
#include "cuda/tensor_ops/plane_sum.h"
#include "cuda/tensor_ops/tensor_ops.h"

namespace fd::cuda {
namespace {

constexpr int kBlock = 256;
constexpr int64_t kEmpty = INT64_MAX;

// A partial result: the running value, and for MIN / MAX / AMAX the index of the chosen element (kEmpty: no
// element yet).
template <class C>
struct alignas(16) Acc {
  C v;
  int64_t idx;
};

// Offsets: output j -> A offset of its slice's first element (j row-major over the kept dims), slice element k
// -> offset within the slice (k row-major over the reduced dims). Adjacent dims that are contiguous in A are
// merged on the host.
struct RedMap {
  int nk = 0, nr = 0;
  int64_t kdims[CUDNN_DIM_MAX] = {}, kstr[CUDNN_DIM_MAX] = {};
  int64_t rdims[CUDNN_DIM_MAX] = {}, rstr[CUDNN_DIM_MAX] = {};
  __device__ __forceinline__ int64_t base(int64_t j) const { return walk(j, nk, kdims, kstr); }
  __device__ __forceinline__ int64_t roff(int64_t k) const { return walk(k, nr, rdims, rstr); }
  __device__ __forceinline__ static int64_t walk(int64_t l, int n, const int64_t* d, const int64_t* s) {
    if (n == 1) return l * s[0];
    int64_t off = 0;
    for (int i = n - 1; i >= 0; --i) {
      const int64_t q = l / d[i];
      off += (l - q * d[i]) * s[i];
      l = q;
    }
    return off;
  }
};

struct OpInfo {
  int op;
  bool prop;
  int64_t K;  // slice length
  bool root;  // NORM2's square root (off for the sum of squares, cudnnReduceTensorStruct::sum_of_squares)
};

template <class C>
__device__ __forceinline__ Acc<C> identity(int op) {
  const bool mul = op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
  return Acc<C>{mul ? C(1) : C(0), kEmpty};
}

// Combines two partial results over disjoint index sets; associative and commutative, so any grouping gives the
// CPU's sequential answer for MIN / MAX / AMAX.
template <class C>
__device__ __forceinline__ Acc<C> combine(const OpInfo& o, Acc<C> p, Acc<C> q) {
  switch (o.op) {
    case CUDNN_REDUCE_TENSOR_MUL:
    case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS: return Acc<C>{p.v * q.v, kEmpty};
    case CUDNN_REDUCE_TENSOR_MIN:
    case CUDNN_REDUCE_TENSOR_MAX:
    case CUDNN_REDUCE_TENSOR_AMAX: {
      if (p.idx == kEmpty) return q;
      if (q.idx == kEmpty) return p;
      const bool pn = p.v != p.v, qn = q.v != q.v;
      if (pn != qn) return (pn == o.prop) ? p : q;  // PROPAGATE: the NaN wins; NOT_PROPAGATE: the number
      if (pn || p.v == q.v) return p.idx < q.idx ? p : q;
      const bool p_better = o.op == CUDNN_REDUCE_TENSOR_MIN ? p.v < q.v : p.v > q.v;
      return p_better ? p : q;
    }
    default: return Acc<C>{p.v + q.v, kEmpty};
  }
}

// Element k of the slice, value v, as a partial result.
template <class C>
__device__ __forceinline__ Acc<C> element(const OpInfo& o, C v, int64_t k) {
  switch (o.op) {
    case CUDNN_REDUCE_TENSOR_AMAX: return Acc<C>{v < C(0) ? -v : v, k};
    case CUDNN_REDUCE_TENSOR_MIN:
    case CUDNN_REDUCE_TENSOR_MAX: return Acc<C>{v, k};
    case CUDNN_REDUCE_TENSOR_NORM1: return Acc<C>{v < C(0) ? -v : v, kEmpty};
    case CUDNN_REDUCE_TENSOR_NORM2: return Acc<C>{v * v, kEmpty};
    case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS: return Acc<C>{v == C(0) ? C(1) : v, kEmpty};
    default: return Acc<C>{v, kEmpty};
  }
}

template <class C>
__device__ __forceinline__ Acc<C> scan(const OpInfo& o, const RedMap& m, cudnnDataType_t at, const void* ap,
                                       int64_t base, int64_t k0, int64_t k1, int64_t step) {
  Acc<C> acc = identity<C>(o.op);
  for (int64_t k = k0; k < k1; k += step)
    acc = combine<C>(o, acc, element<C>(o, load_dyn<C>(at, ap, base + m.roff(k)), k));
  return acc;
}

template <class C>
__device__ __forceinline__ void finish(const OpInfo& o, Acc<C> acc, int64_t j, const BView& cv, cudnnDataType_t ct,
                                       void* cp, C alpha, C beta, uint32_t* indices) {
  C v = acc.v;
  if (o.op == CUDNN_REDUCE_TENSOR_AVG) v /= static_cast<C>(o.K);
  if (o.root) v = sqrt(v);
  blend_dyn<C>(ct, cp, cv.offset(j), v, alpha, beta);
  if (indices) indices[j] = static_cast<uint32_t>(acc.idx == kEmpty ? 0 : acc.idx);
}

template <class C>
__global__ void reduce_per_thread(OpInfo o, RedMap m, cudnnDataType_t at, const void* ap, int64_t M, BView cv,
                                  cudnnDataType_t ct, void* cp, C alpha, C beta, uint32_t* indices) {
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < M; j += int64_t(gridDim.x) * blockDim.x)
    finish<C>(o, scan<C>(o, m, at, ap, m.base(j), 0, o.K, 1), j, cv, ct, cp, alpha, beta, indices);
}

template <class C>
__device__ __forceinline__ Acc<C> shfl(Acc<C> a, int off) {
  return Acc<C>{__shfl_xor_sync(0xFFFFFFFFu, a.v, off), __shfl_xor_sync(0xFFFFFFFFu, a.idx, off)};
}

// Block b handles part (b % parts) of output (b / parts): slice elements [part * chunk, (part + 1) * chunk).
// With `partial`, the block's result goes there (the split plan); otherwise it is the output.
template <class C>
__global__ void reduce_per_block(OpInfo o, RedMap m, cudnnDataType_t at, const void* ap, int64_t M, int64_t parts,
                                 int64_t chunk, BView cv, cudnnDataType_t ct, void* cp, C alpha, C beta,
                                 uint32_t* indices, Acc<C>* partial) {
  __shared__ Acc<C> scratch[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  for (int64_t b = blockIdx.x; b < M * parts; b += gridDim.x) {
    const int64_t j = b / parts, part = b - j * parts;
    const int64_t k0 = part * chunk, k1 = std::min(o.K, k0 + chunk);
    Acc<C> acc = scan<C>(o, m, at, ap, m.base(j), k0 + threadIdx.x, k1, blockDim.x);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) acc = combine<C>(o, acc, shfl<C>(acc, off));
    if (lane == 0) scratch[warp] = acc;
    __syncthreads();
    if (warp == 0) {
      acc = lane < nw ? scratch[lane] : identity<C>(o.op);
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) acc = combine<C>(o, acc, shfl<C>(acc, off));
      if (lane == 0) {
        if (partial)
          partial[b] = acc;
        else
          finish<C>(o, acc, j, cv, ct, cp, alpha, beta, indices);
      }
    }
    __syncthreads();
  }
}

// Per-warp plan: output j's slice is K contiguous elements at A + m.base(j).
template <class C>
__global__ void reduce_per_warp(OpInfo o, RedMap m, cudnnDataType_t at, const void* ap, int64_t M, BView cv,
                                cudnnDataType_t ct, void* cp, C alpha, C beta, uint32_t* indices) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x >> 5);
  for (int64_t j = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5; j < M; j += warps) {
    const int64_t base = m.base(j);
    Acc<C> acc = identity<C>(o.op);
    for (int64_t k = lane; k < o.K; k += 64) {  // two loads in flight per lane
      const bool second = k + 32 < o.K;
      const C v0 = load_dyn<C>(at, ap, base + k);
      const C v1 = second ? load_dyn<C>(at, ap, base + k + 32) : C(0);
      acc = combine<C>(o, acc, element<C>(o, v0, k));
      if (second) acc = combine<C>(o, acc, element<C>(o, v1, k + 32));
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) acc = combine<C>(o, acc, shfl<C>(acc, off));
    if (lane == 0) finish<C>(o, acc, j, cv, ct, cp, alpha, beta, indices);
  }
}

// Rows plan: the slice is R = K / L rows of L elements (inner stride `is`); row r at m.roff(r * L). Block b handles
// rows [part * chunk, (part + 1) * chunk) of output b / parts (chunk counts rows); result to `partial` (split) or
// finished.
template <class C>
__global__ void reduce_rows(OpInfo o, RedMap m, cudnnDataType_t at, const void* ap, int64_t M, int64_t parts,
                            int64_t chunk, int64_t L, int64_t is, BView cv, cudnnDataType_t ct, void* cp, C alpha,
                            C beta, uint32_t* indices, Acc<C>* partial) {
  __shared__ Acc<C> scratch[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  const int64_t R = o.K / L, bs = blockDim.x;
  for (int64_t b = blockIdx.x; b < M * parts; b += gridDim.x) {
    const int64_t j = b / parts, part = b - j * parts;
    const int64_t r0 = part * chunk, r1 = std::min(R, r0 + chunk);
    const int64_t base = m.base(j);
    Acc<C> acc = identity<C>(o.op);
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t row = base + m.roff(r * L);
      for (int64_t k = threadIdx.x; k < L; k += 4 * bs) {
        C v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = k + u * bs < L ? load_dyn<C>(at, ap, row + (k + u * bs) * is) : C(0);
#pragma unroll
        for (int u = 0; u < 4; ++u)
          if (k + u * bs < L) acc = combine<C>(o, acc, element<C>(o, v[u], r * L + k + u * bs));
      }
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) acc = combine<C>(o, acc, shfl<C>(acc, off));
    if (lane == 0) scratch[warp] = acc;
    __syncthreads();
    if (warp == 0) {
      acc = lane < nw ? scratch[lane] : identity<C>(o.op);
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) acc = combine<C>(o, acc, shfl<C>(acc, off));
      if (lane == 0) {
        if (partial)
          partial[b] = acc;
        else
          finish<C>(o, acc, j, cv, ct, cp, alpha, beta, indices);
      }
    }
    __syncthreads();
  }
}

template <class C>
__global__ void reduce_combine(OpInfo o, const Acc<C>* partial, int64_t M, int64_t parts, BView cv,
                               cudnnDataType_t ct, void* cp, C alpha, C beta, uint32_t* indices) {
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < M; j += int64_t(gridDim.x) * blockDim.x) {
    Acc<C> acc = identity<C>(o.op);
    for (int64_t p = 0; p < parts; ++p) acc = combine<C>(o, acc, partial[j * parts + p]);
    finish<C>(o, acc, j, cv, ct, cp, alpha, beta, indices);
  }
}

enum class Kind { per_thread, per_block, split };
struct Plan {
  Kind kind = Kind::per_thread;
  bool warp = false;  // per-block kind as one warp per output (slice = one contiguous run)
  bool rows = false;  // per-block / split kinds over contiguous rows of length L (chunk, parts in rows)
  int64_t L = 1, inner_stride = 1;
  int64_t M = 0, K = 0, parts = 1, chunk = 0;
  RedMap map;
};

// Merges dim i into dim i + 1 when they are contiguous in A (so the walk has fewer divisions).
void merge_dims(int& n, int64_t* d, int64_t* s) {
  int w = 0;
  for (int i = 0; i < n; ++i) {
    if (w > 0 && s[w - 1] == s[i] * d[i]) {
      d[w - 1] *= d[i];
      s[w - 1] = s[i];
    } else {
      d[w] = d[i];
      s[w] = s[i];
      ++w;
    }
  }
  n = w;
}

Plan make_plan(int device, const cudnnTensorStruct& a, const cudnnTensorStruct& c) {
  Plan p;
  p.M = c.element_count();
  p.K = a.element_count() / std::max<int64_t>(1, p.M);
  int64_t min_red_stride = INT64_MAX, last_kept_stride = INT64_MAX;
  for (int i = 0; i < a.nb_dims; ++i) {
    if (a.dims[i] == 1) continue;
    if (c.dims[i] == 1) {
      p.map.rdims[p.map.nr] = a.dims[i];
      p.map.rstr[p.map.nr++] = a.strides[i];
      min_red_stride = std::min(min_red_stride, a.strides[i]);
    } else {
      p.map.kdims[p.map.nk] = a.dims[i];
      p.map.kstr[p.map.nk++] = a.strides[i];
      last_kept_stride = a.strides[i];
    }
  }
  merge_dims(p.map.nk, p.map.kdims, p.map.kstr);
  merge_dims(p.map.nr, p.map.rdims, p.map.rstr);
  if (p.map.nk == 0) {  // a single output: base 0
    p.map.nk = 1;
    p.map.kdims[0] = 1;
    p.map.kstr[0] = 0;
  }
  if (p.map.nr == 0) {
    p.map.nr = 1;
    p.map.rdims[0] = 1;
    p.map.rstr[0] = 0;
  }
  const DeviceInfo& d = device_info(device);
  const int64_t sms = std::max(1, d.sm_count);
  // Adjacent outputs adjacent in A: threads of a warp read neighbouring elements.
  const bool coalesced_outputs = last_kept_stride <= min_red_stride;
  if (p.K <= 32 || (coalesced_outputs && p.M >= sms * kBlock)) {
    p.kind = Kind::per_thread;
  } else if (p.M >= 2 * sms || p.K < 16384) {
    p.kind = Kind::per_block;
    p.chunk = p.K;
  } else {
    p.kind = Kind::split;
    const int64_t want_blocks = sms * 4;
    p.parts = std::min((want_blocks + p.M - 1) / p.M, (p.K + 4095) / 4096);
    p.parts = std::max<int64_t>(2, p.parts);
    p.chunk = (p.K + p.parts - 1) / p.parts;
  }
  // Fast paths over contiguous runs of the innermost reduced dim.
  const int64_t L = p.map.rdims[p.map.nr - 1], is = p.map.rstr[p.map.nr - 1];
  if (p.kind != Kind::per_thread && is == 1) {
    if (p.map.nr == 1 && p.K <= 4096) {
      p.kind = Kind::per_block;
      p.warp = true;
    } else if (L >= 128) {
      p.rows = true;
      p.L = L;
      p.inner_stride = is;
      const int64_t R = p.K / L;
      const int64_t want = (sms * 8 + p.M - 1) / p.M;  // blocks per output for ~8 blocks per SM
      if (want >= 2 && R >= 2) {
        p.kind = Kind::split;
        p.parts = std::min(R, want);
        p.chunk = (R + p.parts - 1) / p.parts;
        p.parts = (R + p.chunk - 1) / p.chunk;  // no empty part
      } else {
        p.kind = Kind::per_block;
        p.parts = 1;
        p.chunk = R;
      }
    }
  }
  return p;
}

// ADD / AVG whose reduced dims are one contiguous run of a packed A between kept dims: A is [Q][R][I] in memory
// (kept dims outside, reduced dims in the middle, kept dims inside, each group in the logical order) and C packed in
// logical order, so output (q, i) is C element q * I + i. NCHW 64x2048x7x7 -> 64x2048x1x1: Q = 131072, R = 49, I = 1;
// the same from NHWC: Q = 64, R = 49, I = 2048. One pass of plane_sum, no workspace. False when it does not apply.
bool plane_sum_args(const cudnnReduceTensorStruct& r, const cudnnTensorStruct& a, const void* ap,
                    const cudnnTensorStruct& c, void* cp, double alpha, double beta, PlaneSumArgs* out) {
  if (r.op != CUDNN_REDUCE_TENSOR_ADD && r.op != CUDNN_REDUCE_TENSOR_AVG) return false;
  if (a.vect() != 1 || c.vect() != 1 || !make_bview(c).packed) return false;
  int idx[CUDNN_DIM_MAX];
  int n = 0;
  for (int i = 0; i < a.nb_dims; ++i)
    if (a.dims[i] > 1) idx[n++] = i;
  std::sort(idx, idx + n, [&](int x, int y) { return a.strides[x] > a.strides[y]; });  // memory order
  int64_t s = 1;
  for (int k = n - 1; k >= 0; --k) {
    if (a.strides[idx[k]] != s) return false;  // not packed
    s *= a.dims[idx[k]];
  }
  int64_t Q = 1, R = 1, I = 1;
  int phase = 0, last_kept = -1;  // phase 0: outer kept dims, 1: reduced dims, 2: inner kept dims
  for (int k = 0; k < n; ++k) {
    const int d = idx[k];
    if (c.dims[d] != 1) {
      if (d < last_kept) return false;  // kept dims out of logical order
      last_kept = d;
      if (phase == 0) {
        Q *= a.dims[d];
      } else {
        phase = 2;
        I *= a.dims[d];
      }
    } else {
      if (phase == 2) return false;
      phase = 1;
      R *= a.dims[d];
    }
  }
  if (phase == 0) return false;  // nothing reduced
  PlaneSumArgs ps;
  ps.xt = dtype_scalar(a.dtype);
  ps.x = ap;
  ps.Q = Q;
  ps.R = R;
  ps.I = I;
  ps.divisor = r.op == CUDNN_REDUCE_TENSOR_AVG ? R : 1;
  ps.ot = dtype_scalar(c.dtype);
  ps.out = cp;
  ps.D = 1;
  ps.s0 = I;
  ps.si = 1;
  ps.alpha = alpha;
  ps.beta = beta;
  *out = ps;
  return true;
}

size_t split_bytes(const Plan& p) {
  return p.kind == Kind::split ? static_cast<size_t>(p.M * p.parts) * sizeof(Acc<double>) : 0;
}

}  // namespace

size_t reduce_workspace_size(int device, const cudnnReduceTensorStruct& r, const cudnnTensorStruct& a,
                             const cudnnTensorStruct& c) {
  size_t bytes = split_bytes(make_plan(device, a, c));  // also what the fallback from the channel path needs
  ChannelPlan chp;
  if (!r.wants_indices() && channel_plan(device, r, a, c, &chp)) bytes = std::max(bytes, channel_workspace(chp));
  return bytes;
}

cudnnStatus_t reduce_tensor(cudaStream_t stream, int device, const cudnnReduceTensorStruct& r,
                            const cudnnTensorStruct& a, const void* ap, const cudnnTensorStruct& c, void* cp,
                            double alpha, double beta, uint32_t* indices, void* workspace, size_t workspace_bytes) {
  if (a.element_count() == 0 || c.element_count() == 0) return CUDNN_STATUS_SUCCESS;
  PlaneSumArgs ps;
  if (indices == nullptr && plane_sum_args(r, a, ap, c, cp, alpha, beta, &ps) && plane_sum_ok(ps, device))
    return plane_sum(stream, device, ps);
  ChannelPlan chp;
  if (indices == nullptr && channel_plan(device, r, a, c, &chp) &&
      channel_can_run(chp, a, ap, workspace, workspace_bytes))
    return channel_reduce(stream, device, chp, r, a, ap, c, cp, alpha, beta, workspace);
  Plan p = make_plan(device, a, c);
  if (p.M == 0 || p.K == 0) return CUDNN_STATUS_SUCCESS;
  if (p.kind == Kind::split &&
      (workspace == nullptr || workspace_bytes < split_bytes(p) || !aligned16(workspace))) {
    p.kind = Kind::per_block;  // not enough workspace: one block per output
    p.parts = 1;
    p.chunk = p.rows ? p.K / p.L : p.K;
  }
  const OpInfo o{static_cast<int>(r.op), r.nan_opt == CUDNN_PROPAGATE_NAN, p.K,
                 r.op == CUDNN_REDUCE_TENSOR_NORM2 && !r.sum_of_squares};
  const BView cv = make_bview(c);
  const cudnnDataType_t at = dtype_scalar(a.dtype), ct = dtype_scalar(c.dtype);
  auto launch = [&](auto zero) -> cudnnStatus_t {
    using C = decltype(zero);
    const C al = static_cast<C>(alpha), be = static_cast<C>(beta);
    if (p.kind == Kind::per_thread) {
      reduce_per_thread<C><<<grid_size(p.M, kBlock, device), kBlock, 0, stream>>>(o, p.map, at, ap, p.M, cv, ct, cp,
                                                                                  al, be, indices);
      FD_CUDA_LAUNCHED();
      return CUDNN_STATUS_SUCCESS;
    }
    if (p.warp) {
      reduce_per_warp<C><<<grid_size(p.M * 32, kBlock, device), kBlock, 0, stream>>>(o, p.map, at, ap, p.M, cv, ct,
                                                                                     cp, al, be, indices);
      FD_CUDA_LAUNCHED();
      return CUDNN_STATUS_SUCCESS;
    }
    Acc<C>* partial = p.kind == Kind::split ? static_cast<Acc<C>*>(workspace) : nullptr;
    if (p.rows) {
      const int64_t rblocks = std::min<int64_t>(p.M * p.parts, int64_t(device_info(device).sm_count) * 8);
      reduce_rows<C><<<static_cast<int>(std::max<int64_t>(1, rblocks)), kBlock, 0, stream>>>(
          o, p.map, at, ap, p.M, p.parts, p.chunk, p.L, p.inner_stride, cv, ct, cp, al, be, indices, partial);
      FD_CUDA_LAUNCHED();
      if (partial) {
        reduce_combine<C><<<grid_size(p.M, kBlock, device), kBlock, 0, stream>>>(o, partial, p.M, p.parts, cv, ct,
                                                                                 cp, al, be, indices);
        FD_CUDA_LAUNCHED();
      }
      return CUDNN_STATUS_SUCCESS;
    }
    const int64_t blocks = std::min<int64_t>(p.M * p.parts, int64_t(device_info(device).sm_count) * 8 + 1);
    reduce_per_block<C><<<static_cast<int>(std::max<int64_t>(1, blocks)), kBlock, 0, stream>>>(
        o, p.map, at, ap, p.M, p.parts, p.chunk, cv, ct, cp, al, be, indices, partial);
    FD_CUDA_LAUNCHED();
    if (partial) {
      reduce_combine<C><<<grid_size(p.M, kBlock, device), kBlock, 0, stream>>>(o, partial, p.M, p.parts, cv, ct, cp,
                                                                               al, be, indices);
      FD_CUDA_LAUNCHED();
    }
    return CUDNN_STATUS_SUCCESS;
  };
  return r.comp_type == CUDNN_DATA_DOUBLE ? launch(double{}) : launch(float{});
}

}  // namespace fd::cuda
