// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/spatial_tf_desc.h"

#include <string>

void cudnnSpatialTransformerStruct::describe(fd::log::Writer& w) const {
  if (!is_set) {
    w.line("<not set>");
    return;
  }
  w.arg("samplerType", sampler);
  w.arg("dataType", dtype);
  w.arg("nbDims", nb_dims);
  std::string d = "[";
  for (int i = 0; i < nb_dims; ++i) d += (i ? "," : "") + std::to_string(dims[i]);
  w.field("dimA", "int", d + "]");
}
