// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// cuda:fft: 2-D stride-1 convolutions through the convolution theorem, with cuFFT and cuBLAS.
//   1. The two operands are copied (converted to float, zero-padded) into real planes of Hf x Wf, where Hf >= H+2p
//      and Wf >= W+2p are sizes with factors 2, 3, 5, 7 only; the input x sits at offset (ph, pw) of its plane,
//      dy and the filter at (0, 0). Hf >= H+2p is enough for every direction: no circular wrap reaches an element
//      that is kept.
//   2. One batched R2C transform per operand writes the spectra frequency-major: spectrum[f][plane].
//   3. One strided-batched complex GEMM per group (batch = the Hf x (Wf/2+1) frequencies) contracts the channel:
//        fwd    Y(k, n)  = sum_c conj(W(c, k)) X(c, n)      (cross-correlation: the conjugate filter spectrum)
//        bwd_d  DX(c, n) = sum_k W(c, k) DY(k, n)            (the transposed map: a plain convolution)
//        bwd_w  DW(c, k) = sum_n X(c, n) conj(DY(k, n))      (x correlated with dy, summed over the images)
//   4. One batched C2R transform, then a kernel crops the planes (dx at offset (ph, pw)), scales by 1 / (Hf Wf) and
//      writes the output with alpha/beta or the fused bias + activation epilogue.
// CUDNN_CONVOLUTION reads the filter flipped (and writes dw flipped back). Float, half and bfloat16 data (half and
// bf16 are widened into the float planes; all sums are in float); double and int8 are declined. Any layout
// (strided reads). Groups: one GEMM call per group.
// Plans (fft_plans.h has the design): kept per handle (cudnnContext::fft_plans), keyed by transform geometry, made
// without a work area at the workspace query / Find (prepare()), so a computing call allocates nothing and never
// synchronizes: it pins its plans, binds the caller's workspace as cuFFT's work area (cufftSetWorkArea; the
// workspace size includes cuFFT's work size) and records each plan's event after its work; idle plans (event
// complete) beyond the bound are destroyed where plans are made.
// FFT_TILING is served by the same whole-image code: cuDNN's tiling splits large images into 32x32 tiles to bound
// the workspace; here the workspace bound (4 GiB) declines what would not fit instead.
// Results are deterministic: a plan always runs the same kernels, the GEMMs have no split-K atomics.
#include <cufft.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/api_context.h"
#include "core/dtype.h"
#include "core/handle.h"
#include "cuda/common/cublas_util.h"
#include "cuda/common/cuda_util.h"
#include "cuda/conv/conv_kernels.cuh"
#include "cuda/conv/fft_plans.h"
#include "cuda/conv/impls.h"

#define FD_CUFFT_CHECK(expr)                                                                                     \
  do {                                                                                                           \
    const cufftResult fd_cufft_st_ = (expr);                                                                     \
    if (fd_cufft_st_ != CUFFT_SUCCESS)                                                                           \
      return ::fd::report(CUDNN_STATUS_EXECUTION_FAILED, __FILE__, __LINE__, #expr, "cuFFT error %d",            \
                          static_cast<int>(fd_cufft_st_));                                                       \
  } while (0)

