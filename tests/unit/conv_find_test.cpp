// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cudnnFindConvolution*Algorithm(Ex) and the persistent find database (docs/find-database.md).
#include <cudnn.h>
#include <freednn.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "unit/conv_check.h"
#include "unit/conv_fixture.h"

extern char** environ;

namespace {

using ft_conv::Problem;
using ft_conv::Shape;

const char* const kFwdNames[] = {"CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM", "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM",
                                 "CUDNN_CONVOLUTION_FWD_ALGO_GEMM",          "CUDNN_CONVOLUTION_FWD_ALGO_DIRECT",
                                 "CUDNN_CONVOLUTION_FWD_ALGO_FFT",           "CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING",
                                 "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD",      "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED"};

// Sets (or unsets, with nullptr) an environment variable for a scope.
// The database tests compare _v7's estimate order before and after a Find. On the GPU the few-channel
// cuda:patch_* kernels serve these small problems first and tie with cuda:direct once Find has measured them, which
// reorders algorithms of equal estimates: those tests leave them out (their subject is the database, not the choice).
#define DB_TESTS_NO_PATCH "cuda:patch_"

struct EnvVar {
  std::string name;
  bool had = false;
  std::string old;
  EnvVar(const char* n, const char* v) : name(n) {
    const char* o = std::getenv(n);
    had = o != nullptr;
    if (had) old = o;
    if (v)
      setenv(n, v, 1);
    else
      unsetenv(n);
  }
  ~EnvVar() {
    if (had)
      setenv(name.c_str(), old.c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/freednn-find-XXXXXX";
    const char* p = mkdtemp(tmpl);
    EXPECT_NE(p, nullptr);
    path = p ? p : "/tmp";
  }
  ~TempDir() {
    chmod(path.c_str(), 0755);
    const std::string cmd = "rm -rf '" + path + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
};

// A user database in a fresh directory and an empty system copy, for one test.
struct DbScope {
  TempDir user, system;
  EnvVar a{"FREEDNN_DB_PATH", nullptr}, b{"FREEDNN_SYSTEM_DB_PATH", nullptr}, c{"FREEDNN_DB_DISABLE", nullptr};
  DbScope() {
    setenv("FREEDNN_DB_PATH", user.path.c_str(), 1);
    setenv("FREEDNN_SYSTEM_DB_PATH", system.path.c_str(), 1);
  }
};

// The database file of the device the tests run on (GPU test mode: the handle's device, 0).
const std::string kDbFile = std::string("find-") + (ft::gpu_mode() ? "cuda0" : "cpu") + "-8.2.0-freednn0.1.0.txt";

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(f, l);) lines.push_back(l);
  return lines;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::trunc);
  f << text;
}

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

Shape small_shape(int i) { return Shape{"s", 2, 2 + i, 4, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}; }

std::vector<cudnnConvolutionFwdAlgoPerf_t> v7_fwd(cudnnHandle_t h, Problem& p) {
  std::vector<cudnnConvolutionFwdAlgoPerf_t> r(8);
  int n = 0;
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(h, p.xd, p.wd, p.cd, p.yd, 8, &n, r.data()), CUDNN_STATUS_SUCCESS);
  r.resize(static_cast<size_t>(n));
  return r;
}

std::vector<cudnnConvolutionFwdAlgoPerf_t> find_fwd(cudnnHandle_t h, Problem& p) {
  std::vector<cudnnConvolutionFwdAlgoPerf_t> r(8);
  int n = 0;
  EXPECT_EQ(cudnnFindConvolutionForwardAlgorithm(h, p.xd, p.wd, p.cd, p.yd, 8, &n, r.data()), CUDNN_STATUS_SUCCESS);
  r.resize(static_cast<size_t>(n));
  return r;
}

// Checks the cuDNN contract of a Find result list: every algorithm once, successes timed and sorted, the
// others last with time -1; the successful set is the set the workspace query accepts.
template <class Perf, class WsQuery>
void check_find_list(const Perf* perf, int n, int count, WsQuery&& ws_query, cudnnStatus_t failure_status) {
  ASSERT_EQ(n, count);
  std::set<int> seen;
  bool failed = false;
  for (int i = 0; i < n; ++i) {
    const int a = static_cast<int>(perf[i].algo);
    EXPECT_TRUE(seen.insert(a).second) << "algorithm " << a << " listed twice";
    size_t ws = 0;
    const cudnnStatus_t q = ws_query(a, &ws);
    if (perf[i].status == CUDNN_STATUS_SUCCESS) {
      EXPECT_FALSE(failed) << "a success after a failure at " << i;
      EXPECT_GE(perf[i].time, 0.0f);
      EXPECT_EQ(q, CUDNN_STATUS_SUCCESS) << "algo " << a;
      EXPECT_EQ(perf[i].memory, ws);
      EXPECT_EQ(perf[i].determinism, CUDNN_DETERMINISTIC);
      if (i > 0 && perf[i - 1].status == CUDNN_STATUS_SUCCESS) EXPECT_LE(perf[i - 1].time, perf[i].time);
    } else {
      failed = true;
      EXPECT_EQ(perf[i].time, -1.0f);
      if (q == CUDNN_STATUS_SUCCESS)
        EXPECT_EQ(perf[i].status, failure_status) << "algo " << a << " is applicable but failed";
      else
        EXPECT_EQ(perf[i].status, q) << "algo " << a;
    }
  }
}

