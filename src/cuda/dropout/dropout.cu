// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Dropout on the GPU: one thread per logical element, tensors through their strides (any layout), storage type as a
// runtime value, compute in float (double for DOUBLE) as the CPU backend.
#include "cuda/dropout/dropout.h"

#include <cstddef>

#include "core/dropout_rng.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/dyn_tensor.cuh"

namespace fd::cuda {
namespace {

constexpr int kBlock = 256;

template <class C>
C scale_of(float p) {
  return p >= 1.0f ? C(0) : C(1) / (C(1) - static_cast<C>(p));
}

template <class C>
__global__ void dropout_fwd(cudnnDataType_t t, TensorView xv, const void* x, TensorView yv, void* y, uint8_t* mask,
                            int64_t n, double p, C scale, uint64_t seed, uint64_t counter, uint64_t* counter_out) {
  const int64_t t0 = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (t0 == 0 && counter_out != nullptr) *counter_out = counter + 1;
  for (int64_t i = t0; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const bool keep = p < 1.0 && dropout_uniform(seed, counter, static_cast<uint64_t>(i)) >= p;
    mask[i] = keep ? 1 : 0;
    const C v = keep ? load_dyn<C>(t, x, xv.offset(i)) * scale : C(0);
    store_dyn<C>(t, y, yv.offset(i), v);
  }
}

template <class C>
__global__ void dropout_bwd(cudnnDataType_t t, TensorView gv, const void* dy, TensorView dxv, void* dx,
                            const uint8_t* mask, int64_t n, C scale) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const C v = mask[i] ? load_dyn<C>(t, dy, gv.offset(i)) * scale : C(0);
    store_dyn<C>(t, dx, dxv.offset(i), v);
  }
}

}  // namespace

cudnnStatus_t dropout_write_states(cudaStream_t stream, void* states, const DropoutState& state) {
  FD_CUDA_CHECK(cudaMemcpyAsync(states, &state, sizeof(DropoutState), cudaMemcpyHostToDevice, stream));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t dropout_read_states(cudaStream_t stream, const void* states, DropoutState* out) {
  FD_CUDA_CHECK(cudaMemcpyAsync(out, states, sizeof(DropoutState), cudaMemcpyDeviceToHost, stream));
  FD_CUDA_CHECK(cudaStreamSynchronize(stream));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t dropout_forward(cudaStream_t stream, int device, float p, uint64_t seed, uint64_t counter,
                              void* states, const cudnnTensorStruct& xd, const void* x, const cudnnTensorStruct& yd,
                              void* y, uint8_t* mask) {
  const int64_t n = xd.element_count();
  uint64_t* counter_out =
      states ? reinterpret_cast<uint64_t*>(static_cast<char*>(states) + offsetof(DropoutState, counter)) : nullptr;
  const int grid = grid_size(n > 0 ? n : 1, kBlock, device);
  const TensorView xv = make_view(xd), yv = make_view(yd);
  if (xd.dtype == CUDNN_DATA_DOUBLE)
    dropout_fwd<double><<<grid, kBlock, 0, stream>>>(xd.dtype, xv, x, yv, y, mask, n, p, scale_of<double>(p), seed,
                                                     counter, counter_out);
  else
    dropout_fwd<float><<<grid, kBlock, 0, stream>>>(xd.dtype, xv, x, yv, y, mask, n, p, scale_of<float>(p), seed,
                                                    counter, counter_out);
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t dropout_backward(cudaStream_t stream, int device, float p, const cudnnTensorStruct& dyd, const void* dy,
                               const cudnnTensorStruct& dxd, void* dx, const uint8_t* mask) {
  const int64_t n = dyd.element_count();
  if (n == 0) return CUDNN_STATUS_SUCCESS;
  const int grid = grid_size(n, kBlock, device);
  const TensorView gv = make_view(dyd), dxv = make_view(dxd);
  if (dyd.dtype == CUDNN_DATA_DOUBLE)
    dropout_bwd<double><<<grid, kBlock, 0, stream>>>(dyd.dtype, gv, dy, dxv, dx, mask, n, scale_of<double>(p));
  else
    dropout_bwd<float><<<grid, kBlock, 0, stream>>>(dyd.dtype, gv, dy, dxv, dx, mask, n, scale_of<float>(p));
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda
