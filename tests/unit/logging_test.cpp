// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Logging: CUDNN_LOGERR_DBG / CUDNN_LOGINFO_DBG / CUDNN_LOGDEST_DBG (with %i), cudnnSetCallback /
// cudnnGetCallback, FREEDNN_LOG_CMD. The environment is read once per process, so those checks run in a child:
// this test binary re-executed with FREEDNN_LOGGING_CHILD=<scenario>, which runs the scenario from a static
// initializer and exits before gtest starts.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/test_util.h"

extern char** environ;

namespace {

// --- callback capture ---------------------------------------------------------------------------------------
struct Captured {
  std::vector<cudnnSeverity_t> sev;
  std::vector<std::string> text;  // each message with its NULs turned into '\n'
  std::vector<bool> well_formed;  // NUL-separated lines ending in a double NUL
  std::vector<cudnnStatus_t> status;
};

void capture(cudnnSeverity_t sev, void* udata, const cudnnDebug_t* dbg, const char* msg) {
  auto* c = static_cast<Captured*>(udata);
  std::string s;
  bool ok = msg != nullptr && dbg != nullptr && dbg->cudnn_version == CUDNN_VERSION;
  // Lines end with NUL; the message ends with an empty line (a second NUL). Bounded walk.
  const char* p = msg;
  for (int i = 0; ok && i < 4096; ++i) {
    const size_t n = std::strlen(p);
    if (n == 0) break;
    s.append(p, n);
    s += '\n';
    p += n + 1;
    if (i == 4095) ok = false;
  }
  c->sev.push_back(sev);
  c->text.push_back(s);
  c->well_formed.push_back(ok && !s.empty());
  c->status.push_back(dbg ? dbg->cudnnStatus : CUDNN_STATUS_INTERNAL_ERROR);
}

// A bad call (BAD_PARAM, logged on the error channel) and a good one (info channel only).
void bad_call() {
  cudnnTensorDescriptor_t d;
  cudnnCreateTensorDescriptor(&d);
  cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 1, 1, 1);
  cudnnDestroyTensorDescriptor(d);
}
void good_call() { cudnnGetVersion(), cudnnOpsInferVersionCheck(); }

// --- child scenarios ----------------------------------------------------------------------------------------
int child_errors() {
  bad_call();
  return 0;
}

int child_info() {
  cudnnTensorDescriptor_t d;
  if (cudnnCreateTensorDescriptor(&d) != CUDNN_STATUS_SUCCESS) return 2;
  if (cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 3, 4, 5) != CUDNN_STATUS_SUCCESS) return 3;
  size_t size = 0;
  if (cudnnGetTensorSizeInBytes(d, &size) != CUDNN_STATUS_SUCCESS) return 4;
  cudnnDestroyTensorDescriptor(d);
  return 0;
}

// With a file destination: a callback takes the messages away from the file; fptr NULL gives them back.
int child_callback_then_default() {
  Captured c;
  unsigned mask0 = 0;
  void* ud0 = nullptr;
  cudnnCallback_t fn0 = nullptr;
  if (cudnnGetCallback(&mask0, &ud0, &fn0) != CUDNN_STATUS_SUCCESS) return 2;
  if (fn0 != nullptr) return 3;
  std::printf("initial_mask=%u\n", mask0);
  cudnnSetCallback(CUDNN_SEV_ERROR_EN, &c, capture);
  bad_call();  // to the callback only
  std::printf("captured=%zu\n", c.text.size());
  cudnnSetCallback(mask0, nullptr, nullptr);
  bad_call();  // to the file again
  std::printf("captured_after=%zu\n", c.text.size());
  return 0;
}

int child_command() {
  // A computing call with valid arguments; other branches implement these, so try a few.
  cudnnHandle_t h = nullptr;
  if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS) return 2;
  std::vector<float> a(2 * 3 * 4 * 5, 1.0f), y(2 * 3 * 4 * 5, 0.0f);
  const float one = 1.0f, zero = 0.0f;
  cudnnTensorDescriptor_t d;
  cudnnCreateTensorDescriptor(&d);
  cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5);
  const cudnnStatus_t add = cudnnAddTensor(h, &one, d, a.data(), &zero, d, y.data());
  std::printf("cudnnAddTensor=%d\n", static_cast<int>(add));
  cudnnStatus_t act = CUDNN_STATUS_NOT_SUPPORTED;
  cudnnActivationDescriptor_t ad = nullptr;
  if (cudnnCreateActivationDescriptor(&ad) == CUDNN_STATUS_SUCCESS &&
      cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0) ==
          CUDNN_STATUS_SUCCESS)
    act = cudnnActivationForward(h, ad, &one, d, a.data(), &zero, d, y.data());
  cudnnDestroyActivationDescriptor(ad);
  std::printf("cudnnActivationForward=%d\n", static_cast<int>(act));
  cudnnDestroyTensorDescriptor(d);
  cudnnDestroy(h);
  std::fflush(stdout);
  return 0;
}

