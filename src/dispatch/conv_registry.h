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

// The first of candidates(p, b, algo) whose workspace fits `workspace` bytes, its size in *need; null when none
// fits. For a call whose workspace was sized before the algorithm's implementation changed (a Find recorded a
// faster one with a larger workspace, or a tuning answer grew it): the caller runs this one instead. `known` (whose
// size `known_need` was already asked) is not asked again.
const ConvImpl* fitting(const ConvProblem& p, Backend b, int algo, size_t workspace, size_t* need,
                        const ConvImpl* known = nullptr, size_t known_need = 0);

}  // namespace fd::conv
