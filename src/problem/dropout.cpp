// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "problem/dropout.h"

#include "core/log.h"

namespace fd::problem {

std::string Dropout::to_string() const {
  std::string s = backward ? "dropout bwd" : "dropout fwd";
  s += " p=" + log::format_double(p);
  if (!backward) s += " seed=" + std::to_string(seed) + " counter=" + std::to_string(counter);
  s += backward ? " dy=" : " x=";
  s += in->spec();
  s += backward ? " dx=" : " y=";
  s += out->spec();
  return s;
}

}  // namespace fd::problem
