// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "cuda/common/lt_gemm.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>

#include "core/api_context.h"
#include "core/env.h"
#include "core/handle.h"
#include "core/log.h"
#include "cuda/common/cuda_util.h"
#include "cuda/common/cublas_util.h"

namespace fd::cuda {
namespace {

// One shape's descriptors and algorithms. Descriptors are immutable once made; algorithms are copied out under
// the table's lock.
struct Entry {
  bool made = false;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  bool timed = false, have_best = false;
  cublasLtMatmulAlgo_t best{};
  size_t best_work = 0;
  bool have_first = false;  // the heuristic's first answer within first_budget (SIZE_MAX: not asked yet)
  cublasLtMatmulAlgo_t first{};
  size_t first_work = 0, first_budget = SIZE_MAX;
};

struct Key {
  int device;
  LtGemm g;
  auto operator<=>(const Key&) const = default;
};

std::mutex g_mu;
std::map<Key, Entry>& table() {
  static auto* t = new std::map<Key, Entry>;  // never freed (lt_gemm.h: the process keeps its descriptors)
  return *t;
}

cudaDataType_t scale_type(const LtGemm& g) { return g.ct == CUBLAS_COMPUTE_64F ? CUDA_R_64F : CUDA_R_32F; }

cudnnStatus_t layout(cublasLtMatrixLayout_t* out, cudaDataType_t t, int64_t rows, int64_t cols, int64_t ld,
                     int64_t stride, int64_t batch) {
  FD_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(out, t, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), ld));
  const auto b = static_cast<int32_t>(batch);
  FD_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b, sizeof b));
  FD_CUBLAS_CHECK(
      cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
  return CUDNN_STATUS_SUCCESS;
}

// Makes e's descriptors (under g_mu).
cudnnStatus_t make_locked(Entry& e, const LtGemm& g) {
  if (e.made) return CUDNN_STATUS_SUCCESS;
  FD_CUBLAS_CHECK(cublasLtMatmulDescCreate(&e.op, g.ct, scale_type(g)));
  FD_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(e.op, CUBLASLT_MATMUL_DESC_TRANSA, &g.ta, sizeof g.ta));
  FD_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(e.op, CUBLASLT_MATMUL_DESC_TRANSB, &g.tb, sizeof g.tb));
  const bool na = g.ta == CUBLAS_OP_N, nb = g.tb == CUBLAS_OP_N;
  FD_TRY(layout(&e.la, g.ab, na ? g.m : g.k, na ? g.k : g.m, g.lda, g.sa, g.batch));
  FD_TRY(layout(&e.lb, g.ab, nb ? g.k : g.n, nb ? g.n : g.k, g.ldb, g.sb, g.batch));
  FD_TRY(layout(&e.lc, g.c, g.m, g.n, g.ldc, g.sc, g.batch));
  e.made = true;
  return CUDNN_STATUS_SUCCESS;
}

// Up to `want` heuristic answers for e within `budget` bytes of work area; returns how many.
int heuristic(cublasLtHandle_t lt, const Entry& e, size_t budget, cublasLtMatmulHeuristicResult_t* out, int want) {
  cublasLtMatmulPreference_t pref = nullptr;
  if (cublasLtMatmulPreferenceCreate(&pref) != CUBLAS_STATUS_SUCCESS) return 0;
  int n = 0;
  if (cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &budget,
                                           sizeof budget) != CUBLAS_STATUS_SUCCESS ||
      cublasLtMatmulAlgoGetHeuristic(lt, e.op, e.la, e.lb, e.lc, e.lc, pref, want, out, &n) != CUBLAS_STATUS_SUCCESS)
    n = 0;
  cublasLtMatmulPreferenceDestroy(pref);
  return n;
}

// Elements a matrix of `cols` columns of leading dimension ld spans over `batch` entries `stride` apart.
size_t span(int64_t ld, int64_t cols, int64_t stride, int64_t batch) {
  return static_cast<size_t>(ld * cols + stride * (batch - 1));
}

size_t type_size(cudaDataType_t t) {
  switch (t) {
    case CUDA_R_64F: return 8;
    case CUDA_R_16F:
    case CUDA_R_16BF: return 2;
    default: return 4;
  }
}

