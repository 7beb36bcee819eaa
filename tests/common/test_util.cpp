// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "common/test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <sstream>

#ifdef FT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace ft {
namespace {
// Tests must not read or write the user's find database (~/.cache/freednn): results would depend on earlier
// runs and on tests running in parallel. The find-database tests set their own locations explicitly (and pass
// them to the child processes they start, which therefore keep the database on).
const int kFindDbOff = std::getenv("FREEDNN_DB_PATH") ? 0 : (setenv("FREEDNN_DB_DISABLE", "1", 0), 0);
}  // namespace

bool gpu_mode() {
#ifdef FT_WITH_CUDA
  static const bool on = [] {
    const char* b = std::getenv("FREEDNN_BACKEND");
    if (b && std::strcmp(b, "cpu") == 0) return false;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return n > 0;
  }();
  return on;
#else
  return false;
#endif
}

namespace {
thread_local int host_phase_depth = 0;
}  // namespace

HostPhase::HostPhase() {
  sync_device();
  ++host_phase_depth;
}
HostPhase::~HostPhase() { --host_phase_depth; }

void sync_device() {
#ifdef FT_WITH_CUDA
  if (gpu_mode() && host_phase_depth == 0) {
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      std::cerr << "[freednn] CUDA error in the test's device sync: " << cudaGetErrorString(e) << std::endl;
      std::abort();  // a sticky device error poisons every later test: stop here with the reason
    }
  }
#endif
}

void* alloc_visible(size_t bytes) {
  if (bytes == 0) bytes = 1;
#ifdef FT_WITH_CUDA
  if (gpu_mode()) {
    void* p = nullptr;
    if (cudaMallocManaged(&p, bytes) != cudaSuccess) throw std::bad_alloc();
    return p;
  }
#endif
  void* p = std::malloc(bytes);
  if (!p) throw std::bad_alloc();
  return p;
}

void free_visible(void* p) {
#ifdef FT_WITH_CUDA
  if (gpu_mode()) {
    sync_device();
    cudaFree(p);
    return;
  }
#endif
  std::free(p);
}

uint64_t seed() {
  static const uint64_t s = [] {
    const char* e = std::getenv("FREEDNN_TEST_SEED");
    uint64_t v = e && *e ? std::strtoull(e, nullptr, 10) : std::random_device{}();
    std::cout << "[freednn] test seed: FREEDNN_TEST_SEED=" << v << std::endl;
    return v;
  }();
  return s;
}

std::mt19937_64 make_rng() {
  std::string name = "none";
  if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info())
    name = std::string(info->test_suite_name()) + "." + info->name();
  const uint64_t s = seed() ^ std::hash<std::string>{}(name);
  ::testing::Test::RecordProperty("seed", std::to_string(seed()));
  return std::mt19937_64(s);
}

bool take_case() {
  struct Part {
    int64_t k = 0, n = 1;
  };
  static const Part part = [] {
    Part p;
    const char* e = std::getenv("FREEDNN_TEST_PART");
    long long k = 0, n = 0;
    if (e && *e) {
      if (std::sscanf(e, "%lld/%lld", &k, &n) == 2 && n >= 1 && k >= 0 && k < n) {
        p.k = k;
        p.n = n;
        std::cout << "[freednn] test part: FREEDNN_TEST_PART=" << k << "/" << n << std::endl;
      } else {
        ADD_FAILURE() << "FREEDNN_TEST_PART=" << e << " is not k/n with 0 <= k < n";
      }
    }
    return p;
  }();
  static int64_t next = 0;
  return next++ % part.n == part.k;
}

double uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}
int uniform_int(std::mt19937_64& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

uint16_t to_half(double v) {
  const _Float16 h = static_cast<_Float16>(static_cast<float>(v));
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
double from_half(uint16_t u) {
  _Float16 h;
  std::memcpy(&h, &u, 2);
  return static_cast<double>(h);
}
uint16_t to_bf16(double v) {
  const float f = static_cast<float>(v);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return 0x7FC0;
  const uint64_t rounded = static_cast<uint64_t>(u) + 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>(rounded >> 16);
}
double from_bf16(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

size_t type_size(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT: return 4;
    case CUDNN_DATA_DOUBLE: return 8;
    case CUDNN_DATA_HALF: case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT8: case CUDNN_DATA_UINT8: return 1;
    case CUDNN_DATA_INT32: return 4;
    case CUDNN_DATA_INT64: return 8;
    default: return 0;
  }
}

double tolerance(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_DOUBLE: return 1e-10;
    case CUDNN_DATA_FLOAT: return 1e-5;
    case CUDNN_DATA_HALF: return 2e-3;
    case CUDNN_DATA_BFLOAT16: return 1.6e-2;
    default: return 0.51;  // integer outputs: one rounding step, relative to the scale checked by near()
  }
}

double integer_floor(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_INT8: case CUDNN_DATA_UINT8: case CUDNN_DATA_INT32: case CUDNN_DATA_INT64: return 1;
    default: return 0;
  }
}

const char* type_name(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT: return "f32";
    case CUDNN_DATA_DOUBLE: return "f64";
    case CUDNN_DATA_HALF: return "f16";
    case CUDNN_DATA_BFLOAT16: return "bf16";
    case CUDNN_DATA_INT8: return "s8";
    case CUDNN_DATA_UINT8: return "u8";
    case CUDNN_DATA_INT32: return "s32";
    case CUDNN_DATA_INT64: return "s64";
    default: return "other";
  }
}

static std::vector<int> packed(const std::vector<int>& d, bool nhwc) {
  const int n = static_cast<int>(d.size());
  std::vector<int> s(d.size());
  std::vector<int> order;  // innermost first
  if (nhwc && n >= 3) {
    order.push_back(1);
    for (int i = n - 1; i >= 2; --i) order.push_back(i);
    order.push_back(0);
  } else {
    for (int i = n - 1; i >= 0; --i) order.push_back(i);
  }
  int acc = 1;
  for (int i : order) {
    s[i] = acc;
    acc *= d[i];
  }
  return s;
}

HostTensor::HostTensor(cudnnDataType_t t, std::vector<int> d, bool nhwc)
    : HostTensor(t, d, packed(d, nhwc)) {}

HostTensor::HostTensor(cudnnDataType_t t, std::vector<int> d, std::vector<int> s)
    : dtype(t), dims(std::move(d)), strides(std::move(s)) {
  bytes.assign(static_cast<size_t>(span()) * type_size(dtype), 0);
}

int64_t HostTensor::count() const {
  int64_t n = 1;
  for (int d : dims) n *= d;
  return n;
}

int64_t HostTensor::span() const {
  int64_t last = 0;
  for (size_t i = 0; i < dims.size(); ++i) last += static_cast<int64_t>(dims[i] - 1) * strides[i];
  return last + 1;
}

int64_t HostTensor::offset(int64_t linear) const {
  int64_t off = 0;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    off += (linear % dims[i]) * strides[i];
    linear /= dims[i];
  }
  return off;
}

double HostTensor::get_raw(int64_t off) const {
  sync_device();
  const unsigned char* p = bytes.data() + off * static_cast<int64_t>(type_size(dtype));
  switch (dtype) {
    case CUDNN_DATA_FLOAT: { float v; std::memcpy(&v, p, 4); return v; }
    case CUDNN_DATA_DOUBLE: { double v; std::memcpy(&v, p, 8); return v; }
    case CUDNN_DATA_HALF: { uint16_t v; std::memcpy(&v, p, 2); return from_half(v); }
    case CUDNN_DATA_BFLOAT16: { uint16_t v; std::memcpy(&v, p, 2); return from_bf16(v); }
    case CUDNN_DATA_INT8: return static_cast<int8_t>(*p);
    case CUDNN_DATA_UINT8: return *p;
    case CUDNN_DATA_INT32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case CUDNN_DATA_INT64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    default: return std::numeric_limits<double>::quiet_NaN();
  }
}

