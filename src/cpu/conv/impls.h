// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include "dispatch/conv_registry.h"

// The CPU convolution implementations, one per file; the registry lists them in this order.
namespace fd::cpu::conv {
const fd::conv::ConvImpl* winograd_impl();     // cpu:winograd_f2x3
const fd::conv::ConvImpl* im2col_gemm_impl();  // cpu:im2col_gemm
const fd::conv::ConvImpl* direct_impl();       // cpu:direct
}  // namespace fd::cpu::conv
