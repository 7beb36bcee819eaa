// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/status.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "core/api_context.h"

namespace fd {
namespace {
thread_local ApiContext t_context;

const char* short_path(const char* file) {
  const char* s = std::strstr(file, "src/");
  return s ? s : file;
}
}  // namespace

const ApiContext& current_api_context() { return t_context; }
void set_api_context(const ApiContext& ctx) { t_context = ctx; }

namespace {
// This thread's last API call on a handle and its count. The handle is only compared, never used: it may be gone.
struct LastCall {
  cudnnHandle_t handle = nullptr;
  double bytes = -1;
  int passes = 0;
};
thread_local LastCall t_last;
}  // namespace

void add_api_bytes_moved(double bytes, int passes) {
  t_context.bytes_moved = t_context.bytes_moved < 0 ? bytes : t_context.bytes_moved + bytes;
  t_context.passes += passes;
}

void finish_api_call() {
  if (t_context.handle == nullptr || t_context.keeps_last) return;
  t_last = {t_context.handle, t_context.bytes_moved, t_context.bytes_moved < 0 ? 0 : t_context.passes};
}

void last_api_bytes_moved(cudnnHandle_t handle, double* bytes, int* passes) {
  t_context.keeps_last = true;
  const bool same = handle == t_last.handle;
  *bytes = same ? t_last.bytes : -1;
  *passes = same ? t_last.passes : 0;
}

cudnnStatus_t report(cudnnStatus_t status, const char* file, int line, const char* condition, const char* fmt,
                     ...) {
  if (!log::enabled(CUDNN_SEV_ERROR)) return status;
  char detail[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  log::Writer w;
  std::string reason = std::string("Error: ") + cudnnGetErrorString(status) + "; Reason: ";
  if (condition && *condition) reason += std::string("check (") + condition + ") failed: ";
  reason += detail;
  reason += " [" + std::string(short_path(file)) + ":" + std::to_string(line) + "]";
  w.line(reason);
  log::emit(CUDNN_SEV_ERROR, t_context.function, w.text(), status);
  return status;
}

cudnnStatus_t not_implemented(const char* function) {
  // Stubs are generated, so they do not go through FD_API; give them their own context for the log.
  ApiScope scope(function);
  return report(CUDNN_STATUS_NOT_SUPPORTED, __FILE__, __LINE__, "",
                "%s is not implemented in freednn yet (see docs/api-coverage.md)", function);
}

cudnnStatus_t status_from_exception(const char* function) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return report(CUDNN_STATUS_ALLOC_FAILED, __FILE__, __LINE__, "", "%s: host memory allocation failed",
                  function);
  } catch (const std::exception& e) {
    return report(CUDNN_STATUS_INTERNAL_ERROR, __FILE__, __LINE__, "", "%s: internal exception: %s", function,
                  e.what());
  } catch (...) {
    return report(CUDNN_STATUS_INTERNAL_ERROR, __FILE__, __LINE__, "", "%s: unknown internal exception",
                  function);
  }
}

}  // namespace fd