void HostTensor::set_raw(int64_t off, double v) {
  sync_device();
  unsigned char* p = bytes.data() + off * static_cast<int64_t>(type_size(dtype));
  auto sat = [&](double lo, double hi) { return std::isnan(v) ? 0.0 : std::min(hi, std::max(lo, std::nearbyint(v))); };
  switch (dtype) {
    case CUDNN_DATA_FLOAT: { float f = static_cast<float>(v); std::memcpy(p, &f, 4); break; }
    case CUDNN_DATA_DOUBLE: std::memcpy(p, &v, 8); break;
    case CUDNN_DATA_HALF: { uint16_t h = to_half(v); std::memcpy(p, &h, 2); break; }
    case CUDNN_DATA_BFLOAT16: { uint16_t h = to_bf16(v); std::memcpy(p, &h, 2); break; }
    case CUDNN_DATA_INT8: *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(sat(-128, 127)); break;
    case CUDNN_DATA_UINT8: *p = static_cast<uint8_t>(sat(0, 255)); break;
    case CUDNN_DATA_INT32: { int32_t i = static_cast<int32_t>(sat(-2147483648.0, 2147483647.0)); std::memcpy(p, &i, 4); break; }
    case CUDNN_DATA_INT64: { int64_t i = static_cast<int64_t>(sat(-9.2e18, 9.2e18)); std::memcpy(p, &i, 8); break; }
    default: break;
  }
}

double HostTensor::get(int64_t linear) const { return get_raw(offset(linear)); }
void HostTensor::set(int64_t linear, double v) { set_raw(offset(linear), v); }

std::vector<double> HostTensor::values() const {
  const HostPhase host;
  std::vector<double> v(static_cast<size_t>(count()));
  for (int64_t i = 0; i < count(); ++i) v[i] = get(i);
  return v;
}

void HostTensor::set_values(const std::vector<double>& v) {
  EXPECT_EQ(static_cast<int64_t>(v.size()), count()) << "set_values on " << str();
  const HostPhase host;
  for (int64_t i = 0; i < count() && i < static_cast<int64_t>(v.size()); ++i) set(i, v[static_cast<size_t>(i)]);
}

void HostTensor::fill_uniform(std::mt19937_64& rng, double lo, double hi) {
  const HostPhase host;
  for (int64_t i = 0; i < count(); ++i) set(i, uniform(rng, lo, hi));
}

void HostTensor::fill_ints(std::mt19937_64& rng, int lo, int hi) {
  const HostPhase host;
  for (int64_t i = 0; i < count(); ++i) set(i, uniform_int(rng, lo, hi));
}

void HostTensor::poison() {
  sync_device();
  // 0xFF is NaN for the float types; for integers it reads -1, a value an int8 or int32 result often has, so
  // integers get 0x5B bytes (91, 1532713819, ...): a result that was never written then shows.
  const bool integer = dtype != CUDNN_DATA_FLOAT && dtype != CUDNN_DATA_DOUBLE && dtype != CUDNN_DATA_HALF &&
                       dtype != CUDNN_DATA_BFLOAT16;
  std::fill(bytes.begin(), bytes.end(), integer ? 0x5B : 0xFF);
}

std::string HostTensor::str() const {
  std::ostringstream o;
  o << type_name(dtype) << ' ';
  for (size_t i = 0; i < dims.size(); ++i) o << (i ? "x" : "") << dims[i];
  o << " strides ";
  for (size_t i = 0; i < strides.size(); ++i) o << (i ? "x" : "") << strides[i];
  return o.str();
}

std::vector<int> padded_strides(std::mt19937_64& rng, const std::vector<int>& dims, bool nhwc) {
  const int n = static_cast<int>(dims.size());
  std::vector<int> order;
  if (nhwc && n >= 3) {
    order.push_back(1);
    for (int i = n - 1; i >= 2; --i) order.push_back(i);
    order.push_back(0);
  } else {
    for (int i = n - 1; i >= 0; --i) order.push_back(i);
  }
  std::vector<int> s(dims.size());
  int acc = 1;
  for (int i : order) {
    s[i] = acc;
    acc *= dims[i] + uniform_int(rng, 0, 2);
  }
  return s;
}

