// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "peak.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "dtype.h"
#include "memory.h"

#ifdef BENCH_WITH_CUDA
#include <cublas_v2.h>
#include <dlfcn.h>
#include <cuda_runtime_api.h>
#endif

namespace bench {
namespace {

template <class T>
double cpu_gemm_tflops() {
  // C[n x n] += A * B, blocked; the best of a few runs.
  const int n = 512, bs = 64;
  std::vector<T> a(n * n, T(1.0 / 3)), b(n * n, T(0.5)), c(n * n, T(0));
  double best = 1e30;
  Timer t(false);
  for (int rep = 0; rep < 3; ++rep) {
    t.start();
#pragma omp parallel for collapse(2) schedule(static)
    for (int ib = 0; ib < n; ib += bs)
      for (int jb = 0; jb < n; jb += bs)
        for (int kb = 0; kb < n; kb += bs)
          for (int i = ib; i < ib + bs; ++i)
            for (int k = kb; k < kb + bs; ++k) {
              const T av = a[i * n + k];
              T* cr = &c[i * n + jb];
              const T* br = &b[k * n + jb];
#pragma omp simd
              for (int j = 0; j < bs; ++j) cr[j] += av * br[j];
            }
    best = std::min(best, t.stop_ms());
  }
  volatile T sink = c[n + 1];
  (void)sink;
  return 2.0 * n * n * n / (best * 1e-3) / 1e12;
}

#ifdef BENCH_WITH_CUDA
// cuBLAS through dlopen: the bench does not link it; without it the % peak columns stay empty.
struct Cublas {
  void* dl = nullptr;
  cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                            const void*, cudaDataType_t, int, const void*, cudaDataType_t, int, const void*, void*,
                            cudaDataType_t, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  std::string name;
};

const Cublas& cublas() {
  static const Cublas c = [] {
    Cublas r;
    for (const char* n : {"libcublas.so", "libcublas.so.13", "libcublas.so.12", "libcublas.so.11"}) {
      r.dl = dlopen(n, RTLD_NOW | RTLD_LOCAL);
      if (r.dl) {
        r.name = n;
        break;
      }
    }
    if (!r.dl) return r;
    r.create = reinterpret_cast<decltype(r.create)>(dlsym(r.dl, "cublasCreate_v2"));
    r.destroy = reinterpret_cast<decltype(r.destroy)>(dlsym(r.dl, "cublasDestroy_v2"));
    r.gemm_ex = reinterpret_cast<decltype(r.gemm_ex)>(dlsym(r.dl, "cublasGemmEx"));
    if (!r.create || !r.destroy || !r.gemm_ex) r.gemm_ex = nullptr;
    return r;
  }();
  return c;
}

// C = A B with n x n random matrices (zeros would let the clocks run higher than real data does), the best of a
// few timed groups of calls.
double gpu_gemm_tflops(cudnnDataType_t t, bool tf32) {
  const Cublas& cb = cublas();
  if (!cb.gemm_ex) return 0;
  cublasHandle_t h = nullptr;
  if (cb.create(&h) != CUBLAS_STATUS_SUCCESS) return 0;
  const int n = t == CUDNN_DATA_DOUBLE || (t == CUDNN_DATA_FLOAT && !tf32) ? 4096 : 8192;
  cudaDataType_t dt = CUDA_R_32F;
  cublasComputeType_t ct = tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  cudnnDataType_t et = CUDNN_DATA_FLOAT;
  if (t == CUDNN_DATA_HALF) { dt = CUDA_R_16F; et = t; ct = CUBLAS_COMPUTE_32F; }
  if (t == CUDNN_DATA_BFLOAT16) { dt = CUDA_R_16BF; et = t; ct = CUBLAS_COMPUTE_32F; }
  if (t == CUDNN_DATA_DOUBLE) { dt = CUDA_R_64F; et = t; ct = CUBLAS_COMPUTE_64F; }
  const size_t es = dtype_size(et), bytes = es * n * size_t(n);
  Buffer a(bytes, true), b(bytes, true), c(bytes, true);
  {
    // One random tile of 1M elements, repeated over the matrices.
    const int64_t tile = int64_t{1} << 20;
    Buffer h_rand = Buffer::staging(es * tile);
    uint64_t z = 0x2545f4914f6cdd1dull;
    for (int64_t i = 0; i < tile; ++i) {
      z ^= z << 13, z ^= z >> 7, z ^= z << 17;
      store(et, h_rand.get(), i, static_cast<double>(z >> 11) * 0x1p-53 - 0.5);
    }
    for (size_t off = 0; off < bytes; off += es * tile) {
      const size_t n_off = std::min(es * tile, bytes - off);
      cudaMemcpy(static_cast<char*>(a.get()) + off, h_rand.get(), n_off, cudaMemcpyDefault);
      cudaMemcpy(static_cast<char*>(b.get()) + off, h_rand.get(), n_off, cudaMemcpyDefault);
    }
  }
  const double one_d = 1, zero_d = 0;
  const float one_f = 1, zero_f = 0;
  const void* alpha = t == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&one_d) : &one_f;
  const void* beta = t == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&zero_d) : &zero_f;
  auto gemm = [&] {
    return cb.gemm_ex(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, alpha, a.get(), dt, n, b.get(), dt, n, beta, c.get(),
                      dt, n, ct, CUBLAS_GEMM_DEFAULT);
  };
  double best = 0;
  if (gemm() == CUBLAS_STATUS_SUCCESS) {
    cudaDeviceSynchronize();
    Timer tm(true);
    for (int rep = 0; rep < 5; ++rep) {
      tm.start();
      for (int k = 0; k < 5; ++k) gemm();
      const double ms = tm.stop_ms() / 5;
      best = std::max(best, 2.0 * n * n * double(n) / (ms * 1e-3) / 1e12);
    }
  }
  cudaDeviceSynchronize();
  cb.destroy(h);
  return best;
}
#endif

}  // namespace

