// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Algorithm descriptors and performance results (ops_infer; deprecated in cuDNN 8.2, used by the legacy RNN
// find API), and their serialization into a caller buffer.
#include <cstring>
#include <new>

#include <algorithm>
#include <vector>

#include "core/algorithm_desc.h"
#include "core/api_context.h"
#include "core/handle.h"
#include "core/status.h"

namespace {
cudnnStatus_t check_perf(const cudnnAlgorithmPerformanceStruct* p, const char* role) {
  FD_CHECK_PARAM(p != nullptr, "%s is NULL", role);
  FD_CHECK_PARAM(p->alive(), "%s is not a live cudnnAlgorithmPerformance_t", role);
  return CUDNN_STATUS_SUCCESS;
}

bool valid_status(cudnnStatus_t s) { return fd::enum_name(s) != nullptr; }
}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateAlgorithmDescriptor(cudnnAlgorithmDescriptor_t* algoDesc) {
  return FD_API(cudnnCreateAlgorithmDescriptor, (algoDesc), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(algoDesc != nullptr, "algoDesc is NULL");
    *algoDesc = new (std::nothrow) cudnnAlgorithmStruct;
    FD_CHECK(*algoDesc != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate a cudnnAlgorithmDescriptor_t");
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetAlgorithmDescriptor(cudnnAlgorithmDescriptor_t algoDesc, cudnnAlgorithm_t algorithm) {
  int value;  // the raw union value, read as an int: a C caller may put any int in it
  std::memcpy(&value, &algorithm.algo, sizeof value);
  return FD_API(cudnnSetAlgorithmDescriptor, (algoDesc, value), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_algorithm(algoDesc, "algoDesc", false));
    FD_CHECK_PARAM(value >= 0, "algorithm value %d is negative (no algorithm enum has negative values)", value);
    algoDesc->set(algorithm);
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetAlgorithmDescriptor(const cudnnAlgorithmDescriptor_t algoDesc,
                                                      cudnnAlgorithm_t* algorithm) {
  return FD_API(cudnnGetAlgorithmDescriptor, (algoDesc, algorithm), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_algorithm(algoDesc, "algoDesc", true));
    FD_CHECK_PARAM(algorithm != nullptr, "algorithm is NULL");
    *algorithm = algoDesc->get();
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnCopyAlgorithmDescriptor(const cudnnAlgorithmDescriptor_t src,
                                                       cudnnAlgorithmDescriptor_t dest) {
  return FD_API(cudnnCopyAlgorithmDescriptor, (src, dest), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_algorithm(src, "src", true));
    FD_TRY(fd::check_algorithm(dest, "dest", false));
    dest->value = src->value;
    dest->is_set = src->is_set;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyAlgorithmDescriptor(cudnnAlgorithmDescriptor_t algoDesc) {
  return FD_API(cudnnDestroyAlgorithmDescriptor, (algoDesc), [&]() -> cudnnStatus_t {
    if (algoDesc == nullptr) return CUDNN_STATUS_SUCCESS;  // like free(NULL)
    FD_TRY(fd::check_algorithm(algoDesc, "algoDesc", false));
    FD_CHECK_PARAM(!algoDesc->owned_by_perf,
                   "algoDesc belongs to a cudnnAlgorithmPerformance_t (from cudnnGetAlgorithmPerformance); it is "
                   "destroyed with cudnnDestroyAlgorithmPerformance");
    delete algoDesc;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnCreateAlgorithmPerformance(cudnnAlgorithmPerformance_t* algoPerf, int numberToCreate) {
  return FD_API(cudnnCreateAlgorithmPerformance, (algoPerf, numberToCreate), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(algoPerf != nullptr, "algoPerf is NULL");
    FD_CHECK_PARAM(numberToCreate > 0, "numberToCreate=%d must be positive", numberToCreate);
    for (int i = 0; i < numberToCreate; ++i) {
      algoPerf[i] = new (std::nothrow) cudnnAlgorithmPerformanceStruct;
      if (algoPerf[i] == nullptr) {
        for (int j = 0; j < i; ++j) {
          delete algoPerf[j];
          algoPerf[j] = nullptr;
        }
        FD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "cannot allocate cudnnAlgorithmPerformance_t %d of %d", i,
                numberToCreate);
      }
    }
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetAlgorithmPerformance(cudnnAlgorithmPerformance_t algoPerf,
                                                       cudnnAlgorithmDescriptor_t algoDesc, cudnnStatus_t status,
                                                       float time, size_t memory) {
  return FD_API(cudnnSetAlgorithmPerformance, (algoPerf, algoDesc, status, time, memory), [&]() -> cudnnStatus_t {
    FD_TRY(check_perf(algoPerf, "algoPerf"));
    FD_TRY(fd::check_algorithm(algoDesc, "algoDesc", true));
    FD_CHECK_PARAM(valid_status(status), "status=%d is not a cudnnStatus_t value", static_cast<int>(status));
    algoPerf->algo.value = algoDesc->value;
    algoPerf->algo.is_set = true;
    algoPerf->status = status;
    algoPerf->time = time;
    algoPerf->memory = memory;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetAlgorithmPerformance(const cudnnAlgorithmPerformance_t algoPerf,
                                                       cudnnAlgorithmDescriptor_t* algoDesc, cudnnStatus_t* status,
                                                       float* time, size_t* memory) {
  return FD_API(cudnnGetAlgorithmPerformance, (algoPerf), [&]() -> cudnnStatus_t {
    FD_TRY(check_perf(algoPerf, "algoPerf"));
    FD_CHECK_PARAM(algoDesc && status && time && memory, "an output pointer (algoDesc, status, time, memory) is NULL");
    *algoDesc = &algoPerf->algo;
    *status = algoPerf->status;
    *time = algoPerf->time;
    *memory = algoPerf->memory;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyAlgorithmPerformance(cudnnAlgorithmPerformance_t* algoPerf,
                                                           int numberToDestroy) {
  return FD_API(cudnnDestroyAlgorithmPerformance, (algoPerf, numberToDestroy), [&]() -> cudnnStatus_t {
    if (algoPerf == nullptr) return CUDNN_STATUS_SUCCESS;  // like free(NULL)
    FD_CHECK_PARAM(numberToDestroy >= 0, "numberToDestroy=%d is negative", numberToDestroy);
    // Check all first: either every object is destroyed or none is.
    for (int i = 0; i < numberToDestroy; ++i)
      FD_CHECK_PARAM(algoPerf[i] == nullptr || algoPerf[i]->alive(),
                     "algoPerf[%d] is not a live cudnnAlgorithmPerformance_t (destroyed twice?)", i);
    std::vector<cudnnAlgorithmPerformance_t> seen(algoPerf, algoPerf + numberToDestroy);
    std::sort(seen.begin(), seen.end());
    for (size_t i = 1; i < seen.size(); ++i)  // the same object twice would be deleted twice
      FD_CHECK_PARAM(seen[i] == nullptr || seen[i] != seen[i - 1], "algoPerf lists one object more than once");
    for (int i = 0; i < numberToDestroy; ++i) {
      delete algoPerf[i];
      algoPerf[i] = nullptr;
    }
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetAlgorithmSpaceSize(cudnnHandle_t handle, cudnnAlgorithmDescriptor_t algoDesc,
                                                     size_t* algoSpaceSizeInBytes) {
  return FD_API(cudnnGetAlgorithmSpaceSize, (handle, algoDesc, algoSpaceSizeInBytes), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_algorithm(algoDesc, "algoDesc", true));
    FD_CHECK_PARAM(algoSpaceSizeInBytes != nullptr, "algoSpaceSizeInBytes is NULL");
    *algoSpaceSizeInBytes = fd::kAlgoBlobSize;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSaveAlgorithm(cudnnHandle_t handle, cudnnAlgorithmDescriptor_t algoDesc,
                                             void* algoSpace, size_t algoSpaceSizeInBytes) {
  return FD_API(cudnnSaveAlgorithm, (handle, algoDesc, algoSpace, algoSpaceSizeInBytes), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_algorithm(algoDesc, "algoDesc", true));
    FD_CHECK_PARAM(algoSpace != nullptr, "algoSpace is NULL");
    FD_CHECK_PARAM(algoSpaceSizeInBytes >= fd::kAlgoBlobSize,
                   "algoSpaceSizeInBytes=%zu is smaller than cudnnGetAlgorithmSpaceSize's %zu",
                   algoSpaceSizeInBytes, fd::kAlgoBlobSize);
    fd::save_algorithm(*algoDesc, static_cast<unsigned char*>(algoSpace));
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnRestoreAlgorithm(cudnnHandle_t handle, void* algoSpace, size_t algoSpaceSizeInBytes,
                                                cudnnAlgorithmDescriptor_t algoDesc) {
  return FD_API(cudnnRestoreAlgorithm, (handle, algoSpace, algoSpaceSizeInBytes, algoDesc), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_CHECK_PARAM(algoSpace != nullptr, "algoSpace is NULL");
    FD_TRY(fd::check_algorithm(algoDesc, "algoDesc", false));
    FD_CHECK_PARAM(!algoDesc->owned_by_perf, "algoDesc belongs to a cudnnAlgorithmPerformance_t; restore into a "
                                             "descriptor from cudnnCreateAlgorithmDescriptor");
    return fd::restore_algorithm(static_cast<const unsigned char*>(algoSpace), algoSpaceSizeInBytes, *algoDesc);
  });
}

}  // extern "C"
