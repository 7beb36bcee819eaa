// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "dispatch/conv_registry.h"

#include <sstream>

#include "core/api_context.h"
#include "core/env.h"
#include "core/log.h"
#include "core/status.h"
#include "dispatch/conv_calibration.h"
#include "dispatch/conv_find.h"
#include "dispatch/impl_choice.h"
#include "cpu/conv/impls.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/conv/impls.h"
#endif

namespace fd::conv {
namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

bool matches(const std::string& id, const std::vector<std::string>& patterns) {
  for (const auto& p : patterns)
    if (id.compare(0, p.size(), p) == 0) return true;
  return false;
}

// Algorithms with no implementation at all on a backend, and why (so the NOT_SUPPORTED reason is informative).
std::string missing_reason(ConvDir dir, int algo, Backend b) {
  const std::string on = std::string(" has no ") + (b == Backend::cuda ? "CUDA" : "CPU") + " implementation";
  switch (dir) {
    case ConvDir::fwd:
      if (algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT || algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING)
        return "FFT convolution" + on;
      if (algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED) return "non-fused Winograd convolution" + on;
      if (algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD) return "Winograd convolution" + on;
      break;
    case ConvDir::bwd_data:
      if (algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT || algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING)
        return "FFT convolution" + on;
      if (algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD || algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED)
        return "Winograd convolution" + on;
      break;
    case ConvDir::bwd_filter:
      if (algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT || algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING)
        return "FFT convolution" + on;
      if (algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD ||
          algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED)
        return "Winograd convolution" + on;
      break;
  }
  return std::string("no ") + backend_name(b) + " implementation serves this algorithm";
}

}  // namespace

const std::vector<const ConvImpl*>& all_impls() {
  static const std::vector<const ConvImpl*> list = {
      fd::cpu::conv::winograd_impl(),
      fd::cpu::conv::im2col_gemm_impl(),
      fd::cpu::conv::direct_impl(),
#ifdef FREEDNN_WITH_CUDA
      fd::cuda::conv::patch_fprop_impl(),  // few input channels only: ahead of the implicit GEMMs there
      fd::cuda::conv::patch_fma_fprop_impl(),
      fd::cuda::conv::patch_dgrad_impl(),
      fd::cuda::conv::patch_fma_dgrad_impl(),
      fd::cuda::conv::patch_wgrad_impl(),
      fd::cuda::conv::patch_fma_wgrad_impl(),
      fd::cuda::conv::halo_wgrad_impl(),
#if FREEDNN_WITH_CUTLASS_SM90
      fd::cuda::conv::cutlass_sm90_fprop_impl(),
      fd::cuda::conv::cutlass_sm90_dgrad_impl(),
      fd::cuda::conv::cutlass_sm90_wgrad_impl(),
#endif
      // After cutlass_sm90 until measured: Find picks it where it is faster (FREEDNN_ONLY_IMPL forces it).
      fd::cuda::conv::nchw_tf32_impl(),
#if FREEDNN_WITH_CUTLASS
      fd::cuda::conv::cutlass_sm80_fprop_impl(),
      fd::cuda::conv::cutlass_sm80_dgrad_impl(),
      fd::cuda::conv::cutlass_sm80_wgrad_impl(),
#endif
      fd::cuda::conv::depthwise_impl(),
      fd::cuda::conv::gemm_1x1_impl(),
      fd::cuda::conv::im2col_gemm_impl(),
      fd::cuda::conv::direct_impl(),
      fd::cuda::conv::fft_impl(),
      fd::cuda::conv::winograd_impl(),
#if FREEDNN_WITH_CUTLASS
      // Last until their speed is measured and calibrated: without a Find record they serve no call that an
      // earlier implementation accepts (FREEDNN_DISABLE_IMPL=cuda:cutlass_simt_ turns them off).
      fd::cuda::conv::cutlass_simt_fprop_impl(),
      fd::cuda::conv::cutlass_simt_dgrad_impl(),
      fd::cuda::conv::cutlass_simt_wgrad_impl(),
#endif
#endif
  };
  return list;
}

std::vector<const ConvImpl*> enabled_impls(Backend b) {
  const auto only = split_list(env_string("FREEDNN_ONLY_IMPL"));
  const auto disable = split_list(env_string("FREEDNN_DISABLE_IMPL"));
  std::vector<const ConvImpl*> out;
  for (const ConvImpl* impl : all_impls()) {
    if (impl->backend() != b) continue;
    if (!only.empty() && !matches(impl->id(), only)) continue;
    if (matches(impl->id(), disable)) continue;
    out.push_back(impl);
  }
  return out;
}

int algo_count(ConvDir dir) {
  switch (dir) {
    case ConvDir::fwd: return CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    case ConvDir::bwd_data: return CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    case ConvDir::bwd_filter: return CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  }
  return 0;
}

const char* algo_name(ConvDir dir, int algo) {
  const char* n = nullptr;
  switch (dir) {
    case ConvDir::fwd: n = enum_name(static_cast<cudnnConvolutionFwdAlgo_t>(algo)); break;
    case ConvDir::bwd_data: n = enum_name(static_cast<cudnnConvolutionBwdDataAlgo_t>(algo)); break;
    case ConvDir::bwd_filter: n = enum_name(static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo)); break;
  }
  return n ? n : "<invalid algo>";
}

// The implementation Find recorded for (problem, algo) when it is still enabled, serves `algo` and accepts the
// problem; null otherwise. Only consulted when another enabled implementation also serves `algo`.
static const ConvImpl* recorded(const ConvProblem& p, const std::vector<const ConvImpl*>& impls, int algo,
                         const cudnnContext* h) {
  const std::string id = choice::recall(device_tag(h), p.key(), algo, p.dir);
  if (id.empty()) return nullptr;
  for (const ConvImpl* impl : impls)
    if (id == impl->id() && impl->serves(p.dir, algo) && impl->applicable(p).ok()) return impl;
  return nullptr;
}

// Without a Find record: among the accepting implementations of `algo` from impls[from] on, the one with the lowest
// calibrated estimate, when every one of them has a factor measured for this data class (otherwise null: the
// registry order stands).
static const ConvImpl* cheapest_calibrated(const ConvProblem& p, const std::vector<const ConvImpl*>& impls,
                                           size_t from, int algo) {
  const ConvImpl* best = nullptr;
  double best_cost = 0;
  for (size_t j = from; j < impls.size(); ++j) {
    const ConvImpl* impl = impls[j];
    if (!impl->serves(p.dir, algo) || !impl->applicable(p).ok()) continue;
    bool measured = false;
    const double c = calibrated_estimate(*impl, p, &measured);
    if (!measured) return nullptr;
    if (best == nullptr || c < best_cost) best = impl, best_cost = c;
  }
  return best;
}

Verdict try_select(const ConvProblem& p, Backend b, int algo, const ConvImpl** out, const cudnnContext* h) {
  *out = nullptr;
  if (algo < 0 || algo >= algo_count(p.dir))
    return {CUDNN_STATUS_BAD_PARAM, "algo " + std::to_string(algo) + " is not an algorithm of this direction"};
  std::string why;
  bool any_serves = false;
  const std::vector<const ConvImpl*> impls = enabled_impls(b);
  for (size_t i = 0; i < impls.size(); ++i) {
    const ConvImpl* impl = impls[i];
    if (!impl->serves(p.dir, algo)) continue;
    any_serves = true;
    const Verdict v = impl->applicable(p);
    if (v.ok()) {
      *out = impl;
      bool others = false;
      for (size_t j = i + 1; j < impls.size() && !others; ++j) others = impls[j]->serves(p.dir, algo);
      if (others && h != nullptr) {
        if (const ConvImpl* r = recorded(p, impls, algo, h); r != nullptr) {
          if (r != impl)
            why += std::string(why.empty() ? "" : "; ") + "Find measured " + r->id() + " faster than " + impl->id();
          *out = r;
        } else if (const ConvImpl* c = cheapest_calibrated(p, impls, i, algo); c != nullptr && c != impl) {
          why += std::string(why.empty() ? "" : "; ") + "the calibrated cost model prefers " + c->id() + " to " +
                 impl->id();
          *out = c;
        }
      }
      return {CUDNN_STATUS_SUCCESS, why};
    }
    why += std::string(why.empty() ? "" : "; ") + impl->id() + ": " + v.reason;
  }
  if (!any_serves) {
    bool filtered = false;
    for (const ConvImpl* impl : all_impls())
      filtered = filtered || (impl->backend() == b && impl->serves(p.dir, algo));
    why = filtered ? "every implementation of this algorithm is filtered out by FREEDNN_ONLY_IMPL/FREEDNN_DISABLE_IMPL"
                   : missing_reason(p.dir, algo, b);
  }
  return {CUDNN_STATUS_NOT_SUPPORTED, why};
}

std::vector<const ConvImpl*> candidates(const ConvProblem& p, Backend b, int algo) {
  std::vector<const ConvImpl*> out;
  if (algo < 0 || algo >= algo_count(p.dir)) return out;
  for (const ConvImpl* impl : enabled_impls(b))
    if (impl->serves(p.dir, algo) && impl->applicable(p).ok()) out.push_back(impl);
  return out;
}

cudnnStatus_t select(const ConvProblem& p, Backend b, int algo, const ConvImpl** out, bool log_choice,
                     const cudnnContext* h) {
  const Verdict v = try_select(p, b, algo, out, h);
  if (!v.ok())
    return report(v.status, __FILE__, __LINE__, "select", "%s for %s: %s", algo_name(p.dir, algo),
                  p.to_string().c_str(), v.reason.c_str());
  if (log_choice && log::enabled(CUDNN_SEV_INFO)) {
    std::string body = std::string("    ") + algo_name(p.dir, algo) + " runs " + (*out)->id() + " for " +
                       p.to_string();
    if (!v.reason.empty()) body += "\n    passed over: " + v.reason;
    log::emit(CUDNN_SEV_INFO, current_api_context().function, "    dispatch:" + body.substr(3), CUDNN_STATUS_SUCCESS);
  }
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::conv
