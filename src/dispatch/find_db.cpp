// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "dispatch/find_db.h"

#include <cudnn.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "core/api_context.h"
#include "core/env.h"
#include "core/log.h"
#include "freednn.h"

namespace fd::find_db {
namespace {

constexpr const char* kHeader = "freednn-find-db 1";

// Warnings raised while this thread holds the database's lock wait until it lets go (DbLock): a logging callback may
// call cuDNN, which may look the database up again on this thread (found by review: it hung on the lock).
thread_local bool t_locked = false;
thread_local std::vector<std::string> t_pending;

void warn(const std::string& what) {
  if (!log::enabled(CUDNN_SEV_WARNING)) return;
  if (t_locked) {
    t_pending.push_back(what);
    return;
  }
  const char* fn = current_api_context().function;
  log::emit(CUDNN_SEV_WARNING, fn ? fn : "find_db", "    find database: " + what, CUDNN_STATUS_SUCCESS);
}

using Table = std::unordered_map<std::string, std::vector<Entry>>;

// Parses one "<key>\t<algo> <time> <memory> <impl>\t..." line into `t`; false when malformed.
bool parse_line(const std::string& line, Table& t) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    parts.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  if (parts.size() < 2 || parts[0].empty()) return false;
  std::vector<Entry> entries;
  for (size_t i = 1; i < parts.size(); ++i) {
    std::istringstream ss(parts[i]);
    Entry e;
    std::string time, mem, extra;
    if (!(ss >> e.algo >> time >> mem >> e.impl) || (ss >> extra)) return false;
    char* end = nullptr;
    e.time_ms = std::strtod(time.c_str(), &end);
    if (end == time.c_str() || *end != '\0' || !(e.time_ms >= 0)) return false;
    errno = 0;
    const unsigned long long m = std::strtoull(mem.c_str(), &end, 10);
    if (end == mem.c_str() || *end != '\0' || errno != 0 || mem[0] == '-') return false;
    e.memory = static_cast<size_t>(m);
    entries.push_back(e);
  }
  t[parts[0]] = std::move(entries);
  return true;
}

// Reads a whole file. Missing file: empty table, no warning. Wrong header: empty table, warning. A file that
// exists but cannot be read (whole): empty or partial table, a warning, and *readable = false when asked.
Table read_file(const std::string& path, bool* readable = nullptr) {
  Table t;
  if (readable) *readable = true;
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) {
    if (errno != ENOENT) {
      warn("cannot read " + path + ": " + std::strerror(errno) + " (ignored)");
      if (readable) *readable = false;
    }
    return t;
  }
  std::string line;
  bool first = true;
  int bad = 0, lineno = 0, first_bad = 0;
  char buf[4096];
  auto finish_line = [&]() {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (first) {
      first = false;
      if (line != kHeader) {
        warn(path + " does not start with \"" + kHeader + "\": ignoring the whole file");
        return false;
      }
    } else if (!line.empty() && line[0] != '#') {
      if (!parse_line(line, t) && bad++ == 0) {
        first_bad = lineno;
      }
    }
    line.clear();
    return true;
  };
  bool ok = true;
  while (ok && std::fgets(buf, sizeof buf, f)) {
    line += buf;
    if (!line.empty() && line.back() == '\n') {
      line.pop_back();
      ok = finish_line();
    }
  }
  if (ok && !line.empty()) ok = finish_line();
  if (std::ferror(f)) {
    warn("error reading " + path + " (what was read before it is kept)");
    if (readable) *readable = false;
  }
  std::fclose(f);
  if (!ok) return {};
  if (bad > 0)
    warn(path + ": " + std::to_string(bad) + " malformed line(s) ignored, the first is line " +
         std::to_string(first_bad));
  return t;
}

struct Cached {
  bool present = false;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  struct timespec mtime {};
  Table table;
};

std::mutex g_mutex;
std::map<std::string, Cached> g_cache;

// g_mutex for a scope; the warnings raised meanwhile are logged once it is released.
class DbLock {
 public:
  DbLock() : lock_(g_mutex) { t_locked = true; }
  ~DbLock() {
    t_locked = false;
    lock_.unlock();
    std::vector<std::string> pending;
    pending.swap(t_pending);
    for (const std::string& w : pending) warn(w);
  }
  DbLock(const DbLock&) = delete;
  DbLock& operator=(const DbLock&) = delete;

 private:
  std::unique_lock<std::mutex> lock_;
};

// The table of `path`, re-read when the file changed since the last read.
const Table& cached_table(const std::string& path) {
  Cached& c = g_cache[path];
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    c = Cached{};
    return c.table;
  }
  if (c.present && c.dev == st.st_dev && c.ino == st.st_ino && c.size == st.st_size &&
      c.mtime.tv_sec == st.st_mtim.tv_sec && c.mtime.tv_nsec == st.st_mtim.tv_nsec)
    return c.table;
  c.present = true;
  c.dev = st.st_dev;
  c.ino = st.st_ino;
  c.size = st.st_size;
  c.mtime = st.st_mtim;
  c.table = read_file(path);
  return c.table;
}

