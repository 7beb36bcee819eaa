// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Shared by the convolution entry points (convolution_forward.cpp, convolution_backward.cpp).
#pragma once
#include <algorithm>
#include <string>

#include "core/api_context.h"
#include "core/dtype.h"
#include "core/handle.h"
#include "core/log.h"
#include "core/status.h"
#include "dispatch/conv_calibration.h"
#include "dispatch/conv_find.h"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::conv_api {

// Workspace query: the size the implementation chosen for (problem, algo) needs.
inline cudnnStatus_t workspace_size(cudnnHandle_t handle, ConvDir dir, const cudnnTensorStruct* x,
                                    const cudnnFilterStruct* w, const cudnnConvolutionStruct* conv,
                                    const cudnnTensorStruct* y, int algo, size_t* size) {
  FD_TRY(check_handle(handle));
  FD_CHECK_PARAM(size != nullptr, "sizeInBytes is NULL");
  ConvProblem p;
  FD_TRY(ConvProblem::make(dir, x, w, conv, y, &p));
  const conv::ConvImpl* impl = nullptr;
  FD_TRY(conv::select(p, handle->backend, algo, &impl, false, handle));
  FD_TRY(impl->prepare(handle, p));  // e.g. cuFFT plans: made here, not in the computing call
  *size = impl->workspace_size(p);
  return CUDNN_STATUS_SUCCESS;
}

// Everything a computing call does after its own argument checks: choose (among the handle's backend's
// implementations), settle what runs (another implementation of the algorithm where the choice needs more workspace
// than the caller's or refuses its pointers: conv::settle), check the workspace, log, run.
inline cudnnStatus_t run(cudnnHandle_t handle, const ConvProblem& p, int algo, conv::ConvArgs args,
                         const std::string& extra) {
  const conv::ConvImpl* impl = nullptr;
  FD_TRY(conv::select(p, handle->backend, algo, &impl, true, handle));
  args.handle = handle;
  size_t need = 0;
  FD_TRY(conv::settle(p, handle->backend, algo, &impl, &need, &args));
  FD_CHECK_PARAM(args.workspace_size >= need, "workSpaceSizeInBytes=%zu is less than the %zu bytes %s (%s) needs",
                 args.workspace_size, need, conv::algo_name(p.dir, algo), impl->id());
  FD_CHECK_PARAM(need == 0 || args.workspace != nullptr, "workSpace is NULL but %s needs %zu bytes", impl->id(), need);
  if (log::command_logging_enabled()) {
    std::string alg = conv::algo_name(p.dir, algo);
    std::transform(alg.begin(), alg.end(), alg.begin(), [](unsigned char c) { return std::tolower(c); });
    log::emit_command(p.to_string() + " alg=" + alg + " alpha=" + log::format_double(args.alpha) +
                      " beta=" + log::format_double(args.beta) + extra);
  }
  return impl->run(p, args);
}

// The _v7 ranking: every algorithm once, the applicable ones by estimated time (the implementation's estimate times
// its factor measured on the GPU, dispatch/conv_calibration.h), NOT_SUPPORTED ones last.
// A find-database hit for the problem goes first (its applicable algorithms in the measured order, with the
// measured times).
template <class Perf, class Algo>
cudnnStatus_t rank(const cudnnContext* handle, const ConvProblem& p, int requested, int* returned, Perf* perf) {
  FD_CHECK_PARAM(requested > 0, "requestedAlgoCount=%d must be positive", requested);
  FD_CHECK_PARAM(returned != nullptr && perf != nullptr, "returnedAlgoCount or perfResults is NULL");
  const int n = conv::algo_count(p.dir);
  std::vector<Perf> all;
  std::vector<double> cost;
  for (int a = 0; a < n; ++a) {
    Perf r{};
    r.algo = static_cast<Algo>(a);
    const conv::ConvImpl* impl = nullptr;
    const conv::Verdict v = conv::try_select(p, handle->backend, a, &impl, handle);
    r.status = v.status;
    if (v.ok()) {
      r.time = static_cast<float>(conv::calibrated_estimate(*impl, p) * 1e3);  // milliseconds, estimated
      r.memory = impl->workspace_size(p);
      r.determinism = impl->deterministic() ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
      r.mathType = impl->math_type(p);
    } else {
      r.time = -1.0f;
      r.memory = 0;
      r.determinism = CUDNN_NON_DETERMINISTIC;
      r.mathType = p.math;
    }
    all.push_back(r);
  }
  std::stable_sort(all.begin(), all.end(), [](const Perf& a, const Perf& b) {
    const bool ao = a.status == CUDNN_STATUS_SUCCESS, bo = b.status == CUDNN_STATUS_SUCCESS;
    if (ao != bo) return ao;
    return ao && a.time < b.time;
  });
  const auto hits = conv::db_ranking(handle, p);
  if (!hits.empty()) {
    std::vector<Perf> front, rest;
    for (const auto& [algo, ms] : hits)
      for (const Perf& r : all)
        if (static_cast<int>(r.algo) == algo && r.status == CUDNN_STATUS_SUCCESS) {
          front.push_back(r);
          front.back().time = ms;
        }
    for (const Perf& r : all) {
      bool hit = false;
      for (const Perf& f : front) hit = hit || f.algo == r.algo;
      if (!hit) rest.push_back(r);
    }
    front.insert(front.end(), rest.begin(), rest.end());
    all = front;
  }
  const int k = std::min(requested, n);
  for (int i = 0; i < k; ++i) perf[i] = all[static_cast<size_t>(i)];
  *returned = k;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::conv_api
