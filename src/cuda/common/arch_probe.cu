// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Which of the library's builds of its kernels the current device runs (cuda_util.cpp's DeviceInfo::sm90_code).
// pdl.cuh's waits and the cluster kernels' bodies exist only in the compute capability 9.x code; a device that the
// build has no 9.x code for (e.g. 10.x with the default "90a 80": the driver compiles the compute_80 PTX) runs
// kernels without them, so those must not be launched as programmatic dependents or as clusters there.
#include <cuda_runtime.h>

namespace fd::cuda {

namespace {
__global__ void arch_probe_kernel() {}
}  // namespace

bool current_device_runs_sm90_code() {
  cudaFuncAttributes fa{};
  if (cudaFuncGetAttributes(&fa, arch_probe_kernel) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return fa.ptxVersion >= 90;  // the virtual architecture the loaded code was compiled from
}

}  // namespace fd::cuda
