// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

namespace fd {

// Logs why a call failed (the condition, where, and a printf-style detail) and returns `status`.
// BAD_PARAM and other errors go to the error channel; NOT_SUPPORTED is an error too (the call did nothing).
[[nodiscard]] cudnnStatus_t report(cudnnStatus_t status, const char* file, int line, const char* condition,
                                   const char* fmt, ...) __attribute__((format(printf, 5, 6)));

// The status every unimplemented entry point returns, with its log line.
cudnnStatus_t not_implemented(const char* function);

}  // namespace fd

// Returns `status` from the calling function, logging the failed condition and a formatted reason.
#define FD_CHECK(cond, status, ...)                                                   \
  do {                                                                                \
    if (!(cond)) return ::fd::report((status), __FILE__, __LINE__, #cond, __VA_ARGS__); \
  } while (0)
#define FD_CHECK_PARAM(cond, ...) FD_CHECK(cond, CUDNN_STATUS_BAD_PARAM, __VA_ARGS__)
#define FD_CHECK_SUPPORTED(cond, ...) FD_CHECK(cond, CUDNN_STATUS_NOT_SUPPORTED, __VA_ARGS__)
// Fails unconditionally with a reason.
#define FD_FAIL(status, ...) return ::fd::report((status), __FILE__, __LINE__, "", __VA_ARGS__)
// Propagates a non-success status.
#define FD_TRY(expr)                                        \
  do {                                                      \
    const cudnnStatus_t fd_try_status_ = (expr);            \
    if (fd_try_status_ != CUDNN_STATUS_SUCCESS) return fd_try_status_; \
  } while (0)
