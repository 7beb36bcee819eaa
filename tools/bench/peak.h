// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The machine's own yardsticks, measured in the same run: copy bandwidth (device-to-device copy on a GPU,
// memcpy on the CPU; bytes read + written per second) and GEMM throughput per data type (cuBLAS on a GPU, a
// blocked OpenMP kernel on the CPU). Each is measured once, on first use.
#pragma once
#include <cudnn.h>

namespace bench {

double copy_bandwidth_gbs(bool device);
double gemm_peak_tflops(bool device, cudnnDataType_t t);  // 0 when unknown

}  // namespace bench
