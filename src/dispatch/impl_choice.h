// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <string>

#include "core/handle.h"
#include "problem/conv.h"

// Which implementation an algorithm enum means for a problem when several serve it and accept the problem
// (e.g. IMPLICIT_PRECOMP_GEMM: a Hopper kernel, an Ampere-style split-K kernel and a cuBLAS 1x1 GEMM). Find
// times every one of them and records the fastest here; the workspace query, the computing call and the _v7
// ranking then run that one. Without a record, the registry order decides. Records live for the process and
// are also read back from the find database (which stores the implementation id of every measured algorithm),
// so a tuning run carries over to later processes.
namespace fd::conv::choice {

// Records `impl_id` as the fastest implementation of `algo` for problem `key` on `device`.
void remember(const std::string& device, const std::string& key, int algo, const std::string& impl_id);

// The recorded implementation id ("" when none), consulting the find database once per (device, key).
std::string recall(const std::string& device, const std::string& key, int algo, ConvDir dir);

// Forgets every record (tests).
void clear();

}  // namespace fd::conv::choice
