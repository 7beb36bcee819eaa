// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Run 38: times the double-precision convolution reference (tests/ref) on the two shapes of the old Tf32StreamK test.
// From the repository root, after a build of build/cpu (for libfreednn_ref.a):
//   g++ -O2 -std=c++20 -fopenmp -Itests docs/perf/data/2026-12-07-run38/ref_conv_time.cpp \
//     build/cpu/tests/ref/libfreednn_ref.a -o /tmp/ref_conv_time && OMP_NUM_THREADS=1 /tmp/ref_conv_time
#include <chrono>
#include <cstdio>
#include "ref/conv.h"
int main() {
  ref::ConvParams p; p.pad = {1, 1}; p.stride = {1, 1}; p.dilation = {1, 1};
  ref::Tensor x({4, 512, 7, 7}, 0.5), w({512, 512, 3, 3}, 0.25);
  auto t0 = std::chrono::steady_clock::now();
  ref::Tensor y = ref::conv_forward(x, w, p);
  auto t1 = std::chrono::steady_clock::now();
  printf("7x7 c512 k512 n4 fwd: %.2f s (y0=%g)\n", std::chrono::duration<double>(t1 - t0).count(), y[0]);
  ref::ConvParams q; q.pad = {0, 0}; q.stride = {1, 1}; q.dilation = {1, 1};
  ref::Tensor x2({68, 256, 8, 8}, 0.5), w2({1024, 256, 1, 1}, 0.25);
  t0 = std::chrono::steady_clock::now();
  ref::Tensor y2 = ref::conv_forward(x2, w2, q);
  t1 = std::chrono::steady_clock::now();
  printf("8x8 c256 k1024 n68 fwd: %.2f s\n", std::chrono::duration<double>(t1 - t0).count());
}
