// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "output.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "api.h"
#include "peak.h"

namespace bench {
namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      o += ' ';
      continue;
    }
    o += c;
  }
  return o + "\"";
}

std::string json_num(double v) {
  if (!std::isfinite(v)) return "null";
  return fmt("%.6g", v);
}

std::string csv_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

// gbs / bw_frac: the bytes that must move (Op::bytes); gbs_moved / bw_frac_moved: the bytes freednn's kernels move
// (Op::bytes_moved, each pass over memory; NaN without a pass model). peak_frac: of the GEMM peak peak_tflops.
// copy_frac: the same-size copy's time over this library's (CaseResult::copy_same_ms; NaN when not measured).
struct Perf {
  double tflops = 0, gbs = 0, bw_frac = 0, peak_frac = 0, peak_tflops = 0;
  double gbs_moved = NAN, bw_frac_moved = NAN;
  double copy_frac = NAN;
};

Perf perf_of(const CaseResult& c, const LibResult& r, bool device) {
  Perf p;
  if (r.t_med <= 0) return p;
  p.tflops = c.flops / (r.t_med * 1e-3) / 1e12;
  p.gbs = c.bytes / (r.t_med * 1e-3) / 1e9;
  if (c.bytes_moved >= 0) p.gbs_moved = c.bytes_moved / (r.t_med * 1e-3) / 1e9;
  if (c.copy_same_ms > 0) p.copy_frac = c.copy_same_ms / r.t_med;
  const double bw = copy_bandwidth_gbs(device);
  if (bw > 0) {
    p.bw_frac = p.gbs / bw;
    p.bw_frac_moved = p.gbs_moved / bw;
  }
  if (c.flops > 0) {
    p.peak_tflops = gemm_peak_tflops(device, c.dtype, c.tf32);
    if (p.peak_tflops > 0) p.peak_frac = p.tflops / p.peak_tflops;
  }
  return p;
}

std::string num_or_empty(double v) {
  if (!std::isfinite(v)) return "";
  std::ostringstream o;
  o << v;
  return o.str();
}

double ratio_of(const CaseResult& c) {
  return c.lib.t_med > 0 && c.vs.t_med > 0 ? c.lib.t_med / c.vs.t_med : -1;
}

std::string lib_json(const CaseResult& c, const LibResult& r, bool device) {
  const Perf p = perf_of(c, r, device);
  return std::string("{\"status\": ") + json_str(status_name(r.status)) + ", \"impl\": " + json_str(r.impl) +
         ", \"t_med_ms\": " + json_num(r.t_med > 0 ? r.t_med : NAN) +
         ", \"t_min_ms\": " + json_num(r.t_min > 0 ? r.t_min : NAN) + ", \"tflops\": " + json_num(p.tflops) +
         ", \"gbs\": " + json_num(p.gbs) + ", \"bw_frac\": " + json_num(p.bw_frac) +
         ", \"gbs_moved\": " + json_num(p.gbs_moved) + ", \"bw_frac_moved\": " + json_num(p.bw_frac_moved) +
         ", \"peak_frac\": " + json_num(p.peak_frac) + ", \"copy_same_frac\": " + json_num(p.copy_frac) +
         ", \"peak_tflops\": " + json_num(p.peak_tflops > 0 ? p.peak_tflops : NAN) + "}";
}

}  // namespace

Reporter::Reporter(const RunInfo& info, const std::string& csv_path, const std::string& json_path)
    : info_(info), csv_path_(csv_path), json_path_(json_path) {}

Reporter::~Reporter() = default;