double copy_bandwidth_gbs(bool device) {
  static std::map<bool, double> cache;
  auto it = cache.find(device);
  if (it != cache.end()) return it->second;
  double gbs = 0;
  const size_t bytes = size_t{256} << 20;
#ifdef BENCH_WITH_CUDA
  if (device) {
    Buffer src(bytes * 4, true), dst(bytes * 4, true);
    src.fill_zero();
    Timer tm(true);
    double best = 1e30;
    for (int rep = 0; rep < 5; ++rep) {
      tm.start();
      cudaMemcpyAsync(dst.get(), src.get(), bytes * 4, cudaMemcpyDeviceToDevice, 0);
      best = std::min(best, tm.stop_ms());
    }
    gbs = 2.0 * bytes * 4 / (best * 1e-3) / 1e9;
  }
#endif
  if (!device) {
    std::vector<char> src(bytes, 1), dst(bytes, 0);
    const int chunks = 64;
    const size_t per = bytes / chunks;
    Timer tm(false);
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      tm.start();
#pragma omp parallel for schedule(static)
      for (int k = 0; k < chunks; ++k) std::memcpy(dst.data() + k * per, src.data() + k * per, per);
      best = std::min(best, tm.stop_ms());
    }
    gbs = 2.0 * bytes / (best * 1e-3) / 1e9;
  }
  cache[device] = gbs;
  return gbs;
}

double same_size_copy_ms(bool device, double bytes, int launches) {
  launches = std::max(launches, 1);
  const size_t n = std::max<size_t>(256, static_cast<size_t>(bytes / (2.0 * launches)) / 256 * 256);
  static std::map<std::tuple<bool, size_t, int>, double> cache;
  const auto key = std::make_tuple(device, n, launches);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  // Enough source / destination pairs that a sample's copies do not find their data in the cache (as the runner
  // rotates an operation's buffer sets), at most 16 and 8 GB.
  const size_t cache_bytes = device ? size_t{128} << 20 : size_t{64} << 20;
  int sets = static_cast<int>(std::clamp<size_t>((cache_bytes + 2 * n - 1) / (2 * n), 1, 16));
  if (2.0 * n * sets > 8e9) sets = 1;
  std::vector<Buffer> src, dst;
  for (int k = 0; k < sets; ++k) {
    src.emplace_back(n, device);
    dst.emplace_back(n, device);
    src.back().fill_zero();
  }
  auto copy = [&](int k) {
#ifdef BENCH_WITH_CUDA
    if (device) {
      cudaMemcpyAsync(dst[k % sets].get(), src[k % sets].get(), n, cudaMemcpyDeviceToDevice, 0);
      return;
    }
#endif
    std::memcpy(dst[k % sets].get(), src[k % sets].get(), n);
  };
  Timer tm(device);
  for (int k = 0; k < 2 * launches; ++k) copy(k);  // warm-up
  tm.start();
  for (int k = 0; k < sets * launches; ++k) copy(k);
  const double t1 = std::max(tm.stop_ms() / sets, 1e-4);  // one "call": `launches` copies
  const int reps = std::clamp(static_cast<int>(1.0 / t1), std::max(sets, 1), 10000);
  std::vector<double> times;
  for (int s = 0; s < (device ? 10 : 3); ++s) {
    flush_cache(device);
    tm.start();
    for (int k = 0; k < reps * launches; ++k) copy(k);
    times.push_back(tm.stop_ms() / reps);
  }
  std::sort(times.begin(), times.end());
  const double ms = times[times.size() / 2];
  cache[key] = ms;
  return ms;
}

double gemm_peak_tflops(bool device, cudnnDataType_t t, bool tf32) {
  tf32 = tf32 && device && t == CUDNN_DATA_FLOAT;
  static std::map<std::pair<bool, int>, double> cache;
  const auto key = std::make_pair(device, static_cast<int>(t) * 2 + (tf32 ? 1 : 0));
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  double v = 0;
  if (t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16) {
#ifdef BENCH_WITH_CUDA
    if (device) v = gpu_gemm_tflops(t, tf32);
#endif
    if (!device) v = t == CUDNN_DATA_DOUBLE ? cpu_gemm_tflops<double>() : cpu_gemm_tflops<float>();
  }
  cache[key] = v;
  return v;
}

}  // namespace bench
