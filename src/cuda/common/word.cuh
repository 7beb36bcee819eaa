// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The unsigned word of B bytes (4, 8 or 16) that moves B bytes in one load or store: the vector accesses of the
// copies, gathers and row kernels.
#pragma once
#include <cstdint>

namespace fd::cuda {

template <int B> struct WordOfBytes;
template <> struct WordOfBytes<4> { using type = uint32_t; };
template <> struct WordOfBytes<8> { using type = uint2; };
template <> struct WordOfBytes<16> { using type = uint4; };
template <int B> using word_t = typename WordOfBytes<B>::type;

}  // namespace fd::cuda
