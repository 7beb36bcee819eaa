// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:cutlass_sm90_wgrad: backward filter (dw, a GEMM over N*P*Q) on Hopper tensor cores (CUTLASS 3.x implicit
// GEMM, TMA im2col + wgmma; sm90_impl.h lists what it accepts). Serves CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1.
// Kernels: 128x128x64 tiles, 64x128x64 when K <= 64.
#include "cuda/conv/cutlass/sm90/sm90_impl.h"
#include "cuda/conv/impls.h"

#include <string>

#include "core/env.h"

namespace fd::cuda::conv {
namespace {

sm90::KernelSet wgrad_kernels() {
  return {&sm90::wgrad_f16_128x128, &sm90::wgrad_f16_64x128, &sm90::wgrad_bf16_128x128, &sm90::wgrad_bf16_64x128,
          nullptr, nullptr, [](const fd::ConvProblem& p) { return p.oc; }};
}

class CutlassSm90Wgrad final : public sm90::Sm90ConvImpl {
 public:
  CutlassSm90Wgrad()
      : Sm90ConvImpl("cuda:cutlass_sm90_wgrad", fd::ConvDir::bwd_filter, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1,
                     wgrad_kernels()) {}

  // These kernels give each dw tile one CTA that walks the whole N*P*Q reduction (no split-K). Measured on the
  // H200 (docs/perf/conv-h200.md, ResNet-50 at N=64): 336-618 TFLOP/s with 64-144 tiles, 5-65 TFLOP/s with 1-9
  // tiles, where most of the 132 SMs idle. Below the threshold the split-K cuda:cutlass_sm80_wgrad, which serves
  // the same algorithm, takes the problem. FREEDNN_SM90_WGRAD_MIN_TILES overrides it (the tests set 1).
  fd::conv::Verdict applicable(const fd::ConvProblem& p) const override {
    const fd::conv::Verdict v = Sm90ConvImpl::applicable(p);
    if (!v.ok()) return v;
    const int64_t tile_m = p.oc <= 64 ? 64 : 128;
    const int64_t tiles = (p.oc + tile_m - 1) / tile_m * ((p.icg() * p.ksp() + 127) / 128);
    const long long min_tiles = fd::env_int("FREEDNN_SM90_WGRAD_MIN_TILES", kMinTiles);
    if (tiles < min_tiles)
      return no("dw has " + std::to_string(tiles) + " output tiles (< " + std::to_string(min_tiles) +
                "): without split-K most SMs would idle; the split-K sm80 kernel serves it");
    return {};
  }

 private:
  static constexpr long long kMinTiles = 48;
};

}  // namespace

const fd::conv::ConvImpl* cutlass_sm90_wgrad_impl() {
  static const CutlassSm90Wgrad impl;
  return &impl;
}

}  // namespace fd::cuda::conv
