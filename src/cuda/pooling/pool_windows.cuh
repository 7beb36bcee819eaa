// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The square max-pooling windows the register kernels are compiled for (pooling2d_nhwc.cu, pooling2d_planar.cu),
// and the host's ceiling division. Included by those .cu files only.
#pragma once
#include <cstdint>

#include "core/pooling_desc.h"

namespace fd::cuda {
namespace {

// A window as template constants: size K, stride St, padding P (the same in both dimensions).
template <int K_, int St_, int P_>
struct Cfg {
  static constexpr int K = K_, St = St_, P = P_;
};

// Calls f(Cfg<K, St, P>{}) for the supported square windows (3x3 s2 p1, 2x2 s2 p0, 3x3 s2 p0, 3x3 s1 p1); false
// for any other.
template <class F>
bool with_cfg(const cudnnPoolingStruct& p, F&& f) {
  if (p.window[0] != p.window[1] || p.stride[0] != p.stride[1] || p.padding[0] != p.padding[1]) return false;
  const int k = p.window[0], s = p.stride[0], pad = p.padding[0];
  if (k == 3 && s == 2 && pad == 1) f(Cfg<3, 2, 1>{});
  else if (k == 2 && s == 2 && pad == 0) f(Cfg<2, 2, 0>{});
  else if (k == 3 && s == 2 && pad == 0) f(Cfg<3, 2, 0>{});
  else if (k == 3 && s == 1 && pad == 1) f(Cfg<3, 1, 1>{});
  else return false;
  return true;
}

inline int64_t cdiv64(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace
}  // namespace fd::cuda