namespace fd::cuda::conv {
namespace {

using fd::ConvDir;
using fd::ConvProblem;
using fd::conv::ConvArgs;

constexpr size_t kAlign = 256;
constexpr size_t kMaxWorkspace = size_t{4} << 30;

size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// The smallest n' >= max(n, 2) whose only prime factors are 2, 3, 5 and 7 (sizes cuFFT handles fastest).
int64_t fft_size(int64_t n) {
  for (n = std::max<int64_t>(n, 2);; ++n) {
    int64_t m = n;
    for (int64_t f : {2, 3, 5, 7})
      while (m % f == 0) m /= f;
    if (m == 1) return n;
  }
}

// --- plans ----------------------------------------------------------------------------------------------------
// fft_plans.h describes the design: plans made at the query / Find (prepare), kept per handle, bound to the
// caller's workspace at each run, destroyed only when idle.

using PlanKey = FftPlanKey;

// A cached plan: the cuFFT handle (made without a work area), its work size, and an event recorded on the stream
// after each run that used it (complete = the plan is idle). A run on another stream than the last first waits
// for that event, so the event recorded after it covers both streams' runs.
struct FftPlan {
  cufftHandle handle = 0;
  cudaEvent_t done = nullptr;
  size_t work = 0;
  bool recorded = false;
  cudaStream_t last = nullptr;  // the stream of the last record (when recorded)
};

const char* kind_name(FftKind k) { return k == FftKind::r2c ? "R2C" : "C2R"; }

// Making a plan allocates device memory: in relaxed capture mode, so that another thread's capture in global mode
// neither refuses it nor is invalidated by it (found by review: a workspace query beside a capture).
cufftResult make_cufft_plan(const PlanKey& k, cufftHandle* out, size_t* work) {
  const RelaxedCapture relaxed;
  cufftHandle plan = 0;
  cufftResult r = cufftCreate(&plan);
  if (r != CUFFT_SUCCESS) return r;
  r = cufftSetAutoAllocation(plan, 0);  // the work area is the caller's workspace, bound at each run
  long long n[2] = {k.hf, k.wf};
  long long real_embed[2] = {k.hf, k.wf};
  long long spec_embed[2] = {k.hf, k.wf / 2 + 1};
  const long long plane = k.hf * k.wf, batch = k.batch;
  if (r == CUFFT_SUCCESS) {
    if (k.kind == FftKind::r2c)
      r = cufftMakePlanMany64(plan, 2, n, real_embed, 1, plane, spec_embed, batch, 1, CUFFT_R2C, batch, work);
    else
      r = cufftMakePlanMany64(plan, 2, n, spec_embed, batch, 1, real_embed, 1, plane, CUFFT_C2R, batch, work);
  }
  if (r != CUFFT_SUCCESS) {
    (void)cufftDestroy(plan);
    return r;
  }
  *out = plan;
  return CUFFT_SUCCESS;
}

// The process-wide table of cuFFT work sizes by key (workspace_size() has no handle). Every plan made anywhere
// records its size here; entries are a few bytes and never dropped, so a size once known stays known.
struct WorkTable {
  std::mutex mu;
  std::map<PlanKey, size_t> sizes;
};
WorkTable& work_table() {
  static WorkTable t;
  return t;
}
void note_work(const PlanKey& k, size_t work) {
  WorkTable& t = work_table();
  std::lock_guard<std::mutex> lock(t.mu);
  t.sizes[k] = work;
}
bool known_work(const PlanKey& k, size_t* work) {
  WorkTable& t = work_table();
  std::lock_guard<std::mutex> lock(t.mu);
  const auto it = t.sizes.find(k);
  if (it == t.sizes.end()) return false;
  *work = it->second;
  return true;
}

// cuFFT's work size for `k`: from the table, else from a plan made and dropped at once (only for callers that
// did not prepare the handle: the _v7 ranking, a call never preceded by a query).
cufftResult plan_work_size(const PlanKey& k, size_t* out) {
  if (known_work(k, out)) return CUFFT_SUCCESS;
  cufftHandle plan = 0;
  size_t work = 0;
  const cufftResult r = make_cufft_plan(k, &plan, &work);
  if (r != CUFFT_SUCCESS) return r;
  (void)cufftDestroy(plan);
  note_work(k, work);
  *out = work;
  return CUFFT_SUCCESS;
}

// A new plan for the cache (with its event), its work size noted in the table.
cudnnStatus_t make_plan(const PlanKey& k, FftPlan* out) {
  FftPlan p;
  const cufftResult r = make_cufft_plan(k, &p.handle, &p.work);
  FD_CHECK(r == CUFFT_SUCCESS, r == CUFFT_ALLOC_FAILED ? CUDNN_STATUS_ALLOC_FAILED : CUDNN_STATUS_NOT_SUPPORTED,
           "cuFFT cannot make a %s plan of %lld planes of %lldx%lld: cuFFT error %d", kind_name(k.kind),
           static_cast<long long>(k.batch), static_cast<long long>(k.hf), static_cast<long long>(k.wf),
           static_cast<int>(r));
  const cudaError_t e = cudaEventCreateWithFlags(&p.done, cudaEventDisableTiming);
  if (e != cudaSuccess) {
    (void)cufftDestroy(p.handle);
    FD_CUDA_CHECK(e);
  }
  note_work(k, p.work);
  *out = p;
  return CUDNN_STATUS_SUCCESS;
}

// Whether every run queued with the plan has finished (its event completed; an event never recorded counts as
// complete). A not-ready answer must not linger as the thread's last CUDA error, which the next launch check
// would report: it is cleared only when it is the one this query left.
bool plan_idle(const FftPlan& p) {
  const bool clean_before = cudaPeekAtLastError() == cudaSuccess;
  const cudaError_t e = cudaEventQuery(p.done);
  if (e != cudaSuccess && clean_before && cudaPeekAtLastError() == e) (void)cudaGetLastError();
  return e == cudaSuccess;
}

void destroy_plan(const FftPlan& p) {
  (void)cufftDestroy(p.handle);
  (void)cudaEventDestroy(p.done);
}

// A handle's cache: the LRU bookkeeping of fft_plans.h under the handle's own mutex.
struct HandlePlans {
  std::mutex mu;
  FftPlanLru<FftPlan> lru;
};

HandlePlans& plans_of(cudnnContext* h) {
  static std::mutex create_mu;  // the query and the calls may come from different threads
  std::lock_guard<std::mutex> lock(create_mu);
  if (h->fft_plans == nullptr) h->fft_plans = new HandlePlans();
  return *static_cast<HandlePlans*>(h->fft_plans);
}

// Makes the missing plans of `keys` in the handle's cache, then trims the cache: idle plans only, never those of
// `keys` (pinned meanwhile). Outside a computing call (query, Find) always, to kFftPlanBound; inside one only
// when it had to make plans (the unqueried last resort), to twice that, so that a call whose plans are cached
// does nothing but look them up. Caller holds hp.mu.
cudnnStatus_t ensure_plans_locked(HandlePlans& hp, const PlanKey* keys, int n, bool in_call, bool* made) {
  *made = false;
  for (int i = 0; i < n; ++i) {
    if (hp.lru.find(keys[i]) != nullptr) continue;
    FftPlan p;
    FD_TRY(make_plan(keys[i], &p));
    hp.lru.insert(keys[i], p);
    *made = true;
  }
  if (*made || !in_call) {
    for (int i = 0; i < n; ++i) hp.lru.pin(keys[i]);
    (void)hp.lru.trim(in_call ? 2 * kFftPlanBound : kFftPlanBound, plan_idle, destroy_plan);
    for (int i = 0; i < n; ++i) hp.lru.unpin(keys[i]);
  }
  return CUDNN_STATUS_SUCCESS;
}

// The plans of one run, pinned in the handle's cache while the run queues work with them. On release (the end of
// the run, error paths included) each plan's event is recorded on the stream after that work, then it is
// unpinned; from then on a trim destroys it only once the event has completed.
class PlanLease {
 public:
  PlanLease(HandlePlans& hp, cudaStream_t stream) : hp_(hp), stream_(stream), captured_(capturing(stream)) {}
  PlanLease(const PlanLease&) = delete;
  PlanLease& operator=(const PlanLease&) = delete;
  ~PlanLease() {
    std::lock_guard<std::mutex> lock(hp_.mu);
    for (int i = 0; i < n_; ++i) {
      // Under capture the record is the graph's (the event then reads as busy until an eager run records it
      // again, so no trim destroys the plan meanwhile), and no later call may wait on it: not `recorded`.
      if (FftPlan* p = hp_.lru.find(keys_[i]); p != nullptr && cudaEventRecord(p->done, stream_) == cudaSuccess)
        p->recorded = !captured_, p->last = stream_;
      hp_.lru.unpin(keys_[i]);
    }
  }
  // Pins the plans of keys[0..n) (made here when missing: the unqueried last resort) and returns them.
  cudnnStatus_t acquire(const PlanKey* keys, int n, FftPlan* out) {
    std::lock_guard<std::mutex> lock(hp_.mu);
    bool made = false;
    FD_TRY(ensure_plans_locked(hp_, keys, n, /*in_call=*/true, &made));
    if (made && log::enabled(CUDNN_SEV_INFO))
      log::emit(CUDNN_SEV_INFO, current_api_context().function,
                "cuda:fft made its cuFFT plans inside the computing call (query the workspace size on this handle "
                "first to make them there)",
                CUDNN_STATUS_SUCCESS);
    for (int i = 0; i < n; ++i) {
      hp_.lru.pin(keys[i]);
      keys_[n_++] = keys[i];
      out[i] = *hp_.lru.find(keys[i]);
      // The handle's stream changed since the plan's last run: this run follows it (the idle check's event then
      // covers both). Not under capture: the graph would wait on an event from outside it.
      if (out[i].recorded && out[i].last != stream_ && !captured_)
        FD_CUDA_CHECK(cudaStreamWaitEvent(stream_, out[i].done, 0));
    }
    return CUDNN_STATUS_SUCCESS;
  }