TEST(ConvFind, AllDirectionsSortedAndComplete) {
  DbScope db;
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(Shape{"f", 2, 4, 6, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, false, false,
            rng);
  int n = 0;
  cudnnConvolutionFwdAlgoPerf_t fp[8];
  FT_OK(cudnnFindConvolutionForwardAlgorithm(h, p.xd, p.wd, p.cd, p.yd, 8, &n, fp));
  check_find_list(fp, n, 8, [&](int a, size_t* ws) {
    return cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, static_cast<cudnnConvolutionFwdAlgo_t>(a), ws);
  }, CUDNN_STATUS_SUCCESS);
  // FFT has no CPU implementation; on the GPU every forward algorithm serves this 3x3 stride-1 problem.
  EXPECT_EQ(fp[n - 1].status == CUDNN_STATUS_SUCCESS, ft::gpu_mode());
  cudnnConvolutionBwdDataAlgoPerf_t dp[6];
  FT_OK(cudnnFindConvolutionBackwardDataAlgorithm(h, p.wd, p.yd, p.cd, p.xd, 6, &n, dp));
  check_find_list(dp, n, 6, [&](int a, size_t* ws) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.wd, p.yd, p.cd, p.xd,
                                                        static_cast<cudnnConvolutionBwdDataAlgo_t>(a), ws);
  }, CUDNN_STATUS_SUCCESS);
  cudnnConvolutionBwdFilterAlgoPerf_t wp[7];
  FT_OK(cudnnFindConvolutionBackwardFilterAlgorithm(h, p.xd, p.yd, p.cd, p.wd, 7, &n, wp));
  check_find_list(wp, n, 7, [&](int a, size_t* ws) {
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.xd, p.yd, p.cd, p.wd,
                                                          static_cast<cudnnConvolutionBwdFilterAlgo_t>(a), ws);
  }, CUDNN_STATUS_SUCCESS);
  // requestedAlgoCount below the count: the first entries only.
  cudnnConvolutionFwdAlgoPerf_t two[2];
  FT_OK(cudnnFindConvolutionForwardAlgorithm(h, p.xd, p.wd, p.cd, p.yd, 2, &n, two));
  EXPECT_EQ(n, 2);
  EXPECT_EQ(two[0].status, CUDNN_STATUS_SUCCESS);
}

// FindEx: the caller's buffers and workspace limit; the output then equals a direct call with the winner.
TEST(ConvFind, ExRespectsWorkspaceAndUsesCallerBuffers) {
  DbScope db;
  ft::Handle h;
  auto rng = ft::make_rng();
  for (bool nhwc : {false, true}) {
    Problem p(Shape{"e", 2, 3, 5, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, nhwc, !nhwc, false,
              rng);
    p.x.fill_uniform(rng, -1, 1);
    p.w.fill_uniform(rng, -1, 1);
    p.y.fill_uniform(rng, -1, 1);
    size_t max_ws = 0;
    for (int a = 0; a < 8; ++a) {
      size_t ws = 0;
      if (cudnnGetConvolutionForwardWorkspaceSize(h, p.xd, p.wd, p.cd, p.yd, static_cast<cudnnConvolutionFwdAlgo_t>(a),
                                                  &ws) == CUDNN_STATUS_SUCCESS)
        max_ws = std::max(max_ws, ws);
    }
    ASSERT_GT(max_ws, 0u) << "the test needs an algorithm with a workspace";
    for (size_t limit : {size_t{0}, max_ws}) {
      ft::Bytes ws(limit + 1);
      p.y.poison();
      int n = 0;
      cudnnConvolutionFwdAlgoPerf_t fp[8];
      FT_OK(cudnnFindConvolutionForwardAlgorithmEx(h, p.xd, p.x.data(), p.wd, p.w.data(), p.cd, p.yd, p.y.data(), 8,
                                                   &n, fp, limit ? ws.data() : nullptr, limit));
      check_find_list(fp, n, 8, [&](int a, size_t* need) {
        const cudnnStatus_t s = cudnnGetConvolutionForwardWorkspaceSize(
            h, p.xd, p.wd, p.cd, p.yd, static_cast<cudnnConvolutionFwdAlgo_t>(a), need);
        return s == CUDNN_STATUS_SUCCESS && *need > limit ? CUDNN_STATUS_ALLOC_FAILED : s;
      }, CUDNN_STATUS_ALLOC_FAILED);
      for (int i = 0; i < n; ++i)
        if (fp[i].status == CUDNN_STATUS_SUCCESS) EXPECT_LE(fp[i].memory, limit);
      // y holds the winner's result: bitwise what a direct call with that algorithm gives.
      ft::sync_device();  // raw bytes below: wait for the device (GPU test mode)
      const ft::Bytes found = p.y.bytes;
      p.y.poison();
      FT_OK(ft_conv::forward(h, p, fp[0].algo, 1.0, 0.0));
      ft::sync_device();
      ft::Bytes direct = p.y.bytes;
      for (int64_t i = 0; i < p.y.count(); ++i) {
        const int64_t off = p.y.offset(i) * 4;
        ASSERT_EQ(std::memcmp(found.data() + off, direct.data() + off, 4), 0)
            << "element " << i << " differs (" << kFwdNames[fp[0].algo] << ", " << p.str() << ")";
      }
    }
  }
}

TEST(ConvFind, BackwardExMatchesDirectCall) {
  DbScope db;
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(Shape{"b", 2, 4, 4, 2, {6, 5}, {3, 3}, {1, 0}, {2, 1}, {1, 1}}, CUDNN_DATA_DOUBLE, false, false, false,
            rng);
  p.x.fill_uniform(rng, -1, 1);
  p.w.fill_uniform(rng, -1, 1);
  p.y.fill_uniform(rng, -1, 1);
  ft::Bytes ws(1 << 20);
  int n = 0;
  cudnnConvolutionBwdDataAlgoPerf_t dp[6];
  p.x.poison();
  FT_OK(cudnnFindConvolutionBackwardDataAlgorithmEx(h, p.wd, p.w.data(), p.yd, p.y.data(), p.cd, p.xd, p.x.data(), 6,
                                                    &n, dp, ws.data(), ws.size()));
  ASSERT_EQ(dp[0].status, CUDNN_STATUS_SUCCESS);
  ft::sync_device();
  ft::Bytes found = p.x.bytes;
  p.x.poison();
  FT_OK(ft_conv::backward_data(h, p, dp[0].algo, 1.0, 0.0));
  ft::sync_device();
  EXPECT_EQ(found, p.x.bytes);
  cudnnConvolutionBwdFilterAlgoPerf_t wp[7];
  p.w.poison();
  FT_OK(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, p.xd, p.x.data(), p.yd, p.y.data(), p.cd, p.wd, p.w.data(),
                                                      7, &n, wp, ws.data(), ws.size()));
  ASSERT_EQ(wp[0].status, CUDNN_STATUS_SUCCESS);
  ft::sync_device();
  found = p.w.bytes;
  p.w.poison();
  FT_OK(ft_conv::backward_filter(h, p, wp[0].algo, 1.0, 0.0));
  ft::sync_device();
  EXPECT_EQ(found, p.w.bytes);
}

