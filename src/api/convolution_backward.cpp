// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Convolution backward (cudnn_cnn_train and the backward-data part of cudnn_cnn_infer): algorithm queries,
// workspace, backward data, backward filter, backward bias, folded descriptors.
#include "api/conv_common.h"
#include "core/api_context.h"
#include "core/tensor_ops_desc.h"
#include "cpu/conv/standalone.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/conv/impls.h"
#endif

namespace {
using fd::ConvDir;
using fd::ConvProblem;

fd::conv::ConvArgs make_args(const void* in, const void* in2, void* out, void* ws, size_t ws_size, double alpha,
                             double beta) {
  fd::conv::ConvArgs a;
  a.in = in;
  a.in2 = in2;
  a.out = out;
  a.workspace = ws;
  a.workspace_size = ws_size;
  a.alpha = alpha;
  a.beta = beta;
  return a;
}
}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardDataAlgorithmMaxCount(cudnnHandle_t handle, int* count) {
  return FD_API(cudnnGetConvolutionBackwardDataAlgorithmMaxCount, (handle, count), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_CHECK_PARAM(count != nullptr, "count is NULL");
    *count = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t gradDesc, const int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  return FD_API(cudnnGetConvolutionBackwardDataAlgorithm_v7,
                (handle, filterDesc, diffDesc, convDesc, gradDesc, requestedAlgoCount, returnedAlgoCount, perfResults),
                [&]() -> cudnnStatus_t {
                  FD_TRY(fd::check_handle(handle));
                  ConvProblem p;
                  FD_TRY(ConvProblem::make(ConvDir::bwd_data, gradDesc, filterDesc, convDesc, diffDesc, &p));
                  return fd::conv_api::rank<cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgo_t>(
                      handle, p, requestedAlgoCount, returnedAlgoCount, perfResults);
                });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t handle,
                                                                       const cudnnFilterDescriptor_t wDesc,
                                                                       const cudnnTensorDescriptor_t dyDesc,
                                                                       const cudnnConvolutionDescriptor_t convDesc,
                                                                       const cudnnTensorDescriptor_t dxDesc,
                                                                       cudnnConvolutionBwdDataAlgo_t algo,
                                                                       size_t* sizeInBytes) {
  return FD_API(cudnnGetConvolutionBackwardDataWorkspaceSize,
                (handle, wDesc, dyDesc, convDesc, dxDesc, algo, sizeInBytes), [&]() -> cudnnStatus_t {
                  return fd::conv_api::workspace_size(handle, ConvDir::bwd_data, dxDesc, wDesc, convDesc, dyDesc,
                                                      algo, sizeInBytes);
                });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnConvolutionBackwardData(cudnnHandle_t handle, const void* alpha,
                                                       const cudnnFilterDescriptor_t wDesc, const void* w,
                                                       const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                                       const cudnnConvolutionDescriptor_t convDesc,
                                                       cudnnConvolutionBwdDataAlgo_t algo, void* workSpace,
                                                       size_t workSpaceSizeInBytes, const void* beta,
                                                       const cudnnTensorDescriptor_t dxDesc, void* dx) {
  return FD_API(cudnnConvolutionBackwardData,
                (handle, alpha, wDesc, w, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, dxDesc,
                 dx),
                [&]() -> cudnnStatus_t {
                  FD_TRY(fd::check_handle(handle));
                  ConvProblem p;
                  FD_TRY(ConvProblem::make(ConvDir::bwd_data, dxDesc, wDesc, convDesc, dyDesc, &p));
                  FD_CHECK_PARAM(w != nullptr && dy != nullptr && dx != nullptr, "w, dy or dx is NULL");
                  FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
                  return fd::conv_api::run(handle, p, algo,
                                           make_args(dy, w, dx, workSpace, workSpaceSizeInBytes,
                                                     fd::read_scale(alpha, p.xdt), fd::read_scale(beta, p.xdt)),
                                           "");
                });
}

cudnnStatus_t CUDNNWINAPI cudnnGetFoldedConvBackwardDataDescriptors(
    const cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t gradDesc,
    const cudnnTensorFormat_t transformFormat, cudnnFilterDescriptor_t foldedFilterDesc,
    cudnnTensorDescriptor_t paddedDiffDesc, cudnnConvolutionDescriptor_t foldedConvDesc,
    cudnnTensorDescriptor_t foldedGradDesc, cudnnTensorTransformDescriptor_t filterFoldTransDesc,
    cudnnTensorTransformDescriptor_t diffPadTransDesc, cudnnTensorTransformDescriptor_t gradFoldTransDesc,
    cudnnTensorTransformDescriptor_t gradUnfoldTransDesc) {
  return FD_API(cudnnGetFoldedConvBackwardDataDescriptors,
                (handle, filterDesc, diffDesc, convDesc, gradDesc, transformFormat, foldedFilterDesc, paddedDiffDesc,
                 foldedConvDesc, foldedGradDesc, filterFoldTransDesc, diffPadTransDesc, gradFoldTransDesc,
                 gradUnfoldTransDesc),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    ConvProblem p;
    FD_TRY(ConvProblem::make(ConvDir::bwd_data, gradDesc, filterDesc, convDesc, diffDesc, &p));
    FD_CHECK_PARAM(fd::alive(foldedFilterDesc) && fd::alive(paddedDiffDesc) && fd::alive(foldedConvDesc) &&
                       fd::alive(foldedGradDesc),
                   "an output descriptor (foldedFilterDesc, paddedDiffDesc, foldedConvDesc, foldedGradDesc) is NULL "
                   "or not live");
    FD_CHECK_PARAM(fd::alive(filterFoldTransDesc) && fd::alive(diffPadTransDesc) && fd::alive(gradFoldTransDesc) &&
                       fd::alive(gradUnfoldTransDesc),
                   "an output transform descriptor is NULL or not live");
    FD_CHECK_PARAM(transformFormat == CUDNN_TENSOR_NCHW || transformFormat == CUDNN_TENSOR_NHWC ||
                       transformFormat == CUDNN_TENSOR_NCHW_VECT_C,
                   "transformFormat=%d is not a tensor format", static_cast<int>(transformFormat));
    FD_CHECK_SUPPORTED(transformFormat != CUDNN_TENSOR_NCHW_VECT_C,
                       "folded backward data is for f32/f64/f16/bf16 data: NCHW or NHWC, not NCHW_VECT_C");
    FD_CHECK_SUPPORTED(p.mode == CUDNN_CROSS_CORRELATION,
                       "folding applies to cross-correlation: CUDNN_CONVOLUTION flips the filter (%s)",
                       p.to_string().c_str());
    FD_CHECK_SUPPORTED(p.dd == 1 && p.dh == 1 && p.dw == 1, "folding needs dilation 1 (%s)", p.to_string().c_str());
    // dx (padded by pad before, zeros after) at position i' = s * o + r, r = s * a + b, folds into phase b of
    // channel c at q = o + a: a stride-1, pad-0 backward data of dy (zero-padded after to Q - A + 1) with the
    // filter folded the same way (w_f[k, c F + b, a] = w[k, c, s a + b], zero past R). Unfolding dx_f and
    // removing the padding gives dx.
    const int nd = p.nsp + 2, first = 3 - p.nsp;
    const int64_t in[3] = {p.id, p.ih, p.iw}, out[3] = {p.od, p.oh, p.ow}, ker[3] = {p.kd, p.kh, p.kw};
    const int st[3] = {p.sd, p.sh, p.sw}, pad[3] = {p.pd, p.ph, p.pw};
    int wf[CUDNN_DIM_MAX], dyp[CUDNN_DIM_MAX], dxf[CUDNN_DIM_MAX];
    int32_t zero[CUDNN_DIM_MAX] = {}, w_after[CUDNN_DIM_MAX] = {}, dy_after[CUDNN_DIM_MAX] = {};
    int32_t dx_before[CUDNN_DIM_MAX] = {}, dx_after[CUDNN_DIM_MAX] = {};
    uint32_t fold[CUDNN_DIM_MAX] = {}, ones[CUDNN_DIM_MAX] = {};
    int64_t f = 1;
    for (int i = 0; i < p.nsp; ++i) {
      const int j = first + i, s = st[j];
      // a stride is a fold of the transform (at most 65536), and every folded extent and channel count a dim
      FD_CHECK_SUPPORTED(s <= 65536, "stride %d of spatial dim %d exceeds the folds' 65536", s, i);
      const int64_t a = (ker[j] + s - 1) / s;                       // folded filter extent
      const int64_t q = std::max(out[j] + a - 1, (in[j] + pad[j] + s - 1) / s);  // folded dx extent
      FD_CHECK_SUPPORTED(q <= INT32_MAX && q * s - in[j] - pad[j] <= INT32_MAX,
                         "spatial dim %d: the folded extent %lld exceeds 2^31 - 1", i, static_cast<long long>(q));
      wf[2 + i] = static_cast<int>(a);
      dyp[2 + i] = static_cast<int>(q - a + 1);
      dxf[2 + i] = static_cast<int>(q);
      w_after[2 + i] = static_cast<int32_t>(a * s - ker[j]);
      dy_after[2 + i] = static_cast<int32_t>(q - a + 1 - out[j]);
      dx_before[2 + i] = pad[j];
      dx_after[2 + i] = static_cast<int32_t>(q * s - in[j] - pad[j]);
      fold[i] = static_cast<uint32_t>(s);
      ones[i] = 1;
      f *= s;  // <= 2^31 * 2^16 before the check
      FD_CHECK_SUPPORTED(f <= INT32_MAX, "the strides' product %lld exceeds 2^31 - 1", static_cast<long long>(f));
    }
    FD_CHECK_SUPPORTED(p.ic * f <= INT32_MAX, "the folded channel count %lld x %lld exceeds 2^31 - 1",
                       static_cast<long long>(p.ic), static_cast<long long>(f));
    wf[0] = static_cast<int>(p.oc);
    wf[1] = static_cast<int>(p.icg() * f);
    dyp[0] = static_cast<int>(p.mb);
    dyp[1] = static_cast<int>(p.oc);
    dxf[0] = static_cast<int>(p.mb);
    dxf[1] = static_cast<int>(p.ic * f);
    FD_TRY(fd::set_filter(*foldedFilterDesc, p.wdt, transformFormat, nd, wf));
    FD_TRY(fd::set_tensor_format(*paddedDiffDesc, transformFormat, p.ydt, nd, dyp));
    FD_TRY(fd::set_tensor_format(*foldedGradDesc, transformFormat, p.xdt, nd, dxf));
    const int zeros3[3] = {0, 0, 0}, ones3[3] = {1, 1, 1};
    cudnnConvolutionStruct c;
    FD_TRY(fd::set_convolution(c, p.nsp, zeros3, ones3, ones3, p.mode, p.compute));
    c.group_count = static_cast<int>(p.g);
    c.math_type = p.math;
    c.reorder_type = convDesc->reorder_type;
    *foldedConvDesc = c;
    auto set_transform = [&](cudnnTensorTransformStruct& t, const int32_t* before, const int32_t* after,
                             const uint32_t* folds, cudnnFoldingDirection_t dir) {
      t.is_set = true;
      t.nb_dims = nd;
      t.dest_format = transformFormat;
      t.direction = dir;
      for (int i = 0; i < CUDNN_DIM_MAX; ++i) {
        t.pad_before[i] = i < nd ? before[i] : 0;
        t.pad_after[i] = i < nd ? after[i] : 0;
        t.fold[i] = i + 2 < nd ? folds[i] : 0;
      }
    };
    set_transform(*filterFoldTransDesc, zero, w_after, fold, CUDNN_TRANSFORM_FOLD);
    set_transform(*diffPadTransDesc, zero, dy_after, ones, CUDNN_TRANSFORM_FOLD);
    set_transform(*gradFoldTransDesc, dx_before, dx_after, fold, CUDNN_TRANSFORM_FOLD);
    set_transform(*gradUnfoldTransDesc, dx_before, dx_after, fold, CUDNN_TRANSFORM_UNFOLD);
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(cudnnHandle_t handle, int* count) {
  return FD_API(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount, (handle, count), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_CHECK_PARAM(count != nullptr, "count is NULL");
    *count = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc, const int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  return FD_API(cudnnGetConvolutionBackwardFilterAlgorithm_v7,
                (handle, srcDesc, diffDesc, convDesc, gradDesc, requestedAlgoCount, returnedAlgoCount, perfResults),
                [&]() -> cudnnStatus_t {
                  FD_TRY(fd::check_handle(handle));
                  ConvProblem p;
                  FD_TRY(ConvProblem::make(ConvDir::bwd_filter, srcDesc, gradDesc, convDesc, diffDesc, &p));
                  return fd::conv_api::rank<cudnnConvolutionBwdFilterAlgoPerf_t, cudnnConvolutionBwdFilterAlgo_t>(
                      handle, p, requestedAlgoCount, returnedAlgoCount, perfResults);
                });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnnHandle_t handle,
                                                                         const cudnnTensorDescriptor_t xDesc,
                                                                         const cudnnTensorDescriptor_t dyDesc,
                                                                         const cudnnConvolutionDescriptor_t convDesc,
                                                                         const cudnnFilterDescriptor_t gradDesc,
                                                                         cudnnConvolutionBwdFilterAlgo_t algo,
                                                                         size_t* sizeInBytes) {
  return FD_API(cudnnGetConvolutionBackwardFilterWorkspaceSize,
                (handle, xDesc, dyDesc, convDesc, gradDesc, algo, sizeInBytes), [&]() -> cudnnStatus_t {
                  return fd::conv_api::workspace_size(handle, ConvDir::bwd_filter, xDesc, gradDesc, convDesc, dyDesc,
                                                      algo, sizeInBytes);
                });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void* alpha,
                                                         const cudnnTensorDescriptor_t xDesc, const void* x,
                                                         const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                                         const cudnnConvolutionDescriptor_t convDesc,
                                                         cudnnConvolutionBwdFilterAlgo_t algo, void* workSpace,
                                                         size_t workSpaceSizeInBytes, const void* beta,
                                                         const cudnnFilterDescriptor_t dwDesc, void* dw) {
  return FD_API(cudnnConvolutionBackwardFilter,
                (handle, alpha, xDesc, x, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, dwDesc,
                 dw),
                [&]() -> cudnnStatus_t {
                  FD_TRY(fd::check_handle(handle));
                  ConvProblem p;
                  FD_TRY(ConvProblem::make(ConvDir::bwd_filter, xDesc, dwDesc, convDesc, dyDesc, &p));
                  FD_CHECK_PARAM(x != nullptr && dy != nullptr && dw != nullptr, "x, dy or dw is NULL");
                  FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
                  return fd::conv_api::run(handle, p, algo,
                                           make_args(x, dy, dw, workSpace, workSpaceSizeInBytes,
                                                     fd::read_scale(alpha, p.xdt), fd::read_scale(beta, p.xdt)),
                                           "");
                });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnConvolutionBackwardBias(cudnnHandle_t handle, const void* alpha,
                                                       const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                                       const void* beta, const cudnnTensorDescriptor_t dbDesc,
                                                       void* db) {
  return FD_API(cudnnConvolutionBackwardBias, (handle, alpha, dyDesc, dy, beta, dbDesc, db), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_tensor(dyDesc, "dyDesc"));
    FD_TRY(fd::check_tensor(dbDesc, "dbDesc"));
    FD_CHECK_PARAM(dy != nullptr && db != nullptr, "dy or db is NULL");
    FD_CHECK_PARAM(alpha != nullptr && beta != nullptr, "alpha or beta is NULL");
    FD_CHECK_PARAM(dyDesc->nb_dims >= 3, "dyDesc has %d dims, needs at least 3", dyDesc->nb_dims);
    bool shape = dbDesc->nb_dims == dyDesc->nb_dims && dbDesc->dims[1] == dyDesc->dims[1];
    for (int i = 0; i < dbDesc->nb_dims; ++i) shape = shape && (i == 1 || dbDesc->dims[i] == 1);
    FD_CHECK_PARAM(shape, "dbDesc %s must be 1x%lldx1x... for dyDesc %s", dbDesc->spec().c_str(),
                   static_cast<long long>(dyDesc->dims[1]), dyDesc->spec().c_str());
    FD_CHECK_PARAM(dbDesc->dtype == dyDesc->dtype, "db (%s) and dy (%s) differ in data type",
                   fd::dtype_short_name(dbDesc->dtype), fd::dtype_short_name(dyDesc->dtype));
    FD_CHECK_SUPPORTED(fd::dtype_is_float(dyDesc->dtype), "backward bias supports f32, f64, f16 and bf16, not %s",
                       fd::dtype_short_name(dyDesc->dtype));
    const double a = fd::read_scale(alpha, dyDesc->dtype), b = fd::read_scale(beta, dyDesc->dtype);
    if (fd::log::command_logging_enabled())
      fd::log::emit_command("conv bwd_b dy=" + dyDesc->spec() + " db=" + dbDesc->spec() +
                            " alpha=" + fd::log::format_double(a) + " beta=" + fd::log::format_double(b));
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu()) return fd::cuda::conv::bias_grad(handle, *dyDesc, dy, *dbDesc, db, a, b);
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnConvolutionBackwardBias"));
    fd::cpu::conv::bias_grad(*dyDesc, dy, *dbDesc, db, a, b);
    return CUDNN_STATUS_SUCCESS;
  });
}

}  // extern "C"