 private:
  HandlePlans& hp_;
  cudaStream_t stream_;
  bool captured_;  // stream_ is capturing
  PlanKey keys_[3];
  int n_ = 0;
};

int current_device() {
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess) {
    (void)cudaGetLastError();
    d = 0;
  }
  return d;
}

// --- geometry and workspace -----------------------------------------------------------------------------------

// The transforms of one problem: the first input A, the second input B and the output, as numbers of planes.
//   fwd   A = x (mb*ic), B = w (oc*icg), out = y (mb*oc)
//   bwd_d A = dy (mb*oc), B = w (oc*icg), out = dx (mb*ic)
//   bwd_w A = x (mb*ic), B = dy (mb*oc), out = dw (oc*icg)
// Workspace: one real buffer (the largest of the three plane sets, reused), the three spectra, cuFFT's work area.
struct FftLayout {
  int64_t hf = 2, wf = 2, freqs = 2;
  int64_t na = 1, nb = 1, nc = 1;
  size_t real = 0, sa = 0, sb = 0, sc = 0, work = 0;  // offsets from the aligned start
  size_t own = 0;  // bytes before the work area (alignment slack included)
  PlanKey keys[3];  // the transforms of A (R2C), B (R2C) and the output (C2R)
};

FftLayout fft_layout(const ConvProblem& p) {
  FftLayout l;
  l.hf = fft_size(p.ih + 2 * p.ph);
  l.wf = fft_size(p.iw + 2 * p.pw);
  l.freqs = l.hf * (l.wf / 2 + 1);
  const int64_t x = p.mb * p.ic, y = p.mb * p.oc, w = p.oc * p.icg();
  switch (p.dir) {
    case ConvDir::fwd: l.na = x, l.nb = w, l.nc = y; break;
    case ConvDir::bwd_data: l.na = y, l.nb = w, l.nc = x; break;
    case ConvDir::bwd_filter: l.na = x, l.nb = y, l.nc = w; break;
  }
  const auto plane = static_cast<size_t>(l.hf * l.wf), freqs = static_cast<size_t>(l.freqs);
  const auto most = static_cast<size_t>(std::max({l.na, l.nb, l.nc}));
  constexpr size_t cplx = 2 * sizeof(float);
  l.real = 0;
  l.sa = align_up(most * plane * sizeof(float));
  l.sb = l.sa + align_up(static_cast<size_t>(l.na) * freqs * cplx);
  l.sc = l.sb + align_up(static_cast<size_t>(l.nb) * freqs * cplx);
  l.work = l.sc + align_up(static_cast<size_t>(l.nc) * freqs * cplx);
  l.own = kAlign + l.work;
  const int dev = current_device();
  l.keys[0] = PlanKey{dev, FftKind::r2c, l.hf, l.wf, l.na};
  l.keys[1] = PlanKey{dev, FftKind::r2c, l.hf, l.wf, l.nb};
  l.keys[2] = PlanKey{dev, FftKind::c2r, l.hf, l.wf, l.nc};
  return l;
}

// The largest work area of the three plans, or the cuFFT error (see plan_work_size: a plan made and dropped for a
// size not known yet).
cufftResult cufft_work(const FftLayout& l, size_t* out) {
  *out = 0;
  for (const PlanKey& k : l.keys) {
    size_t w = 0;
    const cufftResult r = plan_work_size(k, &w);
    if (r != CUFFT_SUCCESS) return r;
    *out = std::max(*out, w);
  }
  return CUFFT_SUCCESS;
}

// The same from the table only (no plan made); false when a size is not known yet.
bool known_cufft_work(const FftLayout& l, size_t* out) {
  *out = 0;
  for (const PlanKey& k : l.keys) {
    size_t w = 0;
    if (!known_work(k, &w)) return false;
    *out = std::max(*out, w);
  }
  return true;
}

std::string workspace_too_big(size_t bytes) {
  return "cuda:fft would need " + std::to_string(bytes >> 20) +
         " MiB of workspace for its padded planes, spectra and cuFFT work area (limit 4096 MiB)";
}

// --- kernels --------------------------------------------------------------------------------------------------

// out[plane][h][w] (plane = n * C + c, hf x wf floats) = src(n, c, h - off_h, w - off_w), 0 outside the source;
// read flipped (H-1-h, W-1-w) when `flip`.
template <class S>
__global__ void pad_planes_kernel(View5 v, const S* src, int64_t C, int64_t H, int64_t W, int64_t off_h,
                                  int64_t off_w, bool flip, int64_t hf, int64_t wf, int64_t total, float* out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t x = i % wf, t = i / wf, y = t % hf, plane = t / hf;
    int64_t sh = y - off_h, sw = x - off_w;
    float val = 0.0f;
    if (sh >= 0 && sh < H && sw >= 0 && sw < W) {
      if (flip) sh = H - 1 - sh, sw = W - 1 - sw;
      val = load_as<float>(src, v.at(plane / C, plane % C, 0, sh, sw));
    }
    out[i] = val;
  }
}

