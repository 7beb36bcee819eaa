// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#pragma once
#include <cudnn.h>

#include <cstddef>
#include <string>
#include <vector>

#include "core/handle.h"
#include "problem/conv.h"

// The convolution implementation registry: an ordered list of implementations (fastest first), each
// serving some of the cuDNN algorithm enum values of some directions. A call with algorithm A runs the first
// implementation that serves A and accepts the problem, or the one Find measured fastest among those; the
// workspace query, the call itself and the _v7 ranking all go through `select`, so they agree on which
// implementation an (algo, problem) pair means and on NOT_SUPPORTED when there is none. Each implementation belongs to one backend; selection only
// considers the implementations of the handle's backend (CPU ids "cpu:...", CUDA ids "cuda:...").
namespace fd::conv {

struct Verdict {
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  std::string reason;  // why not, when status != SUCCESS
  bool ok() const { return status == CUDNN_STATUS_SUCCESS; }
};

// The fused forward epilogue of cudnnConvolutionBiasActivationForward: y = act(alpha1 conv + alpha2 z + bias).
struct FusedEpilogue {
  const cudnnTensorStruct* z = nullptr;
  const void* z_data = nullptr;
  const cudnnTensorStruct* bias = nullptr;
  const void* bias_data = nullptr;
  double alpha2 = 0.0;
  cudnnActivationMode_t act = CUDNN_ACTIVATION_IDENTITY;
  cudnnNanPropagation_t nan_opt = CUDNN_NOT_PROPAGATE_NAN;
  double coef = 0.0;
};

// Host pointers for one run. fwd: in=x, in2=w, out=y. bwd_data: in=dy, in2=w, out=dx.
// bwd_filter: in=x, in2=dy, out=dw. out = alpha * result + beta * out (or the fused epilogue).
// On the CUDA backend the pointers are device pointers and `handle` gives the stream, the device and the
// handle's cuBLAS handle; CPU implementations ignore it (it may be null there).
struct ConvArgs {
  cudnnContext* handle = nullptr;
  const void* in = nullptr;
  const void* in2 = nullptr;
  void* out = nullptr;
  void* workspace = nullptr;
  size_t workspace_size = 0;
  double alpha = 1.0, beta = 0.0;
  const FusedEpilogue* fused = nullptr;  // fwd only
};

class ConvImpl {
 public:
  virtual ~ConvImpl() = default;
  // Stable id: "<backend>:<family>[:<config>]", used in logs, FREEDNN_ONLY_IMPL / FREEDNN_DISABLE_IMPL, tuning.
  virtual const char* id() const = 0;
  // The backend whose handles run it (its data pointers are that backend's pointers).
  virtual Backend backend() const = 0;
  // Whether this implementation is one that cuDNN algorithm `algo` of direction `dir` may honestly name.
  virtual bool serves(ConvDir dir, int algo) const = 0;
  virtual Verdict applicable(const ConvProblem& p) const = 0;
  virtual size_t workspace_size(const ConvProblem& p) const = 0;
  // Builds what later runs on `handle` need (cuda:fft's cuFFT plans) so that a computing call allocates nothing.
  // Called where the library may allocate: the workspace query and Find, before workspace_size(). Default: nothing.
  virtual cudnnStatus_t prepare(cudnnContext* /*handle*/, const ConvProblem& /*p*/) const {
    return CUDNN_STATUS_SUCCESS;
  }
  // Bitwise-identical results run after run, on the same machine and thread count.
  virtual bool deterministic() const = 0;
  virtual cudnnMathType_t math_type(const ConvProblem& p) const = 0;
  // Seconds, from flops and bytes only (nothing runs). Used to rank algorithms when nothing was measured.
  virtual double cost_estimate(const ConvProblem& p) const = 0;
  // Whether run() takes this call's data pointers (args.in / in2 / out, the fused epilogue's z and bias), asked
  // before anything is queued. Kernels that need aligned operands (TMA boxes, 16-byte cp.async, vector accesses)
  // refuse less aligned ones (a tensor at an odd element offset, as slicing makes them) with the reason, so that the
  // call goes to another implementation of the algorithm (settle) instead of failing, possibly after part of its
  // work. The condition is run()'s own (one helper serves both; run() keeps its check as a safety net). Default: any.
  virtual Verdict accepts_pointers(const ConvProblem& /*p*/, const ConvArgs& /*args*/) const { return {}; }
  // Runs on a problem this implementation accepted; args.workspace holds workspace_size(p) bytes.
  virtual cudnnStatus_t run(const ConvProblem& p, const ConvArgs& args) const = 0;
};

// Every implementation in registry order (all backends), before the environment filters.
const std::vector<const ConvImpl*>& all_impls();
// The implementations of backend `b` in registry order after FREEDNN_ONLY_IMPL / FREEDNN_DISABLE_IMPL
// (comma-separated ids or id prefixes), read at each call.
std::vector<const ConvImpl*> enabled_impls(Backend b);

int algo_count(ConvDir dir);  // 8, 6, 7
const char* algo_name(ConvDir dir, int algo);

// The implementation for (problem, algo) on backend `b`: among the enabled ones of that backend that serve `algo`
// and accept the problem, the one Find measured fastest for this problem on h's device (dispatch/impl_choice.h),
// else the one with the lowest calibrated cost estimate when all of them have factors measured for the data class
// (dispatch/conv_calibration.h), else the first in registry order. The first two apply only when h is given and
// several implementations serve `algo`.
// On failure returns NOT_SUPPORTED (BAD_PARAM for an out-of-range algo) and logs every rejection reason.
// On success, when `log_choice` is set, logs (info channel) which id was chosen and why earlier ones were not.
cudnnStatus_t select(const ConvProblem& p, Backend b, int algo, const ConvImpl** out, bool log_choice,
                     const cudnnContext* h = nullptr);

// The same choice without logging anything, for ranking: the verdict explains a NOT_SUPPORTED.
Verdict try_select(const ConvProblem& p, Backend b, int algo, const ConvImpl** out, const cudnnContext* h = nullptr);

// Every enabled implementation of backend `b` that serves `algo` and accepts the problem, in registry order
// (what Find times).
std::vector<const ConvImpl*> candidates(const ConvProblem& p, Backend b, int algo);

// Which implementation runs a computing call, and on which workspace. *impl comes in as select()'s choice and
// stays when args' workspace holds its workspace_size (*need) and it accepts args' pointers. Otherwise the first of
// candidates(p, b, algo) that does both runs instead (the info log says why): a Find or a tuning answer may have
// grown the choice's workspace since the caller's query, and aligned kernels refuse odd pointers. Where the choice
// refuses the pointers and every candidate that takes them needs more workspace than the caller's, the first of
// them runs on the handle's scratch memory (CUDA; grown stream-ordered, as the other operations' scratch), since the
// caller sized its workspace as the query said. NOT_SUPPORTED (logged, naming the refusals) when no candidate takes
// the pointers. When only the workspace is short, *impl stays the choice with *need above it: the caller reports
// that in its own terms. Nothing is prepare()d here: that is for the query and Find (it may tune and allocate), and
// every run works without it (as under stream capture). args->handle must be set.
cudnnStatus_t settle(const ConvProblem& p, Backend b, int algo, const ConvImpl** impl, size_t* need, ConvArgs* args);

}  // namespace fd::conv
