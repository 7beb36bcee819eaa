// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cstdint>

namespace fd::cpu {

// Runs body(i) for i in [0, n) over the machine's cores (OpenMP underneath; OMP_NUM_THREADS limits it).
// Small loops stay on the calling thread: below `grain` iterations the fork costs more than it saves.
template <class Body>
void parallel_for(int64_t n, Body&& body, int64_t grain = 1024) {
  if (n < grain) {
    for (int64_t i = 0; i < n; ++i) body(i);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) body(i);
}

}  // namespace fd::cpu
