// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Dropout: descriptor, states and reserve sizes, forward and backward (CPU and CUDA backends).
#include <cmath>
#include <new>

#include "core/api_context.h"
#include "core/dropout_desc.h"
#include "core/dtype.h"
#include "core/handle.h"
#include "core/status.h"
#include "core/tensor_desc.h"
#include "cpu/dropout/dropout.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/dropout/dropout.h"
#endif
#include "problem/dropout.h"

namespace {

cudnnStatus_t check_dropout_obj(const cudnnDropoutStruct* d) {
  FD_CHECK_PARAM(d != nullptr, "dropoutDesc is NULL");
  FD_CHECK_PARAM(d->alive(), "dropoutDesc is not a live cudnnDropoutDescriptor_t");
  return CUDNN_STATUS_SUCCESS;
}

size_t reserve_size(const cudnnTensorStruct& x) { return static_cast<size_t>(x.element_count()); }

// Shared by Set and Restore: probability and states buffer checks.
cudnnStatus_t check_set_args(cudnnHandle_t handle, const cudnnDropoutStruct* d, float dropout, const void* states,
                             size_t size) {
  FD_TRY(check_dropout_obj(d));
  FD_TRY(fd::check_handle(handle));
  FD_CHECK_PARAM(dropout >= 0.0f && dropout <= 1.0f, "dropout=%g is not a probability in [0, 1]",
                 static_cast<double>(dropout));
  FD_CHECK(states == nullptr || size >= fd::kDropoutStatesSize, CUDNN_STATUS_INVALID_VALUE,
           "stateSizeInBytes=%zu is less than cudnnDropoutGetStatesSize (%zu)", size, fd::kDropoutStatesSize);
  FD_CHECK_PARAM(reinterpret_cast<uintptr_t>(states) % alignof(fd::DropoutState) == 0,
                 "states %p is not %zu-byte aligned", states, alignof(fd::DropoutState));
  return CUDNN_STATUS_SUCCESS;
}

// Checks shared by forward and backward; returns the reserve space as a mask.
cudnnStatus_t check_run(cudnnHandle_t handle, const cudnnDropoutStruct* d, const cudnnTensorStruct* in,
                        const void* in_data, const cudnnTensorStruct* out, const void* out_data, const void* reserve,
                        size_t reserve_bytes, const char* in_name, const char* out_name) {
  FD_TRY(fd::check_handle(handle));
  FD_TRY(check_dropout_obj(d));
  FD_CHECK_PARAM(d->is_set, "dropoutDesc has not been set");
  FD_CHECK_PARAM(d->states != nullptr, "dropoutDesc has no states (cudnnSetDropoutDescriptor with NULL states)");
  FD_CHECK_PARAM(d->states_on_cpu == handle->on_cpu(),
                 "dropoutDesc's states are in %s memory (set with a %s handle), this handle runs on the %s",
                 d->states_on_cpu ? "host" : "device", d->states_on_cpu ? "CPU" : "CUDA",
                 handle->on_cpu() ? "CPU" : "GPU");
  FD_TRY(fd::check_tensor(in, in_name));
  FD_TRY(fd::check_tensor(out, out_name));
  FD_CHECK_PARAM(in_data && out_data, "%s or %s is NULL", in_name, out_name);
  FD_CHECK_PARAM(reserve != nullptr, "reserveSpace is NULL");
  FD_CHECK_PARAM(in->element_count() == out->element_count(), "%s %s and %s %s differ in element count", in_name,
                 in->spec().c_str(), out_name, out->spec().c_str());
  FD_CHECK_PARAM(in->dtype == out->dtype, "%s %s and %s %s differ in data type", in_name, in->spec().c_str(),
                 out_name, out->spec().c_str());
  FD_CHECK_SUPPORTED(fd::dtype_is_float(in->dtype), "dropout does not support data type %s",
                     fd::dtype_short_name(in->dtype));
  FD_CHECK_PARAM(reserve_bytes >= reserve_size(*in), "reserveSpaceSizeInBytes=%zu, needs %zu", reserve_bytes,
                 reserve_size(*in));
  FD_CHECK_PARAM(d->mirror.magic == fd::DropoutState::kMagic, "the states buffer was never initialized");
  FD_CHECK_PARAM(!handle->on_cpu() || d->state()->magic == fd::DropoutState::kMagic,
                 "the states buffer was overwritten since cudnnSetDropoutDescriptor");
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateDropoutDescriptor(cudnnDropoutDescriptor_t* dropoutDesc) {
  return FD_API(cudnnCreateDropoutDescriptor, (dropoutDesc), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(dropoutDesc != nullptr, "dropoutDesc output pointer is NULL");
    *dropoutDesc = new (std::nothrow) cudnnDropoutStruct;
    FD_CHECK(*dropoutDesc != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate a cudnnDropoutDescriptor_t");
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc) {
  return FD_API(cudnnDestroyDropoutDescriptor, (dropoutDesc), [&]() -> cudnnStatus_t {
    if (dropoutDesc == nullptr) return CUDNN_STATUS_SUCCESS;
    FD_CHECK_PARAM(dropoutDesc->alive(), "dropoutDesc is not live (destroyed twice, or not a dropout descriptor)");
    delete dropoutDesc;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDropoutGetStatesSize(cudnnHandle_t handle, size_t* sizeInBytes) {
  return FD_API(cudnnDropoutGetStatesSize, (handle, sizeInBytes), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_CHECK_PARAM(sizeInBytes != nullptr, "sizeInBytes is NULL");
    *sizeInBytes = fd::kDropoutStatesSize;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDropoutGetReserveSpaceSize(cudnnTensorDescriptor_t xdesc, size_t* sizeInBytes) {
  return FD_API(cudnnDropoutGetReserveSpaceSize, (xdesc, sizeInBytes), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_tensor(xdesc, "xdesc"));
    FD_CHECK_PARAM(sizeInBytes != nullptr, "sizeInBytes is NULL");
    *sizeInBytes = reserve_size(*xdesc);
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle,
                                                    float dropout, void* states, size_t stateSizeInBytes,
                                                    unsigned long long seed) {
  return FD_API(cudnnSetDropoutDescriptor, (dropoutDesc, handle, dropout, states, stateSizeInBytes, seed),
                [&]() -> cudnnStatus_t {
                  FD_TRY(check_set_args(handle, dropoutDesc, dropout, states, stateSizeInBytes));
                  fd::DropoutState init{};
                  if (states != nullptr) {
                    init.magic = fd::DropoutState::kMagic;
                    init.seed = seed;
                    dropoutDesc->mirror = init;
#ifdef FREEDNN_WITH_CUDA
                    if (!handle->on_cpu())  // stream-ordered; the source (the mirror) is staged by the call
                      FD_TRY(fd::cuda::dropout_write_states(handle->stream, states, dropoutDesc->mirror));
#endif
                    if (handle->on_cpu()) *static_cast<fd::DropoutState*>(states) = init;
                  } else {
                    dropoutDesc->mirror = init;
                  }
                  dropoutDesc->dropout = dropout;
                  dropoutDesc->states = states;
                  dropoutDesc->states_on_cpu = handle->on_cpu();
                  dropoutDesc->states_size = stateSizeInBytes;
                  dropoutDesc->seed = seed;
                  dropoutDesc->is_set = true;
                  return CUDNN_STATUS_SUCCESS;
                });
}

cudnnStatus_t CUDNNWINAPI cudnnRestoreDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle,
                                                        float dropout, void* states, size_t stateSizeInBytes,
                                                        unsigned long long seed) {
  return FD_API(cudnnRestoreDropoutDescriptor, (dropoutDesc, handle, dropout, states, stateSizeInBytes, seed),
                [&]() -> cudnnStatus_t {
                  FD_TRY(check_set_args(handle, dropoutDesc, dropout, states, stateSizeInBytes));
                  FD_CHECK_PARAM(states != nullptr, "states is NULL");
                  fd::DropoutState cur{};
#ifdef FREEDNN_WITH_CUDA
                  if (!handle->on_cpu())  // the one host read of the device states: waits for the stream
                    FD_TRY(fd::cuda::dropout_read_states(handle->stream, states, &cur));
#endif
                  if (handle->on_cpu()) cur = *static_cast<const fd::DropoutState*>(states);
                  FD_CHECK_PARAM(cur.magic == fd::DropoutState::kMagic,
                                 "states were never initialized by cudnnSetDropoutDescriptor");
                  dropoutDesc->mirror = cur;
                  dropoutDesc->dropout = dropout;
                  dropoutDesc->states = states;
                  dropoutDesc->states_on_cpu = handle->on_cpu();
                  dropoutDesc->states_size = stateSizeInBytes;
                  dropoutDesc->seed = seed;
                  dropoutDesc->is_set = true;
                  return CUDNN_STATUS_SUCCESS;
                });
}

cudnnStatus_t CUDNNWINAPI cudnnGetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle,
                                                    float* dropout, void** states, unsigned long long* seed) {
  return FD_API(cudnnGetDropoutDescriptor, (dropoutDesc, handle), [&]() -> cudnnStatus_t {
    FD_TRY(check_dropout_obj(dropoutDesc));
    FD_TRY(fd::check_handle(handle));
    FD_CHECK_PARAM(dropoutDesc->is_set, "dropoutDesc has not been set");
    FD_CHECK_PARAM(dropout && states && seed, "an output pointer is NULL");
    *dropout = dropoutDesc->dropout;
    *states = dropoutDesc->states;
    *seed = dropoutDesc->seed;
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnDropoutForward(cudnnHandle_t handle, const cudnnDropoutDescriptor_t dropoutDesc,
                                              const cudnnTensorDescriptor_t xdesc, const void* x,
                                              const cudnnTensorDescriptor_t ydesc, void* y, void* reserveSpace,
                                              size_t reserveSpaceSizeInBytes) {
  return FD_API(cudnnDropoutForward, (handle, dropoutDesc, xdesc, x, ydesc, y, reserveSpace, reserveSpaceSizeInBytes),
                [&]() -> cudnnStatus_t {
                  FD_TRY(check_run(handle, dropoutDesc, xdesc, x, ydesc, y, reserveSpace, reserveSpaceSizeInBytes,
                                   "x", "y"));
                  fd::DropoutState& st = dropoutDesc->mirror;
                  fd::problem::Dropout pb;
                  pb.p = dropoutDesc->dropout;
                  pb.seed = st.seed;
                  pb.counter = st.counter;
                  pb.in = xdesc;
                  pb.out = ydesc;
                  if (fd::log::command_logging_enabled()) fd::log::emit_command(pb.to_string());
#ifdef FREEDNN_WITH_CUDA
                  if (!handle->on_cpu()) {
                    // The kernel stores counter + 1 into the device states buffer.
                    FD_TRY(fd::cuda::dropout_forward(handle->stream, handle->device, pb.p, st.seed, st.counter,
                                                     dropoutDesc->states, *xdesc, x, *ydesc, y,
                                                     static_cast<uint8_t*>(reserveSpace)));
                    ++st.counter;
                    return CUDNN_STATUS_SUCCESS;
                  }
#endif
                  FD_TRY(fd::require_cpu(handle, "cudnnDropoutForward"));
                  fd::cpu::dropout_forward(pb.p, st.seed, st.counter, *xdesc, x, *ydesc, y,
                                           static_cast<uint8_t*>(reserveSpace));
                  ++st.counter;
                  dropoutDesc->state()->counter = st.counter;
                  return CUDNN_STATUS_SUCCESS;
                });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnDropoutBackward(cudnnHandle_t handle, const cudnnDropoutDescriptor_t dropoutDesc,
                                               const cudnnTensorDescriptor_t dydesc, const void* dy,
                                               const cudnnTensorDescriptor_t dxdesc, void* dx, void* reserveSpace,
                                               size_t reserveSpaceSizeInBytes) {
  return FD_API(cudnnDropoutBackward,
                (handle, dropoutDesc, dydesc, dy, dxdesc, dx, reserveSpace, reserveSpaceSizeInBytes),
                [&]() -> cudnnStatus_t {
                  FD_TRY(check_run(handle, dropoutDesc, dydesc, dy, dxdesc, dx, reserveSpace,
                                   reserveSpaceSizeInBytes, "dy", "dx"));
                  fd::problem::Dropout pb;
                  pb.backward = true;
                  pb.p = dropoutDesc->dropout;
                  pb.in = dydesc;
                  pb.out = dxdesc;
                  if (fd::log::command_logging_enabled()) fd::log::emit_command(pb.to_string());
#ifdef FREEDNN_WITH_CUDA
                  if (!handle->on_cpu())
                    return fd::cuda::dropout_backward(handle->stream, handle->device, pb.p, *dydesc, dy, *dxdesc,
                                                      dx, static_cast<const uint8_t*>(reserveSpace));
#endif
                  FD_TRY(fd::require_cpu(handle, "cudnnDropoutBackward"));
                  fd::cpu::dropout_backward(pb.p, *dydesc, dy, *dxdesc, dx,
                                            static_cast<const uint8_t*>(reserveSpace));
                  return CUDNN_STATUS_SUCCESS;
                });
}

}  // extern "C"
