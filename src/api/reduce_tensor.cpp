// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The reduce tensor descriptor, the size queries and cudnnReduceTensor: C = alpha * reduce(A) + beta * C.
#include <new>
#include <string>

#include "core/api_context.h"
#include "core/dtype.h"
#include "core/handle.h"
#include "core/status.h"
#include "core/tensor_desc.h"
#include "core/tensor_ops_desc.h"
#include "cpu/tensor_ops/tensor_ops.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/tensor_ops/tensor_ops.h"
#endif

namespace {

bool reducible(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16 || t == CUDNN_DATA_INT8;
}

// Everything the size queries and the reduction check alike.
cudnnStatus_t check_problem(const cudnnReduceTensorStruct* r, const cudnnTensorStruct* a,
                            const cudnnTensorStruct* c) {
  FD_TRY(fd::check_reduce_tensor(r, "reduceTensorDesc"));
  FD_TRY(fd::check_tensor(a, "aDesc"));
  FD_TRY(fd::check_tensor(c, "cDesc"));
  bool ok = a->nb_dims == c->nb_dims;
  for (int i = 0; ok && i < a->nb_dims; ++i) ok = c->dims[i] == a->dims[i] || c->dims[i] == 1;
  FD_CHECK_PARAM(ok, "every dim of C %s must equal A's %s or be 1", c->spec().c_str(), a->spec().c_str());
  FD_CHECK_SUPPORTED(r->comp_type == CUDNN_DATA_FLOAT || r->comp_type == CUDNN_DATA_DOUBLE,
                     "reduceTensorCompType %s: only FLOAT and DOUBLE are supported", fd::enum_name(r->comp_type));
  const bool dbl = r->comp_type == CUDNN_DATA_DOUBLE;
  FD_CHECK_PARAM(dbl == (a->dtype == CUDNN_DATA_DOUBLE) && dbl == (c->dtype == CUDNN_DATA_DOUBLE),
                 "reduceTensorCompType %s with A %s and C %s: DOUBLE goes with DOUBLE data only",
                 fd::enum_name(r->comp_type), fd::enum_name(a->dtype), fd::enum_name(c->dtype));
  FD_CHECK_SUPPORTED(dbl || (reducible(a->dtype) && (c->dtype == a->dtype || c->dtype == CUDNN_DATA_FLOAT)),
                     "no reduction from A %s to C %s (C must be A's type or FLOAT; vector types are not supported)",
                     fd::enum_name(a->dtype), fd::enum_name(c->dtype));
  FD_CHECK_SUPPORTED(!r->wants_indices() || r->indices_type == CUDNN_32BIT_INDICES,
                     "indices of type %s: only CUDNN_32BIT_INDICES are supported", fd::enum_name(r->indices_type));
  return CUDNN_STATUS_SUCCESS;
}

size_t indices_bytes(const cudnnReduceTensorStruct& r, const cudnnTensorStruct& c) {
  return r.wants_indices() ? static_cast<size_t>(c.element_count()) * sizeof(uint32_t) : 0;
}

const char* op_short(cudnnReduceTensorOp_t op) {
  switch (op) {
    case CUDNN_REDUCE_TENSOR_ADD: return "add";
    case CUDNN_REDUCE_TENSOR_MUL: return "mul";
    case CUDNN_REDUCE_TENSOR_MIN: return "min";
    case CUDNN_REDUCE_TENSOR_MAX: return "max";
    case CUDNN_REDUCE_TENSOR_AMAX: return "amax";
    case CUDNN_REDUCE_TENSOR_AVG: return "avg";
    case CUDNN_REDUCE_TENSOR_NORM1: return "norm1";
    case CUDNN_REDUCE_TENSOR_NORM2: return "norm2";
    case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS: return "mul_no_zeros";
  }
  return "?";
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateReduceTensorDescriptor(cudnnReduceTensorDescriptor_t* reduceTensorDesc) {
  return FD_API(cudnnCreateReduceTensorDescriptor, (reduceTensorDesc), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(reduceTensorDesc != nullptr, "reduceTensorDesc output pointer is NULL");
    *reduceTensorDesc = new (std::nothrow) cudnnReduceTensorStruct;
    FD_CHECK(*reduceTensorDesc != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate a reduce tensor descriptor");
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyReduceTensorDescriptor(cudnnReduceTensorDescriptor_t reduceTensorDesc) {
  return FD_API(cudnnDestroyReduceTensorDescriptor, (reduceTensorDesc), [&]() -> cudnnStatus_t {
    if (reduceTensorDesc == nullptr) return CUDNN_STATUS_SUCCESS;
    FD_CHECK_PARAM(reduceTensorDesc->alive(), "reduceTensorDesc is not a live reduce tensor descriptor");
    delete reduceTensorDesc;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetReduceTensorDescriptor(cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                                         cudnnReduceTensorOp_t reduceTensorOp,
                                                         cudnnDataType_t reduceTensorCompType,
                                                         cudnnNanPropagation_t reduceTensorNanOpt,
                                                         cudnnReduceTensorIndices_t reduceTensorIndices,
                                                         cudnnIndicesType_t reduceTensorIndicesType) {
  return FD_API(cudnnSetReduceTensorDescriptor,
                (reduceTensorDesc, reduceTensorOp, reduceTensorCompType, reduceTensorNanOpt, reduceTensorIndices,
                 reduceTensorIndicesType),
                [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(reduceTensorDesc != nullptr && reduceTensorDesc->alive(), "reduceTensorDesc is NULL or not live");
    FD_CHECK_PARAM(fd::enum_name(reduceTensorOp) != nullptr, "invalid reduceTensorOp %d",
                   static_cast<int>(reduceTensorOp));
    FD_CHECK_PARAM(fd::dtype_is_valid(reduceTensorCompType), "invalid reduceTensorCompType %d",
                   static_cast<int>(reduceTensorCompType));
    FD_CHECK_PARAM(reduceTensorNanOpt == CUDNN_NOT_PROPAGATE_NAN || reduceTensorNanOpt == CUDNN_PROPAGATE_NAN,
                   "invalid reduceTensorNanOpt %d", static_cast<int>(reduceTensorNanOpt));
    FD_CHECK_PARAM(fd::enum_name(reduceTensorIndices) != nullptr, "invalid reduceTensorIndices %d",
                   static_cast<int>(reduceTensorIndices));
    FD_CHECK_PARAM(fd::enum_name(reduceTensorIndicesType) != nullptr, "invalid reduceTensorIndicesType %d",
                   static_cast<int>(reduceTensorIndicesType));
    reduceTensorDesc->op = reduceTensorOp;
    reduceTensorDesc->comp_type = reduceTensorCompType;
    reduceTensorDesc->nan_opt = reduceTensorNanOpt;
    reduceTensorDesc->indices = reduceTensorIndices;
    reduceTensorDesc->indices_type = reduceTensorIndicesType;
    reduceTensorDesc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetReduceTensorDescriptor(const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                                         cudnnReduceTensorOp_t* reduceTensorOp,
                                                         cudnnDataType_t* reduceTensorCompType,
                                                         cudnnNanPropagation_t* reduceTensorNanOpt,
                                                         cudnnReduceTensorIndices_t* reduceTensorIndices,
                                                         cudnnIndicesType_t* reduceTensorIndicesType) {
  return FD_API(cudnnGetReduceTensorDescriptor, (reduceTensorDesc), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_reduce_tensor(reduceTensorDesc, "reduceTensorDesc"));
    FD_CHECK_PARAM(reduceTensorOp && reduceTensorCompType && reduceTensorNanOpt && reduceTensorIndices &&
                       reduceTensorIndicesType,
                   "an output pointer is NULL");
    *reduceTensorOp = reduceTensorDesc->op;
    *reduceTensorCompType = reduceTensorDesc->comp_type;
    *reduceTensorNanOpt = reduceTensorDesc->nan_opt;
    *reduceTensorIndices = reduceTensorDesc->indices;
    *reduceTensorIndicesType = reduceTensorDesc->indices_type;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetReductionIndicesSize(cudnnHandle_t handle,
                                                       const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                                       const cudnnTensorDescriptor_t aDesc,
                                                       const cudnnTensorDescriptor_t cDesc, size_t* sizeInBytes) {
  return FD_API(cudnnGetReductionIndicesSize, (handle, reduceTensorDesc, aDesc, cDesc, sizeInBytes),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(check_problem(reduceTensorDesc, aDesc, cDesc));
    FD_CHECK_PARAM(sizeInBytes != nullptr, "sizeInBytes is NULL");
    *sizeInBytes = indices_bytes(*reduceTensorDesc, *cDesc);
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetReductionWorkspaceSize(cudnnHandle_t handle,
                                                         const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                                         const cudnnTensorDescriptor_t aDesc,
                                                         const cudnnTensorDescriptor_t cDesc, size_t* sizeInBytes) {
  return FD_API(cudnnGetReductionWorkspaceSize, (handle, reduceTensorDesc, aDesc, cDesc, sizeInBytes),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(check_problem(reduceTensorDesc, aDesc, cDesc));
    FD_CHECK_PARAM(sizeInBytes != nullptr, "sizeInBytes is NULL");
    *sizeInBytes = 0;  // the CPU implementation keeps its scratch to itself
#ifdef FREEDNN_WITH_CUDA
    // The GPU splits long slices of few outputs over several blocks: partial results in the workspace.
    if (!handle->on_cpu())
      *sizeInBytes = fd::cuda::reduce_workspace_size(handle->device, *reduceTensorDesc, *aDesc, *cDesc);
#endif
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnReduceTensor(cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                            void* indices, size_t indicesSizeInBytes, void* workspace,
                                            size_t workspaceSizeInBytes, const void* alpha,
                                            const cudnnTensorDescriptor_t aDesc, const void* A, const void* beta,
                                            const cudnnTensorDescriptor_t cDesc, void* C) {
  return FD_API(cudnnReduceTensor,
                (handle, reduceTensorDesc, indices, indicesSizeInBytes, workspace, workspaceSizeInBytes, alpha, aDesc,
                 A, beta, cDesc, C),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(check_problem(reduceTensorDesc, aDesc, cDesc));
    FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
    FD_CHECK_PARAM(A != nullptr && C != nullptr, "A or C is NULL");
    const cudnnReduceTensorStruct& r = *reduceTensorDesc;
    const size_t need = indices_bytes(r, *cDesc);
    FD_CHECK_PARAM(need == 0 || indices != nullptr, "%s with FLATTENED_INDICES needs an indices buffer; it is NULL",
                   fd::enum_name(r.op));
    FD_CHECK_PARAM(indicesSizeInBytes >= need, "indicesSizeInBytes=%zu is less than the %zu bytes needed",
                   indicesSizeInBytes, need);
    const double a = fd::read_scale(alpha, r.comp_type), b = fd::read_scale(beta, r.comp_type);
    if (fd::log::command_logging_enabled())
      fd::log::emit_command(std::string("reduce fwd op=") + op_short(r.op) + " comp=" +
                            fd::dtype_short_name(r.comp_type) +
                            " nan=" + (r.nan_opt == CUDNN_PROPAGATE_NAN ? "prop" : "noprop") +
                            " indices=" + (r.wants_indices() ? "flat" : "none") + " alpha=" +
                            fd::log::format_double(a) + " beta=" + fd::log::format_double(b) + " a=" + aDesc->spec() +
                            " c=" + cDesc->spec());
#ifdef FREEDNN_WITH_CUDA
    // With less workspace than cudnnGetReductionWorkspaceSize asked for, the GPU path falls back to a slower
    // plan that needs none.
    if (!handle->on_cpu())
      return fd::cuda::reduce_tensor(handle->stream, handle->device, r, *aDesc, A, *cDesc, C, a, b,
                                     need ? static_cast<uint32_t*>(indices) : nullptr, workspace,
                                     workspaceSizeInBytes);
#endif
    (void)workspace;
    (void)workspaceSizeInBytes;  // the CPU asks for 0 bytes: any size is enough
    FD_TRY(fd::require_cpu(handle, "cudnnReduceTensor"));
    fd::cpu::reduce_tensor(r, *aDesc, A, *cDesc, C, a, b, need ? static_cast<uint32_t*>(indices) : nullptr);
    return CUDNN_STATUS_SUCCESS;
  });
}

}  // extern "C"
