// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <cstdint>
#include <string>
#include <concepts>
#include <type_traits>

#include "enum_names.h"

// cuDNN 8 compatible API logging.
//   CUDNN_LOGINFO_DBG / CUDNN_LOGWARN_DBG / CUDNN_LOGERR_DBG = 1 turn a channel on,
//   CUDNN_LOGDEST_DBG = stdout | stderr | <path> (%i in the path becomes the pid) says where it goes,
//   cudnnSetCallback routes the same messages to a user function.
// freednn extension: FREEDNN_LOG_CMD=1 prints a reproducer line for every computing call.
namespace fd::log {

// True when messages of this severity go anywhere (cheap; checked before formatting anything).
bool enabled(cudnnSeverity_t sev);
bool command_logging_enabled();

// Builds the indented "name: type=...; val=...;" body of one log entry.
class Writer {
 public:
  void line(const std::string& text);
  void linef(const char* fmt, ...) __attribute__((format(printf, 2, 3)));
  void field(const char* name, const char* type, const std::string& value);
  // Opens a nested block ("name: type=cudnnTensorDescriptor_t:") whose fields are indented one level more.
  void open(const char* name, const char* type);
  void close();
  const std::string& text() const { return text_; }
  int depth() const { return depth_; }

  template <class T>
  Writer& arg(const char* name, const T& value);

 private:
  std::string text_;
  int depth_ = 1;
};

// Emits one entry: header line, the body, then time and process lines. The prefix letters follow cuDNN 8:
// I!/i! info, W!/w! warning, E!/e! error.
void emit(cudnnSeverity_t sev, const char* function, const std::string& body, cudnnStatus_t status);
// Emits a reproducer line for FREEDNN_LOG_CMD ("freednn-bench <problem>").
void emit_command(const std::string& problem);

// Callback routing (cudnnSetCallback / cudnnGetCallback).
void set_callback(unsigned mask, void* udata, cudnnCallback_t fn);
void get_callback(unsigned* mask, void** udata, cudnnCallback_t* fn);

std::string format_pointer(const void* p);
std::string format_double(double v);

// --- argument printing -------------------------------------------------------------------------------------
template <class T>
concept Describable = requires(const T& t, Writer& w) {
  t.describe(w);
  { T::kTypeName } -> std::convertible_to<const char*>;
};

template <class T>
void put(Writer& w, const char* name, const T& value) {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_enum_v<U>) {
    const char* n = ::fd::enum_name(value);
    w.field(name, ::fd::enum_type_name(value),
            std::string(n ? n : "<invalid>") + " (" + std::to_string(static_cast<long long>(value)) + ")");
  } else if constexpr (std::is_same_v<U, bool>) {
    w.field(name, "bool", value ? "true" : "false");
  } else if constexpr (std::is_integral_v<U>) {
    const char* type = std::is_same_v<U, int>        ? "int"
                       : std::is_same_v<U, unsigned> ? "unsigned"
                       : std::is_same_v<U, size_t>   ? "size_t"
                       : std::is_signed_v<U>         ? "int64_t"
                                                     : "uint64_t";
    w.field(name, type, std::to_string(value));
  } else if constexpr (std::is_floating_point_v<U>) {
    w.field(name, std::is_same_v<U, float> ? "float" : "double", format_double(value));
  } else if constexpr (std::is_pointer_v<U>) {
    using P = std::remove_cv_t<std::remove_pointer_t<U>>;
    if (value == nullptr) {
      w.field(name, "pointer", "NULL");
    } else if constexpr (Describable<P>) {
      if (value->alive()) {
        w.open(name, P::kTypeName);
        value->describe(w);
        w.close();
      } else {
        w.field(name, "descriptor", "<invalid or destroyed> " + format_pointer(value));
      }
    } else if constexpr (std::is_same_v<P, char>) {
      w.field(name, "string", value);
    } else {
      w.field(name, "pointer", "location=" + format_pointer(value));
    }
  } else {
    w.field(name, "value", "<unprintable>");
  }
}

template <class T>
Writer& Writer::arg(const char* name, const T& value) {
  put(*this, name, value);
  return *this;
}

}  // namespace fd::log