std::string Reporter::line(const CaseResult& c) const {
  std::string s = std::to_string(c.index) + ":" + c.verdict + " " + c.problem;
  if (!c.lib.impl.empty()) s += " impl=" + c.lib.impl;
  if (c.verdict == "LISTED") {
    if (c.flops > 0) s += fmt(" flops=%.4g", c.flops);
    s += fmt(" bytes=%.4g", c.bytes);
    if (c.bytes_moved >= 0) s += fmt(" bytes_moved=%.4g", c.bytes_moved) + fmt(" passes=%.0f", c.passes);
    return s;
  }
  if (!c.reason.empty()) s += " (" + c.reason + ")";
  if (c.err >= 0) s += fmt(" err=%.3g", c.err) + (c.tol > 0 ? fmt(" tol=%.3g", c.tol) : "") + (c.tf32 ? "(tf32)" : "");
  const bool dev = info_.device_timing;
  if (c.lib.t_med > 0) {
    const Perf p = perf_of(c, c.lib, dev);
    s += " | " + info_.lib + fmt(" %.4g ms", c.lib.t_med) + fmt(" (min %.4g)", c.lib.t_min);
    if (c.flops > 0) {
      s += fmt(" %.3g TFLOP/s", p.tflops);
      if (p.peak_tflops > 0) s += fmt(" %.1f%% peak", 100 * p.peak_frac);
    }
    s += fmt(" %.4g GB/s", p.gbs) + fmt(" %.1f%% bw", 100 * p.bw_frac);
    if (std::isfinite(p.gbs_moved))
      s += fmt(" moved %.4g GB/s", p.gbs_moved) + fmt(" %.1f%% bw", 100 * p.bw_frac_moved) +
           fmt(" passes=%.0f", c.passes);
    if (std::isfinite(p.copy_frac)) s += fmt(" same-size copy %.1f%%", 100 * p.copy_frac);
  }
  if (c.vs.ran) {
    s += " | vs:";
    if (c.vs.status != CUDNN_STATUS_SUCCESS) {
      s += std::string(" ") + status_name(c.vs.status);
    } else {
      if (c.vs.t_med > 0) s += fmt(" %.4g ms", c.vs.t_med) + fmt(" ratio=%.3f", ratio_of(c));
      if (!c.vs.impl.empty()) s += " impl=" + c.vs.impl;
      s += fmt(" diff=%.3g", c.diff);
    }
  }
  return s;
}

void Reporter::add(const CaseResult& c) {
  std::printf("%s\n", line(c).c_str());
  std::fflush(stdout);
  cases_.push_back(c);
}

