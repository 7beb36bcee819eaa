// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "problem/spatial_tf.h"

#include "core/dtype.h"
#include "core/log.h"

namespace fd::problem {

std::string SpatialTf::to_string() const {
  std::string s = std::string("stn ") + op + " st=" + dtype_short_name(st->dtype) + ":";
  for (int i = 0; i < st->nb_dims; ++i) s += (i ? "x" : "") + std::to_string(st->dims[i]);
  const std::string o(op);
  if (o == "sampler_fwd" || o == "sampler_bwd")
    s += " alpha=" + log::format_double(alpha) + " beta=" + log::format_double(beta);
  if (o == "sampler_bwd")
    s += " alpha_dgrid=" + log::format_double(alpha_dgrid) + " beta_dgrid=" + log::format_double(beta_dgrid);
  if (x) s += " x=" + x->spec();
  if (dx) s += " dx=" + dx->spec();
  if (y) s += (o == "sampler_bwd" ? " dy=" : " y=") + y->spec();
  return s;
}

}  // namespace fd::problem