namespace {
void info_capture(cudnnSeverity_t, void* udata, const cudnnDebug_t*, const char* msg) {
  auto* log = static_cast<InfoLog*>(udata);
  for (const char* q = msg; q != nullptr && *q != '\0' && q - msg < 65536; q += std::strlen(q) + 1) {
    log->text += q;
    log->text += '\n';
  }
}
}  // namespace

InfoLog::InfoLog() {
  EXPECT_EQ(cudnnGetCallback(&mask0_, &udata0_, &fn0_), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetCallback(CUDNN_SEV_INFO_EN, this, info_capture), CUDNN_STATUS_SUCCESS);
}

InfoLog::~InfoLog() { EXPECT_EQ(cudnnSetCallback(mask0_, udata0_, fn0_), CUDNN_STATUS_SUCCESS); }

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* e = std::getenv(name)) old_ = e;
  if (value != nullptr)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

ScopedEnv::~ScopedEnv() {
  if (old_)
    setenv(name_.c_str(), old_->c_str(), 1);
  else
    unsetenv(name_.c_str());
}

::testing::AssertionResult near_units(const std::vector<double>& got, const std::vector<double>& ref, double units,
                                      const std::string& what) {
  if (got.size() != ref.size())
    return ::testing::AssertionFailure() << what << ": size " << got.size() << " vs reference " << ref.size();
  for (size_t i = 0; i < ref.size(); ++i)
    if (!(std::fabs(got[i] - ref[i]) <= units))  // NaN fails
      return ::testing::AssertionFailure() << what << ": element " << i << " is " << got[i] << ", reference "
                                           << ref[i] << " (more than " << units << " apart); seed FREEDNN_TEST_SEED="
                                           << seed();
  return ::testing::AssertionSuccess();
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v)
    if (std::isfinite(x)) m = std::max(m, std::fabs(x));
  return m;
}

::testing::AssertionResult near(const std::vector<double>& got, const std::vector<double>& ref, double tol,
                                const std::string& what, double min_scale) {
  if (got.size() != ref.size())
    return ::testing::AssertionFailure() << what << ": size " << got.size() << " vs reference " << ref.size();
  double scale = min_scale, worst = 0;
  size_t worst_i = 0;
  for (size_t i = 0; i < ref.size(); ++i)
    if (std::isfinite(ref[i])) scale = std::max(scale, std::fabs(ref[i]));
  scale = std::max(scale, 1e-30);
  for (size_t i = 0; i < ref.size(); ++i) {
    const bool rn = std::isnan(ref[i]), gn = std::isnan(got[i]);
    if (gn != rn)
      return ::testing::AssertionFailure() << what << ": element " << i << " is " << got[i] << ", reference "
                                           << ref[i];
    if (rn) continue;
    if (std::isinf(ref[i]) || std::isinf(got[i])) {
      if (got[i] != ref[i])
        return ::testing::AssertionFailure() << what << ": element " << i << " is " << got[i] << ", reference "
                                             << ref[i];
      continue;
    }
    const double e = std::fabs(got[i] - ref[i]) / scale;
    if (e > worst) {
      worst = e;
      worst_i = i;
    }
  }
  if (worst > tol)
    return ::testing::AssertionFailure() << what << ": max error " << worst << " (relative to max |ref| " << scale
                                         << ") at element " << worst_i << ": got " << got[worst_i]
                                         << ", reference " << ref[worst_i] << "; tolerance " << tol
                                         << "; seed FREEDNN_TEST_SEED=" << seed();
  return ::testing::AssertionSuccess();
}

TensorDesc::TensorDesc() { cudnnCreateTensorDescriptor(&d); }
TensorDesc::TensorDesc(const HostTensor& t) {
  cudnnCreateTensorDescriptor(&d);
  const cudnnStatus_t st = cudnnSetTensorNdDescriptor(d, t.dtype, static_cast<int>(t.dims.size()), t.dims.data(),
                                                      t.strides.data());
  EXPECT_EQ(st, CUDNN_STATUS_SUCCESS) << "setting descriptor for " << t.str();
}
TensorDesc::~TensorDesc() { cudnnDestroyTensorDescriptor(d); }

Handle::Handle() { EXPECT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS); }
Handle::~Handle() { cudnnDestroy(h); }

}  // namespace ft
