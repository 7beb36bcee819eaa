// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/env.h"

#include <cstdlib>
#include <cstring>
#include <strings.h>

namespace fd {

std::string env_string(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return false;
  return !(std::strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "off") == 0 ||
           strcasecmp(v, "no") == 0);
}

bool env_flag_or(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  return v && *v ? env_flag(name) : fallback;
}

long long env_int(const char* name, long long fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long long r = std::strtoll(v, &end, 10);
  return (end && *end == '\0') ? r : fallback;
}

}  // namespace fd