// out(n, c, h, w) from plane n * C + c at (h + off_h, w + off_w) (or (H-1-h, W-1-w) when `flip`), times `scale`,
// blended (alpha/beta) or through the fused epilogue.
template <class S>
__global__ void crop_planes_kernel(const float* planes, int64_t C, int64_t H, int64_t W, int64_t off_h, int64_t off_w,
                                   bool flip, int64_t hf, int64_t wf, float scale, View5 ov, S* out, float alpha,
                                   float beta, FusedDev f, int64_t total) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t w = i % W, t = i / W, h = t % H, plane = t / H;
    const int64_t n = plane / C, c = plane % C;
    const int64_t sh = flip ? H - 1 - h : h + off_h, sw = flip ? W - 1 - w : w + off_w;
    const float v = planes[(plane * hf + sh) * wf + sw] * scale;
    write_out<S, float>(out, ov.at(n, c, 0, h, w), v, alpha, beta, f, n, c, 0, h, w);
  }
}

// --- run ------------------------------------------------------------------------------------------------------

struct CGemm {
  cublasHandle_t cb;
  int batch;
  // Column-major complex C (m x n) = op(A) op(B), batched over the frequencies with the given batch strides.
  cudnnStatus_t operator()(cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k,
                           const cuComplex* A, int64_t lda, int64_t sa, const cuComplex* B, int64_t ldb, int64_t sb,
                           cuComplex* C, int64_t ldc, int64_t sc) const {
    const cuComplex one = make_cuComplex(1.0f, 0.0f), zero = make_cuComplex(0.0f, 0.0f);
    FD_CUBLAS_CHECK(cublasGemmStridedBatchedEx(cb, ta, tb, static_cast<int>(m), static_cast<int>(n),
                                               static_cast<int>(k), &one, A, CUDA_C_32F, static_cast<int>(lda), sa, B,
                                               CUDA_C_32F, static_cast<int>(ldb), sb, &zero, C, CUDA_C_32F,
                                               static_cast<int>(ldc), sc, batch, CUBLAS_COMPUTE_32F,
                                               CUBLAS_GEMM_DEFAULT));
    return CUDNN_STATUS_SUCCESS;
  }
};

