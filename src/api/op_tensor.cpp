// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The op tensor descriptor and cudnnOpTensor: C = op(alpha1 * A, alpha2 * B) + beta * C.
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

// cuDNN's table of (A = B, C) data types; the compute type is FLOAT for all of them but DOUBLE.
bool supported_types(cudnnDataType_t ab, cudnnDataType_t c) {
  switch (ab) {
    case CUDNN_DATA_FLOAT:
      return c == CUDNN_DATA_FLOAT || c == CUDNN_DATA_HALF || c == CUDNN_DATA_INT8 || c == CUDNN_DATA_BFLOAT16;
    case CUDNN_DATA_HALF: return c == CUDNN_DATA_FLOAT || c == CUDNN_DATA_HALF;
    case CUDNN_DATA_BFLOAT16: return c == CUDNN_DATA_FLOAT || c == CUDNN_DATA_BFLOAT16;
    case CUDNN_DATA_INT8: return c == CUDNN_DATA_FLOAT || c == CUDNN_DATA_INT8;
    case CUDNN_DATA_DOUBLE: return c == CUDNN_DATA_DOUBLE;
    default: return false;
  }
}

const char* op_short(cudnnOpTensorOp_t op) {
  switch (op) {
    case CUDNN_OP_TENSOR_ADD: return "add";
    case CUDNN_OP_TENSOR_MUL: return "mul";
    case CUDNN_OP_TENSOR_MIN: return "min";
    case CUDNN_OP_TENSOR_MAX: return "max";
    case CUDNN_OP_TENSOR_SQRT: return "sqrt";
    case CUDNN_OP_TENSOR_NOT: return "not";
  }
  return "?";
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateOpTensorDescriptor(cudnnOpTensorDescriptor_t* opTensorDesc) {
  return FD_API(cudnnCreateOpTensorDescriptor, (opTensorDesc), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(opTensorDesc != nullptr, "opTensorDesc output pointer is NULL");
    *opTensorDesc = new (std::nothrow) cudnnOpTensorStruct;
    FD_CHECK(*opTensorDesc != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate an op tensor descriptor");
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc) {
  return FD_API(cudnnDestroyOpTensorDescriptor, (opTensorDesc), [&]() -> cudnnStatus_t {
    if (opTensorDesc == nullptr) return CUDNN_STATUS_SUCCESS;
    FD_CHECK_PARAM(opTensorDesc->alive(), "opTensorDesc is not a live op tensor descriptor");
    delete opTensorDesc;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc,
                                                     cudnnOpTensorOp_t opTensorOp, cudnnDataType_t opTensorCompType,
                                                     cudnnNanPropagation_t opTensorNanOpt) {
  return FD_API(cudnnSetOpTensorDescriptor, (opTensorDesc, opTensorOp, opTensorCompType, opTensorNanOpt),
                [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(opTensorDesc != nullptr && opTensorDesc->alive(), "opTensorDesc is NULL or not live");
    FD_CHECK_PARAM(fd::enum_name(opTensorOp) != nullptr, "invalid opTensorOp %d", static_cast<int>(opTensorOp));
    FD_CHECK_PARAM(fd::dtype_is_valid(opTensorCompType), "invalid opTensorCompType %d",
                   static_cast<int>(opTensorCompType));
    FD_CHECK_PARAM(opTensorNanOpt == CUDNN_NOT_PROPAGATE_NAN || opTensorNanOpt == CUDNN_PROPAGATE_NAN,
                   "invalid opTensorNanOpt %d", static_cast<int>(opTensorNanOpt));
    opTensorDesc->op = opTensorOp;
    opTensorDesc->comp_type = opTensorCompType;
    opTensorDesc->nan_opt = opTensorNanOpt;
    opTensorDesc->is_set = true;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetOpTensorDescriptor(const cudnnOpTensorDescriptor_t opTensorDesc,
                                                     cudnnOpTensorOp_t* opTensorOp, cudnnDataType_t* opTensorCompType,
                                                     cudnnNanPropagation_t* opTensorNanOpt) {
  return FD_API(cudnnGetOpTensorDescriptor, (opTensorDesc), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_op_tensor(opTensorDesc, "opTensorDesc"));
    FD_CHECK_PARAM(opTensorOp && opTensorCompType && opTensorNanOpt, "an output pointer is NULL");
    *opTensorOp = opTensorDesc->op;
    *opTensorCompType = opTensorDesc->comp_type;
    *opTensorNanOpt = opTensorDesc->nan_opt;
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnOpTensor(cudnnHandle_t handle, const cudnnOpTensorDescriptor_t opTensorDesc,
                                        const void* alpha1, const cudnnTensorDescriptor_t aDesc, const void* A,
                                        const void* alpha2, const cudnnTensorDescriptor_t bDesc, const void* B,
                                        const void* beta, const cudnnTensorDescriptor_t cDesc, void* C) {
  return FD_API(cudnnOpTensor, (handle, opTensorDesc, alpha1, aDesc, A, alpha2, bDesc, B, beta, cDesc, C),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_op_tensor(opTensorDesc, "opTensorDesc"));
    const cudnnOpTensorOp_t op = opTensorDesc->op;
    // SQRT and NOT read only A: bDesc, B and alpha2 are ignored then.
    const bool unary = op == CUDNN_OP_TENSOR_SQRT || op == CUDNN_OP_TENSOR_NOT;
    FD_TRY(fd::check_tensor(aDesc, "aDesc"));
    if (!unary) FD_TRY(fd::check_tensor(bDesc, "bDesc"));
    FD_TRY(fd::check_tensor(cDesc, "cDesc"));
    FD_CHECK_PARAM(alpha1 != nullptr && beta != nullptr && (unary || alpha2 != nullptr),
                   "alpha1, alpha2 or beta is NULL");
    FD_CHECK_PARAM(A != nullptr && C != nullptr && (unary || B != nullptr), "A, B or C is NULL");
    FD_CHECK_PARAM(aDesc->same_shape(*cDesc), "A %s and C %s differ in shape", aDesc->spec().c_str(),
                   cDesc->spec().c_str());
    if (!unary) {
      bool ok = bDesc->nb_dims == cDesc->nb_dims;
      for (int i = 0; ok && i < bDesc->nb_dims; ++i) ok = bDesc->dims[i] == cDesc->dims[i] || bDesc->dims[i] == 1;
      FD_CHECK_PARAM(ok, "every dim of B %s must equal C's %s or be 1", bDesc->spec().c_str(), cDesc->spec().c_str());
      FD_CHECK_PARAM(aDesc->dtype == bDesc->dtype, "A is %s and B is %s: they must have the same data type",
                     fd::enum_name(aDesc->dtype), fd::enum_name(bDesc->dtype));
    }
    FD_CHECK_PARAM(cDesc->nb_dims <= 5, "cudnnOpTensor takes tensors of up to 5 dims, got %d", cDesc->nb_dims);
    const bool dbl = aDesc->dtype == CUDNN_DATA_DOUBLE;
    FD_CHECK_PARAM(opTensorDesc->comp_type == (dbl ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT),
                   "opTensorCompType %s does not fit %s data (DOUBLE data needs DOUBLE, the others FLOAT)",
                   fd::enum_name(opTensorDesc->comp_type), fd::enum_name(aDesc->dtype));
    FD_CHECK_SUPPORTED(supported_types(aDesc->dtype, cDesc->dtype),
                       "no cudnnOpTensor for A, B %s and C %s (vector types and this pair are not in cuDNN's table)",
                       fd::enum_name(aDesc->dtype), fd::enum_name(cDesc->dtype));
    const cudnnDataType_t st = dbl ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    const double a1 = fd::read_scale(alpha1, st), b = fd::read_scale(beta, st);
    const double a2 = unary ? 0.0 : fd::read_scale(alpha2, st);
    if (fd::log::command_logging_enabled()) {
      std::string p = std::string("optensor fwd op=") + op_short(op) + " comp=" +
                      fd::dtype_short_name(opTensorDesc->comp_type) +
                      " nan=" + (opTensorDesc->nan_opt == CUDNN_PROPAGATE_NAN ? "prop" : "noprop") +
                      " alpha1=" + fd::log::format_double(a1) + " alpha2=" + fd::log::format_double(a2) +
                      " beta=" + fd::log::format_double(b) + " a=" + aDesc->spec();
      if (!unary) p += " b=" + bDesc->spec();
      fd::log::emit_command(p + " c=" + cDesc->spec());
    }
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu())
      return fd::cuda::op_tensor(handle->stream, handle->device, op, opTensorDesc->nan_opt, dbl, *aDesc, A, a1,
                                 unary ? nullptr : bDesc, B, a2, *cDesc, C, b);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnOpTensor"));
    fd::cpu::op_tensor(op, opTensorDesc->nan_opt, dbl, *aDesc, A, a1, unary ? nullptr : bDesc, B, a2, *cDesc, C, b);
    return CUDNN_STATUS_SUCCESS;
  });
}

}  // extern "C"
