// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// LRN descriptor, cross-channel LRN and divisive normalization.
#include <new>
#include <string>

#include "core/api_context.h"
#include "core/dtype.h"
#include "core/handle.h"
#include "core/log.h"
#include "core/lrn_desc.h"
#include "core/status.h"
#include "core/tensor_desc.h"
#include "cpu/lrn/lrn.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/lrn/lrn.h"
#endif

namespace {

bool float_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

bool same_strides(const cudnnTensorStruct& a, const cudnnTensorStruct& b) {
  for (int i = 0; i < a.nb_dims; ++i)
    if (a.dims[i] > 1 && a.strides[i] != b.strides[i]) return false;
  return true;
}

std::string head(const char* op, const char* dir, const cudnnLRNStruct& p, double a, double b) {
  using fd::log::format_double;
  return std::string(op) + " " + dir + " n=" + std::to_string(p.n) + " lrn_alpha=" + format_double(p.alpha) +
         " lrn_beta=" + format_double(p.beta) + " lrn_k=" + format_double(p.k) + " alpha=" + format_double(a) +
         " beta=" + format_double(b);
}

cudnnStatus_t check_lrn_mode(cudnnLRNMode_t m) {
  FD_CHECK_PARAM(m == CUDNN_LRN_CROSS_CHANNEL_DIM1, "lrnMode %d is not CUDNN_LRN_CROSS_CHANNEL_DIM1",
                 static_cast<int>(m));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_divnorm_mode(cudnnDivNormMode_t m) {
  FD_CHECK_PARAM(m == CUDNN_DIVNORM_PRECOMPUTED_MEANS, "mode %d is not CUDNN_DIVNORM_PRECOMPUTED_MEANS",
                 static_cast<int>(m));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_divnorm_rank(const cudnnTensorStruct& d, const char* role) {
  FD_CHECK_PARAM(d.nb_dims == 4 || d.nb_dims == 5, "%s %s: divisive normalization takes 4-D or 5-D tensors", role,
                 d.spec().c_str());
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateLRNDescriptor(cudnnLRNDescriptor_t* normDesc) {
  return FD_API(cudnnCreateLRNDescriptor, (normDesc), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(normDesc != nullptr, "normDesc output pointer is NULL");
    *normDesc = new (std::nothrow) cudnnLRNStruct;  // n=5, alpha=1e-4, beta=0.75, k=2
    FD_CHECK(*normDesc != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate an LRN descriptor");
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyLRNDescriptor(cudnnLRNDescriptor_t lrnDesc) {
  return FD_API(cudnnDestroyLRNDescriptor, (lrnDesc), [&]() -> cudnnStatus_t {
    if (lrnDesc == nullptr) return CUDNN_STATUS_SUCCESS;
    FD_CHECK_PARAM(lrnDesc->alive(), "lrnDesc is not live (destroyed twice, or not a descriptor)");
    delete lrnDesc;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetLRNDescriptor(cudnnLRNDescriptor_t normDesc, unsigned lrnN, double lrnAlpha,
                                                double lrnBeta, double lrnK) {
  return FD_API(cudnnSetLRNDescriptor, (normDesc, lrnN, lrnAlpha, lrnBeta, lrnK), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(normDesc != nullptr, "normDesc is NULL");
    FD_CHECK_PARAM(normDesc->alive(), "normDesc is not a live LRN descriptor");
    FD_TRY(fd::check_lrn_params(lrnN, lrnAlpha, lrnBeta, lrnK));
    normDesc->n = lrnN;
    normDesc->alpha = lrnAlpha;
    normDesc->beta = lrnBeta;
    normDesc->k = lrnK;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetLRNDescriptor(cudnnLRNDescriptor_t normDesc, unsigned* lrnN, double* lrnAlpha,
                                                double* lrnBeta, double* lrnK) {
  return FD_API(cudnnGetLRNDescriptor, (normDesc), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(normDesc != nullptr, "normDesc is NULL");
    FD_CHECK_PARAM(normDesc->alive(), "normDesc is not a live LRN descriptor");
    FD_CHECK_PARAM(lrnN && lrnAlpha && lrnBeta && lrnK, "an output pointer is NULL");
    *lrnN = normDesc->n;
    *lrnAlpha = normDesc->alpha;
    *lrnBeta = normDesc->beta;
    *lrnK = normDesc->k;
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnLRNCrossChannelForward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                                      cudnnLRNMode_t lrnMode, const void* alpha,
                                                      const cudnnTensorDescriptor_t xDesc, const void* x,
                                                      const void* beta, const cudnnTensorDescriptor_t yDesc, void* y) {
  return FD_API(cudnnLRNCrossChannelForward, (handle, normDesc, lrnMode, alpha, xDesc, x, beta, yDesc, y),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_lrn(normDesc, "normDesc"));
    FD_TRY(check_lrn_mode(lrnMode));
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_tensor(yDesc, "yDesc"));
    FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
    FD_CHECK_PARAM(x != nullptr && y != nullptr, "x or y is NULL");
    FD_CHECK_PARAM(xDesc->nb_dims >= 3, "x %s: LRN needs more than 2 dims", xDesc->spec().c_str());
    FD_CHECK_SUPPORTED(xDesc->same_shape(*yDesc), "x %s and y %s differ in shape", xDesc->spec().c_str(),
                       yDesc->spec().c_str());
    FD_CHECK_SUPPORTED(xDesc->dtype == yDesc->dtype, "x %s and y %s differ in data type", xDesc->spec().c_str(),
                       yDesc->spec().c_str());
    FD_CHECK_SUPPORTED(float_type(xDesc->dtype), "data type %s is not supported by LRN",
                       fd::dtype_short_name(xDesc->dtype));
    const double a = fd::read_scale(alpha, yDesc->dtype), b = fd::read_scale(beta, yDesc->dtype);
    if (fd::log::command_logging_enabled())
      fd::log::emit_command(head("lrn", "fwd", *normDesc, a, b) + " x=" + xDesc->spec() + " y=" + yDesc->spec());
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu()) return fd::cuda::lrn_cross_channel_forward(handle, *normDesc, a, *xDesc, x, b, *yDesc, y);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnLRNCrossChannelForward"));
    fd::cpu::lrn_cross_channel_forward(*normDesc, a, *xDesc, x, b, *yDesc, y);
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnLRNCrossChannelBackward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                                       cudnnLRNMode_t lrnMode, const void* alpha,
                                                       const cudnnTensorDescriptor_t yDesc, const void* y,
                                                       const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                                       const cudnnTensorDescriptor_t xDesc, const void* x,
                                                       const void* beta, const cudnnTensorDescriptor_t dxDesc,
                                                       void* dx) {
  return FD_API(cudnnLRNCrossChannelBackward,
                (handle, normDesc, lrnMode, alpha, yDesc, y, dyDesc, dy, xDesc, x, beta, dxDesc, dx),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_lrn(normDesc, "normDesc"));
    FD_TRY(check_lrn_mode(lrnMode));
    FD_TRY(fd::check_tensor(yDesc, "yDesc"));
    FD_TRY(fd::check_tensor(dyDesc, "dyDesc"));
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_tensor(dxDesc, "dxDesc"));
    FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
    FD_CHECK_PARAM(y != nullptr && dy != nullptr && x != nullptr && dx != nullptr, "y, dy, x or dx is NULL");
    FD_CHECK_PARAM(xDesc->nb_dims >= 3, "x %s: LRN needs more than 2 dims", xDesc->spec().c_str());
    FD_CHECK_SUPPORTED(xDesc->same_shape(*yDesc) && xDesc->same_shape(*dyDesc) && xDesc->same_shape(*dxDesc),
                       "y %s, dy %s, x %s, dx %s differ in shape", yDesc->spec().c_str(), dyDesc->spec().c_str(),
                       xDesc->spec().c_str(), dxDesc->spec().c_str());
    FD_CHECK_SUPPORTED(xDesc->dtype == yDesc->dtype && xDesc->dtype == dyDesc->dtype && xDesc->dtype == dxDesc->dtype,
                       "y %s, dy %s, x %s, dx %s differ in data type", yDesc->spec().c_str(),
                       dyDesc->spec().c_str(), xDesc->spec().c_str(), dxDesc->spec().c_str());
    FD_CHECK_SUPPORTED(float_type(xDesc->dtype), "data type %s is not supported by LRN",
                       fd::dtype_short_name(xDesc->dtype));
    const double a = fd::read_scale(alpha, dxDesc->dtype), b = fd::read_scale(beta, dxDesc->dtype);
    if (fd::log::command_logging_enabled())
      fd::log::emit_command(head("lrn", "bwd", *normDesc, a, b) + " y=" + yDesc->spec() + " dy=" + dyDesc->spec() +
                            " x=" + xDesc->spec() + " dx=" + dxDesc->spec());
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu())
      return fd::cuda::lrn_cross_channel_backward(handle, *normDesc, a, *dyDesc, dy, *xDesc, x, b, *dxDesc, dx);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnLRNCrossChannelBackward"));
    fd::cpu::lrn_cross_channel_backward(*normDesc, a, *dyDesc, dy, *xDesc, x, b, *dxDesc, dx);
    return CUDNN_STATUS_SUCCESS;
  });
}

// temp and temp2 are the caller's scratch tensors (xDesc layout); they must be given, the CPU and CUDA paths do not
// need them and leave them untouched.
// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnDivisiveNormalizationForward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                                            cudnnDivNormMode_t mode, const void* alpha,
                                                            const cudnnTensorDescriptor_t xDesc, const void* x,
                                                            const void* means, void* temp, void* temp2,
                                                            const void* beta, const cudnnTensorDescriptor_t yDesc,
                                                            void* y) {
  return FD_API(cudnnDivisiveNormalizationForward,
                (handle, normDesc, mode, alpha, xDesc, x, means, temp, temp2, beta, yDesc, y),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_lrn(normDesc, "normDesc"));
    FD_TRY(check_divnorm_mode(mode));
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_tensor(yDesc, "yDesc"));
    FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
    FD_CHECK_PARAM(x && y && temp && temp2, "x, y, temp or temp2 is NULL (means alone may be NULL)");
    FD_TRY(check_divnorm_rank(*xDesc, "xDesc"));
    FD_CHECK_PARAM(xDesc->same_shape(*yDesc), "x %s and y %s differ in shape", xDesc->spec().c_str(),
                   yDesc->spec().c_str());
    FD_CHECK_PARAM(xDesc->dtype == yDesc->dtype, "x %s and y %s differ in data type", xDesc->spec().c_str(),
                   yDesc->spec().c_str());
    FD_CHECK_PARAM(x != y || same_strides(*xDesc, *yDesc), "in-place (x == y) needs equal strides, x %s y %s",
                   xDesc->spec().c_str(), yDesc->spec().c_str());
    FD_CHECK_SUPPORTED(float_type(xDesc->dtype), "data type %s is not supported by divisive normalization",
                       fd::dtype_short_name(xDesc->dtype));
    const double a = fd::read_scale(alpha, yDesc->dtype), b = fd::read_scale(beta, yDesc->dtype);
    if (fd::log::command_logging_enabled())
      fd::log::emit_command(head("divnorm", "fwd", *normDesc, a, b) + " means=" + (means ? "1" : "0") +
                            " x=" + xDesc->spec() + " y=" + yDesc->spec());
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu())
      return fd::cuda::divisive_normalization_forward(handle, *normDesc, a, *xDesc, x, means, b, *yDesc, y);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnDivisiveNormalizationForward"));
    fd::cpu::divisive_normalization_forward(*normDesc, a, *xDesc, x, means, b, *yDesc, y);
    return CUDNN_STATUS_SUCCESS;
  });
}

// x, means, dy, temp, temp2 use xDesc; dx and dMeans use dXdMeansDesc. means may be NULL (zero); dMeans may be
// NULL (then the means gradient is not computed: a freednn choice, cuDNN's text does not say).
// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnDivisiveNormalizationBackward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                                             cudnnDivNormMode_t mode, const void* alpha,
                                                             const cudnnTensorDescriptor_t xDesc, const void* x,
                                                             const void* means, const void* dy, void* temp,
                                                             void* temp2, const void* beta,
                                                             const cudnnTensorDescriptor_t dXdMeansDesc, void* dx,
                                                             void* dMeans) {
  return FD_API(cudnnDivisiveNormalizationBackward,
                (handle, normDesc, mode, alpha, xDesc, x, means, dy, temp, temp2, beta, dXdMeansDesc, dx, dMeans),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_lrn(normDesc, "normDesc"));
    FD_TRY(check_divnorm_mode(mode));
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_tensor(dXdMeansDesc, "dXdMeansDesc"));
    FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
    FD_CHECK_PARAM(x && dy && dx && temp && temp2, "x, dy, dx, temp or temp2 is NULL (means, dMeans may be NULL)");
    FD_TRY(check_divnorm_rank(*xDesc, "xDesc"));
    FD_CHECK_PARAM(xDesc->same_shape(*dXdMeansDesc), "x %s and dx %s differ in shape", xDesc->spec().c_str(),
                   dXdMeansDesc->spec().c_str());
    FD_CHECK_PARAM(xDesc->dtype == dXdMeansDesc->dtype, "x %s and dx %s differ in data type",
                   xDesc->spec().c_str(), dXdMeansDesc->spec().c_str());
    FD_CHECK_PARAM(dx != dy || same_strides(*xDesc, *dXdMeansDesc),
                   "in-place (dx == dy) needs equal strides, dy %s dx %s", xDesc->spec().c_str(),
                   dXdMeansDesc->spec().c_str());
    FD_CHECK_PARAM(dMeans == nullptr || (dMeans != dx && dMeans != x && dMeans != dy && dMeans != means),
                   "dMeans aliases another tensor");
    FD_CHECK_SUPPORTED(float_type(xDesc->dtype), "data type %s is not supported by divisive normalization",
                       fd::dtype_short_name(xDesc->dtype));
    const double a = fd::read_scale(alpha, dXdMeansDesc->dtype), b = fd::read_scale(beta, dXdMeansDesc->dtype);
    if (fd::log::command_logging_enabled())
      fd::log::emit_command(head("divnorm", "bwd", *normDesc, a, b) + " means=" + (means ? "1" : "0") +
                            " dmeans=" + (dMeans ? "1" : "0") + " x=" + xDesc->spec() + " dx=" +
                            dXdMeansDesc->spec());
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu())
      return fd::cuda::divisive_normalization_backward(handle, *normDesc, a, *xDesc, x, means, dy, b, *dXdMeansDesc,
                                                       dx, dMeans);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnDivisiveNormalizationBackward"));
    fd::cpu::divisive_normalization_backward(*normDesc, a, *xDesc, x, means, dy, b, *dXdMeansDesc, dx, dMeans);
    return CUDNN_STATUS_SUCCESS;
  });
}

}  // extern "C"
