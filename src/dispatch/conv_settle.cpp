// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// conv::settle (conv_registry.h): the last step of a computing call's dispatch, after select(). The chosen
// implementation usually runs as it is (one workspace size and one pointer check); the rest of this file is the
// slow path, taken when its workspace outgrew the caller's or its kernels refuse the call's pointers.
#include <string>

#include "core/api_context.h"
#include "core/log.h"
#include "core/status.h"
#include "dispatch/conv_registry.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/common/cuda_util.h"
#endif

namespace fd::conv {
namespace {

void note(const ConvProblem& p, int algo, const std::string& why, const ConvImpl* other, size_t need,
          const std::string& where) {
  if (!log::enabled(CUDNN_SEV_INFO)) return;
  log::emit(CUDNN_SEV_INFO, current_api_context().function,
            "    dispatch: " + why + "; " + other->id() + " (" + std::to_string(need) + " bytes) runs " +
                algo_name(p.dir, algo) + " instead" + where,
            CUDNN_STATUS_SUCCESS);
}

// "id: reason", unless the reason names the implementation already.
std::string named(const ConvImpl* impl, const std::string& reason) {
  return reason.rfind(impl->id(), 0) == 0 ? reason : std::string(impl->id()) + ": " + reason;
}

}  // namespace

cudnnStatus_t settle(const ConvProblem& p, Backend b, int algo, const ConvImpl** impl, size_t* need, ConvArgs* args) {
  const ConvImpl* chosen = *impl;
  *need = chosen->workspace_size(p);
  const Verdict takes = chosen->accepts_pointers(p, *args);
  const bool fits = *need <= args->workspace_size;
  if (takes.ok() && fits) return CUDNN_STATUS_SUCCESS;

  const std::string why = takes.ok() ? "workSpaceSizeInBytes=" + std::to_string(args->workspace_size) +
                                           " is less than the " + std::to_string(*need) + " bytes " + chosen->id() +
                                           " needs"
                                     : named(chosen, takes.reason);
  std::string refusals = takes.ok() ? "" : named(chosen, takes.reason);
  const ConvImpl* taker = nullptr;  // the first other candidate that takes the pointers, whatever its workspace
  size_t taker_need = 0;
  for (const ConvImpl* c : candidates(p, b, algo)) {
    if (c == chosen) continue;
    const Verdict v = c->accepts_pointers(p, *args);
    if (!v.ok()) {
      refusals += std::string(refusals.empty() ? "" : "; ") + named(c, v.reason);
      continue;
    }
    const size_t n = c->workspace_size(p);
    if (n <= args->workspace_size) {
      note(p, algo, why, c, n, "");
      *impl = c;
      *need = n;
      return CUDNN_STATUS_SUCCESS;
    }
    if (taker == nullptr) taker = c, taker_need = n;
  }
  if (takes.ok()) return CUDNN_STATUS_SUCCESS;  // only the workspace is short: the caller says so
  if (taker == nullptr)
    FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "no implementation of %s takes this call's data pointers for %s: %s",
            algo_name(p.dir, algo), p.to_string().c_str(), refusals.c_str());
#ifdef FREEDNN_WITH_CUDA
  if (args->handle != nullptr && !args->handle->on_cpu()) {
    // The caller sized its workspace by the query, which cannot know the pointers: the handle's scratch instead.
    void* scratch = nullptr;
    FD_TRY(fd::cuda::handle_scratch(args->handle, taker_need, &scratch));
    note(p, algo, why, taker, taker_need,
         " on the handle's scratch memory (workSpaceSizeInBytes=" + std::to_string(args->workspace_size) + ")");
    args->workspace = scratch;
    args->workspace_size = taker_need;
    *impl = taker;
    *need = taker_need;
    return CUDNN_STATUS_SUCCESS;
  }
#endif
  FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "%s; %s takes the pointers but needs %zu bytes of workspace, more than %zu",
          named(chosen, takes.reason).c_str(), taker->id(), taker_need, args->workspace_size);
}

}  // namespace fd::conv
