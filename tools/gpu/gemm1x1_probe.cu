// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// A question for the GPU, not part of the library: how fast can cuBLAS run the TF32 GEMMs of ResNet-50's 1x1
// layers in NCHW, as cuda:gemm_1x1 lays them out (the activation's channels strided by the plane: an MN-major
// operand, which Hopper's TF32 wgmma cannot read from shared memory), and with both operands K-major (the
// activation transposed to NHWC first, the filter too where needed)? Per layer and direction: the strided-batched
// GEMM with cuBLAS's default choice, and the best of cuBLASLt's first 16 heuristic answers, in both layouts.
// Median of 25 runs after warm-up, CUDA events, 4 rotating buffer sets (each larger than L2 for most layers).
// Build: nvcc -O2 -std=c++17 -arch=sm_90a tools/gpu/gemm1x1_probe.cu -lcublasLt -lcublas -o gemm1x1_probe
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { auto e_ = (x); if (e_ != 0) { std::printf("error %d at %s:%d\n", int(e_), __FILE__, __LINE__); std::exit(1); } } while (0)

namespace {

constexpr int kSets = 4, kReps = 25;

struct Layer { int c, k, s; };  // input channels, output channels, pixels per image (stride-1 view)

template <class F>
float median_ms(F&& run) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) run(i % kSets);
  std::vector<float> t;
  for (int i = 0; i < kReps; ++i) {
    CK(cudaEventRecord(a));
    run(i % kSets);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return t[t.size() / 2];
}

// Column-major C (m x n, ldc, stride sc) = op(A) op(B), batched.
struct Gemm {
  cublasOperation_t ta, tb;
  int m, n, k, lda, ldb, ldc;
  long long sa, sb, sc;
  int batch;
};

float time_cublas(cublasHandle_t cb, const Gemm& g, float* const* A, float* const* B, float* const* C) {
  const float one = 1, zero = 0;
  return median_ms([&](int i) {
    CK(cublasGemmStridedBatchedEx(cb, g.ta, g.tb, g.m, g.n, g.k, &one, A[i], CUDA_R_32F, g.lda, g.sa, B[i],
                                  CUDA_R_32F, g.ldb, g.sb, &zero, C[i], CUDA_R_32F, g.ldc, g.sc, g.batch,
                                  CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
  });
}

cublasLtMatrixLayout_t layout(int rows, int cols, int ld, long long stride, int batch) {
  cublasLtMatrixLayout_t l;
  CK(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, rows, cols, ld));
  CK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch));
  CK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
  return l;
}

// Best of cuBLASLt's first 16 heuristic answers; *count: how many it gave.
float time_lt(cublasLtHandle_t lt, const Gemm& g, float* const* A, float* const* B, float* const* C, void* ws,
              size_t ws_size, int* count) {
  cublasLtMatmulDesc_t d;
  CK(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F));
  CK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &g.ta, sizeof g.ta));
  CK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &g.tb, sizeof g.tb));
  const bool at = g.ta == CUBLAS_OP_T, bt = g.tb == CUBLAS_OP_T;
  cublasLtMatrixLayout_t la = layout(at ? g.k : g.m, at ? g.m : g.k, g.lda, g.sa, g.batch);
  cublasLtMatrixLayout_t lb = layout(bt ? g.n : g.k, bt ? g.k : g.n, g.ldb, g.sb, g.batch);
  cublasLtMatrixLayout_t lc = layout(g.m, g.n, g.ldc, g.sc, g.batch);
  cublasLtMatmulPreference_t pref;
  CK(cublasLtMatmulPreferenceCreate(&pref));
  CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_size, sizeof ws_size));
  cublasLtMatmulHeuristicResult_t res[16];
  int n = 0;
  CK(cublasLtMatmulAlgoGetHeuristic(lt, d, la, lb, lc, lc, pref, 16, res, &n));
  *count = n;
  float best = 1e30f;
  const float one = 1, zero = 0;
  for (int r = 0; r < n; ++r) {
    const float t = median_ms([&](int i) {
      CK(cublasLtMatmul(lt, d, &one, A[i], la, B[i], lb, &zero, C[i], lc, C[i], lc, &res[r].algo, ws, ws_size, 0));
    });
    best = std::min(best, t);
  }
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(d);
  return best;
}

}  // namespace

