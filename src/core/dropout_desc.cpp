// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/dropout_desc.h"

void cudnnDropoutStruct::describe(fd::log::Writer& w) const {
  if (!is_set) {
    w.line("<not set>");
    return;
  }
  w.arg("dropout", dropout);
  w.field("states", "pointer", fd::log::format_pointer(states));
  w.arg("stateSizeInBytes", states_size);
  w.arg("seed", static_cast<unsigned long long>(seed));
}