TEST(ConvFind, HonoursImplementationFilters) {
  DbScope db;
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(small_shape(0), CUDNN_DATA_FLOAT, false, false, false, rng);
  ft_conv::OnlyImpl only(ft_conv::impl_id("direct"));
  const auto r = find_fwd(h, p);
  ASSERT_EQ(r.size(), 8u);
  std::set<int> ok;
  for (const auto& e : r)
    if (e.status == CUDNN_STATUS_SUCCESS) ok.insert(e.algo);
  EXPECT_EQ(ok, (std::set<int>{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                               CUDNN_CONVOLUTION_FWD_ALGO_DIRECT}));
  // Disable every family but im2col_gemm (ids of families a backend lacks match nothing).
  std::string disabled;
  for (const char* family : {"direct", "winograd", "fft", "cutlass", "gemm_1x1", "depthwise", "patch"})
    disabled += (disabled.empty() ? "" : ",") + ft_conv::impl_id(family);
  EnvVar dis("FREEDNN_DISABLE_IMPL", disabled.c_str());
  ft_conv::OnlyImpl all("");
  ok.clear();
  for (const auto& e : find_fwd(h, p))
    if (e.status == CUDNN_STATUS_SUCCESS) ok.insert(e.algo);
  EXPECT_EQ(ok, std::set<int>{CUDNN_CONVOLUTION_FWD_ALGO_GEMM});
}

