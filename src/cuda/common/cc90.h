// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The one device check of the sm_90a kernels (wgmma, TMA, setmaxnreg): their code runs on compute capability 9.0
// only. Defined in cuda_util.cpp.
#pragma once
#include <cudnn.h>

namespace fd::cuda {

// Whether `device` is compute capability 9.0.
bool is_cc90(int device);
// NOT_SUPPORTED, with the reason logged under `who`, unless `device` is compute capability 9.0; else success.
cudnnStatus_t require_cc90(int device, const char* who);

}  // namespace fd::cuda
