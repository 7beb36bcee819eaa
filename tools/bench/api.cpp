// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "api.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "memory.h"

namespace bench {
namespace {

// freednn's library carries its environment variable names; NVIDIA's does not.
bool file_mentions(const std::string& path, const std::string& needle) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  const std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return data.find(needle) != std::string::npos;
}

}  // namespace

bool Api::load(const std::string& lib_path, const std::string& name, std::string* error) {
  path = lib_path;
  label = name;
  dlerror();
  dl = dlopen(lib_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (dl == nullptr) {
    const char* e = dlerror();
    *error = "cannot load " + lib_path + ": " + (e ? e : "unknown error");
    return false;
  }
#define BENCH_API_RESOLVE(fn) fn = reinterpret_cast<decltype(fn)>(dlsym(dl, #fn));
  BENCH_API_FUNCTIONS(BENCH_API_RESOLVE)
#undef BENCH_API_RESOLVE
  freednnGetConvolutionImplementation =
      reinterpret_cast<decltype(freednnGetConvolutionImplementation)>(dlsym(dl, "freednnGetConvolutionImplementation"));
  freednnGetLastCallBytesMoved =
      reinterpret_cast<decltype(freednnGetLastCallBytesMoved)>(dlsym(dl, "freednnGetLastCallBytesMoved"));
  if (cudnnGetVersion == nullptr || cudnnCreate == nullptr || cudnnCreateTensorDescriptor == nullptr) {
    *error = lib_path + " does not look like a cuDNN library (no cudnnGetVersion / cudnnCreate)";
    return false;
  }
  version = cudnnGetVersion();
  std::string real = lib_path;
  struct link_map* lm = nullptr;
  if (dlinfo(dl, RTLD_DI_LINKMAP, &lm) == 0 && lm != nullptr && lm->l_name != nullptr && *lm->l_name) real = lm->l_name;
  is_freednn = file_mentions(real, "FREEDNN_BACKEND");
  // freednn runs on host pointers when it has no CUDA backend, no GPU is visible or FREEDNN_BACKEND=cpu.
  const char* be = std::getenv("FREEDNN_BACKEND");
  const bool cpu_forced = be != nullptr && std::string(be) == "cpu";
  const bool lib_has_cuda = cudnnGetCudartVersion != nullptr && cudnnGetCudartVersion() != 0;
  if (is_freednn) {
    host_memory = cpu_forced || !lib_has_cuda || !gpu_available();
  } else {
    host_memory = false;
    if (!gpu_available()) {
      *error = lib_path + " (cuDNN " + std::to_string(version) + ") needs a GPU and a CUDA build of the bench";
      return false;
    }
  }
  return true;
}

Api::~Api() {
  // The library stays loaded: its static destructors may still run at exit, after the bench's own.
}

cudnnStatus_t Api::map(cudnnStatus_t s) const {
  if (version < 9000) return s;
  const int v = static_cast<int>(s);
  if (v == 0) return CUDNN_STATUS_SUCCESS;
  switch (v / 1000) {
    case 1: return v == 1005 ? CUDNN_STATUS_LICENSE_ERROR : v == 1002 ? CUDNN_STATUS_VERSION_MISMATCH
                                                                       : CUDNN_STATUS_NOT_INITIALIZED;
    case 2: return CUDNN_STATUS_BAD_PARAM;
    case 3: return CUDNN_STATUS_NOT_SUPPORTED;
    case 4: return v == 4004 || v == 4003 ? CUDNN_STATUS_ALLOC_FAILED : CUDNN_STATUS_INTERNAL_ERROR;
    case 5: return CUDNN_STATUS_EXECUTION_FAILED;
    default: return CUDNN_STATUS_INTERNAL_ERROR;
  }
}

const char* status_name(cudnnStatus_t s) {
  switch (s) {
    case CUDNN_STATUS_SUCCESS: return "SUCCESS";
    case CUDNN_STATUS_NOT_INITIALIZED: return "NOT_INITIALIZED";
    case CUDNN_STATUS_ALLOC_FAILED: return "ALLOC_FAILED";
    case CUDNN_STATUS_BAD_PARAM: return "BAD_PARAM";
    case CUDNN_STATUS_INTERNAL_ERROR: return "INTERNAL_ERROR";
    case CUDNN_STATUS_INVALID_VALUE: return "INVALID_VALUE";
    case CUDNN_STATUS_ARCH_MISMATCH: return "ARCH_MISMATCH";
    case CUDNN_STATUS_MAPPING_ERROR: return "MAPPING_ERROR";
    case CUDNN_STATUS_EXECUTION_FAILED: return "EXECUTION_FAILED";
    case CUDNN_STATUS_NOT_SUPPORTED: return "NOT_SUPPORTED";
    case CUDNN_STATUS_LICENSE_ERROR: return "LICENSE_ERROR";
    case CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING: return "RUNTIME_PREREQUISITE_MISSING";
    case CUDNN_STATUS_RUNTIME_IN_PROGRESS: return "RUNTIME_IN_PROGRESS";
    case CUDNN_STATUS_RUNTIME_FP_OVERFLOW: return "RUNTIME_FP_OVERFLOW";
    case CUDNN_STATUS_VERSION_MISMATCH: return "VERSION_MISMATCH";
  }
  return "UNKNOWN_STATUS";
}

}  // namespace bench
