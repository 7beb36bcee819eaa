// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/log.h"

#include <sys/time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <vector>

#include "core/api_context.h"
#include "core/env.h"

namespace fd::log {
namespace {

struct Sink {
  // Recursive: a callback may call cudnnGetCallback / cudnnSetCallback (or any cuDNN function) on its own thread
  std::recursive_mutex mutex;
  unsigned mask = 0;  // CUDNN_SEV_*_EN bits
  void* udata = nullptr;
  cudnnCallback_t callback = nullptr;
  FILE* file = nullptr;
  bool commands = false;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::atomic<unsigned> fast_mask{0};  // mask, or all bits while a callback is installed

  Sink() {
    if (env_flag("CUDNN_LOGERR_DBG")) mask |= CUDNN_SEV_ERROR_EN;
    if (env_flag("CUDNN_LOGWARN_DBG")) mask |= CUDNN_SEV_WARNING_EN;
    if (env_flag("CUDNN_LOGINFO_DBG")) mask |= CUDNN_SEV_INFO_EN;
    commands = env_flag("FREEDNN_LOG_CMD");
    open_destination(env_string("CUDNN_LOGDEST_DBG"));
    // cuDNN 8 logs nothing when no destination is named; our reproducer lines default to stderr.
    if (!file) mask = 0;
    fast_mask = mask;
  }

