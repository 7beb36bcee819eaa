// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cstdint>
#include <vector>

#include "dispatch/conv_registry.h"

// What every CPU convolution implementation shares: reading the operands into packed buffers
// ([mb][c][d][h][w] for activations, [oc][ic/g][kd][kh][kw] for filters) in the compute type T, and writing the
// packed result back with alpha/beta blending or the fused epilogue. Filters are flipped on the way in (and
// dw on the way out) for CUDNN_CONVOLUTION, so the kernels only ever compute cross-correlation.
namespace fd::cpu::conv {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

template <class T>
std::vector<T> read_activation(const cudnnTensorStruct& d, const void* data);
template <class T>
std::vector<T> read_filter(const ConvProblem& p, const void* data);  // flipped for CUDNN_CONVOLUTION
// Writes the direction's output (y, dx or dw) from a packed buffer (dw is flipped back first).
template <class T>
cudnnStatus_t write_output(const ConvProblem& p, const ConvArgs& a, std::vector<T>& result);

// Runs body<T>() with T = double when the problem computes in double, else float.
template <class F>
decltype(auto) with_compute(const ConvProblem& p, F&& f) {
  if (p.computes_in_double()) return f(double{});
  return f(float{});
}

}  // namespace fd::cpu::conv
