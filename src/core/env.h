// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <string>

namespace fd {

// Environment lookups, read when asked (callers cache what they need).
std::string env_string(const char* name);            // "" when unset
bool env_flag(const char* name);                     // set and not "0"/"" /"false"/"off"
bool env_flag_or(const char* name, bool fallback);  // env_flag when set (and not empty), else fallback
long long env_int(const char* name, long long fallback);

}  // namespace fd
