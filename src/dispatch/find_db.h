// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cstddef>
#include <string>
#include <vector>

// The persistent find database (docs/find-database.md): what cudnnFind*Algorithm measured, per device and
// library version, keyed by the problem string. A user copy (read and written) ranks above a read-only system
// copy installed with the library. Nothing here is ever fatal: an unreadable, unwritable or corrupt file is
// logged (warning channel) and ignored.
namespace fd::find_db {

// One measured algorithm: the cuDNN enum name, the median time, the workspace and the implementation id.
struct Entry {
  std::string algo;
  double time_ms = 0;
  size_t memory = 0;
  std::string impl;
};

// "cpu" for the CPU backend, "cuda<ordinal>" for a GPU.
// The file name for a device: "find-<device>-<cuDNN version>-freednn<version>.txt".
std::string file_name(const std::string& device);
// The user database directory: FREEDNN_DB_PATH, else $XDG_CACHE_HOME/freednn, else $HOME/.cache/freednn
// ("" when none can be derived).
std::string user_dir();
// The system copy's directory: FREEDNN_SYSTEM_DB_PATH, else <prefix>/share/freednn next to the library's lib dir.
std::string system_dir();

// The entries for `key` (best first): the user copy's when it has the key, else the system copy's.
// Files are re-read when they changed on disk (size, mtime or inode), so other processes' writes are seen.
bool lookup(const std::string& device, const std::string& key, std::vector<Entry>* out);

// Replaces the entries for `key` in the user copy: lock (advisory, <file>.lock), re-read, write everything to
// a temporary file in the same directory, rename it over the file. Failures are logged and ignored.
void store(const std::string& device, const std::string& key, const std::vector<Entry>& entries);

// Whether the database is in use (FREEDNN_DB_DISABLE unset or false).
bool enabled();

}  // namespace fd::find_db
