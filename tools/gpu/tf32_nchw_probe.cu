// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// A question for the GPU, not part of the library: can a CUTLASS 3 GEMM read ResNet-50's TF32 NCHW 1x1 operands
// where they lie? Hopper's TF32 wgmma reads only K-major operands from shared memory, so today the float paths
// transpose dy to NHWC first (cutlass_sm90_dgrad: run 22's ncu had that copy at 12-40 us of 48-66 us layers) or
// run cuBLASLt's per-image GEMMs (gemm_1x1: 107-134 us on the 7x7 layers). CUTLASS's sm90 collectives take
// MN-major TF32 operands by loading A through registers (the RS mainloop, which transposes as it goes) and B with a
// transposing warp. Per image n, in column-major terms (M = the image's pixels, contiguous in NCHW):
//   backward data: dx[n] (HW x C) = dy[n] (HW x K) * W (K x C, C contiguous: MN-major)
//   forward:       y[n]  (HW x K) = x[n]  (HW x C) * W^T (C x K, C contiguous: K-major)
// batched over the 64 images, writing NCHW directly: no copy before or after. Two kernels per direction: TMA
// (planes of a multiple of 4 pixels: 16-byte aligned rows) and cp.async with 4-byte alignment (7x7 planes, 49
// pixels). Prints the median of 25 runs after warm-up (CUDA events, 4 rotating buffer sets) and TFLOP/s; checks
// one sample column against a double-precision sum on the host.
// Build (from the repository root): nvcc -O3 -std=c++20 -arch=sm_90a --expt-relaxed-constexpr \
//   -I .deps/cutlass/include tools/gpu/tf32_nchw_probe.cu -o tf32_nchw_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"

#define CK(x) do { auto e_ = (x); if (e_ != 0) { std::printf("error %d at %s:%d\n", int(e_), __FILE__, __LINE__); std::exit(1); } } while (0)

namespace {

using namespace cute;
constexpr int kSets = 4, kReps = 25;

// Layout tags of B: backward data reads W as K x C with C contiguous (RowMajor: MN-major), the forward as C x K
// with C contiguous (ColumnMajor: K-major).
template <class LayoutB, bool kTma>
struct Probe {
  using LayoutA = cutlass::layout::ColumnMajor;  // pixels contiguous: MN-major
  using LayoutD = cutlass::layout::ColumnMajor;
  static constexpr int kAlign = kTma ? 4 : 1;
  using Tile = Shape<_128, _128, _32>;
  using Cluster = Shape<_1, _1, _1>;
  using EpiSchedule = std::conditional_t<kTma, cutlass::epilogue::TmaWarpSpecializedCooperative,
                                         cutlass::epilogue::NoSmemWarpSpecialized>;
  using MainSchedule = std::conditional_t<kTma, cutlass::gemm::KernelTmaWarpSpecializedCooperative,
                                          cutlass::gemm::KernelCpAsyncWarpSpecializedCooperative>;
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Tile, Cluster, cutlass::epilogue::collective::EpilogueTileAuto,
      float, float, float, LayoutD, kAlign, float, LayoutD, kAlign, EpiSchedule>::CollectiveOp;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, float, LayoutA, kAlign, float, LayoutB, kAlign, float, Tile,
      Cluster,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      MainSchedule>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
  using StrideA = typename Gemm::GemmKernel::StrideA;
  using StrideB = typename Gemm::GemmKernel::StrideB;
  using StrideD = typename Gemm::GemmKernel::StrideD;
};

struct Layer { int c, k, s; };  // dx / x channels, dy / y channels, pixels per image

template <class F>
float median_ms(F&& run) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) run(i % kSets);
  std::vector<float> t;
  for (int i = 0; i < kReps; ++i) {
    CK(cudaEventRecord(a));
    run(i % kSets);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return t[t.size() / 2];
}

