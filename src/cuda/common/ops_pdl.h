// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Programmatic dependent launch across API calls, for the memory-bound op kernels (the dense activation, op tensor /
// add tensor and transform blend): FREEDNN_OPS_PDL=1 (opt-in, read at every call; compute capability 9.0 or later)
// launches them as dependents of whatever kernel precedes them on the stream (pdl.cuh). Why: back to back, as in a
// network's chain of small ops, the next call's launch then overlaps the end of the previous kernel; on ResNet-50's
// 7x7 / 14x14 activations a launch gap is a tenth or more of the call (run 28: 70-81 % of the copy bandwidth).
// The kernels wait (pdl_wait) before touching global memory, so any predecessor's writes are visible to them, and
// allow their own dependents only after their last access.
#pragma once
#include "core/env.h"
#include "cuda/common/cuda_util.h"

namespace fd::cuda {

inline bool ops_pdl(int device) {
  return fd::env_string("FREEDNN_OPS_PDL") == "1" && device_info(device).cc_major >= 9;
}

}  // namespace fd::cuda
