// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cudnnScaleTensor and cudnnSetTensor on the GPU: one pass over y, 16-byte accesses when y is packed.
#include <cstring>

#include "core/dtype.h"
#include "cuda/common/aligned.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/device_tensor.cuh"
#include "cuda/common/dyn_tensor.cuh"
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

// Bit-for-bit fill: U is the unsigned integer of the scalar's size, so every type (INT64 and the vector types
// included) needs only four instantiations.
template <class U>
__global__ void fill_strided(BView y, U* yp, int64_t n, U value) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    yp[y.offset(i)] = value;
}

// Types with_storage_type does not know (INT64): computed in double through the runtime-type helpers.
__global__ void scale_dyn(BView y, cudnnDataType_t t, void* yp, int64_t n, double alpha) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    blend_dyn<double>(t, yp, y.offset(i), load_dyn<double>(t, yp, y.offset(i)), alpha, 0.0);
}

bool packed16(const cudnnTensorStruct& d, const void* p) {
  return make_view(d).row_major_packed && aligned16(p) &&
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
  if (!known && dtype_scalar(y.dtype) == CUDNN_DATA_INT64) {
    scale_dyn<<<grid_size(n, kBlock, device), kBlock, 0, stream>>>(make_bview(y), CUDNN_DATA_INT64, yp, n, alpha);
    FD_CUDA_LAUNCHED();
    return status;
  }
  FD_CHECK_SUPPORTED(known, "no CUDA cudnnScaleTensor for %s", enum_name(y.dtype));
  FD_CUDA_LAUNCHED();
  return status;
}

cudnnStatus_t set_tensor(cudaStream_t stream, int device, const cudnnTensorStruct& y, void* yp, const void* value) {
  const BView v = make_bview(y);
  const int64_t n = y.element_count();
  if (n == 0) return CUDNN_STATUS_SUCCESS;
  const int grid = grid_size(n, kBlock, device);
  auto fill = [&](auto tag) {
    using U = decltype(tag);
    U val;
    std::memcpy(&val, value, sizeof(U));
    fill_strided<U><<<grid, kBlock, 0, stream>>>(v, static_cast<U*>(yp), n, val);
  };
  const size_t size = dtype_size(dtype_scalar(y.dtype));
  switch (size) {
    case 1: fill(uint8_t{}); break;
    case 2: fill(uint16_t{}); break;
    case 4: fill(uint32_t{}); break;
    case 8: fill(uint64_t{}); break;
    default: FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "no CUDA cudnnSetTensor for %s", enum_name(y.dtype));
  }
  FD_CUDA_LAUNCHED();
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda
