// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The per-handle cache of cuda:fft's cuFFT plans (cudnnContext::fft_plans; fft.cu has the CUDA side).
//
// Design (a computing call neither allocates nor synchronizes):
// - Where plans are made: ConvImpl::prepare, which the workspace query (cudnnGetConvolution*WorkspaceSize) and
//   Find call before workspace_size(). A computing call whose plans are missing (the user never queried on this
//   handle, or the plans were evicted since) makes them itself as a last resort and says so in the info log.
// - No big allocation: plans are made with cufftSetAutoAllocation(0); each run binds the caller's workspace as
//   the work area (cufftSetWorkArea), and workspace_size() includes cuFFT's work size. That size is learnt from a
//   made plan and remembered per key in a process-wide table (workspace_size() has no handle; on a miss it makes
//   and drops a plan, which happens only for callers that did not prepare: the _v7 ranking, an unqueried call).
// - Key: the transform geometry (device, R2C/C2R, hf x wf planes, batch); equal keys share one plan.
// - Bound: at most kFftPlanBound plans per handle, least recently used evicted first. Eviction never
//   synchronizes: a plan is destroyed only when it is idle, i.e. no run holds it (pins) and the CUDA event
//   recorded after its last use has completed (cudaEventQuery); a busy plan is kept (the cache then stays over
//   its bound until the next trim). A query or Find trims to the bound; a computing call trims only when it
//   had to make plans (the unqueried last resort), and only past twice the bound, so the count stays bounded even
//   then; a call whose plans are cached only looks them up.
// - Threads: each handle's cache has a mutex (a workspace query may come from another thread than the calls);
//   a run pins its plans while it queues work with them, so a concurrent trim cannot destroy them.
// - cudnnDestroy waits for each plan's event, then destroys every plan (destroy_fft_plans).
// The bookkeeping below (key, LRU order, pins, trim) is plain C++ and unit-tested without a GPU
// (tests/unit/conv_fft_plan_cache_test.cpp); it includes nothing but the standard library.
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace fd::cuda::conv {

// Destroys every plan of a handle's cache (`cache` is cudnnContext::fft_plans; null is fine). May synchronize.
void destroy_fft_plans(void* cache);

// Plans per handle kept by query-time trims (each cuda:fft problem needs up to three); generous, so that a
// network's worth of FFT layers keeps its plans between the query and the calls.
inline constexpr size_t kFftPlanBound = 256;

enum class FftKind : uint8_t { r2c, c2r };

// One batched 2-D real transform: `batch` planes of hf x wf (real planes packed plane after plane, spectra
// frequency-major), on `device`.
struct FftPlanKey {
  int device = 0;
  FftKind kind = FftKind::r2c;
  int64_t hf = 0, wf = 0, batch = 0;
  friend auto operator<=>(const FftPlanKey&, const FftPlanKey&) = default;
};

// Plans by key with LRU order and pins. `Plan` is any value (the cuFFT handle and its event in fft.cu). Not
// thread-safe by itself: the owner locks.
template <class Plan>
class FftPlanLru {
 public:
  // The plan of `k`, now the most recently used; null when absent. The pointer stays valid until the entry is
  // trimmed (never while pinned).
  Plan* find(const FftPlanKey& k) {
    const auto it = entries_.find(k);
    if (it == entries_.end()) return nullptr;
    it->second.used = ++tick_;
    return &it->second.plan;
  }
  // Adds the plan of an absent key as the most recently used one. Never evicts (see trim).
  Plan* insert(const FftPlanKey& k, const Plan& plan) {
    Entry& e = entries_[k];
    e.plan = plan;
    e.used = ++tick_;
    e.pins = 0;
    return &e.plan;
  }
  // A pinned entry is never trimmed. Pins count (a run may pin one key twice).
  void pin(const FftPlanKey& k) {
    const auto it = entries_.find(k);
    if (it != entries_.end()) ++it->second.pins;
  }
  void unpin(const FftPlanKey& k) {
    const auto it = entries_.find(k);
    if (it != entries_.end() && it->second.pins > 0) --it->second.pins;
  }
  bool pinned(const FftPlanKey& k) const {
    const auto it = entries_.find(k);
    return it != entries_.end() && it->second.pins > 0;
  }
  // While more than `limit` entries are held, removes the least recently used ones that are unpinned and
  // idle(plan), calling destroy(plan) on each; busy ones are skipped (kept). Returns how many were removed.
  template <class Idle, class Destroy>
  size_t trim(size_t limit, Idle&& idle, Destroy&& destroy) {
    if (entries_.size() <= limit) return 0;
    std::vector<typename Map::iterator> order;
    order.reserve(entries_.size());
    for (auto it = entries_.begin(); it != entries_.end(); ++it) order.push_back(it);
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a->second.used < b->second.used; });
    size_t removed = 0;
    for (const auto& it : order) {
      if (entries_.size() <= limit) break;
      if (it->second.pins > 0 || !idle(it->second.plan)) continue;
      destroy(it->second.plan);
      entries_.erase(it);  // other iterators stay valid
      ++removed;
    }
    return removed;
  }
  // Calls f(key, plan) for every entry (for the destroy path).
  template <class F>
  void for_each(F&& f) {
    for (auto& [k, e] : entries_) f(k, e.plan);
  }
  size_t size() const { return entries_.size(); }
  bool contains(const FftPlanKey& k) const { return entries_.count(k) != 0; }

 private:
  struct Entry {
    Plan plan{};
    uint64_t used = 0;  // LRU tick
    int pins = 0;
  };
  using Map = std::map<FftPlanKey, Entry>;
  Map entries_;
  uint64_t tick_ = 0;
};

}  // namespace fd::cuda::conv