// out (n, j, hw) = sum_r act(n, r, hw) * w(r, j): one GEMM per image, act and out NCHW planes, w given by its
// strides (r, j). bwd: act = dy (R = K), out = dx (J = C), w(k, c) = W[k][c]; fwd: act = x (R = C), out = y (J = K),
// w(c, k) = W[k][c].
template <class P>
bool run_probe(const char* dir, const Layer& l, int N, int R, int J, int64_t w_r, int64_t w_j, float* const* act,
               const float* w, float* const* out, const std::vector<float>& h_act, const std::vector<float>& h_w) {
  using Gemm = typename P::Gemm;
  typename P::StrideA sa{};
  typename P::StrideB sb{};
  typename P::StrideD sd{};
  // A (M = hw, K = r, L = n): hw stride 1, r stride HW, image stride R * HW.
  sa = make_stride(Int<1>{}, int64_t(l.s), int64_t(R) * l.s);
  // B (N = j, K = r, L): strides from w's, no image stride.
  if constexpr (is_static<std::remove_cvref_t<decltype(get<0>(sb))>>::value)  // j contiguous (MN-major)
    sb = make_stride(Int<1>{}, w_r, int64_t(0));
  else  // r contiguous (K-major)
    sb = make_stride(w_j, Int<1>{}, int64_t(0));
  sd = make_stride(Int<1>{}, int64_t(l.s), int64_t(J) * l.s);
  typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm,
                                {l.s, J, R, N},
                                {act[0], sa, w, sb},
                                {{1.0f, 0.0f}, out[0], sd, out[0], sd}};
  Gemm gemm;
  if (gemm.can_implement(args) != cutlass::Status::kSuccess) {
    std::printf("%-5s c%-5d k%-5d hw%-5d  cannot implement\n", dir, l.c, l.k, l.s);
    return false;
  }
  const size_t ws_bytes = Gemm::get_workspace_size(args);
  void* ws = nullptr;
  if (ws_bytes) CK(cudaMalloc(&ws, ws_bytes));
  auto go = [&](int i) {
    args.mainloop.ptr_A = act[i];
    args.epilogue.ptr_C = out[i];
    args.epilogue.ptr_D = out[i];
    if (gemm.initialize(args, ws) != cutlass::Status::kSuccess || gemm.run() != cutlass::Status::kSuccess) {
      std::printf("run failed\n");
      std::exit(1);
    }
  };
  const float ms = median_ms(go);
  // check column j0 of image n0 (set 0) against a double sum on the host
  go(0);
  CK(cudaDeviceSynchronize());
  const int n0 = N - 1, j0 = J / 3;
  std::vector<float> col(l.s);
  CK(cudaMemcpy(col.data(), out[0] + (int64_t(n0) * J + j0) * l.s, l.s * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int hw = 0; hw < l.s; ++hw) {
    double ref = 0, mag = 0;
    for (int r = 0; r < R; ++r) {
      const double t = double(h_act[(int64_t(n0) * R + r) * l.s + hw]) * h_w[r * w_r + j0 * w_j];
      ref += t, mag += std::fabs(t);
    }
    worst = std::max(worst, std::fabs(col[hw] - ref) / std::max(mag, 1e-30));
  }
  const double flops = 2.0 * N * l.s * double(J) * R;
  std::printf("%-5s c%-5d k%-5d hw%-5d %-4s %8.4f ms %7.1f TFLOP/s  rel.err %.1e%s\n", dir, l.c, l.k, l.s,
              P::kAlign == 4 ? "tma" : "cpa", ms, flops / ms / 1e9, worst, worst < 3e-3 ? "" : "  WRONG");
  if (ws) CK(cudaFree(ws));
  return true;
}

}  // namespace

int main() {
  const int N = 64;
  // ResNet-50's stride-1 1x1 layers (c: the input's channels, k: the output's).
  const std::vector<Layer> layers = {{64, 64, 3136},   {64, 256, 3136},  {256, 64, 3136},  {256, 128, 3136},
                                     {128, 512, 784},  {512, 128, 784},  {512, 256, 784},  {256, 1024, 196},
                                     {1024, 256, 196}, {1024, 512, 196}, {512, 2048, 49},  {2048, 512, 49}};
  int64_t most = 0;
  for (const Layer& l : layers) most = std::max<int64_t>(most, int64_t(N) * std::max(l.c, l.k) * l.s);
  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::printf("tf32_nchw_probe: N=%d, seed 2026, median of %d runs over %d buffer sets\n", N, kReps, kSets);
  std::vector<float> h_act(most), h_w(2048 * 2048);
  for (auto& v : h_act) v = u(rng);
  for (auto& v : h_w) v = u(rng);
  float *act[kSets], *out[kSets], *w = nullptr;
  for (int i = 0; i < kSets; ++i) {
    CK(cudaMalloc(&act[i], most * sizeof(float)));
    CK(cudaMalloc(&out[i], most * sizeof(float)));
    CK(cudaMemcpy(act[i], h_act.data(), most * sizeof(float), cudaMemcpyHostToDevice));
  }
  CK(cudaMalloc(&w, h_w.size() * sizeof(float)));
  CK(cudaMemcpy(w, h_w.data(), h_w.size() * sizeof(float), cudaMemcpyHostToDevice));
  using BwdTma = Probe<cutlass::layout::RowMajor, true>;
  using BwdCpa = Probe<cutlass::layout::RowMajor, false>;
  using FwdTma = Probe<cutlass::layout::ColumnMajor, true>;
  using FwdCpa = Probe<cutlass::layout::ColumnMajor, false>;
  for (const Layer& l : layers) {
    // backward data: act = dy (K channels), out = dx (C), w(k, c) = W[k * C + c]
    if (l.s % 4 == 0) run_probe<BwdTma>("bwd_d", l, N, l.k, l.c, l.c, 1, act, w, out, h_act, h_w);
    run_probe<BwdCpa>("bwd_d", l, N, l.k, l.c, l.c, 1, act, w, out, h_act, h_w);
    // forward: act = x (C channels), out = y (K), w(c, k) = W[k * C + c]
    if (l.s % 4 == 0) run_probe<FwdTma>("fwd", l, N, l.c, l.k, 1, l.c, act, w, out, h_act, h_w);
    run_probe<FwdCpa>("fwd", l, N, l.c, l.k, 1, l.c, act, w, out, h_act, h_w);
  }
  return 0;
}
