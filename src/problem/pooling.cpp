// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "problem/pooling.h"

#include "core/log.h"

namespace fd::problem {

std::string Pooling::to_string() const {
  std::string s = backward ? "pool bwd " : "pool fwd ";
  s += pool->spec();
  s += " alpha=" + log::format_double(alpha) + " beta=" + log::format_double(beta);
  s += " x=" + x->spec();
  if (backward) {
    s += " dy=" + dy->spec() + " dx=" + dx->spec();
  } else {
    s += " y=" + y->spec();
  }
  return s;
}

}  // namespace fd::problem
