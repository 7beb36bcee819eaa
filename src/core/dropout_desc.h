// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <cstdint>

#include "core/checked.h"
#include "core/log.h"

// The RNG state a CPU dropout descriptor keeps in the user's states buffer. Counter based: the mask of a
// call is a pure function of (seed, call counter, element index), so it does not depend on thread count.
// Every cudnnDropoutForward advances `counter`; cudnnSetDropoutDescriptor resets it to 0. The descriptor keeps a
// host-side mirror of the state (both backends): a call reads seed and counter from the mirror, never from the
// states buffer (device memory on the CUDA backend), and writes the advanced counter through to the buffer.
// cudnnRestoreDropoutDescriptor loads the mirror from the buffer, so a restored descriptor continues the sequence.
namespace fd {
struct DropoutState {
  static constexpr uint64_t kMagic = 0x6664645244524F50ull;  // "fddRDROP"
  uint64_t magic;
  uint64_t seed;
  uint64_t counter;
  uint64_t reserved;
};
constexpr size_t kDropoutStatesSize = 64;  // bytes asked of the user (>= sizeof(DropoutState))
}  // namespace fd

struct cudnnDropoutStruct : fd::Checked<0x44524F50u> {
  static constexpr const char* kTypeName = "cudnnDropoutDescriptor_t";

  bool is_set = false;
  float dropout = 0.0f;
  void* states = nullptr;
  bool states_on_cpu = true;  // set by a CPU handle (host memory), else by a CUDA one (device memory)
  size_t states_size = 0;
  unsigned long long seed = 0;
  fd::DropoutState mirror{};  // magic == kMagic once Set/Restore attached initialized states

  fd::DropoutState* state() const { return static_cast<fd::DropoutState*>(states); }
  void describe(fd::log::Writer& w) const;
};
