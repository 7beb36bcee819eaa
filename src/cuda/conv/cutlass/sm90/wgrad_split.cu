// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The split-K sm90 wgrad (wgrad_split.h has the design): the split-count model, the launch and the pass that sums
// the ranges' partial dw.
#include "cuda/conv/cutlass/sm90/wgrad_split.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "core/dtype.h"
#include "core/env.h"
#include "core/handle.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/ops_pdl.h"
#include "cuda/common/pdl.cuh"
#include "cuda/common/device_tensor.cuh"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/cutlass/sm90/sm90_impl.h"

namespace fd::cuda::conv::sm90 {
namespace {

// Model constants. Per-SM rates of one CTA: the 128x128 kernel reached ~5e12 flop/s per SM on ResNet-50's
// 512-channel 3x3 and 2048x1024 1x1 layers (one or two full waves, run 10) and 7.9e12 in each 9-CTA slice of the
// 28x28 128-channel layer (ncu, run 12), so 6.5e12 between them; the 64-row tile issues half-height wgmma from one
// warpgroup, assumed slower per SM. Host time: CUTLASS's TMA descriptors, the attribute call and the launch.
constexpr double kSmFlops128 = 6.5e12, kSmFlops64 = 3.5e12;
constexpr double kHost = 10e-6;
constexpr double kLaunch = 3e-6;  // the finish kernel
constexpr double kDramBytes = 3.5e12;

constexpr int kVec = 8;  // dw elements per thread of the finish pass: one 16-byte store of 16-bit data
constexpr int64_t kTileRows = 64;  // reduction rows per K tile (128 bytes of 16-bit data)

int tile_m(const ConvProblem& p) { return p.oc <= 64 ? 64 : 128; }

// The reduction's K tiles (N*P*Q rows, 64 per tile): the most ranges.
int64_t wgrad_k_tiles(const ConvProblem& p) { return (p.mb * p.osp() + kTileRows - 1) / kTileRows; }

size_t partial_bytes(const ConvProblem& p) {
  return ws_align_up(static_cast<size_t>(p.oc * p.ksp() * p.ic) * sizeof(float));
}

// dw = alpha * (sum over the slices' partials, slice 0 first) + beta * dw; packed KRSC, count % 8 == 0, every
// partial 256-byte aligned (stride floats apart). dw is not read when beta == 0.
template <class S>
__global__ void wgrad_split_finish_kernel(const float* __restrict__ part, int slices, int64_t stride, int64_t vecs,
                                          S* dw, float alpha, float beta) {
  pdl_wait();  // a dependent of the previous kernel on the stream (ops_pdl.h)
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < vecs; i += int64_t(gridDim.x) * blockDim.x) {
    float acc[kVec];
    const float* at = part + i * kVec;
    {
      const float4 a = reinterpret_cast<const float4*>(at)[0], b = reinterpret_cast<const float4*>(at)[1];
      acc[0] = a.x, acc[1] = a.y, acc[2] = a.z, acc[3] = a.w, acc[4] = b.x, acc[5] = b.y, acc[6] = b.z, acc[7] = b.w;
    }
    for (int j = 1; j < slices; ++j) {
      const float4* v = reinterpret_cast<const float4*>(at + j * stride);
      const float4 a = v[0], b = v[1];
      acc[0] += a.x, acc[1] += a.y, acc[2] += a.z, acc[3] += a.w;
      acc[4] += b.x, acc[5] += b.y, acc[6] += b.z, acc[7] += b.w;
    }
    blend_store_vec<S, kVec>(dw + i * kVec, acc, alpha, beta);
  }
  pdl_allow_dependents();
}

// The pass adding the partial dw of the splits (in order) into dw, on the handle's stream.
cudnnStatus_t finish_splits(const ConvProblem& p, const fd::conv::ConvArgs& a, const WgradSplit& sp, char* parts) {
  cudnnContext* h = a.handle;
  const int64_t count = p.oc * p.ksp() * p.ic, vecs = count / kVec;
  const int64_t stride = static_cast<int64_t>(sp.part_bytes / sizeof(float));
  const int grid = grid_size(vecs, kBlock, h->device);
  const auto alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
  const auto* part = reinterpret_cast<const float*>(parts);
  if (p.xdt == CUDNN_DATA_HALF)
    (void)launch_pdl(ops_pdl(h->device), wgrad_split_finish_kernel<__half>, dim3(grid), dim3(kBlock), 0, h->stream, part,
                     sp.slices, stride, vecs, static_cast<__half*>(a.out), alpha, beta);
  else
    (void)launch_pdl(ops_pdl(h->device), wgrad_split_finish_kernel<__nv_bfloat16>, dim3(grid), dim3(kBlock), 0,
                     h->stream, part, sp.slices, stride, vecs, static_cast<__nv_bfloat16*>(a.out), alpha, beta);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

int64_t wgrad_tiles(const ConvProblem& p) {
  const int64_t tm = tile_m(p);
  return (p.oc + tm - 1) / tm * ((p.ic * p.ksp() + 127) / 128);
}

double wgrad_split_seconds(const ConvProblem& p, int sm_count, int slices) {
  const int64_t tm = tile_m(p), tiles = wgrad_tiles(p), sms = std::max(sm_count, 1);
  const int64_t waves = (tiles * slices + sms - 1) / sms;
  const int64_t kt = wgrad_k_tiles(p);
  const int64_t biggest = (kt + slices - 1) / slices * kTileRows;  // the largest range's rows set a wave's length
  const double rate = tm == 64 ? kSmFlops64 : kSmFlops128;
  const double gpu = static_cast<double>(waves * biggest) * 2.0 * static_cast<double>(tm) * 128.0 / rate;
  const double es = static_cast<double>(dtype_size(p.xdt)), dw = static_cast<double>(p.oc * p.ksp() * p.ic);
  double bytes = static_cast<double>(p.mb * p.ic * p.isp() + p.mb * p.oc * p.osp()) * es + dw * es;
  if (slices > 1) bytes += 2.0 * slices * dw * sizeof(float);  // partials written, then read by the finish pass
  return std::max(gpu, kHost) + bytes / kDramBytes + (slices > 1 ? kLaunch : 0.0);
}

WgradSplit wgrad_split_plan(const ConvProblem& p, int sm_count) {
  WgradSplit sp;
  sp.tiles = wgrad_tiles(p);
  const int64_t rows = p.mb * p.osp(), kt = wgrad_k_tiles(p);  // a range holds at least one K tile
  const long long forced = env_int("FREEDNN_SM90_WGRAD_SPLITS", 0);
  if (forced > 0) {
    sp.slices = static_cast<int>(std::min<long long>({forced, kt, kMaxSplits}));
  } else {
    const int64_t most = std::min<int64_t>({kt, kMaxAutoSplits, std::max<int64_t>(1, rows / kMinSplitRows)});
    double best = wgrad_split_seconds(p, sm_count, 1);
    for (int s = 2; s <= most; ++s) {
      const double t = wgrad_split_seconds(p, sm_count, s);
      if (t < best) best = t, sp.slices = s;  // ties keep fewer ranges
    }
  }
  sp.seconds = wgrad_split_seconds(p, sm_count, sp.slices);
  if (sp.slices > 1) {
    sp.part_bytes = partial_bytes(p);
    sp.workspace = static_cast<size_t>(sp.slices) * sp.part_bytes + kWsAlign;
  }
  return sp;
}

cudnnStatus_t run_wgrad_split(const ConvProblem& p, const fd::conv::ConvArgs& a, const WgradSplit& sp,
                              const Kernel& partial) {
  const char* id = "cuda:cutlass_sm90_wgrad";
  FD_CHECK(a.handle != nullptr && sp.slices >= 2 && sp.slices <= kMaxSplits, CUDNN_STATUS_INTERNAL_ERROR,
           "%s: a split plan of %d K ranges", id, sp.slices);
  FD_CHECK_PARAM(a.workspace != nullptr && a.workspace_size >= sp.workspace,
                 "%s needs %zu bytes of workspace for %d ranges' partial sums, got %zu", id, sp.workspace, sp.slices,
                 a.workspace_size);
  // (cuda:cutlass_sm90_wgrad's accepts_pointers asks the same of a 16-bit call, split or not)
  const fd::conv::Verdict ptrs =
      need_aligned(id, 16, "TMA, vector stores", {{"x", a.in}, {"dy", a.in2}, {"dw", a.out}});
  FD_CHECK_SUPPORTED(ptrs.ok(), "%s", ptrs.reason.c_str());
  const auto at = reinterpret_cast<uintptr_t>(a.workspace);
  char* parts = reinterpret_cast<char*>((at + kWsAlign - 1) / kWsAlign * kWsAlign);
  Operands o;
  o.a = a.in2;  // CUTLASS's wgrad: A = dy, B = x
  o.b = a.in;
  o.d = parts;
  o.alpha = 1.0f, o.beta = 0.0f;
  o.stream = a.handle->stream;
  o.splits = sp.slices;
  o.d_split_stride = static_cast<int64_t>(sp.part_bytes / sizeof(float));
  const RunStatus r = partial.run(geometry(p, staging(p)), o);
  if (r == RunStatus::not_implementable)
    FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "%s: CUTLASS %s cannot implement %d K ranges of %s", id, partial.name,
            sp.slices, p.to_string().c_str());
  if (r != RunStatus::ok)
    FD_FAIL(CUDNN_STATUS_EXECUTION_FAILED, "%s: CUTLASS %s failed to launch %d K ranges (CUDA: %s)", id,
            partial.name, sp.slices, cudaGetErrorName(cudaGetLastError()));
  return finish_splits(p, a, sp, parts);
}

}  // namespace fd::cuda::conv::sm90