template <class S>
cudnnStatus_t run_typed(const ConvProblem& p, const ConvArgs& a) {
  cudnnContext* h = a.handle;
  const cudaStream_t st = h->stream;
  const int dev = h->device;
  const FftLayout l = fft_layout(p);
  FD_CHECK_PARAM(a.workspace != nullptr && a.workspace_size >= l.own, "cuda:fft needs more than %zu bytes of workspace",
                 l.own);
  auto base = reinterpret_cast<uintptr_t>(a.workspace);
  base = (base + kAlign - 1) / kAlign * kAlign;
  char* ws = reinterpret_cast<char*>(base);
  const size_t work_avail = a.workspace_size - (base - reinterpret_cast<uintptr_t>(a.workspace)) - l.work;

  // The handle's plans, pinned until the end of this run (the lease records their events then). Made here only
  // when nobody prepared them (no workspace query or Find on this handle): the logged last resort.
  PlanLease lease(plans_of(h), st);
  FftPlan fp[3];
  FD_TRY(lease.acquire(l.keys, 3, fp));
  cufftHandle plans[3];
  for (int i = 0; i < 3; ++i) {
    FD_CHECK(fp[i].work <= work_avail, CUDNN_STATUS_INTERNAL_ERROR,
             "cuFFT plan needs a %zu-byte work area, the workspace leaves %zu", fp[i].work, work_avail);
    plans[i] = fp[i].handle;
    FD_CUFFT_CHECK(cufftSetStream(plans[i], st));
    FD_CUFFT_CHECK(cufftSetWorkArea(plans[i], ws + l.work));
  }
  CGemm gemm{};
  FD_TRY(cublas_handle(h, &gemm.cb));
  gemm.batch = static_cast<int>(l.freqs);

  float* real = reinterpret_cast<float*>(ws + l.real);
  auto* sa = reinterpret_cast<cufftComplex*>(ws + l.sa);
  auto* sb = reinterpret_cast<cufftComplex*>(ws + l.sb);
  auto* sc = reinterpret_cast<cufftComplex*>(ws + l.sc);
  const int64_t hf = l.hf, wf = l.wf, plane = hf * wf;
  auto grid = [&](int64_t n) { return grid_size(n, kBlock, dev); };
  const bool flip = p.mode == CUDNN_CONVOLUTION;
  const View5 xv = view5(*p.x), yv = view5(*p.y), wv = view5(p.w->as_tensor);
  const int64_t C = p.ic, K = p.oc, N = p.mb, Cg = p.icg(), Kg = p.ocg();

  // Pads operand `src` (planes: C_ x H_ x W_ per image/filter) into the real buffer and transforms it into `spec`.
  auto transform = [&](View5 v, const void* src, int64_t planes, int64_t C_, int64_t H_, int64_t W_, int64_t oh_,
                       int64_t ow_, bool fl, cufftHandle plan, cufftComplex* spec) -> cudnnStatus_t {
    const int64_t total = planes * plane;
    pad_planes_kernel<S><<<grid(total), kBlock, 0, st>>>(v, static_cast<const S*>(src), C_, H_, W_, oh_, ow_, fl, hf,
                                                         wf, total, real);
    FD_CUDA_LAUNCHED();
    FD_CUFFT_CHECK(cufftExecR2C(plan, real, spec));
    return CUDNN_STATUS_SUCCESS;
  };

  const float alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
  const float scale = 1.0f / static_cast<float>(plane);
  const FusedDev none;
  switch (p.dir) {
    case ConvDir::fwd: {
      FD_TRY(transform(xv, a.in, l.na, C, p.ih, p.iw, p.ph, p.pw, false, plans[0], sa));
      FD_TRY(transform(wv, a.in2, l.nb, Cg, p.kh, p.kw, 0, 0, flip, plans[1], sb));
      for (int64_t g = 0; g < p.g; ++g)
        FD_TRY(gemm(CUBLAS_OP_C, CUBLAS_OP_N, Kg, N, Cg, sb + g * Kg * Cg, Cg, l.nb, sa + g * Cg, C, l.na, sc + g * Kg,
                    K, l.nc));
      FD_CUFFT_CHECK(cufftExecC2R(plans[2], sc, real));
      const int64_t total = l.nc * p.oh * p.ow;
      crop_planes_kernel<S><<<grid(total), kBlock, 0, st>>>(real, K, p.oh, p.ow, 0, 0, false, hf, wf, scale, yv,
                                                            static_cast<S*>(a.out), alpha, beta, fused_dev(a.fused),
                                                            total);
      FD_CUDA_LAUNCHED();
      break;
    }
    case ConvDir::bwd_data: {
      FD_TRY(transform(yv, a.in, l.na, K, p.oh, p.ow, 0, 0, false, plans[0], sa));
      FD_TRY(transform(wv, a.in2, l.nb, Cg, p.kh, p.kw, 0, 0, flip, plans[1], sb));
      for (int64_t g = 0; g < p.g; ++g)
        FD_TRY(gemm(CUBLAS_OP_N, CUBLAS_OP_N, Cg, N, Kg, sb + g * Kg * Cg, Cg, l.nb, sa + g * Kg, K, l.na, sc + g * Cg,
                    C, l.nc));
      FD_CUFFT_CHECK(cufftExecC2R(plans[2], sc, real));
      const int64_t total = l.nc * p.ih * p.iw;
      crop_planes_kernel<S><<<grid(total), kBlock, 0, st>>>(real, C, p.ih, p.iw, p.ph, p.pw, false, hf, wf, scale, xv,
                                                            static_cast<S*>(a.out), alpha, beta, none, total);
      FD_CUDA_LAUNCHED();
      break;
    }
    case ConvDir::bwd_filter: {
      FD_TRY(transform(xv, a.in, l.na, C, p.ih, p.iw, p.ph, p.pw, false, plans[0], sa));
      FD_TRY(transform(yv, a.in2, l.nb, K, p.oh, p.ow, 0, 0, false, plans[1], sb));
      for (int64_t g = 0; g < p.g; ++g)
        FD_TRY(gemm(CUBLAS_OP_N, CUBLAS_OP_C, Cg, Kg, N, sa + g * Cg, C, l.na, sb + g * Kg, K, l.nb,
                    sc + g * Kg * Cg, Cg, l.nc));
      FD_CUFFT_CHECK(cufftExecC2R(plans[2], sc, real));
      const int64_t total = l.nc * p.kh * p.kw;
      crop_planes_kernel<S><<<grid(total), kBlock, 0, st>>>(real, Cg, p.kh, p.kw, 0, 0, flip, hf, wf, scale, wv,
                                                            static_cast<S*>(a.out), alpha, beta, none, total);
      FD_CUDA_LAUNCHED();
      break;
    }
  }
  return CUDNN_STATUS_SUCCESS;
}

