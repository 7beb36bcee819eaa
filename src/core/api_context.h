// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <exception>
#include <new>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/log.h"

namespace fd {

// What the logger needs to know about the API call in progress on this thread.
struct ApiContext {
  const char* function = nullptr;
  cudnnHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  int device = -1;
  double bytes_moved = -1;  // device-memory bytes the call's kernels move by their pass count; -1: not counted
  int passes = 0;           // their passes over the data
  bool keeps_last = false;  // the call only reads the last call's count (freednnGetLastCallBytesMoved)
};
const ApiContext& current_api_context();
void set_api_context(const ApiContext& ctx);
// Records the handle of the call in progress (after it has been checked), for the log's Handle/GPU fields.
void note_api_handle(cudnnHandle_t handle);
// The same, for a handle argument not checked yet: recorded only if it is a live handle.
void note_api_handle_if_alive(cudnnHandle_t handle);

// A captured argument list: the stringified names ("a, b, c") and references to the values.
template <class... A>
struct ArgList {
  const char* names;
  std::tuple<const A&...> values;
};
template <class... A>
ArgList<A...> make_args(const char* names, const A&... values) {
  return {names, std::tuple<const A&...>(values...)};
}
inline ArgList<> make_args(const char* names) { return {names, {}}; }

template <class... A>
void log_args(log::Writer& w, const ArgList<A...>& args) {
  std::string_view rest(args.names);
  auto next_name = [&rest]() {
    size_t comma = rest.find(',');
    std::string_view n = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    while (!n.empty() && n.front() == ' ') n.remove_prefix(1);
    while (!n.empty() && n.back() == ' ') n.remove_suffix(1);
    return std::string(n);
  };
  std::apply([&](const auto&... v) { ((w.arg(next_name().c_str(), v)), ...); }, args.values);
}

// The bytes a path's kernels move through device memory and its passes over the data, added to the call in
// progress (freednnGetLastCallBytesMoved).
void add_api_bytes_moved(double bytes, int passes);
// When an API call on a handle returns: its count (or -1) becomes this thread's last count for that handle.
void finish_api_call();
// The last count for `handle` on this thread (-1, 0 when none), for freednnGetLastCallBytesMoved, which keeps it.
void last_api_bytes_moved(cudnnHandle_t handle, double* bytes, int* passes);

// Restores the previous context when an API call returns (API calls may nest, e.g. Find calling Forward).
class ApiScope {
 public:
  explicit ApiScope(const char* function) : saved_(current_api_context()) {
    ApiContext ctx;
    ctx.function = function;
    set_api_context(ctx);
  }
  ~ApiScope() {
    finish_api_call();
    set_api_context(saved_);
  }
  ApiScope(const ApiScope&) = delete;
  ApiScope& operator=(const ApiScope&) = delete;

 private:
  ApiContext saved_;
};

cudnnStatus_t status_from_exception(const char* function) noexcept;

// Every C entry point runs through here: it logs the call with all its arguments (info channel),
// runs the body, and turns any escaping exception into a status. No exception crosses the C ABI.
template <class... A, class Body>
cudnnStatus_t api_call(const char* function, const ArgList<A...>& args, Body&& body) noexcept {
  ApiScope scope(function);
  try {
    std::apply(
        [](const auto&... v) {
          (([&] {
             if constexpr (std::is_same_v<std::remove_cvref_t<decltype(v)>, cudnnHandle_t>) note_api_handle_if_alive(v);
           }()),
           ...);
        },
        args.values);
    if (log::enabled(CUDNN_SEV_INFO)) {
      log::Writer w;
      log_args(w, args);
      log::emit(CUDNN_SEV_INFO, function, w.text(), CUDNN_STATUS_SUCCESS);
    }
    return body();
  } catch (...) {
    return status_from_exception(function);
  }
}

}  // namespace fd

// Usage:  return FD_API(cudnnFoo, (a, b, c), [&]() -> cudnnStatus_t { ... });
#define FD_API(function, args, ...) ::fd::api_call(#function, FD_ARGS_IMPL args, __VA_ARGS__)
#define FD_ARGS_IMPL(...) ::fd::make_args(#__VA_ARGS__ __VA_OPT__(, ) __VA_ARGS__)
