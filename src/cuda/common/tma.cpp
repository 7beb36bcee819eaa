// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cuda/common/tma.h"

#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include <mutex>

namespace fd::cuda {
namespace {

// The driver's encoder, looked up once; nullptr where the driver lacks it.
PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found) ==
            cudaSuccess &&
        found == cudaDriverEntryPointSuccess)
      fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
    else
      (void)cudaGetLastError();
  });
  return fn;
}

}  // namespace

cudnnStatus_t encode_tma_map(CUtensorMap* map, const void* base, cudnnDataType_t dt, int rank, const uint64_t* dims,
                             const uint64_t* strides, const uint32_t* box, CUtensorMapSwizzle swizzle,
                             const char* what) {
  FD_CHECK_SUPPORTED(dt == CUDNN_DATA_HALF || dt == CUDNN_DATA_BFLOAT16 || dt == CUDNN_DATA_FLOAT,
                     "%s: a tensor map of half, bfloat16 or float elements only", what);
  const PFN_cuTensorMapEncodeTiled_v12000 fn = encoder();
  FD_CHECK_SUPPORTED(fn != nullptr, "%s: the CUDA driver has no cuTensorMapEncodeTiled (TMA)", what);
  FD_CHECK_SUPPORTED(rank >= 1 && rank <= 5, "%s: a tensor map of rank %d", what, rank);
  cuuint64_t d[5], s[4];
  cuuint32_t b[5], e[5];
  for (int i = 0; i < rank; ++i) {
    d[i] = dims[i];
    b[i] = box[i];
    e[i] = 1;
    if (i + 1 < rank) s[i] = strides[i];
  }
  const CUtensorMapDataType type = dt == CUDNN_DATA_FLOAT      ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                   : dt == CUDNN_DATA_BFLOAT16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                               : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const CUresult r = fn(map, type, cuuint32_t(rank), const_cast<void*>(base), d, s, b, e, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  FD_CHECK_SUPPORTED(r == CUDA_SUCCESS, "%s: cuTensorMapEncodeTiled refused the map (CUresult %d)", what, int(r));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t encode_nhwc_map(CUtensorMap* map, const void* base, cudnnDataType_t dt, int64_t n, int64_t h, int64_t w,
                              int64_t c, uint32_t box_c, uint32_t box_w, uint32_t box_h, CUtensorMapSwizzle swizzle,
                              const char* what) {
  const uint64_t es = dt == CUDNN_DATA_FLOAT ? 4 : 2;  // encode_tma_map refuses the other types
  const uint64_t dims[4] = {uint64_t(c), uint64_t(w), uint64_t(h), uint64_t(n)};
  const uint64_t strides[3] = {es * dims[0], es * dims[0] * dims[1], es * dims[0] * dims[1] * dims[2]};
  const uint32_t box[4] = {box_c, box_w, box_h, 1};
  return encode_tma_map(map, base, dt, 4, dims, strides, box, swizzle, what);
}

}  // namespace fd::cuda
