// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cudnnFindConvolution{Forward,BackwardData,BackwardFilter}Algorithm(Ex): time every algorithm through the
// implementation registry (src/dispatch/conv_find.h) and record the result in the find database.
#include <algorithm>

#include "api/conv_common.h"
#include "core/api_context.h"
#include "dispatch/conv_find.h"

namespace {

using fd::ConvDir;
using fd::ConvProblem;

template <class Perf, class Algo>
cudnnStatus_t find_common(cudnnHandle_t handle, const ConvProblem& p, const fd::conv::FindBuffers* user,
                          int requested, int* returned, Perf* perf) {
  FD_CHECK_PARAM(requested > 0, "requestedAlgoCount=%d must be positive", requested);
  FD_CHECK_PARAM(returned != nullptr && perf != nullptr, "returnedAlgoCount or perfResults is NULL");
  if (fd::log::command_logging_enabled()) fd::log::emit_command(p.to_string() + " op=find");
  std::vector<fd::conv::FindResult> results;
  FD_TRY(fd::conv::find(handle, p, user, &results));
  const int k = std::min(requested, static_cast<int>(results.size()));
  for (int i = 0; i < k; ++i) {
    const fd::conv::FindResult& r = results[static_cast<size_t>(i)];
    Perf out{};
    out.algo = static_cast<Algo>(r.algo);
    out.status = r.status;
    out.time = r.time_ms;
    out.memory = r.memory;
    out.determinism = r.deterministic ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
    out.mathType = r.math;
    perf[i] = out;
  }
  *returned = k;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_ex_buffers(const void* in, const void* in2, const void* out, const void* ws, size_t ws_size,
                               const char* names) {
  FD_CHECK_PARAM(in != nullptr && in2 != nullptr && out != nullptr, "%s: a data pointer is NULL", names);
  FD_CHECK_PARAM(ws != nullptr || ws_size == 0, "workSpace is NULL but workSpaceSizeInBytes=%zu", ws_size);
  return CUDNN_STATUS_SUCCESS;
}

// The body of all six entry points. Descriptors in forward roles (x: x or dx, y: y or dy); `ex` is null for the
// plain variants (Find allocates), else the caller's buffers, checked under the names in `ex_names`.
template <class Perf, class Algo>
cudnnStatus_t find_entry(cudnnHandle_t handle, ConvDir dir, const cudnnTensorDescriptor_t x,
                         const cudnnFilterDescriptor_t w, const cudnnConvolutionDescriptor_t conv,
                         const cudnnTensorDescriptor_t y, const fd::conv::FindBuffers* ex, const char* ex_names,
                         int requested, int* returned, Perf* perf) {
  FD_TRY(fd::check_handle(handle));
  ConvProblem p;
  FD_TRY(ConvProblem::make(dir, x, w, conv, y, &p));
  if (ex != nullptr)
    FD_TRY(check_ex_buffers(ex->in, ex->in2, ex->out, ex->workspace, ex->workspace_size, ex_names));
  return find_common<Perf, Algo>(handle, p, ex, requested, returned, perf);
}

}  // namespace

extern "C" {

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionForwardAlgorithm(cudnnHandle_t handle,
                                                               const cudnnTensorDescriptor_t xDesc,
                                                               const cudnnFilterDescriptor_t wDesc,
                                                               const cudnnConvolutionDescriptor_t convDesc,
                                                               const cudnnTensorDescriptor_t yDesc,
                                                               const int requestedAlgoCount, int* returnedAlgoCount,
                                                               cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  return FD_API(cudnnFindConvolutionForwardAlgorithm,
                (handle, xDesc, wDesc, convDesc, yDesc, requestedAlgoCount, returnedAlgoCount, perfResults),
                [&]() -> cudnnStatus_t {
    return find_entry<cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgo_t>(
        handle, ConvDir::fwd, xDesc, wDesc, convDesc, yDesc, nullptr, nullptr,
        requestedAlgoCount, returnedAlgoCount, perfResults);
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionForwardAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnFilterDescriptor_t wDesc,
    const void* w, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, void* y,
    const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSizeInBytes) {
  return FD_API(cudnnFindConvolutionForwardAlgorithmEx,
                (handle, xDesc, x, wDesc, w, convDesc, yDesc, y, requestedAlgoCount, returnedAlgoCount, perfResults,
                 workSpace, workSpaceSizeInBytes),
                [&]() -> cudnnStatus_t {
    const fd::conv::FindBuffers b{x, w, y, workSpace, workSpaceSizeInBytes};
    return find_entry<cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgo_t>(
        handle, ConvDir::fwd, xDesc, wDesc, convDesc, yDesc, &b, "x, w or y",
        requestedAlgoCount, returnedAlgoCount, perfResults);
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardDataAlgorithm(cudnnHandle_t handle,
                                                                    const cudnnFilterDescriptor_t wDesc,
                                                                    const cudnnTensorDescriptor_t dyDesc,
                                                                    const cudnnConvolutionDescriptor_t convDesc,
                                                                    const cudnnTensorDescriptor_t dxDesc,
                                                                    const int requestedAlgoCount,
                                                                    int* returnedAlgoCount,
                                                                    cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  return FD_API(cudnnFindConvolutionBackwardDataAlgorithm,
                (handle, wDesc, dyDesc, convDesc, dxDesc, requestedAlgoCount, returnedAlgoCount, perfResults),
                [&]() -> cudnnStatus_t {
    return find_entry<cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgo_t>(
        handle, ConvDir::bwd_data, dxDesc, wDesc, convDesc, dyDesc, nullptr, nullptr,
        requestedAlgoCount, returnedAlgoCount, perfResults);
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardDataAlgorithmEx(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnTensorDescriptor_t dyDesc,
    const void* dy, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void* dx,
    const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSizeInBytes) {
  return FD_API(cudnnFindConvolutionBackwardDataAlgorithmEx,
                (handle, wDesc, w, dyDesc, dy, convDesc, dxDesc, dx, requestedAlgoCount, returnedAlgoCount,
                 perfResults, workSpace, workSpaceSizeInBytes),
                [&]() -> cudnnStatus_t {
    const fd::conv::FindBuffers b{dy, w, dx, workSpace, workSpaceSizeInBytes};
    return find_entry<cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgo_t>(
        handle, ConvDir::bwd_data, dxDesc, wDesc, convDesc, dyDesc, &b, "w, dy or dx",
        requestedAlgoCount, returnedAlgoCount, perfResults);
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardFilterAlgorithm(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, const int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  return FD_API(cudnnFindConvolutionBackwardFilterAlgorithm,
                (handle, xDesc, dyDesc, convDesc, dwDesc, requestedAlgoCount, returnedAlgoCount, perfResults),
                [&]() -> cudnnStatus_t {
    return find_entry<cudnnConvolutionBwdFilterAlgoPerf_t, cudnnConvolutionBwdFilterAlgo_t>(
        handle, ConvDir::bwd_filter, xDesc, dwDesc, convDesc, dyDesc, nullptr, nullptr,
        requestedAlgoCount, returnedAlgoCount, perfResults);
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardFilterAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t dyDesc,
    const void* y, const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void* dw,
    const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSizeInBytes) {
  return FD_API(cudnnFindConvolutionBackwardFilterAlgorithmEx,
                (handle, xDesc, x, dyDesc, y, convDesc, dwDesc, dw, requestedAlgoCount, returnedAlgoCount,
                 perfResults, workSpace, workSpaceSizeInBytes),
                [&]() -> cudnnStatus_t {
    const fd::conv::FindBuffers b{x, y, dw, workSpace, workSpaceSizeInBytes};
    return find_entry<cudnnConvolutionBwdFilterAlgoPerf_t, cudnnConvolutionBwdFilterAlgo_t>(
        handle, ConvDir::bwd_filter, xDesc, dwDesc, convDesc, dyDesc, &b, "x, dy (y) or dw",
        requestedAlgoCount, returnedAlgoCount, perfResults);
  });
}

}  // extern "C"
