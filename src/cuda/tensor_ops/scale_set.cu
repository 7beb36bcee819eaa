// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cudnnScaleTensor and cudnnSetTensor on the GPU: one pass over y, 16-byte accesses when y is packed.
#include <cstring>

#include "core/dtype.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/tensor_ops/tensor_ops.h"

namespace fd::cuda {
namespace {

constexpr int kBlock = 256;

template <class S, class C>
__global__ void scale_strided(TensorView y, S* yp, int64_t n, C alpha) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t off = y.offset(i);
    Storage<S>::store(yp, off, alpha * Storage<S>::load(yp, off));
  }
}

// Packed y whose byte size is a multiple of 16 and whose base is 16-byte aligned: whole 16-byte chunks.
template <class S, class C>
__global__ void scale_packed16(S* yp, int64_t chunks, C alpha) {
  constexpr int kPer = 16 / sizeof(S);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < chunks; i += int64_t(gridDim.x) * blockDim.x) {
    uint4 raw = reinterpret_cast<const uint4*>(yp)[i];
    S* v = reinterpret_cast<S*>(&raw);
#pragma unroll
    for (int k = 0; k < kPer; ++k) Storage<S>::store(v, k, alpha * Storage<S>::load(v, k));
    reinterpret_cast<uint4*>(yp)[i] = raw;
  }
}

template <class S>
__global__ void fill_strided(TensorView y, S* yp, int64_t n, S value) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    yp[y.offset(i)] = value;
}

bool packed16(const cudnnTensorStruct& d, const void* p) {
  return make_view(d).row_major_packed && (reinterpret_cast<uintptr_t>(p) % 16 == 0) &&
         (d.size_in_bytes() % 16 == 0);
}

}  // namespace

cudnnStatus_t scale_tensor(cudaStream_t stream, int device, const cudnnTensorStruct& y, void* yp, double alpha) {
  const TensorView v = make_view(y);
  const int64_t n = y.element_count();
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  const bool known = with_storage_type(y.dtype, [&](auto tag) {
    using S = decltype(tag);
    using C = decltype(Storage<S>::load(nullptr, 0));
    S* p = static_cast<S*>(yp);
    if (packed16(y, yp)) {
      const int64_t chunks = static_cast<int64_t>(y.size_in_bytes() / 16);
      scale_packed16<S, C><<<grid_size(chunks, kBlock, device), kBlock, 0, stream>>>(p, chunks, static_cast<C>(alpha));
    } else {
      scale_strided<S, C><<<grid_size(n, kBlock, device), kBlock, 0, stream>>>(v, p, n, static_cast<C>(alpha));
    }
  });
  FD_CHECK_SUPPORTED(known, "no CUDA cudnnScaleTensor for %s", enum_name(y.dtype));
  FD_CUDA_LAUNCHED();
  return status;
}

cudnnStatus_t set_tensor(cudaStream_t stream, int device, const cudnnTensorStruct& y, void* yp, const void* value) {
  const TensorView v = make_view(y);
  const int64_t n = y.element_count();
  const bool known = with_storage_type(y.dtype, [&](auto tag) {
    using S = decltype(tag);
    S val;
    std::memcpy(&val, value, sizeof(S));
    fill_strided<S><<<grid_size(n, kBlock, device), kBlock, 0, stream>>>(v, static_cast<S*>(yp), n, val);
  });
  FD_CHECK_SUPPORTED(known, "no CUDA cudnnSetTensor for %s", enum_name(y.dtype));
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda
