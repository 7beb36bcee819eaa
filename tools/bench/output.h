// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// One line per case on stdout, a summary, and optional CSV / JSON files (the JSON is what tools/plot reads and
// tools/bench_torch.py writes).
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "runner.h"

namespace bench {

struct RunInfo {
  std::string device, lib, vs, mode;
  bool device_timing = false;
  double copy_gbs = 0;  // measured copy bandwidth (performance mode)
};

class Reporter {
 public:
  Reporter(const RunInfo& info, const std::string& csv_path, const std::string& json_path);
  ~Reporter();
  void add(const CaseResult& c);  // prints the line, keeps the record
  // Prints the summary and writes the files; returns the number of FAILED cases.
  int finish();

 private:
  std::string line(const CaseResult& c) const;
  RunInfo info_;
  std::string csv_path_, json_path_;
  std::vector<CaseResult> cases_;
};

}  // namespace bench
