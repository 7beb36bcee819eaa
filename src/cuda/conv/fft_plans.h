// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The per-handle cache of cuFFT plans of cuda:fft (cudnnContext::fft_plans): plans are made once per shape and
// reused; they never allocate their work area (the caller's convolution workspace is bound at each run).
#pragma once

namespace fd::cuda::conv {

// Destroys every plan of a handle's cache (`cache` is cudnnContext::fft_plans; null is fine).
void destroy_fft_plans(void* cache);

}  // namespace fd::cuda::conv
