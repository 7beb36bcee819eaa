// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The machine's own yardsticks, measured in the same run: copy bandwidth (device-to-device copy on a GPU,
// memcpy on the CPU; bytes read + written per second) and GEMM throughput per data type (cuBLAS, loaded with
// dlopen, on a GPU: f16 / bf16 with f32 accumulation on the tensor cores, f32 as TF32 where the problem allows TF32
// else plain f32, f64; a blocked OpenMP kernel on the CPU). Each is measured once per run, on first use.
#pragma once
#include <cudnn.h>

namespace bench {

double copy_bandwidth_gbs(bool device);
// Milliseconds that `launches` back-to-back copies (device-to-device on a GPU, memcpy on the CPU) take to move
// `bytes` in all (read + written, bytes / (2 x launches) per copy), timed like an operation: warm-up, buffers rotated
// past the cache, cache flushed before each sample, median. The size-matched yardstick of a memory-bound case (its
// moved bytes in its passes): at a few MB even a copy stays below the large-copy bandwidth. Cached per size.
double same_size_copy_ms(bool device, double bytes, int launches);
// 0 when unknown (no cuBLAS, a type without a GEMM). tf32: the f32 figure with TF32 tensor cores.
double gemm_peak_tflops(bool device, cudnnDataType_t t, bool tf32 = false);

}  // namespace bench
