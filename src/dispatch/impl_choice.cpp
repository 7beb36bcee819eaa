// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "dispatch/impl_choice.h"

#include <map>
#include <mutex>
#include <vector>

#include "dispatch/conv_registry.h"
#include "dispatch/find_db.h"

namespace fd::conv::choice {
namespace {

// (device, key) -> per algorithm the implementation id ("" = none recorded). An entry exists once the find
// database was consulted for the key or Find stored a result, so the database is read at most once per key.
struct Table {
  std::mutex mu;
  std::map<std::string, std::vector<std::string>> by_problem;
};

Table& table() {
  static Table t;
  return t;
}

std::string slot_key(const std::string& device, const std::string& key) { return device + '\n' + key; }

constexpr int kSlots = 16;  // per problem: more than any direction's algorithm count (8, 6, 7)

}  // namespace

void remember(const std::string& device, const std::string& key, int algo, const std::string& impl_id) {
  if (algo < 0 || algo >= kSlots) return;
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto& v = t.by_problem[slot_key(device, key)];
  if (v.size() < static_cast<size_t>(kSlots)) v.resize(kSlots);
  v[static_cast<size_t>(algo)] = impl_id;
}

std::string recall(const std::string& device, const std::string& key, int algo, ConvDir dir) {
  if (algo < 0 || algo >= kSlots) return {};
  Table& t = table();
  const std::string sk = slot_key(device, key);
  {
    std::lock_guard<std::mutex> lock(t.mu);
    const auto it = t.by_problem.find(sk);
    if (it != t.by_problem.end()) return it->second[static_cast<size_t>(algo)];
  }
  // First time for this problem in this process: read what an earlier Find stored in the database.
  std::vector<std::string> v(kSlots);
  std::vector<find_db::Entry> entries;
  if (find_db::lookup(device, key, &entries)) {
    for (const find_db::Entry& e : entries)
      for (int a = 0; a < algo_count(dir) && a < kSlots; ++a)
        if (e.algo == algo_name(dir, a) && v[static_cast<size_t>(a)].empty()) v[static_cast<size_t>(a)] = e.impl;
  }
  std::lock_guard<std::mutex> lock(t.mu);
  auto& slot = t.by_problem[sk];
  if (slot.empty()) slot = v;  // Find may have recorded in between: its record wins
  return slot[static_cast<size_t>(algo)];
}

void clear() {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  t.by_problem.clear();
}

}  // namespace fd::conv::choice