TEST(ConvFind, BadArguments) {
  DbScope db;
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(small_shape(0), CUDNN_DATA_FLOAT, false, false, false, rng);
  Problem q(Shape{"q", 2, 3, 4, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_FLOAT, false, false, false, rng);
  int n = 0;
  cudnnConvolutionFwdAlgoPerf_t fp[8];
  cudnnConvolutionBwdDataAlgoPerf_t dp[6];
  cudnnConvolutionBwdFilterAlgoPerf_t wp[7];
  ft::Bytes ws(64);
  EXPECT_EQ(cudnnFindConvolutionForwardAlgorithm(nullptr, p.xd, p.wd, p.cd, p.yd, 8, &n, fp), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionForwardAlgorithm(h, nullptr, p.wd, p.cd, p.yd, 8, &n, fp), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionForwardAlgorithm(h, p.xd, p.wd, p.cd, p.yd, 0, &n, fp), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionForwardAlgorithm(h, p.xd, p.wd, p.cd, p.yd, 8, nullptr, fp), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionForwardAlgorithm(h, p.xd, p.wd, p.cd, p.yd, 8, &n, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionForwardAlgorithm(h, q.xd, p.wd, p.cd, p.yd, 8, &n, fp), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionForwardAlgorithmEx(h, p.xd, nullptr, p.wd, p.w.data(), p.cd, p.yd, p.y.data(), 8, &n,
                                                   fp, ws.data(), ws.size()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionForwardAlgorithmEx(h, p.xd, p.x.data(), p.wd, p.w.data(), p.cd, p.yd, p.y.data(), 8,
                                                   &n, fp, nullptr, 64),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionBackwardDataAlgorithm(h, p.wd, p.yd, p.cd, q.xd, 6, &n, dp), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionBackwardDataAlgorithm(h, p.wd, p.yd, p.cd, p.xd, -1, &n, dp), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionBackwardDataAlgorithmEx(h, p.wd, p.w.data(), p.yd, p.y.data(), p.cd, p.xd, nullptr, 6,
                                                        &n, dp, ws.data(), ws.size()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionBackwardFilterAlgorithm(h, p.xd, p.yd, p.cd, p.wd, 7, &n, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, p.xd, p.x.data(), p.yd, nullptr, p.cd, p.wd, p.w.data(),
                                                          7, &n, wp, ws.data(), ws.size()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionBackwardFilterAlgorithmEx(nullptr, p.xd, p.x.data(), p.yd, p.y.data(), p.cd, p.wd,
                                                          p.w.data(), 7, &n, wp, ws.data(), ws.size()),
            CUDNN_STATUS_BAD_PARAM);
  // Nothing was timed by the failed calls: no database file.
  EXPECT_FALSE(exists(db.user.path + "/" + kDbFile));
}

// --- the find database ------------------------------------------------------------------------------------------

// The database line of the only problem in `dir`'s file, and its key.
std::string only_key(const std::string& dir) {
  const auto lines = read_lines(dir + "/" + kDbFile);
  EXPECT_EQ(lines.size(), 2u);
  if (lines.size() < 2) return "";
  return lines[1].substr(0, lines[1].find('\t'));
}

TEST(FindDb, WritesOneLinePerProblemInRankOrder) {
  DbScope db;
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(small_shape(0), CUDNN_DATA_FLOAT, false, false, false, rng);
  const auto r = find_fwd(h, p);
  const auto lines = read_lines(db.user.path + "/" + kDbFile);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "freednn-find-db 1");
  EXPECT_EQ(lines[1].rfind("conv fwd f32 nchw ", 0), 0u) << lines[1];
  // The entries: the successful algorithms in Find's order.
  std::vector<std::string> fields;
  std::stringstream ss(lines[1]);
  for (std::string f; std::getline(ss, f, '\t');) fields.push_back(f);
  size_t ok = 0;
  for (const auto& e : r) ok += e.status == CUDNN_STATUS_SUCCESS;
  ASSERT_EQ(fields.size(), ok + 1);
  for (size_t i = 0; i < ok; ++i) EXPECT_EQ(fields[i + 1].rfind(std::string(kFwdNames[r[i].algo]) + " ", 0), 0u);
  // A second problem adds a line; finding the first again replaces its line.
  Problem p2(small_shape(1), CUDNN_DATA_FLOAT, false, false, false, rng);
  find_fwd(h, p2);
  find_fwd(h, p);
  EXPECT_EQ(read_lines(db.user.path + "/" + kDbFile).size(), 3u);
  // No temporary files left behind.
  const std::string cmd = "ls '" + db.user.path + "' | grep -c tmp > /dev/null";
  EXPECT_NE(std::system(cmd.c_str()), 0);
}

// _v7 puts a database hit first, with the measured time; a changed file is re-read (another process's write).
TEST(FindDb, V7PutsHitFirstAndRereadsChangedFile) {
  DbScope db;
  // The file's FFT entry must be one the backend cannot run: on the GPU, cuda:fft is switched off.
  struct NoFft {
    NoFft() { setenv("FREEDNN_DISABLE_IMPL", "cuda:fft," DB_TESTS_NO_PATCH, 1); }
    ~NoFft() { unsetenv("FREEDNN_DISABLE_IMPL"); }
  } no_fft;
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(small_shape(0), CUDNN_DATA_FLOAT, false, false, false, rng);
  const auto before = v7_fwd(h, p);
  int last_ok = -1;
  for (const auto& e : before)
    if (e.status == CUDNN_STATUS_SUCCESS) last_ok = e.algo;
  ASSERT_NE(last_ok, before[0].algo);
  find_fwd(h, p);
  const std::string key = only_key(db.user.path);
  write_file(db.user.path + "/" + kDbFile, std::string("freednn-find-db 1\n") + key + "\t" + kFwdNames[last_ok] +
                                               " 0.125 0 cpu:x\tCUDNN_CONVOLUTION_FWD_ALGO_FFT 0.5 0 cpu:x\n");
  const auto after = v7_fwd(h, p);
  ASSERT_EQ(after.size(), 8u);
  EXPECT_EQ(after[0].algo, last_ok);
  EXPECT_EQ(after[0].time, 0.125f);
  EXPECT_EQ(after[0].status, CUDNN_STATUS_SUCCESS);
  // The unsupported FFT entry of the file is not promoted; the rest keep the estimate order.
  EXPECT_EQ(after[1].algo, before[0].algo == last_ok ? before[1].algo : before[0].algo);
  for (const auto& e : after)
    if (e.algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT) EXPECT_EQ(e.status, CUDNN_STATUS_NOT_SUPPORTED);
  // Another problem is not affected.
  Problem q(small_shape(3), CUDNN_DATA_FLOAT, false, false, false, rng);
  EXPECT_NE(v7_fwd(h, q)[0].time, 0.125f);
}

TEST(FindDb, SystemCopyRanksBelowUserCopy) {
  DbScope db;
  EnvVar no_patch("FREEDNN_DISABLE_IMPL", DB_TESTS_NO_PATCH);
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(small_shape(2), CUDNN_DATA_FLOAT, false, false, false, rng);
  const auto est = v7_fwd(h, p);
  std::vector<int> ok;
  for (const auto& e : est)
    if (e.status == CUDNN_STATUS_SUCCESS) ok.push_back(e.algo);
  ASSERT_GE(ok.size(), 3u);
  find_fwd(h, p);
  const std::string key = only_key(db.user.path);
  std::remove((db.user.path + "/" + kDbFile).c_str());
  auto line = [&](int algo, const char* t) {
    return std::string("freednn-find-db 1\n") + key + "\t" + kFwdNames[algo] + " " + t + " 0 cpu:x\n";
  };
  write_file(db.system.path + "/" + kDbFile, line(ok.back(), "0.25"));
  EXPECT_EQ(v7_fwd(h, p)[0].algo, ok.back());
  write_file(db.user.path + "/" + kDbFile, line(ok[ok.size() - 2], "0.5"));
  EXPECT_EQ(v7_fwd(h, p)[0].algo, ok[ok.size() - 2]);
  EXPECT_EQ(v7_fwd(h, p)[0].time, 0.5f);
  // A user copy without the key falls back to the system copy.
  write_file(db.user.path + "/" + kDbFile, "freednn-find-db 1\n");
  EXPECT_EQ(v7_fwd(h, p)[0].algo, ok.back());
  // FREEDNN_DB_DISABLE: neither copy.
  EnvVar off("FREEDNN_DB_DISABLE", "1");
  EXPECT_EQ(v7_fwd(h, p)[0].algo, est[0].algo);
}

TEST(FindDb, CorruptFileIsIgnoredAndReplaced) {
  DbScope db;
  EnvVar no_patch("FREEDNN_DISABLE_IMPL", DB_TESTS_NO_PATCH);
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(small_shape(0), CUDNN_DATA_FLOAT, false, false, false, rng);
  const auto est = v7_fwd(h, p);
  find_fwd(h, p);
  const std::string key = only_key(db.user.path);
  const std::string path = db.user.path + "/" + kDbFile;
  int last_ok = -1;
  for (const auto& e : est)
    if (e.status == CUDNN_STATUS_SUCCESS) last_ok = e.algo;
  // Garbage without a header: ignored entirely.
  write_file(path, std::string("\x01\x02garbage\n") + key + "\t" + kFwdNames[last_ok] + " 1 0 x\n");
  EXPECT_EQ(v7_fwd(h, p)[0].algo, est[0].algo);
  // A valid header with malformed lines: those are skipped, the valid one is used.
  write_file(path, std::string("freednn-find-db 1\nno tab here\n") + key + "\tALGO notanumber 0 x\n" +
                       "k2\tCUDNN_CONVOLUTION_FWD_ALGO_GEMM -1 0 x\n" + key + "\t" + kFwdNames[last_ok] +
                       " 1.5 0 x\n" + "truncated\tCUDNN_CONVOLUTION_FWD_ALGO_GEMM 1");
  auto r = v7_fwd(h, p);
  EXPECT_EQ(r[0].algo, last_ok);
  EXPECT_EQ(r[0].time, 1.5f);
  // A Find rewrites a clean file.
  find_fwd(h, p);
  const auto lines = read_lines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "freednn-find-db 1");
  EXPECT_EQ(lines[1].substr(0, lines[1].find('\t')), key);
  // An empty file and a directory in place of the file: ignored, never fatal.
  write_file(path, "");
  EXPECT_EQ(v7_fwd(h, p)[0].algo, est[0].algo);
  std::remove(path.c_str());
  ASSERT_EQ(mkdir(path.c_str(), 0755), 0);
  EXPECT_EQ(v7_fwd(h, p)[0].algo, est[0].algo);
  EXPECT_EQ(find_fwd(h, p).size(), 8u);
}

// A logging callback may call cuDNN (docs/api: the log's lock is recursive). The database's warnings (a file with a
// bad first line, read during the lookup) are logged once its own lock is released: a callback that looks the
// database up again, on the same thread, must not hang on it (it did until session 41's review).
struct ReentrantCallback {
  Problem* p = nullptr;
  cudnnHandle_t h = nullptr;
  int calls = 0, inner_ok = 0;
};
ReentrantCallback* g_reentrant = nullptr;
void reentrant_log(cudnnSeverity_t sev, void*, const cudnnDebug_t*, const char*) {
  ReentrantCallback* r = g_reentrant;
  if (r == nullptr || sev != CUDNN_SEV_WARNING) return;  // the bad file's warning (the only one of the call)
  ++r->calls;
  g_reentrant = nullptr;  // one nested call: the nested lookup warns again
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(8);
  int n = 0;
  if (cudnnGetConvolutionForwardAlgorithm_v7(r->h, r->p->xd, r->p->wd, r->p->cd, r->p->yd, 8, &n, perf.data()) ==
      CUDNN_STATUS_SUCCESS)
    ++r->inner_ok;
  g_reentrant = r;
}

TEST(FindDb, WarningCallbackMayLookTheDatabaseUp) {
  DbScope db;
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(small_shape(1), CUDNN_DATA_FLOAT, false, false, false, rng);
  write_file(db.user.path + "/" + kDbFile, "not a find database\n");
  cudnnCallback_t old_cb = nullptr;
  unsigned old_mask = 0;
  void* old_ud = nullptr;
  ASSERT_EQ(cudnnGetCallback(&old_mask, &old_ud, &old_cb), CUDNN_STATUS_SUCCESS);
  ReentrantCallback r;
  r.p = &p;
  r.h = h;
  g_reentrant = &r;
  ASSERT_EQ(cudnnSetCallback(CUDNN_SEV_WARNING_EN | CUDNN_SEV_ERROR_EN, nullptr, reentrant_log), CUDNN_STATUS_SUCCESS);
  const auto est = v7_fwd(h, p);  // hung here before
  g_reentrant = nullptr;
  EXPECT_EQ(cudnnSetCallback(old_mask, old_ud, old_cb), CUDNN_STATUS_SUCCESS);
  EXPECT_FALSE(est.empty());
  EXPECT_GE(r.calls, 1);
  EXPECT_EQ(r.inner_ok, r.calls);
}

TEST(FindDb, UnwritableLocationIsNotFatal) {
  DbScope db;
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(small_shape(0), CUDNN_DATA_FLOAT, false, false, false, rng);
  // A path below a regular file can never be created (even by root).
  write_file(db.user.path + "/file", "x");
  {
    EnvVar bad("FREEDNN_DB_PATH", (db.user.path + "/file/sub").c_str());
    EXPECT_EQ(find_fwd(h, p).size(), 8u);
    EXPECT_EQ(v7_fwd(h, p).size(), 8u);
  }
  // A read-only directory (only meaningful when not running as root).
  if (geteuid() != 0) {
    TempDir ro;
    chmod(ro.path.c_str(), 0555);
    EnvVar e("FREEDNN_DB_PATH", ro.path.c_str());
    EXPECT_EQ(find_fwd(h, p).size(), 8u);
    EXPECT_FALSE(exists(ro.path + "/" + kDbFile));
  }
}

TEST(FindDb, LocationRules) {
  DbScope db;
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(small_shape(0), CUDNN_DATA_FLOAT, false, false, false, rng);
  TempDir xdg, home;
  EnvVar unset("FREEDNN_DB_PATH", nullptr);
  {
    EnvVar x("XDG_CACHE_HOME", xdg.path.c_str());
    EnvVar hm("HOME", home.path.c_str());
    find_fwd(h, p);
    EXPECT_TRUE(exists(xdg.path + "/freednn/" + kDbFile));
    EXPECT_FALSE(exists(home.path + "/.cache/freednn/" + kDbFile));
  }
  {
    EnvVar x("XDG_CACHE_HOME", nullptr);
    EnvVar hm("HOME", home.path.c_str());
    find_fwd(h, p);
    EXPECT_TRUE(exists(home.path + "/.cache/freednn/" + kDbFile));
  }
  {
    EnvVar x("XDG_CACHE_HOME", xdg.path.c_str());
    EnvVar d("FREEDNN_DB_PATH", (db.user.path + "/nested/dir").c_str());
    find_fwd(h, p);
    EXPECT_TRUE(exists(db.user.path + "/nested/dir/" + kDbFile));
  }
}

// Child processes (this binary re-executed): FREEDNN_FIND_CHILD=find:<i> runs a forward Find on problem i;
// expect:<i>:<algo> checks that _v7 on problem i puts <algo> first.
TEST(FindDbChild, Run) {
  const char* mode = std::getenv("FREEDNN_FIND_CHILD");
  if (!mode) GTEST_SKIP() << "only runs as a child of the FindDb tests";
  int i = 0, algo = -1;
  ft::Handle h;
  auto rng = ft::make_rng();
  if (std::sscanf(mode, "find:%d", &i) == 1) {
    Problem p(small_shape(i), CUDNN_DATA_FLOAT, false, false, false, rng);
    EXPECT_EQ(find_fwd(h, p).size(), 8u);
  } else if (std::sscanf(mode, "expect:%d:%d", &i, &algo) == 2) {
    Problem p(small_shape(i), CUDNN_DATA_FLOAT, false, false, false, rng);
    EXPECT_EQ(v7_fwd(h, p)[0].algo, algo);
  } else {
    FAIL() << "bad FREEDNN_FIND_CHILD=" << mode;
  }
}

pid_t spawn_child(const std::string& mode) {
  setenv("FREEDNN_FIND_CHILD", mode.c_str(), 1);
  std::string self(4096, '\0');
  const ssize_t len = readlink("/proc/self/exe", self.data(), self.size() - 1);
  self.resize(len > 0 ? static_cast<size_t>(len) : 0);
  std::string filter = "--gtest_filter=FindDbChild.Run";
  char* argv[] = {self.data(), filter.data(), nullptr};
  pid_t pid = -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  EXPECT_EQ(posix_spawn(&pid, self.c_str(), &fa, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  unsetenv("FREEDNN_FIND_CHILD");
  return pid;
}

int wait_child(pid_t pid) {
  int st = 0;
  if (waitpid(pid, &st, 0) != pid) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(FindDb, FreshProcessReadsWhatAnotherWrote) {
  DbScope db;
  ft::Handle h;
  auto rng = ft::make_rng();
  // Written by a child, read here.
  ASSERT_EQ(wait_child(spawn_child("find:4")), 0);
  Problem p(small_shape(4), CUDNN_DATA_FLOAT, false, false, false, rng);
  const auto lines = read_lines(db.user.path + "/" + kDbFile);
  ASSERT_EQ(lines.size(), 2u);
  const std::string first = lines[1].substr(lines[1].find('\t') + 1, lines[1].find(' ', lines[1].find('\t')) -
                                                                         lines[1].find('\t') - 1);
  const auto r = v7_fwd(h, p);
  EXPECT_EQ(first, kFwdNames[r[0].algo]);
  // Written here (a planted ranking), read by a fresh child.
  const auto est = v7_fwd(h, p);
  int last_ok = -1;
  for (const auto& e : est)
    if (e.status == CUDNN_STATUS_SUCCESS) last_ok = e.algo;
  write_file(db.user.path + "/" + kDbFile, "freednn-find-db 1\n" + only_key(db.user.path) + "\t" +
                                               kFwdNames[last_ok] + " 0.01 0 cpu:x\n");
  EXPECT_EQ(wait_child(spawn_child("expect:4:" + std::to_string(last_ok))), 0);
}

TEST(FindDb, ConcurrentWritersFromSeveralProcesses) {
  DbScope db;
  constexpr int kWriters = 6;
  std::vector<pid_t> pids;
  for (int i = 0; i < kWriters; ++i) pids.push_back(spawn_child("find:" + std::to_string(i)));
  for (pid_t pid : pids) EXPECT_EQ(wait_child(pid), 0);
  const auto lines = read_lines(db.user.path + "/" + kDbFile);
  ASSERT_EQ(lines.size(), static_cast<size_t>(kWriters + 1)) << "every writer's problem is in the file";
  EXPECT_EQ(lines[0], "freednn-find-db 1");
  std::set<std::string> keys;
  for (size_t i = 1; i < lines.size(); ++i) {
    keys.insert(lines[i].substr(0, lines[i].find('\t')));
    EXPECT_NE(lines[i].find("\tCUDNN_CONVOLUTION_FWD_ALGO_"), std::string::npos) << lines[i];
  }
  EXPECT_EQ(keys.size(), static_cast<size_t>(kWriters));
  // Every writer's result is served to _v7 here.
  ft::Handle h;
  auto rng = ft::make_rng();
  for (int i = 0; i < kWriters; ++i) {
    Problem p(small_shape(i), CUDNN_DATA_FLOAT, false, false, false, rng);
    EXPECT_GE(v7_fwd(h, p)[0].time, 0.0f);
  }
}

}  // namespace

// Several implementations may serve one algorithm (on the CPU, BWD_DATA_ALGO_1: im2col_gemm, then direct). Find
// times each and records the fastest; the workspace query and the call then use it. A database written by an
// earlier process names the implementation too, and a fresh problem follows it.
TEST(ConvFind, RecordedImplementationServesTheAlgorithm) {
  if (ft::gpu_mode()) GTEST_SKIP() << "checks which CPU implementation runs (by its workspace size)";
  DbScope db;
  ft::Handle h;
  auto rng = ft::make_rng();
  const int algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
  const Shape shape{"r", 2, 3, 5, 1, {7, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
  Problem p(shape, CUDNN_DATA_DOUBLE, false, false, false, rng);
  size_t ws = 0;
  FT_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.wd, p.yd, p.cd, p.xd,
                                                     static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &ws));
  EXPECT_GT(ws, 0u) << "without a record the registry's first (cpu:im2col_gemm, with a workspace) runs";
  cudnnConvolutionBwdDataAlgoPerf_t perf[6];
  int n = 0;
  FT_OK(cudnnFindConvolutionBackwardDataAlgorithm(h, p.wd, p.yd, p.cd, p.xd, 6, &n, perf));
  const auto* hit = std::find_if(perf, perf + n, [&](const auto& e) { return e.algo == algo; });
  ASSERT_NE(hit, perf + n);
  ASSERT_EQ(hit->status, CUDNN_STATUS_SUCCESS);
  FT_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.wd, p.yd, p.cd, p.xd,
                                                     static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &ws));
  EXPECT_EQ(ws, hit->memory) << "the workspace query names the implementation Find recorded";
  const std::string key = only_key(db.user.path);
  const std::string line = read_lines(db.user.path + "/" + kDbFile)[1];
  EXPECT_TRUE(line.find("BWD_DATA_ALGO_1 ") != std::string::npos) << line;

  // A database entry from another process for a problem this process has not seen: ALGO_1 means cpu:direct.
  const size_t at = key.find("mb2");
  ASSERT_NE(at, std::string::npos) << key;
  const std::string key3 = key.substr(0, at) + "mb3" + key.substr(at + 3);
  write_file(db.user.path + "/" + kDbFile, std::string("freednn-find-db 1\n") + line + "\n" + key3 +
                                               "\tCUDNN_CONVOLUTION_BWD_DATA_ALGO_1 0.01 0 cpu:direct\n");
  Shape s3 = shape;
  s3.n = 3;
  Problem q(s3, CUDNN_DATA_DOUBLE, false, false, false, rng);
  FT_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, q.wd, q.yd, q.cd, q.xd,
                                                     static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &ws));
  EXPECT_EQ(ws, 0u) << "cpu:direct needs no workspace";
  // It computes dx (against the reference: on the CPU ALGO_0 is cpu:direct too, so the two algorithms' agreement
  // would prove nothing)
  q.w.fill_uniform(rng, -1, 1);
  q.y.fill_uniform(rng, -1, 1);
  q.x.poison();
  FT_OK(ft_conv::backward_data(h, q, algo, 1.0, 0.0));
  const auto r = ref::conv_backward_data(ft_conv_check::as_ref(q.y), ft_conv_check::as_ref(q.w), q.xdims, q.params);
  EXPECT_TRUE(ft::near(q.x.values(), r.v, ft::tolerance(CUDNN_DATA_DOUBLE), "dx of the recorded cpu:direct"));
}

// The caller's workspace was sized for another implementation of the algorithm (its query ran before a Find changed
// the choice, perhaps on another thread): the call runs one that fits (on the CPU, BWD_DATA_ALGO_1's cpu:direct,
// which needs none, where cpu:im2col_gemm was chosen), and computes dx.
TEST(ConvFind, CallFallsBackToAnImplementationThatFitsTheWorkspace) {
  if (ft::gpu_mode()) GTEST_SKIP() << "relies on the CPU's two implementations of BWD_DATA_ALGO_1";
  DbScope db;
  ft::Handle h;
  auto rng = ft::make_rng();
  const int algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
  Problem p(Shape{"fit", 2, 3, 5, 1, {7, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, CUDNN_DATA_DOUBLE, false, false, false,
            rng);
  size_t ws = 0;
  FT_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.wd, p.yd, p.cd, p.xd,
                                                     static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &ws));
  ASSERT_GT(ws, 0u) << "the chosen implementation (cpu:im2col_gemm) needs a workspace";
  p.w.fill_uniform(rng, -1, 1);
  p.y.fill_uniform(rng, -1, 1);
  p.x.poison();
  const double one = 1.0, zero = 0.0;
  FT_OK(cudnnConvolutionBackwardData(h, &one, p.wd, p.w.data(), p.yd, p.y.data(), p.cd,
                                     static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), nullptr, 0, &zero, p.xd,
                                     p.x.data()));
  const auto r = ref::conv_backward_data(ft_conv_check::as_ref(p.y), ft_conv_check::as_ref(p.w), p.xdims, p.params);
  EXPECT_TRUE(ft::near(p.x.values(), r.v, ft::tolerance(CUDNN_DATA_DOUBLE), "dx with no workspace"));
  // (An algorithm with one implementation still refuses a smaller workspace: ConvApi.BadArguments, GEMM.)
}