// Scratch operands and a private stream for timing, released on scope exit.
struct Scratch {
  void* p[4] = {};
  cudaStream_t st = nullptr;
  cudaEvent_t ev[2] = {};
  ~Scratch() {
    for (void* q : p) cudaFree(q);
    for (cudaEvent_t e : ev)
      if (e != nullptr) cudaEventDestroy(e);
    if (st != nullptr) cudaStreamDestroy(st);
  }
  bool alloc(const size_t* bytes) {
    for (int i = 0; i < 4; ++i)
      if (bytes[i] > 0 && cudaMalloc(&p[i], bytes[i]) != cudaSuccess) return false;
    return cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess &&
           cudaEventCreate(&ev[0]) == cudaSuccess && cudaEventCreate(&ev[1]) == cudaSuccess;
  }
};

void note(const char* what) {
  if (log::enabled(CUDNN_SEV_INFO))
    log::emit(CUDNN_SEV_INFO, current_api_context().function, what, CUDNN_STATUS_SUCCESS);
}

// The fastest of n answers (ms, min of 3 runs after one warm-up), or -1 when none ran.
int fastest(cublasLtHandle_t lt, const Entry& e, const LtGemm& g, const cublasLtMatmulHeuristicResult_t* r, int n,
            Scratch& s) {
  const float f1 = 1.0f, f0 = 0.0f;
  const double d1 = 1.0, d0 = 0.0;
  const bool dbl = scale_type(g) == CUDA_R_64F;
  const void* one = dbl ? static_cast<const void*>(&d1) : &f1;
  const void* zero = dbl ? static_cast<const void*>(&d0) : &f0;
  int best = -1;
  float best_ms = 0;
  for (int i = 0; i < n; ++i) {
    const auto run = [&] {
      return cublasLtMatmul(lt, e.op, one, s.p[0], e.la, s.p[1], e.lb, zero, s.p[2], e.lc, s.p[2], e.lc, &r[i].algo,
                            s.p[3], r[i].workspaceSize, s.st) == CUBLAS_STATUS_SUCCESS;
    };
    if (r[i].state != CUBLAS_STATUS_SUCCESS || !run()) continue;
    float ms = -1;
    for (int rep = 0; rep < 3; ++rep) {
      float t = 0;
      if (cudaEventRecord(s.ev[0], s.st) != cudaSuccess || !run() || cudaEventRecord(s.ev[1], s.st) != cudaSuccess ||
          cudaEventSynchronize(s.ev[1]) != cudaSuccess || cudaEventElapsedTime(&t, s.ev[0], s.ev[1]) != cudaSuccess) {
        ms = -1;
        break;
      }
      ms = ms < 0 ? t : std::min(ms, t);
    }
    if (ms >= 0 && (best < 0 || ms < best_ms)) best = i, best_ms = ms;
  }
  return best;
}

}  // namespace

size_t lt_tuned_work(const LtGemm& g) {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return 0;
  std::lock_guard<std::mutex> lock(g_mu);
  const auto it = table().find(Key{dev, g});
  return it != table().end() && it->second.have_best ? it->second.best_work : 0;
}

