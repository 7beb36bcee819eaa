// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/handle.h"
#include "problem/conv.h"

// cudnnFind*Algorithm(Ex): time every algorithm of a direction through the implementation registry (so
// FREEDNN_ONLY_IMPL / FREEDNN_DISABLE_IMPL apply), store the ranking in the find database, and give the
// database's ranking back to the _v7 queries.
namespace fd::conv {

struct FindResult {
  int algo = 0;
  cudnnStatus_t status = CUDNN_STATUS_NOT_SUPPORTED;
  float time_ms = -1.0f;  // median of the timed runs; -1 when it did not run
  size_t memory = 0;      // workspace bytes
  bool deterministic = false;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  std::string impl;  // implementation id, "" when none
  std::string reason;  // why status != SUCCESS
};

// The caller's buffers (the Ex calls). Roles as in ConvArgs: in / in2 inputs, out the output. Pointers of the
// handle's backend (device pointers on the CUDA backend).
struct FindBuffers {
  const void* in = nullptr;
  const void* in2 = nullptr;
  void* out = nullptr;
  void* workspace = nullptr;
  size_t workspace_size = 0;
};

// Times every algorithm (one warm-up run, then the median of at least 3 samples; CUDA-event time on the GPU) on
// `user`'s buffers, or on
// buffers it allocates when `user` is null. Results: the successful ones by time, then the others (NOT_SUPPORTED,
// or ALLOC_FAILED when the caller's workspace is too small or an allocation failed) in algorithm order.
// With user buffers the output finally holds the winner's result (alpha = 1, beta = 0). The successful ones
// are stored in the find database. Only the implementations of the handle's backend take part; on the CUDA
// backend the library's own buffers are device memory. When several implementations serve an algorithm and
// accept the problem, each is timed: the algorithm's result is the fastest, and that implementation is what the
// algorithm runs for this problem afterwards (dispatch/impl_choice.h; the database keeps it across processes).
cudnnStatus_t find(cudnnContext* h, const ConvProblem& p, const FindBuffers* user,
                   std::vector<FindResult>* results);

// "cpu", or "cuda<device>".
std::string device_tag(const cudnnContext* h);

// The find database's ranking of this problem (algorithm, measured ms), best first; empty on a miss.
std::vector<std::pair<int, float>> db_ranking(const cudnnContext* h, const ConvProblem& p);

}  // namespace fd::conv