// freednn.h: which implementation an algorithm runs, the same one the workspace query names.
TEST(ConvFind, ImplementationQuery) {
  DbScope db;
  ft::Handle h;
  auto rng = ft::make_rng();
  Problem p(small_shape(0), CUDNN_DATA_FLOAT, false, false, false, rng);
  char id[64];
  FT_OK(freednnGetConvolutionImplementation(h, 0, p.xd, p.wd, p.cd, p.yd, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, id,
                                            sizeof id));
  const std::string want = ft::gpu_mode() ? "cuda:" : "cpu:";
  EXPECT_EQ(std::string(id).rfind(want, 0), 0u) << id;
  FT_OK(freednnGetConvolutionImplementation(h, 2, p.xd, p.wd, p.cd, p.yd, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, id,
                                            sizeof id));
  EXPECT_EQ(std::string(id).rfind(want, 0), 0u) << id;
  if (!ft::gpu_mode())
    EXPECT_EQ(freednnGetConvolutionImplementation(h, 0, p.xd, p.wd, p.cd, p.yd, CUDNN_CONVOLUTION_FWD_ALGO_FFT, id,
                                                  sizeof id),
              CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(freednnGetConvolutionImplementation(h, 3, p.xd, p.wd, p.cd, p.yd, 0, id, sizeof id),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(freednnGetConvolutionImplementation(h, 0, p.xd, p.wd, p.cd, p.yd, 0, nullptr, 8), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(freednnGetConvolutionImplementation(h, 0, p.xd, p.wd, p.cd, p.yd, 0, id, 2), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(freednnGetConvolutionImplementation(h, 0, p.xd, p.wd, p.cd, p.yd, 99, id, sizeof id),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(freednnGetConvolutionImplementation(nullptr, 0, p.xd, p.wd, p.cd, p.yd, 0, id, sizeof id),
            CUDNN_STATUS_BAD_PARAM);
}