class Fft final : public fd::conv::ConvImpl {
 public:
  const char* id() const override { return "cuda:fft"; }
  fd::Backend backend() const override { return fd::Backend::cuda; }
  bool serves(ConvDir dir, int algo) const override {
    switch (dir) {
      case ConvDir::fwd: return algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT || algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING;
      case ConvDir::bwd_data:
        return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT || algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING;
      case ConvDir::bwd_filter:
        return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT || algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING;
    }
    return false;
  }
  fd::conv::Verdict applicable(const ConvProblem& p) const override {
    using V = fd::conv::Verdict;
    if (p.nsp != 2) return V{CUDNN_STATUS_NOT_SUPPORTED, "cuda:fft handles 2-D convolutions only"};
    if (p.sh != 1 || p.sw != 1) return V{CUDNN_STATUS_NOT_SUPPORTED, "FFT convolution needs stride 1"};
    if (p.dh != 1 || p.dw != 1) return V{CUDNN_STATUS_NOT_SUPPORTED, "FFT convolution needs dilation 1"};
    const bool floatish = p.xdt == CUDNN_DATA_FLOAT || p.xdt == CUDNN_DATA_HALF || p.xdt == CUDNN_DATA_BFLOAT16;
    if (!floatish || p.wdt != p.xdt || p.ydt != p.xdt)
      return V{CUDNN_STATUS_NOT_SUPPORTED, std::string("cuda:fft transforms in float: it takes float, half or "
                                                       "bfloat16 data, not ") + dtype_short_name(p.xdt)};
    const FftLayout l = fft_layout(p);
    if (std::max({l.na, l.nb, l.nc, p.mb, p.ic, p.oc, l.freqs}) > INT_MAX)
      return V{CUDNN_STATUS_NOT_SUPPORTED, "a GEMM dimension exceeds cuBLAS's 32-bit sizes"};
    if (l.own > kMaxWorkspace) return V{CUDNN_STATUS_NOT_SUPPORTED, workspace_too_big(l.own)};
    // No plan is made here (this runs inside computing calls too): cuFFT's part counts once it is known, which
    // prepare() (the workspace query, Find) makes sure of.
    size_t work = 0;
    if (known_cufft_work(l, &work) && l.own + work > kMaxWorkspace)
      return V{CUDNN_STATUS_NOT_SUPPORTED, workspace_too_big(l.own + work)};
    return {};
  }
  // The workspace query and Find: the handle's plans for the problem (made now when missing; the cache trimmed to
  // its bound), so that the computing calls that follow make nothing.
  cudnnStatus_t prepare(cudnnContext* h, const ConvProblem& p) const override {
    FD_CHECK(h != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:fft prepared without a handle");
    const FftLayout l = fft_layout(p);
    HandlePlans& hp = plans_of(h);
    {
      std::lock_guard<std::mutex> lock(hp.mu);
      bool made = false;
      FD_TRY(ensure_plans_locked(hp, l.keys, 3, /*in_call=*/false, &made));
    }
    size_t work = 0;
    FD_CHECK(known_cufft_work(l, &work), CUDNN_STATUS_INTERNAL_ERROR, "cuda:fft: plans made but work sizes unknown");
    FD_CHECK_SUPPORTED(l.own + work <= kMaxWorkspace, "%s", workspace_too_big(l.own + work).c_str());
    return CUDNN_STATUS_SUCCESS;
  }
  size_t workspace_size(const ConvProblem& p) const override {
    const FftLayout l = fft_layout(p);
    size_t work = 0;
    // Known after prepare(); otherwise a plan is made and dropped to learn it. A cuFFT failure shows up again in
    // run(), which makes the same plan.
    (void)cufft_work(l, &work);
    return l.own + work;
  }
  bool deterministic() const override { return true; }
  cudnnMathType_t math_type(const ConvProblem&) const override { return CUDNN_DEFAULT_MATH; }
  double cost_estimate(const ConvProblem& p) const override {
    const FftLayout l = fft_layout(p);
    const double plane = static_cast<double>(l.hf * l.wf);
    const double planes = static_cast<double>(l.na + l.nb + l.nc);
    const double fft = 5.0 * plane * std::log2(plane) * planes;
    const double gemm = 8.0 * static_cast<double>(l.freqs) * static_cast<double>(p.mb * p.oc * p.icg());
    const double bytes = planes * (2.0 * plane * 4.0 + 2.0 * static_cast<double>(l.freqs) * 8.0);
    return (fft + gemm) / 20e12 + bytes / 3e12 + static_cast<double>(5 + p.g) * 4e-6;
  }
  cudnnStatus_t run(const ConvProblem& p, const ConvArgs& a) const override {
    FD_CHECK(a.handle != nullptr, CUDNN_STATUS_INTERNAL_ERROR, "cuda:fft called without a handle");
    switch (p.xdt) {
      case CUDNN_DATA_FLOAT: return run_typed<float>(p, a);
      case CUDNN_DATA_HALF: return run_typed<__half>(p, a);
      case CUDNN_DATA_BFLOAT16: return run_typed<__nv_bfloat16>(p, a);
      default: FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "cuda:fft has no kernels for %s", dtype_short_name(p.xdt));
    }
  }
};

}  // namespace

void destroy_fft_plans(void* cache) {
  auto* c = static_cast<HandlePlans*>(cache);
  if (c == nullptr) return;
  c->lru.for_each([](const FftPlanKey&, FftPlan& p) {
    // its last run has finished (cudnnDestroy may wait); an event last recorded in a capture answers with an error
    // instead, which must not stay behind as the thread's last error for the next call's launch check
    if (cudaEventSynchronize(p.done) != cudaSuccess) (void)cudaGetLastError();
    destroy_plan(p);
  });
  delete c;
}

const fd::conv::ConvImpl* fft_impl() {
  static const Fft impl;
  return &impl;
}

}  // namespace fd::cuda::conv