struct ChildHook {
  ChildHook() {
    const char* s = std::getenv("FREEDNN_LOGGING_CHILD");
    if (!s) return;
    const std::string sc(s);
    int rc = 100;
    if (sc == "errors") rc = child_errors();
    else if (sc == "info") rc = child_info();
    else if (sc == "callback") rc = child_callback_then_default();
    else if (sc == "command") rc = child_command();
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(rc);
  }
} g_child_hook;

// --- parent side --------------------------------------------------------------------------------------------
struct ChildResult {
  int exit_code = -1;
  pid_t pid = -1;
  std::string out, err;
};

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct TempDir {
  std::string path;
  TempDir() {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/freednn-logtest.XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data())) path = buf.data();
  }
  ~TempDir() {
    if (!path.empty() && std::system(("rm -rf '" + path + "'").c_str()) != 0) std::perror("rm -rf");
  }
};

// Runs this binary as a child with `scenario` and the given environment changes (value nullptr: unset).
ChildResult run_child(const std::string& scenario, const std::map<std::string, const char*>& env,
                      const std::string& dir) {
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) {
    const std::string kv(*e);
    const std::string key = kv.substr(0, kv.find('='));
    if (env.count(key) || key == "FREEDNN_LOGGING_CHILD" || key.rfind("CUDNN_LOG", 0) == 0 ||
        key == "FREEDNN_LOG_CMD")
      continue;
    envs.push_back(kv);
  }
  for (const auto& [k, v] : env)
    if (v) envs.push_back(k + "=" + v);
  envs.push_back("FREEDNN_LOGGING_CHILD=" + scenario);
  envs.push_back("FREEDNN_BACKEND=cpu");
  std::vector<char*> envp;
  for (auto& s : envs) envp.push_back(s.data());
  envp.push_back(nullptr);
  const std::string out = dir + "/child.out", err = dir + "/child.err";

  ChildResult r;
  r.pid = fork();
  if (r.pid == 0) {
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0) _exit(120);
    dup2(o, 1);
    dup2(e, 2);
    char self[] = "/proc/self/exe";
    char* argv[] = {self, nullptr};
    execve(self, argv, envp.data());
    _exit(121);
  }
  int status = 0;
  if (r.pid > 0 && waitpid(r.pid, &status, 0) == r.pid && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

bool contains(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

TEST(Logging, ErrorChannelToFileWithPid) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string dest = dir.path + "/log_%i.txt";
  const ChildResult r = run_child("errors", {{"CUDNN_LOGERR_DBG", "1"}, {"CUDNN_LOGDEST_DBG", dest.c_str()}}, dir.path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string log = read_file(dir.path + "/log_" + std::to_string(r.pid) + ".txt");
  ASSERT_FALSE(log.empty()) << "no log_<pid>.txt written; child stderr: " << r.err;
  EXPECT_TRUE(contains(log, "E! CuDNN (v8200) function cudnnSetTensor4dDescriptor() called:\n")) << log;
  EXPECT_TRUE(contains(log, "e!     Error: CUDNN_STATUS_BAD_PARAM; Reason: ")) << log;
  EXPECT_TRUE(contains(log, "dimA[0]=0 must be positive")) << log;
  EXPECT_TRUE(contains(log, "e! Process=" + std::to_string(r.pid) + ";")) << log;
  // Info is off: no argument dumps, and good calls log nothing.
  EXPECT_FALSE(contains(log, "I! ")) << log;
  EXPECT_FALSE(contains(log, "cudnnCreateTensorDescriptor")) << log;
}

TEST(Logging, NothingWithoutDestinationOrChannel) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string dest = dir.path + "/log.txt";
  // Destination but no channel.
  ChildResult r = run_child("errors", {{"CUDNN_LOGDEST_DBG", dest.c_str()}}, dir.path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dest), "");
  // Channel but no destination: cuDNN 8 logs nowhere.
  r = run_child("errors", {{"CUDNN_LOGERR_DBG", "1"}}, dir.path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(contains(r.out + r.err, "CuDNN (v8200)")) << r.out << r.err;
}

TEST(Logging, InfoChannelLogsArguments) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const ChildResult r = run_child("info", {{"CUDNN_LOGINFO_DBG", "1"}, {"CUDNN_LOGDEST_DBG", "stdout"}}, dir.path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& log = r.out;
  EXPECT_TRUE(contains(log, "I! CuDNN (v8200) function cudnnSetTensor4dDescriptor() called:\n")) << log;
  EXPECT_TRUE(contains(log, "i!     format: type=cudnnTensorFormat_t; val=CUDNN_TENSOR_NHWC (1);\n")) << log;
  EXPECT_TRUE(contains(log, "i!     dataType: type=cudnnDataType_t; val=CUDNN_DATA_HALF (2);\n")) << log;
  EXPECT_TRUE(contains(log, "i!     h: type=int; val=4;\n")) << log;
  // Descriptor fields, nested one level.
  EXPECT_TRUE(contains(log, "I! CuDNN (v8200) function cudnnGetTensorSizeInBytes() called:\n")) << log;
  EXPECT_TRUE(contains(log, "i!     tensorDesc: type=cudnnTensorDescriptor_t:\n")) << log;
  EXPECT_TRUE(contains(log, "i!         dimA: type=int; val=[2,3,4,5];\n")) << log;
  EXPECT_TRUE(contains(log, "i!         strideA: type=int; val=[60,1,15,3];\n")) << log;
  // The error channel is off.
  EXPECT_FALSE(contains(log, "E! ")) << log;
}

TEST(Logging, CallbackTakesMessagesAndNullRestoresDefault) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string dest = dir.path + "/log.txt";
  const ChildResult r =
      run_child("callback", {{"CUDNN_LOGERR_DBG", "1"}, {"CUDNN_LOGDEST_DBG", dest.c_str()}}, dir.path);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "initial_mask=" + std::to_string(CUDNN_SEV_ERROR_EN) + "\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "captured=1\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "captured_after=1\n")) << r.out;
  // Only the second bad call (after fptr NULL) reached the file.
  const std::string log = read_file(dest);
  size_t n = 0;
  for (size_t p = log.find("E! CuDNN"); p != std::string::npos; p = log.find("E! CuDNN", p + 1)) ++n;
  EXPECT_EQ(n, 1u) << log;
}

