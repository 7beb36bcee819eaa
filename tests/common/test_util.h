// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Shared test helpers: seeded random data, typed host buffers, poisoning, tolerant comparison, RAII
// descriptors. Independent of src/: conversions are written here again on purpose.
#pragma once
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace ft {

// In GPU test mode (a CUDA build, a visible GPU and FREEDNN_BACKEND not "cpu"), test buffers live in CUDA
// managed memory so that the same pointers serve the library's kernels and the host-side checks; reading or
// writing them from the host first waits for the device (sync_device). Otherwise they are plain host memory.
bool gpu_mode();
void sync_device();
// A stretch of host-only work on test buffers, with no library call inside: waits for the device once, and the
// element accessors inside skip their own wait (one device sync per element is slow, and very slow under
// compute-sanitizer). values(), set_values() and the fills use one; so may a test's element loops over large tensors.
struct HostPhase {
  HostPhase();
  ~HostPhase();
  HostPhase(const HostPhase&) = delete;
  HostPhase& operator=(const HostPhase&) = delete;
};
void* alloc_visible(size_t bytes);
void free_visible(void* p);
template <class T>
struct VisibleAllocator {
  using value_type = T;
  VisibleAllocator() = default;
  template <class U>
  VisibleAllocator(const VisibleAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(alloc_visible(n * sizeof(T))); }
  void deallocate(T* p, size_t) { free_visible(p); }
  template <class U>
  bool operator==(const VisibleAllocator<U>&) const { return true; }
};
using Bytes = std::vector<unsigned char, VisibleAllocator<unsigned char>>;
// A device-visible array of T (for scale/bias/mean vectors, indices, workspaces ...).
template <class T>
using Buffer = std::vector<T, VisibleAllocator<T>>;

// The seed of this test run: FREEDNN_TEST_SEED if set, else fresh. Printed so a failure can be replayed.
uint64_t seed();
// A generator seeded from seed() and the current test's name (each test gets its own stream).
std::mt19937_64 make_rng();

// Runs a long test in parts (FREEDNN_TEST_PART=k/n; tools/gpu/sanitize.sh sets it, since a sanitizer makes the
// large cases slow): a test whose cases are independent calls take_case() before each one and skips the case when
// it says false. The cases of a process are counted in order; case i is this process's when i % n == k, so the n
// parts together run every case once. Unset (the default): every case runs. The part is printed with the seed.
bool take_case();

double uniform(std::mt19937_64& rng, double lo, double hi);
int uniform_int(std::mt19937_64& rng, int lo, int hi);  // inclusive

// Storage-type conversions (round to nearest even), independent of the library's.
uint16_t to_half(double v);
double from_half(uint16_t h);
uint16_t to_bf16(double v);
double from_bf16(uint16_t b);

size_t type_size(cudnnDataType_t t);
// Relative tolerance for comparing a result stored in `t` against a double reference.
double tolerance(cudnnDataType_t t);
// The min_scale near() needs for outputs stored in `t`: 1 for integer types (one rounding step is a whole unit,
// whatever the outputs' size), 0 for floating types.
double integer_floor(cudnnDataType_t t);
const char* type_name(cudnnDataType_t t);

// A host tensor with a data type, dims and strides (element strides), backed by raw bytes.
struct HostTensor {
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  std::vector<int> dims, strides;
  Bytes bytes;

  HostTensor() = default;
  // Packed in the given dim order (NCHW-style row major if nhwc is false; channel-innermost if true).
  HostTensor(cudnnDataType_t t, std::vector<int> d, bool nhwc = false);
  HostTensor(cudnnDataType_t t, std::vector<int> d, std::vector<int> s);

  int64_t count() const;        // logical elements
  int64_t span() const;         // stored elements spanned
  int64_t offset(int64_t linear) const;  // stored element offset of logical element `linear` (row-major)
  double get(int64_t linear) const;
  void set(int64_t linear, double v);
  double get_raw(int64_t off) const;
  void set_raw(int64_t off, double v);
  void* data() { return bytes.data(); }
  const void* data() const { return bytes.data(); }
  std::vector<double> values() const;  // logical order
  void set_values(const std::vector<double>& v);  // logical order, v.size() == count()
  void fill_uniform(std::mt19937_64& rng, double lo, double hi);
  void fill_ints(std::mt19937_64& rng, int lo, int hi);  // small integers: exact in every float type
  void poison();  // every byte 0xFF (NaN) for float types, 0x5B for integer types (0xFF would read -1)
  std::string str() const;                               // "f32 2x3x4x5 strides 60x20x5x1"
};

// Strides with random padding between dims (a non-packed layout), in the given dim order.
std::vector<int> padded_strides(std::mt19937_64& rng, const std::vector<int>& dims, bool nhwc);

// Compares got (logical order) with a double reference. Fails on any NaN in got that the reference lacks,
// and when the max error relative to max(|ref|, min_scale) exceeds tol. `what` names the output in the message.
// min_scale serves outputs that cancel their inputs (a mean near zero): its rounding follows the inputs' size.
::testing::AssertionResult near(const std::vector<double>& got, const std::vector<double>& ref, double tol,
                                const std::string& what, double min_scale = 0);
double max_abs(const std::vector<double>& v);  // the largest finite |v[i]| (0 when empty)
// For integer outputs: every element within `units` of the (unrounded) reference, absolutely, whatever the
// outputs' size; NaN or a size mismatch fails.
::testing::AssertionResult near_units(const std::vector<double>& got, const std::vector<double>& ref, double units,
                                      const std::string& what);

// Sets (or unsets, value nullptr) an environment variable for a scope and restores the previous value. Knobs the
// library reads once per process take effect only in a test that runs alone (ctest runs each test alone).
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// Everything the library logs at info level (and above) while alive, through cudnnSetCallback; the callback set
// before is restored after. For the tests that check which kernel ran.
struct InfoLog {
  InfoLog();
  ~InfoLog();
  InfoLog(const InfoLog&) = delete;
  InfoLog& operator=(const InfoLog&) = delete;
  std::string text;

 private:
  unsigned mask0_ = 0;
  void* udata0_ = nullptr;
  cudnnCallback_t fn0_ = nullptr;
};

// RAII descriptors.
struct TensorDesc {
  cudnnTensorDescriptor_t d = nullptr;
  TensorDesc();
  explicit TensorDesc(const HostTensor& t);
  ~TensorDesc();
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  operator cudnnTensorDescriptor_t() const { return d; }
};

struct Handle {
  cudnnHandle_t h = nullptr;
  Handle();
  ~Handle();
  operator cudnnHandle_t() const { return h; }
};

}  // namespace ft

#define FT_OK(expr) ASSERT_EQ((expr), CUDNN_STATUS_SUCCESS) << #expr