  void open_destination(const std::string& dest) {
    if (dest.empty()) return;
    if (dest == "stdout") {
      file = stdout;
    } else if (dest == "stderr") {
      file = stderr;
    } else {
      std::string path;
      for (size_t i = 0; i < dest.size(); ++i) {
        if (dest[i] == '%' && i + 1 < dest.size() && dest[i + 1] == 'i') {
          path += std::to_string(static_cast<long long>(getpid()));
          ++i;
        } else {
          path += dest[i];
        }
      }
      file = std::fopen(path.c_str(), "a");
      if (!file) std::fprintf(stderr, "freednn: cannot open log destination '%s'; logging disabled\n", path.c_str());
    }
  }
};

// Never destroyed: a user's static object may still log (or set the callback) after this file's statics would
// be gone at exit. Every write is flushed, so nothing is lost unclosed.
Sink& sink() {
  static Sink* s = new Sink();
  return *s;
}

// Set while this thread runs the user's callback: what the callback's own cuDNN calls log is dropped, not
// delivered to it again (it could recurse without end).
thread_local bool in_callback = false;

unsigned sev_bit(cudnnSeverity_t sev) {
  switch (sev) {
    case CUDNN_SEV_FATAL:
    case CUDNN_SEV_ERROR: return CUDNN_SEV_ERROR_EN;
    case CUDNN_SEV_WARNING: return CUDNN_SEV_WARNING_EN;
    case CUDNN_SEV_INFO: return CUDNN_SEV_INFO_EN;
  }
  return 0;
}

unsigned long long thread_id() { return static_cast<unsigned long long>(syscall(SYS_gettid)); }

}  // namespace

bool enabled(cudnnSeverity_t sev) { return (sink().fast_mask.load(std::memory_order_relaxed) & sev_bit(sev)) != 0; }
bool command_logging_enabled() { return sink().commands; }

void Writer::line(const std::string& text) {
  text_.append(static_cast<size_t>(depth_) * 4, ' ');
  text_ += text;
  text_ += '\n';
}

void Writer::linef(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  line(buf);
}

void Writer::field(const char* name, const char* type, const std::string& value) {
  line(std::string(name) + ": type=" + type + "; val=" + value + ";");
}

void Writer::open(const char* name, const char* type) {
  line(std::string(name) + ": type=" + type + ":");
  ++depth_;
}

void Writer::close() {
  if (depth_ > 1) --depth_;
}

std::string format_pointer(const void* p) {
  if (!p) return "NULL";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

std::string format_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

void emit(cudnnSeverity_t sev, const char* function, const std::string& body, cudnnStatus_t status) {
  Sink& s = sink();
  if (!enabled(sev) || in_callback) return;
  const char upper = sev == CUDNN_SEV_INFO ? 'I' : sev == CUDNN_SEV_WARNING ? 'W' : 'E';
  const char lower = static_cast<char>(upper - 'A' + 'a');

  timeval tv{};
  gettimeofday(&tv, nullptr);
  const auto since = std::chrono::steady_clock::now() - s.start;
  const long long secs = std::chrono::duration_cast<std::chrono::seconds>(since).count();
  char stamp[64];
  tm local{};
  localtime_r(&tv.tv_sec, &local);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &local);

  const ApiContext& ctx = current_api_context();
  std::string gpu = ctx.device >= 0 ? std::to_string(ctx.device) : "NULL";
  std::string handle = format_pointer(ctx.handle);
  std::string stream = ctx.handle ? format_pointer(ctx.stream) : "NULL";

  // Lines without their prefix, so that the callback form (NUL-separated) and the file form share them.
  std::vector<std::string> lines;
  lines.push_back(std::string("CuDNN (v") + std::to_string(CUDNN_VERSION) + ") function " +
                  (function ? function : "<unknown>") + "() called:");
  size_t begin = 0;
  while (begin < body.size()) {
    size_t end = body.find('\n', begin);
    if (end == std::string::npos) end = body.size();
    lines.push_back(body.substr(begin, end - begin));
    begin = end + 1;
  }
  char tline[160];
  std::snprintf(tline, sizeof tline, "Time: %s.%06ld (%lldd+%lldh+%lldm+%llds since start)", stamp,
                static_cast<long>(tv.tv_usec), secs / 86400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
  lines.push_back(tline);
  lines.push_back("Process=" + std::to_string(static_cast<long long>(getpid())) +
                  "; Thread=" + std::to_string(thread_id()) + "; GPU=" + gpu + "; Handle=" + handle +
                  "; StreamId=" + stream + ".");

  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  if (s.callback) {
    if ((s.mask & sev_bit(sev)) == 0) return;
    std::string msg;
    for (size_t i = 0; i < lines.size(); ++i) {
      msg += (i == 0 ? upper : lower);
      msg += "! ";
      msg += lines[i];
      msg += '\0';
    }
    msg += '\0';
    cudnnDebug_t dbg{};
    dbg.cudnn_version = CUDNN_VERSION;
    dbg.cudnnStatus = status;
    dbg.time_sec = static_cast<unsigned>(tv.tv_sec);
    dbg.time_usec = static_cast<unsigned>(tv.tv_usec);
    dbg.time_delta = static_cast<unsigned>(secs);
    dbg.handle = ctx.handle;
    dbg.stream = ctx.stream;
    dbg.pid = static_cast<unsigned long long>(getpid());
    dbg.tid = thread_id();
    dbg.cudaDeviceId = ctx.device;
    in_callback = true;
    s.callback(sev, s.udata, &dbg, msg.data());
    in_callback = false;
    return;
  }
  if (!s.file) return;
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    out += (i == 0 ? upper : lower);
    out += "! ";
    out += lines[i];
    out += '\n';
  }
  out += '\n';
  std::fwrite(out.data(), 1, out.size(), s.file);
  std::fflush(s.file);
}

void emit_command(const std::string& problem) {
  Sink& s = sink();
  if (!s.commands) return;
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  FILE* f = s.file ? s.file : stderr;
  std::fprintf(f, "freednn-bench %s\n", problem.c_str());
  std::fflush(f);
}

void set_callback(unsigned mask, void* udata, cudnnCallback_t fn) {
  Sink& s = sink();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  s.mask = mask & (CUDNN_SEV_ERROR_EN | CUDNN_SEV_WARNING_EN | CUDNN_SEV_INFO_EN);
  s.udata = udata;
  s.callback = fn;
  // Without a callback the built-in logger needs a destination.
  s.fast_mask = (fn || s.file) ? s.mask : 0u;
}

void get_callback(unsigned* mask, void** udata, cudnnCallback_t* fn) {
  Sink& s = sink();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  if (mask) *mask = s.mask;
  if (udata) *udata = s.udata;
  if (fn) *fn = s.callback;
}

}  // namespace fd::log
