// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Programmatic dependent launch (compute capability 9.0): a kernel launched with launch_pdl(pdl = true) may start
// while the kernel queued before it on the stream is still running, so its launch and block start-up overlap that
// kernel's tail. The earlier kernel calls pdl_allow_dependents() once its blocks need no more SM room for the
// dependent to wait on (or not at all: then the dependent starts as that grid ends); the dependent calls pdl_wait()
// before it touches anything the earlier kernel writes (or anything it reads). Launched without the attribute, both
// calls are no-ops. A kernel launched as a dependent must call pdl_wait() on every path that reads or writes global
// memory shared with the chain.
#pragma once
#include <cuda_runtime.h>

namespace fd::cuda {

__device__ __forceinline__ void pdl_allow_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// Waits until the grid this one depends on has completed and its memory operations are visible.
__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// kern<<<grid, block, smem, st>>>(args...), as a programmatic dependent of the previous kernel on st when pdl.
// Like a <<<>>> launch, a failure is left for cudaGetLastError (FD_CUDA_LAUNCHED) as well as returned.
template <class... P, class... A>
cudaError_t launch_pdl(bool pdl, void (*kern)(P...), dim3 grid, dim3 block, size_t smem, cudaStream_t st,
                       A&&... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = st;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = pdl ? 1 : 0;
  return cudaLaunchKernelEx(&cfg, kern, static_cast<A&&>(args)...);
}

}  // namespace fd::cuda
