// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Pointer alignment tests of the host side: the precondition of the vector loads and stores and of TMA boxes.
#pragma once
#include <cstdint>

namespace fd::cuda {

// Whether `p` sits on a multiple of `bytes` (a power of two). A null pointer (an operand the call leaves out) passes.
inline bool aligned_to(const void* p, uintptr_t bytes) { return (reinterpret_cast<uintptr_t>(p) & (bytes - 1)) == 0; }
inline bool aligned16(const void* p) { return aligned_to(p, 16); }
inline bool aligned8(const void* p) { return aligned_to(p, 8); }

}  // namespace fd::cuda
