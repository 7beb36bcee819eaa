// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Runs one problem: random inputs (seeded), the call through each library, correctness against tests/ref
// (or the CPU backend), timing, and the comparison with a second library.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "api.h"
#include "memory.h"
#include "op.h"

namespace bench {

struct Config {
  bool correctness = true, perf = false, list = false;
  bool fast_ref = false;  // compare with the library's CPU backend instead of tests/ref
  Options opt;
  std::string dt, layout, dir;  // overrides
  uint64_t seed = 1;
  int iters = 0;          // timing samples (0: 20 on a GPU, 5 on the CPU)
  double max_ms = 0;      // timing budget per case and library (0: 2000 GPU, 1000 CPU)
  bool size_copy = false;  // time a same-size copy per memory-bound case (same_size_copy_ms, peak.h)
  bool interleave = true;  // with --vs: the two libraries' timing samples alternate (off: one library's, then the other's)
  bool verbose = false;
};

struct LibResult {
  bool ran = false;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  std::string why, impl;
  double t_min = -1, t_med = -1;  // ms per call
  double timed_s = 0;             // wall seconds spent in the warm-up and the timed loops
  bool tf32 = false;              // float results may come from TF32 tensor cores (the tolerance allows it)
  std::vector<ref::Tensor> out;   // by Arg index; outputs only, every element (correctness mode)
  std::vector<ref::Tensor> sampled;  // by Arg index; outputs only, at most kSample elements (for --vs)
  double bytes_moved = -1;  // freednn's own count for the path the call took (freednnGetLastCallBytesMoved); -1: none
  int passes = 0;
};

// Outputs compared between two libraries: at most this many elements each (a jittered stride over the tensor).
constexpr int64_t kSample = int64_t{1} << 20;

struct CaseResult {
  int index = 0;
  std::string problem;
  std::string verdict;  // PASSED FAILED NOT_SUPPORTED LISTED TIMED
  std::string reason;
  double err = -1, tol = -1;  // worst output vs reference (relative to max |ref|), and its tolerance
  double diff = -1;           // worst output difference lib vs --vs
  double flops = 0, bytes = 0;
  double bytes_moved = -1;  // what freednn's kernels move (each pass over memory); -1: no model
  int passes = 0;
  double copy_same_ms = -1;  // a copy moving bytes_moved in `passes` launches (peak.h); -1: not measured
  bool tf32 = false;        // the tolerance allowed for TF32 tensor cores
  double wall_s = 0;        // the whole case, data preparation included
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;  // the first tensor's (for the GEMM peak)
  LibResult lib, vs;
};

class Library;  // a loaded Api with its handle

class Runner {
 public:
  Runner(Api* lib, Api* vs, const Config& cfg);
  ~Runner();
  CaseResult run(const std::string& line, int index);
  bool device_timing() const;

 private:
  struct Prepared;  // one library's bound call and buffer sets, kept for timing (runner.cpp)
  CaseResult run_case(const std::string& line, int index);
  // The call through L: bound, run once, outputs read back; timed too when perf, unless keep is given, which then
  // holds what time_calls needs (a null *keep when the call failed).
  LibResult run_lib(Library& L, Op& op, const std::vector<Buffer>& host, bool perf, bool full, bool sample,
                    std::unique_ptr<Prepared>* keep = nullptr);
  // Warm-up, then the timed samples of each prepared call (interleaved across the calls), into its result.
  void time_calls(const std::vector<std::pair<Prepared*, LibResult*>>& calls);
  std::unique_ptr<Library> lib_, vs_, cpu_ref_;
  Config cfg_;
};

// Relative error of got against ref (max |got - ref| / max |ref|; integers: max |got - ref|), inf when a NaN or
// infinity does not match.
double compare(const ref::Tensor& got, const ref::Tensor& ref, cudnnDataType_t t);

}  // namespace bench
