// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// freednn-bench: reproduce, check and time cuDNN-API calls, one problem or a batch, through any cuDNN-API
// library loaded by path. See docs/bench.md.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "api.h"
#include "memory.h"
#include "op.h"
#include "output.h"
#include "peak.h"
#include "runner.h"

namespace {

const char* kUsage =
    "usage: freednn-bench [options] [<problem> | --batch=FILE ...]\n"
    "  <problem>          one problem line, as FREEDNN_LOG_CMD prints it (docs/problem-syntax.md)\n"
    "  --batch=FILE       one problem per line, '#' comments; may be repeated\n"
    "  --mode=C|P|CP|L    correctness (default), performance, both, list\n"
    "  --fast-ref         correctness against the library's CPU backend instead of tests/ref\n"
    "  --lib=PATH         the library under test (default: libcudnn.so.8 of this build tree)\n"
    "  --vs=PATH          a second cuDNN-API library (NVIDIA's libcudnn.so.9, another freednn build)\n"
    "  --dt=T --layout=L --dir=D   override the data type (f32 f16 bf16 f64 ...), layout (nchw nhwc), direction\n"
    "  --algo=NAME|any|v7 convolution algorithm (enum name, any case, prefix optional); any: Find, else _v7;\n"
    "                     v7: the _v7 heuristic's first choice, no Find\n"
    "  --math=M           convolution math type: default, tensor_op, tensor_op_allow_conversion, fma\n"
    "  --impl=ID          freednn implementation id (sets FREEDNN_ONLY_IMPL for the library under test)\n"
    "  --alpha=A --beta=B override the scales\n"
    "  --seed=N --iters=N --max-ms=MS   data seed, timing samples, timing budget per case\n"
    "  --no-yardsticks    skip the copy-bandwidth, same-size-copy and GEMM-peak measurements (profiling runs)\n"
    "  --no-interleave    with --vs, time one library's samples and then the other's (default: alternating)\n"
    "  --csv=FILE --json=FILE           machine-readable results\n";

std::string exe_dir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

std::string default_lib() {
  const std::string d = exe_dir();
  for (const std::string& c : {d + "/../../src/libcudnn.so.8", d + "/../lib/libcudnn.so.8", d + "/libcudnn.so.8"})
    if (access(c.c_str(), R_OK) == 0) return c;
  return "libcudnn.so.8";
}

bool starts(const std::string& s, const char* p, std::string* rest) {
  const std::string pre(p);
  if (s.compare(0, pre.size(), pre) != 0) return false;
  *rest = s.substr(pre.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bench::Config cfg;
  std::string lib_path, vs_path, csv, json, mode = "C", v;
  bool yardsticks = true, interleave = true;
  std::vector<std::string> batches;
  std::string problem;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    try {
      if (a == "-h" || a == "--help") {
        std::printf("%s", kUsage);
        return 0;
      } else if (starts(a, "--lib=", &v)) {
        lib_path = v;
      } else if (starts(a, "--vs=", &v)) {
        vs_path = v;
      } else if (starts(a, "--mode=", &v)) {
        mode = v;
      } else if (a == "--fast-ref") {
        cfg.fast_ref = true;
      } else if (starts(a, "--batch=", &v)) {
        batches.push_back(v);
      } else if (starts(a, "--dt=", &v)) {
        cfg.dt = v;
      } else if (starts(a, "--layout=", &v)) {
        cfg.layout = v;
      } else if (starts(a, "--dir=", &v)) {
        cfg.dir = v;
      } else if (starts(a, "--algo=", &v)) {
        cfg.opt.algo = v;
      } else if (starts(a, "--math=", &v)) {
        cfg.opt.math = v;
      } else if (starts(a, "--impl=", &v)) {
        cfg.opt.impl = v;
      } else if (starts(a, "--alpha=", &v)) {
        cfg.opt.alpha = std::stod(v);
        cfg.opt.alpha_set = true;
      } else if (starts(a, "--beta=", &v)) {
        cfg.opt.beta = std::stod(v);
        cfg.opt.beta_set = true;
      } else if (starts(a, "--seed=", &v)) {
        cfg.seed = std::stoull(v);
      } else if (starts(a, "--iters=", &v)) {
        cfg.iters = std::stoi(v);
      } else if (starts(a, "--max-ms=", &v)) {
        cfg.max_ms = std::stod(v);
      } else if (starts(a, "--csv=", &v)) {
        csv = v;
      } else if (starts(a, "--json=", &v)) {
        json = v;
      } else if (a == "--no-yardsticks") {
        yardsticks = false;
      } else if (a == "--no-interleave") {
        interleave = false;
      } else if (a == "-v" || a == "--verbose") {
        cfg.verbose = true;
      } else if (a.rfind("--", 0) == 0) {
        std::fprintf(stderr, "unknown option %s\n%s", a.c_str(), kUsage);
        return 2;
      } else {
        problem += (problem.empty() ? "" : " ") + a;
      }
    } catch (const std::exception&) {
      std::fprintf(stderr, "bad value in %s\n", a.c_str());
      return 2;
    }
  }
  if (mode != "C" && mode != "P" && mode != "CP" && mode != "PC" && mode != "L") {
    std::fprintf(stderr, "--mode must be C, P, CP or L\n");
    return 2;
  }
  cfg.correctness = mode.find('C') != std::string::npos;
  cfg.perf = mode.find('P') != std::string::npos;
  cfg.list = mode == "L";

  std::vector<std::string> lines;
  if (!problem.empty()) lines.push_back(problem);
  for (const std::string& b : batches) {
    std::ifstream f(b);
    if (!f) {
      std::fprintf(stderr, "cannot read batch file %s\n", b.c_str());
      return 2;
    }
    std::string l;
    while (std::getline(f, l)) {
      const size_t h = l.find('#');
      const std::string body = l.substr(0, h);
      if (body.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(body);
    }
  }
  if (lines.empty()) {
    std::fprintf(stderr, "no problem given\n%s", kUsage);
    return 2;
  }

  bench::Api lib, vs;
  std::string err;
  if (lib_path.empty()) lib_path = default_lib();
  if (!lib.load(lib_path, "lib", &err)) {
    std::fprintf(stderr, "freednn-bench: %s\n", err.c_str());
    return 2;
  }
  if (!vs_path.empty() && !vs.load(vs_path, "vs", &err)) {
    std::fprintf(stderr, "freednn-bench: %s\n", err.c_str());
    return 2;
  }
  if (cfg.fast_ref && !lib.is_freednn) {
    std::fprintf(stderr, "freednn-bench: --fast-ref needs freednn as the library under test\n");
    return 2;
  }
  cfg.size_copy = cfg.perf && yardsticks;
  cfg.interleave = interleave;
  bench::Runner runner(&lib, vs_path.empty() ? nullptr : &vs, cfg);
  bench::RunInfo info;
  info.device = runner.device_timing() ? bench::device_name() : "cpu";
  info.lib = lib_path;
  info.vs = vs_path;
  info.mode = mode;
  info.device_timing = runner.device_timing();
  std::printf("# freednn-bench: lib %s (cuDNN %zu%s, %s memory)", lib_path.c_str(), lib.version,
              lib.is_freednn ? ", freednn" : "", lib.host_memory ? "host" : "device");
  if (!vs_path.empty())
    std::printf(", vs %s (cuDNN %zu%s, %s memory)", vs_path.c_str(), vs.version, vs.is_freednn ? ", freednn" : "",
                vs.host_memory ? "host" : "device");
  std::printf(", mode %s, seed %llu\n", mode.c_str(), static_cast<unsigned long long>(cfg.seed));
  if (cfg.perf && yardsticks) {
    // The yardsticks, measured once per run (here, before the first case).
    std::printf("# %s: copy bandwidth %.1f GB/s (measured)", info.device.c_str(),
                bench::copy_bandwidth_gbs(info.device_timing));
    if (info.device_timing) {
      const double f16 = bench::gemm_peak_tflops(true, CUDNN_DATA_HALF);
      if (f16 > 0) std::printf(", GEMM f16 %.1f TFLOP/s (cuBLAS, measured)", f16);
      else std::printf(", no cuBLAS: no %% peak");
    }
    std::printf("\n");
  }
  bench::Reporter rep(info, csv, json);
  int index = 0;
  for (const std::string& l : lines) rep.add(runner.run(l, index++));
  const int failed = rep.finish();
  return failed ? 1 : 0;
}
