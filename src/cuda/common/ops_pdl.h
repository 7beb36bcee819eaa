// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Programmatic dependent launch across API calls, for the memory-bound kernels (activation, op tensor / add tensor,
// transform blend, batch norm, pooling, softmax, reductions, the depthwise convolutions, the convolutions' layout
// copies and finishing passes; docs/tuning-knobs.md lists them): where the device runs the library's compute
// capability 9.x code (DeviceInfo::sm90_code: elsewhere the waits are not compiled in) they launch as dependents of
// whatever kernel precedes them on the stream (pdl.cuh), unless FREEDNN_OPS_PDL=0 (read at every call).
// Why: back to back, as in a network's chain of small ops, the next call's launch then overlaps the end of the
// previous kernel (run 31, H100: plain launches took 1.06-1.09x the time on the ops batch's non-elementwise lines and
// on MobileNet-v2's depthwise layers). The kernels wait (pdl_wait) before touching global memory, so any
// predecessor's writes are visible to them (tools/check_pdl.py checks the waits). Some allow their dependents
// early (the batch-norm statistics, the max-pooling rows): safe, as a dependent's wait is for the whole grid.
#pragma once
#include "core/env.h"
#include "cuda/common/cuda_util.h"

namespace fd::cuda {

inline bool ops_pdl(int device) {
  return fd::env_string("FREEDNN_OPS_PDL") != "0" && device_info(device).sm90_code;
}

// ops_pdl on the current device, for helpers handed a stream only (a call runs with its handle's device current).
inline bool ops_pdl_current() {
  int device = 0;
  return cudaGetDevice(&device) == cudaSuccess && ops_pdl(device);
}

}  // namespace fd::cuda