int main() {
  const int N = 64;
  const Layer layers[] = {{64, 64, 3136},  {64, 256, 3136},  {256, 64, 3136},  {256, 128, 3136},
                          {128, 512, 784}, {512, 128, 784},  {512, 256, 784},  {256, 1024, 196},
                          {1024, 256, 196}, {1024, 512, 196}, {512, 2048, 49}, {2048, 512, 49},
                          {256, 512, 784}, {512, 1024, 196}, {1024, 2048, 49}};  // the last three: stride-2 views
  size_t most = 0;
  for (const Layer& l : layers) most = std::max(most, size_t(N) * std::max(l.c, l.k) * l.s);
  float *act[kSets], *out[kSets], *w[kSets];
  for (int i = 0; i < kSets; ++i) {
    CK(cudaMalloc(&act[i], most * 4));
    CK(cudaMalloc(&out[i], most * 4));
    CK(cudaMalloc(&w[i], 2048 * 2048 * 4));
    CK(cudaMemset(act[i], 0, most * 4));
    CK(cudaMemset(w[i], 0, 2048 * 2048 * 4));
  }
  const size_t ws_size = 64 << 20;
  void* ws;
  CK(cudaMalloc(&ws, ws_size));
  cublasHandle_t cb;
  CK(cublasCreate(&cb));
  CK(cublasSetWorkspace(cb, ws, ws_size));
  cublasLtHandle_t lt;
  CK(cublasLtCreate(&lt));
  const auto T = CUBLAS_OP_T, Nn = CUBLAS_OP_N;
  std::printf("dir    C     K     S | GFLOP | nchw cublas  nchw lt(n) | kmajor cublas  kmajor lt(n) | transpose floor"
              " (ms, 4 TB/s) | TFLOP/s best\n");
  for (const Layer& l : layers) {
    for (int dir = 0; dir < 2; ++dir) {  // 0: forward y_n = w x_n; 1: backward data dx_n = w^T dy_n
      // Row-major D (M x S) = A (M x R) B (R x S) per image, M the output channels, R the reduction.
      const int M = dir == 0 ? l.k : l.c, R = dir == 0 ? l.c : l.k, S = l.s;
      const double gflop = 2.0 * N * M * R * S * 1e-9;
      // NCHW as gemm_1x1 runs it: column-major D^T (S x M) = B^T (act, ld S) op A^T.
      //   fwd: A = w (M x R, R contiguous): col-major R x M, op N. bwd: A = w^T where w is R x M row-major: op T.
      const Gemm nchw{Nn, dir == 0 ? Nn : T, S, M, R, S, dir == 0 ? R : M, S, (long long)R * S, 0, (long long)M * S, N};
      // Both K-major: the activation per image S x R (R contiguous, NHWC), A as M x R (R contiguous).
      const Gemm kmaj{T, Nn, S, M, R, R, R, S, (long long)R * S, 0, (long long)M * S, N};
      int n1 = 0, n2 = 0;
      const float t1 = time_cublas(cb, nchw, act, w, out), t2 = time_lt(lt, nchw, act, w, out, ws, ws_size, &n1);
      const float t3 = time_cublas(cb, kmaj, act, w, out), t4 = time_lt(lt, kmaj, act, w, out, ws, ws_size, &n2);
      const double tr = 2.0 * N * R * S * 4 / 4e12 * 1e3;  // read + write the activation once
      const float best = std::min(std::min(t1, t2), std::min(t3, t4));
      std::printf("%s %5d %5d %5d | %5.2f | %8.4f %8.4f(%2d) | %8.4f %8.4f(%2d) | %.4f | %.0f\n", dir ? "bwd_d" : "fwd  ",
                  l.c, l.k, S, gflop, t1, t2, n1, t3, t4, n2, tr, gflop / best);
      std::fflush(stdout);
    }
  }
  return 0;
}