bool make_dirs(const std::string& dir) {
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    cur = dir.substr(0, pos);
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string format_entries(const std::vector<Entry>& entries) {
  std::string s;
  char buf[64];
  for (const Entry& e : entries) {
    std::snprintf(buf, sizeof buf, "%.6g", e.time_ms);
    s += "\t" + e.algo + " " + buf + " " + std::to_string(e.memory) + " " + (e.impl.empty() ? "-" : e.impl);
  }
  return s;
}

bool valid_token(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') return false;
  return true;
}

}  // namespace

bool enabled() { return !env_flag("FREEDNN_DB_DISABLE"); }

std::string file_name(const std::string& device) {
  return "find-" + device + "-" + std::to_string(CUDNN_MAJOR) + "." + std::to_string(CUDNN_MINOR) + "." +
         std::to_string(CUDNN_PATCHLEVEL) + "-freednn" + FREEDNN_VERSION_STRING + ".txt";
}

std::string user_dir() {
  const std::string explicit_dir = env_string("FREEDNN_DB_PATH");
  if (!explicit_dir.empty()) return explicit_dir;
  const std::string xdg = env_string("XDG_CACHE_HOME");
  if (!xdg.empty() && xdg[0] == '/') return xdg + "/freednn";
  const std::string home = env_string("HOME");
  if (!home.empty()) return home + "/.cache/freednn";
  return "";
}

std::string system_dir() {
  const std::string explicit_dir = env_string("FREEDNN_SYSTEM_DB_PATH");
  if (!explicit_dir.empty()) return explicit_dir;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&file_name), &info) == 0 || info.dli_fname == nullptr) return "";
  std::string lib = info.dli_fname;
  const size_t slash = lib.rfind('/');
  if (slash == std::string::npos) return "";
  return lib.substr(0, slash) + "/../share/freednn";
}

bool lookup(const std::string& device, const std::string& key, std::vector<Entry>* out) {
  if (!enabled()) return false;
  const std::string name = file_name(device);
  DbLock lock;
  for (const std::string& dir : {user_dir(), system_dir()}) {
    if (dir.empty()) continue;
    const Table& t = cached_table(dir + "/" + name);
    const auto it = t.find(key);
    if (it != t.end() && !it->second.empty()) {
      *out = it->second;
      return true;
    }
  }
  return false;
}

void store(const std::string& device, const std::string& key, const std::vector<Entry>& entries) {
  if (!enabled() || entries.empty() || key.empty() || key.find_first_of("\t\n\r") != std::string::npos) return;
  for (const Entry& e : entries)
    if (!valid_token(e.algo) || e.impl.find_first_of(" \t\n\r") != std::string::npos) return;
  const std::string dir = user_dir();
  if (dir.empty()) {
    warn("no database directory (FREEDNN_DB_PATH, XDG_CACHE_HOME and HOME are unset): result not saved");
    return;
  }
  if (!make_dirs(dir)) {
    warn("cannot create " + dir + ": " + std::strerror(errno) + " (result not saved)");
    return;
  }
  const std::string path = dir + "/" + file_name(device);
  DbLock guard;
  // Advisory lock across processes so concurrent writers merge rather than overwrite each other; the
  // temporary file + rename alone already keeps readers from ever seeing a partial file.
  // Without the lock, or without all of the file, a write could drop other processes' or the file's entries:
  // then nothing is written.
  const int lock_fd = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0 || ::flock(lock_fd, LOCK_EX) != 0) {
    warn("cannot lock " + path + ".lock: " + std::strerror(errno) + " (result not saved)");
    if (lock_fd >= 0) ::close(lock_fd);
    return;
  }
  bool readable = true;
  Table t = read_file(path, &readable);
  if (!readable) {
    ::flock(lock_fd, LOCK_UN);
    ::close(lock_fd);
    warn("cannot read all of " + path + " (result not saved, so that its entries are kept)");
    return;
  }
  t[key] = entries;
  static std::atomic<unsigned> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  bool ok = false;
  int err = 0;
  if (FILE* f = std::fopen(tmp.c_str(), "w")) {
    std::map<std::string, const std::vector<Entry>*> sorted;  // stable file order, easy to diff
    for (const auto& kv : t) sorted[kv.first] = &kv.second;
    ok = std::fprintf(f, "%s\n", kHeader) > 0;
    for (const auto& kv : sorted)
      ok = ok && std::fprintf(f, "%s%s\n", kv.first.c_str(), format_entries(*kv.second).c_str()) > 0;
    ok = ok && std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
    if (!ok) err = errno;
    ok = (std::fclose(f) == 0) && ok;
    if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
      ok = false;
      err = errno;
    }
    if (!ok) ::unlink(tmp.c_str());
  } else {
    err = errno;
  }
  ::flock(lock_fd, LOCK_UN);
  ::close(lock_fd);
  if (!ok) warn("cannot write " + path + ": " + std::strerror(err) + " (result not saved)");
}

}  // namespace fd::find_db
