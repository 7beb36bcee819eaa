// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The data pointer checks of the convolutions whose kernels need aligned operands (TMA boxes, 16-byte cp.async,
// vector loads and stores). An implementation's accepts_pointers() and the check inside its run() call one function
// of this kind, so the dispatch (conv::settle) hands a call elsewhere exactly where run() would refuse it.
#pragma once
#include <cudnn.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>

#include "cuda/common/aligned.h"
#include "dispatch/conv_registry.h"
#include "problem/conv.h"

namespace fd::cuda::conv {

// One operand of a check: its name and the call's pointer (null when the kernel does not use it in place, e.g. an
// operand staged into the workspace).
struct Operand {
  const char* name;
  const void* ptr;
};

// The names of ConvArgs' in, in2 and out by direction.
struct Roles {
  const char *in, *in2, *out;
};
inline Roles roles(fd::ConvDir d) {
  switch (d) {
    case fd::ConvDir::fwd: return {"x", "w", "y"};
    case fd::ConvDir::bwd_data: return {"dy", "w", "dx"};
    case fd::ConvDir::bwd_filter: return {"x", "dy", "dw"};
  }
  return {"in", "in2", "out"};
}

// NOT_SUPPORTED naming each operand whose pointer is not a multiple of `bytes` (`why`: what needs it), or an empty
// verdict.
inline fd::conv::Verdict need_aligned(const char* id, uintptr_t bytes, const char* why,
                                      std::initializer_list<Operand> ops) {
  std::string bad;
  for (const Operand& o : ops) {
    if (aligned_to(o.ptr, bytes)) continue;
    char at[48];
    std::snprintf(at, sizeof at, " at %p", o.ptr);
    bad += std::string(bad.empty() ? "" : ", ") + o.name + at;
  }
  if (bad.empty()) return {};
  return {CUDNN_STATUS_NOT_SUPPORTED,
          std::string(id) + " needs " + std::to_string(bytes) + "-byte aligned data pointers (" + why + "): " + bad};
}

}  // namespace fd::cuda::conv
