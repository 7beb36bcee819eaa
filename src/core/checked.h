// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cstdint>

namespace fd {

// Base of every object handed out through the C API. The tag lets each entry point tell a live object of
// the right kind from a wrong, destroyed or garbage pointer (best effort: it is read before use).
template <uint32_t Tag>
struct Checked {
  static constexpr uint32_t kTag = Tag;
  uint32_t tag_ = Tag;
  Checked() = default;
  Checked(const Checked&) = default;
  Checked& operator=(const Checked&) = default;
  ~Checked() { tag_ = 0xDEADDEADu; }
  bool alive() const { return tag_ == Tag; }
};

template <class T>
inline bool alive(const T* p) {
  return p != nullptr && p->alive();
}

}  // namespace fd