// In process: the callback and its mask (the default logger has no destination in the test run).
TEST(Logging, CallbackMaskSelectsSeverities) {
  unsigned mask0 = 0;
  void* ud0 = nullptr;
  cudnnCallback_t fn0 = nullptr;
  FT_OK(cudnnGetCallback(&mask0, &ud0, &fn0));

  Captured c;
  FT_OK(cudnnSetCallback(CUDNN_SEV_ERROR_EN, &c, capture));
  unsigned mask = 0;
  void* ud = nullptr;
  cudnnCallback_t fn = nullptr;
  FT_OK(cudnnGetCallback(&mask, &ud, &fn));
  EXPECT_EQ(mask, unsigned(CUDNN_SEV_ERROR_EN));
  EXPECT_EQ(ud, &c);
  EXPECT_EQ(fn, &capture);
  good_call();
  EXPECT_EQ(c.text.size(), 0u) << "info messages delivered under an error-only mask";
  bad_call();
  ASSERT_EQ(c.text.size(), 1u);
  EXPECT_EQ(c.sev[0], CUDNN_SEV_ERROR);
  EXPECT_TRUE(c.well_formed[0]) << c.text[0];
  EXPECT_EQ(c.status[0], CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(c.text[0].rfind("E! CuDNN (v8200) function cudnnSetTensor4dDescriptor() called:\n", 0), 0u) << c.text[0];
  EXPECT_TRUE(contains(c.text[0], "e!     Error: CUDNN_STATUS_BAD_PARAM; Reason: ")) << c.text[0];

  // Info only: argument dumps of every call, no errors.
  c = Captured();
  FT_OK(cudnnSetCallback(CUDNN_SEV_INFO_EN, &c, capture));
  bad_call();
  ASSERT_FALSE(c.text.empty());
  for (size_t i = 0; i < c.text.size(); ++i) {
    EXPECT_EQ(c.sev[i], CUDNN_SEV_INFO);
    EXPECT_TRUE(c.well_formed[i]) << c.text[i];
    EXPECT_EQ(c.text[i].rfind("I! CuDNN (v8200) function ", 0), 0u) << c.text[i];
    EXPECT_FALSE(contains(c.text[i], "E! ")) << c.text[i];
  }
  EXPECT_TRUE(contains(c.text[1], "i!     n: type=int; val=0;\n")) << c.text[1];

  // Mask 0: nothing.
  c = Captured();
  FT_OK(cudnnSetCallback(0, &c, capture));
  bad_call();
  EXPECT_EQ(c.text.size(), 0u);

  // NULL restores the default (no destination here: nothing anywhere).
  c = Captured();
  FT_OK(cudnnSetCallback(CUDNN_SEV_ERROR_EN | CUDNN_SEV_INFO_EN, nullptr, nullptr));
  FT_OK(cudnnGetCallback(&mask, &ud, &fn));
  EXPECT_EQ(fn, nullptr);
  bad_call();
  EXPECT_EQ(c.text.size(), 0u);

  FT_OK(cudnnSetCallback(mask0, ud0, fn0));
  EXPECT_EQ(cudnnGetCallback(nullptr, &ud, &fn), CUDNN_STATUS_BAD_PARAM);
}

// A callback that calls cuDNN itself: reads the callback, makes a failing call (whose error is not delivered to
// it again) and switches itself off. This deadlocked on the logger's lock before (found by review, run 40); run on
// a thread with a deadline, so that a deadlock fails the test instead of hanging it.
struct Reentrant {
  int calls = 0;
  bool saw_itself = false;
};
void reentrant_callback(cudnnSeverity_t, void* udata, const cudnnDebug_t*, const char*) {
  auto* r = static_cast<Reentrant*>(udata);
  ++r->calls;
  unsigned mask = 0;
  void* ud = nullptr;
  cudnnCallback_t fn = nullptr;
  r->saw_itself = cudnnGetCallback(&mask, &ud, &fn) == CUDNN_STATUS_SUCCESS && ud == udata;
  bad_call();                           // logs an error inside the callback: dropped, not delivered again
  cudnnSetCallback(0, nullptr, nullptr);  // off
}

TEST(Logging, CallbackMayCallCudnn) {
  unsigned mask0 = 0;
  void* ud0 = nullptr;
  cudnnCallback_t fn0 = nullptr;
  FT_OK(cudnnGetCallback(&mask0, &ud0, &fn0));
  Reentrant r;
  FT_OK(cudnnSetCallback(CUDNN_SEV_ERROR_EN, &r, reentrant_callback));
  std::packaged_task<void()> task([] { bad_call(); });
  std::future<void> done = task.get_future();
  std::thread t(std::move(task));
  if (done.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    t.detach();  // stuck on the logger's lock: the process ends with it
    FAIL() << "a callback calling cuDNN deadlocked";
  }
  t.join();
  EXPECT_EQ(r.calls, 1);
  EXPECT_TRUE(r.saw_itself);
  unsigned mask = 1;
  void* ud = &r;
  cudnnCallback_t fn = reentrant_callback;
  FT_OK(cudnnGetCallback(&mask, &ud, &fn));
  EXPECT_EQ(fn, nullptr) << "the callback did not switch itself off";
  FT_OK(cudnnSetCallback(mask0, ud0, fn0));
}

TEST(Logging, CommandLineForComputingCalls) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const ChildResult r = run_child("command", {{"FREEDNN_LOG_CMD", "1"}}, dir.path);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const bool any = contains(r.out, "cudnnAddTensor=0\n") || contains(r.out, "cudnnActivationForward=0\n");
  if (!any)
    GTEST_SKIP() << "no computing op is implemented in this build yet (cudnnAddTensor, cudnnActivationForward "
                    "are stubs): cannot check FREEDNN_LOG_CMD. Child said: "
                 << r.out;
  // Without CUDNN_LOGDEST_DBG the reproducer lines go to stderr, one per computing call that ran.
  std::istringstream lines(r.err);
  std::string line;
  int n = 0;
  while (std::getline(lines, line))
    if (line.rfind("freednn-bench ", 0) == 0 && line.size() > 20) ++n;
  EXPECT_GE(n, 1) << r.err;
  // And nothing when it is off.
  const ChildResult off = run_child("command", {}, dir.path);
  EXPECT_FALSE(contains(off.err, "freednn-bench ")) << off.err;
}

}  // namespace
