// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// CUDA dropout: the semantics of src/cpu/dropout/dropout.h (same hash from core/dropout_rng.h, so the same seed
// and counter give the same mask on both backends; reserve space: one byte per element of x in logical order,
// 1 keep, 0 drop). Device pointers, asynchronous on `stream` except dropout_read_states.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/dropout_desc.h"
#include "core/tensor_desc.h"

namespace fd::cuda {

// Copies `state` (host memory that stays alive: the descriptor's mirror) into the device states buffer.
cudnnStatus_t dropout_write_states(cudaStream_t stream, void* states, const DropoutState& state);
// Reads the device states buffer into *out; waits for `stream` (used by cudnnRestoreDropoutDescriptor only).
cudnnStatus_t dropout_read_states(cudaStream_t stream, const void* states, DropoutState* out);

// Forward with call counter `counter`; the kernel also stores counter + 1 into the device states' counter field.
cudnnStatus_t dropout_forward(cudaStream_t stream, int device, float p, uint64_t seed, uint64_t counter,
                              void* states, const cudnnTensorStruct& xd, const void* x, const cudnnTensorStruct& yd,
                              void* y, uint8_t* mask);
cudnnStatus_t dropout_backward(cudaStream_t stream, int device, float p, const cudnnTensorStruct& dyd, const void* dy,
                               const cudnnTensorStruct& dxd, void* dx, const uint8_t* mask);

}  // namespace fd::cuda