int Reporter::finish() {
  std::map<std::string, int> n;
  double log_sum = 0;
  int n_ratio = 0;
  for (const CaseResult& c : cases_) {
    ++n[c.verdict];
    const double r = ratio_of(c);
    if (r > 0) {
      log_sum += std::log(r);
      ++n_ratio;
    }
  }
  std::printf("tests:%zu passed:%d failed:%d not_supported:%d timed:%d listed:%d", cases_.size(), n["PASSED"],
              n["FAILED"], n["NOT_SUPPORTED"], n["TIMED"], n["LISTED"]);
  if (n_ratio) std::printf(" geomean_ratio(lib/vs):%.3f", std::exp(log_sum / n_ratio));
  std::printf("\n");
  double wall = 0, in_loops = 0;
  for (const CaseResult& c : cases_) {
    wall += c.wall_s;
    in_loops += c.lib.timed_s + c.vs.timed_s;
  }
  if (!cases_.empty())
    std::printf("# time: %.2f s over %zu cases, %.2f s in warm-up and timed loops, overhead %.3f s per case\n", wall,
                cases_.size(), in_loops, (wall - in_loops) / static_cast<double>(cases_.size()));

  const bool dev = info_.device_timing;
  const bool timed = info_.mode.find('P') != std::string::npos;
  if (!csv_path_.empty()) {
    std::ofstream f(csv_path_);
    f << "index,verdict,problem,impl,err,tol,flops,bytes,t_med_ms,t_min_ms,tflops,gbs,bw_frac,peak_frac,"
         "vs_status,vs_impl,vs_t_med_ms,vs_t_min_ms,ratio,diff,reason,"
         "bytes_moved,passes,gbs_moved,bw_frac_moved,peak_tflops,vs_gbs,vs_gbs_moved,tf32,wall_s,copy_same_ms\n";
    for (const CaseResult& c : cases_) {
      const Perf p = timed ? perf_of(c, c.lib, dev) : Perf{};
      f << c.index << "," << c.verdict << "," << csv_str(c.problem) << "," << csv_str(c.lib.impl) << "," << c.err
        << "," << c.tol << "," << c.flops << "," << c.bytes << "," << c.lib.t_med << "," << c.lib.t_min << ","
        << p.tflops << "," << p.gbs << "," << p.bw_frac << "," << p.peak_frac << ","
        << (c.vs.ran ? status_name(c.vs.status) : "") << "," << csv_str(c.vs.impl) << "," << c.vs.t_med << ","
        << c.vs.t_min << "," << ratio_of(c) << "," << c.diff << "," << csv_str(c.reason) << ",";
      const Perf v = timed && c.vs.ran ? perf_of(c, c.vs, dev) : Perf{};
      f << (c.bytes_moved >= 0 ? num_or_empty(c.bytes_moved) : "") << "," << (c.passes ? std::to_string(c.passes) : "")
        << "," << num_or_empty(p.gbs_moved) << "," << num_or_empty(p.bw_frac_moved) << ","
        << (p.peak_tflops > 0 ? num_or_empty(p.peak_tflops) : "") << "," << (c.vs.ran ? num_or_empty(v.gbs) : "")
        << "," << (c.vs.ran ? num_or_empty(v.gbs_moved) : "") << "," << (c.tf32 ? 1 : 0) << "," << c.wall_s
        << "," << (c.copy_same_ms > 0 ? num_or_empty(c.copy_same_ms) : "") << "\n";
    }
  }
  if (!json_path_.empty()) {
    std::ofstream f(json_path_);
    f << "{\n  \"tool\": \"freednn-bench\",\n  \"device\": " << json_str(info_.device)
      << ",\n  \"mode\": " << json_str(info_.mode) << ",\n  \"lib\": " << json_str(info_.lib)
      << ",\n  \"vs\": " << json_str(info_.vs) << ",\n  \"timing\": " << json_str(dev ? "cuda_events" : "wall_clock")
      << ",\n  \"copy_gbs\": " << json_num(timed ? copy_bandwidth_gbs(dev) : NAN)
      << ",\n  \"gemm_f16_tflops\": " << json_num(timed && dev ? gemm_peak_tflops(dev, CUDNN_DATA_HALF) : NAN)
      << ",\n  \"cases\": [\n";
    for (size_t i = 0; i < cases_.size(); ++i) {
      const CaseResult& c = cases_[i];
      f << "    {\"index\": " << c.index << ", \"verdict\": " << json_str(c.verdict)
        << ", \"problem\": " << json_str(c.problem) << ", \"reason\": " << json_str(c.reason)
        << ", \"err\": " << json_num(c.err >= 0 ? c.err : NAN) << ", \"tol\": " << json_num(c.tol >= 0 ? c.tol : NAN)
        << ", \"flops\": " << json_num(c.flops) << ", \"bytes\": " << json_num(c.bytes)
        << ", \"bytes_moved\": " << json_num(c.bytes_moved >= 0 ? c.bytes_moved : NAN)
        << ", \"passes\": " << json_num(c.passes > 0 ? c.passes : NAN)
        << ", \"copy_same_ms\": " << json_num(c.copy_same_ms > 0 ? c.copy_same_ms : NAN)
        << ", \"tf32\": " << (c.tf32 ? "true" : "false")
        << ", \"wall_s\": " << json_num(c.wall_s)
        << ", \"lib\": " << lib_json(c, c.lib, dev);
      if (c.vs.ran) {
        const double r = ratio_of(c);
        f << ", \"vs\": " << lib_json(c, c.vs, dev) << ", \"ratio\": " << json_num(r > 0 ? r : NAN)
          << ", \"diff\": " << json_num(c.diff >= 0 ? c.diff : NAN);
      }
      f << "}" << (i + 1 < cases_.size() ? "," : "") << "\n";
    }
    f << "  ]\n}\n";
  }
  return n["FAILED"];
}

}  // namespace bench
