// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// A handle's auxiliary streams, for a call that spreads independent kernels over several streams so that they run
// at once (the TF32 path of cuda:cutlass_sm90_wgrad: one small-grid kernel per slice of dy's rows).
//
// Fork / join through events, never through the host: fork records one event on the handle's stream and each aux
// stream waits on it; join records one event per aux stream and the handle's stream waits on all of them. Work
// queued on the handle's stream after the join therefore follows everything the aux streams did, and the next
// call's fork follows that, so a call's workspace is free once its join has passed. Event records and waits are
// captured into a CUDA graph like kernels: under stream capture the aux streams join the capture at the fork and
// leave it at the join (every fork must be joined, on error paths too).
//
// The streams (cudaStreamNonBlocking: no implicit ordering with the legacy default stream; default priority) and
// events (cudaEventDisableTiming) are made on the handle's device once, when first asked for (ConvImpl::prepare at
// the workspace query or Find; a computing call only when nobody did), grown to the largest count asked for, and
// destroyed with the handle (cudnnContext::aux_streams). Up to kMaxAuxStreams.
#pragma once
#include <cuda_runtime_api.h>

#include <cudnn.h>

struct cudnnContext;

namespace fd::cuda {

constexpr int kMaxAuxStreams = 31;

struct AuxStreams;

// The handle's pool with at least `count` (<= kMaxAuxStreams) streams; creates the missing ones (thread-safe).
cudnnStatus_t aux_streams(cudnnContext* h, int count, AuxStreams** out);
// Stream i < count of a pool returned for `count`.
cudaStream_t aux_stream(const AuxStreams& a, int i);
// The handle's stream -> aux streams 0..count-1. If one wait fails, the streams forked before it are joined again
// (the caller joins nothing on an error).
cudnnStatus_t aux_fork(cudnnContext* h, AuxStreams& a, int count);
// Aux streams 0..count-1 -> the handle's stream. Queue all the aux work before it: the records come last, so a
// record waiting on one stream's kernel never sits in a shared hardware queue ahead of another stream's kernel.
cudnnStatus_t aux_join(cudnnContext* h, AuxStreams& a, int count);
// cudnnDestroy: destroys the pool (`pool` is cudnnContext::aux_streams; null is fine). Work still queued on the
// streams completes first (CUDA releases a busy stream or event when its work is done); nothing waits here.
void destroy_aux_streams(void* pool);

}  // namespace fd::cuda