cudnnStatus_t lt_tune(cudnnContext* h, const LtGemm& g) {
  if (!env_flag_or("FREEDNN_LT_TUNE", true)) return CUDNN_STATUS_SUCCESS;
  if (capturing(h->stream)) return CUDNN_STATUS_SUCCESS;
  cublasHandle_t cb = nullptr;
  FD_TRY(cublas_handle(h, &cb));
  const auto lt = reinterpret_cast<cublasLtHandle_t>(cb);  // a cuBLAS handle is a cuBLASLt one
  Entry e;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    Entry& t = table()[Key{h->device, g}];
    if (t.timed) return CUDNN_STATUS_SUCCESS;
    FD_TRY(make_locked(t, g));
    e = t;  // descriptors are immutable: a copy of the handles is enough
  }
  cublasLtMatmulHeuristicResult_t r[kLtCandidates];
  const int n = heuristic(lt, e, kLtMaxWork, r, kLtCandidates);
  int best = -1;
  if (n > 1) {
    const bool na = g.ta == CUBLAS_OP_N, nb = g.tb == CUBLAS_OP_N;
    size_t work = 0;
    for (int i = 0; i < n; ++i) work = std::max(work, r[i].workspaceSize);
    const size_t bytes[4] = {span(g.lda, na ? g.k : g.m, g.sa, g.batch) * type_size(g.ab),
                             span(g.ldb, nb ? g.n : g.k, g.sb, g.batch) * type_size(g.ab),
                             span(g.ldc, g.n, g.sc, g.batch) * type_size(g.c), work};
    // Outside the handle's stream and any capture another thread runs (the caller's stream is not capturing).
    {
      const RelaxedCapture relaxed;
      Scratch s;
      if (s.alloc(bytes) && cudaMemsetAsync(s.p[0], 0x3c, bytes[0], s.st) == cudaSuccess &&
          cudaMemsetAsync(s.p[1], 0x3c, bytes[1], s.st) == cudaSuccess &&
          cudaMemsetAsync(s.p[2], 0, bytes[2], s.st) == cudaSuccess)
        best = fastest(lt, e, g, r, n, s);
      else
        note("cuBLASLt tuning skipped: no scratch memory for the GEMM's operands (the heuristic's answer runs)");
    }
    cudaGetLastError();  // a failed allocation or candidate is not the caller's error
  } else if (n == 1) {
    best = 0;
  }
  std::lock_guard<std::mutex> lock(g_mu);
  Entry& t = table()[Key{h->device, g}];
  // The first answer stays: a workspace another thread sized from it must still cover the call (found by review)
  if (t.timed) return CUDNN_STATUS_SUCCESS;
  t.timed = true;
  if (best >= 0) t.have_best = true, t.best = r[best].algo, t.best_work = r[best].workspaceSize;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t lt_gemm(cudnnContext* h, const LtGemm& g, double alpha, const void* A, const void* B, double beta,
                      void* C, void* work, size_t work_bytes, bool* ran) {
  *ran = false;
  // cuBLASLt's answers may assume what its heuristic assumes by default: operands and work area aligned to 256
  // bytes (no preference here lowers it). A caller's pointer into a buffer can be less aligned (found by review):
  // cuBLAS runs such a GEMM, and a work area that is less aligned goes unused.
  const auto aligned = [](const void* q) { return reinterpret_cast<uintptr_t>(q) % kLtAlign == 0; };
  if (!aligned(A) || !aligned(B) || !aligned(C)) {
    note("cuBLASLt skipped: an operand is not aligned to 256 bytes (cuBLAS runs the GEMM)");
    return CUDNN_STATUS_SUCCESS;
  }
  cublasHandle_t cb = nullptr;
  FD_TRY(cublas_handle(h, &cb));  // bound to h's stream
  const auto lt = reinterpret_cast<cublasLtHandle_t>(cb);
  if (work == nullptr || !aligned(work)) work_bytes = 0;
  if (work_bytes == 0) work = nullptr;
  const size_t budget = std::min(work_bytes, kLtMaxWork);
  Entry e;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    Entry& t = table()[Key{h->device, g}];
    FD_TRY(make_locked(t, g));
    if (!(t.have_best && t.best_work <= budget) && t.first_budget != budget) {
      cublasLtMatmulHeuristicResult_t r[1];
      t.have_first = heuristic(lt, t, budget, r, 1) == 1;
      t.first_budget = budget;
      if (t.have_first) t.first = r[0].algo, t.first_work = r[0].workspaceSize;
    }
    e = t;
  }
  const cublasLtMatmulAlgo_t* algo = e.have_best && e.best_work <= budget ? &e.best
                                     : e.have_first                       ? &e.first
                                                                          : nullptr;
  if (algo == nullptr) return CUDNN_STATUS_SUCCESS;
  const float af = static_cast<float>(alpha), bf = static_cast<float>(beta);
  const bool dbl = scale_type(g) == CUDA_R_64F;
  const void* ap = dbl ? static_cast<const void*>(&alpha) : &af;
  const void* bp = dbl ? static_cast<const void*>(&beta) : &bf;
  FD_CUBLAS_CHECK(cublasLtMatmul(lt, e.op, ap, A, e.la, B, e.lb, bp, C, e.lc, C, e.lc, algo, work, budget, h->stream));
  *ran = true;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd::cuda
