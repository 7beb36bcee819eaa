// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// A cuDNN-API library loaded by path with dlopen(RTLD_LOCAL): every function the bench calls is resolved by
// name, so the same driver runs freednn, NVIDIA's libcudnn.so.8 / .so.9 or another freednn build side by side.
// A function the library lacks stays NULL; calls through it report NOT_SUPPORTED.
#pragma once
#include <cudnn.h>
#include <freednn.h>

#include <string>

#define BENCH_API_FUNCTIONS(X)                                                                              \
  X(cudnnGetVersion) X(cudnnGetCudartVersion) X(cudnnGetErrorString) X(cudnnCreate) X(cudnnDestroy)          \
  X(cudnnCreateTensorDescriptor) X(cudnnSetTensorNdDescriptor) X(cudnnDestroyTensorDescriptor)              \
  X(cudnnCreateFilterDescriptor) X(cudnnSetFilterNdDescriptor) X(cudnnDestroyFilterDescriptor)              \
  X(cudnnCreateActivationDescriptor) X(cudnnSetActivationDescriptor) X(cudnnSetActivationDescriptorSwishBeta) \
  X(cudnnDestroyActivationDescriptor) X(cudnnActivationForward) X(cudnnActivationBackward)                  \
  X(cudnnSoftmaxForward) X(cudnnSoftmaxBackward)                                                            \
  X(cudnnCreatePoolingDescriptor) X(cudnnSetPoolingNdDescriptor) X(cudnnDestroyPoolingDescriptor)           \
  X(cudnnPoolingForward) X(cudnnPoolingBackward)                                                            \
  X(cudnnCreateLRNDescriptor) X(cudnnSetLRNDescriptor) X(cudnnDestroyLRNDescriptor)                         \
  X(cudnnLRNCrossChannelForward) X(cudnnLRNCrossChannelBackward)                                            \
  X(cudnnDivisiveNormalizationForward) X(cudnnDivisiveNormalizationBackward)                                \
  X(cudnnCreateOpTensorDescriptor) X(cudnnSetOpTensorDescriptor) X(cudnnDestroyOpTensorDescriptor)          \
  X(cudnnOpTensor) X(cudnnAddTensor) X(cudnnScaleTensor) X(cudnnSetTensor)                                  \
  X(cudnnCreateReduceTensorDescriptor) X(cudnnSetReduceTensorDescriptor) X(cudnnDestroyReduceTensorDescriptor) \
  X(cudnnGetReductionIndicesSize) X(cudnnGetReductionWorkspaceSize) X(cudnnReduceTensor)                    \
  X(cudnnTransformTensor) X(cudnnCreateTensorTransformDescriptor) X(cudnnSetTensorTransformDescriptor)      \
  X(cudnnDestroyTensorTransformDescriptor) X(cudnnTransformTensorEx) X(cudnnTransformFilter)                                      \
  X(cudnnCreateDropoutDescriptor) X(cudnnDestroyDropoutDescriptor) X(cudnnDropoutGetStatesSize)             \
  X(cudnnDropoutGetReserveSpaceSize) X(cudnnSetDropoutDescriptor) X(cudnnDropoutForward)                    \
  X(cudnnDropoutBackward)                                                                                   \
  X(cudnnDeriveBNTensorDescriptor) X(cudnnBatchNormalizationForwardInference)                               \
  X(cudnnBatchNormalizationForwardTraining) X(cudnnBatchNormalizationBackward)                              \
  X(cudnnBatchNormalizationForwardTrainingEx) X(cudnnBatchNormalizationBackwardEx)                          \
  X(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize)                                               \
  X(cudnnGetBatchNormalizationBackwardExWorkspaceSize) X(cudnnGetBatchNormalizationTrainingExReserveSpaceSize) \
  X(cudnnCreateConvolutionDescriptor) X(cudnnSetConvolutionNdDescriptor) X(cudnnSetConvolutionGroupCount)   \
  X(cudnnSetConvolutionMathType) X(cudnnDestroyConvolutionDescriptor)                                       \
  X(cudnnConvolutionForward) X(cudnnConvolutionBackwardData) X(cudnnConvolutionBackwardFilter)              \
  X(cudnnConvolutionBackwardBias) X(cudnnConvolutionBiasActivationForward)                                  \
  X(cudnnGetConvolutionForwardWorkspaceSize) X(cudnnGetConvolutionBackwardDataWorkspaceSize)                \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize) X(cudnnGetConvolutionForwardAlgorithm_v7)               \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7) X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)           \
  X(cudnnFindConvolutionForwardAlgorithm) X(cudnnFindConvolutionBackwardDataAlgorithm)                      \
  X(cudnnFindConvolutionBackwardFilterAlgorithm)                                                            \
  X(cudnnNormalizationForwardInference) X(cudnnNormalizationForwardTraining) X(cudnnNormalizationBackward)  \
  X(cudnnGetNormalizationForwardTrainingWorkspaceSize) X(cudnnGetNormalizationBackwardWorkspaceSize)        \
  X(cudnnGetNormalizationTrainingReserveSpaceSize)                                                          \
  X(cudnnCreateSpatialTransformerDescriptor) X(cudnnSetSpatialTransformerNdDescriptor)                      \
  X(cudnnDestroySpatialTransformerDescriptor) X(cudnnSpatialTfGridGeneratorForward)                         \
  X(cudnnSpatialTfGridGeneratorBackward) X(cudnnSpatialTfSamplerForward) X(cudnnSpatialTfSamplerBackward)

namespace bench {

struct Api {
#define BENCH_API_MEMBER(name) decltype(&::name) name = nullptr;
  BENCH_API_FUNCTIONS(BENCH_API_MEMBER)
#undef BENCH_API_MEMBER

  // freednn's own addition (include/freednn.h); null in other cuDNN libraries.
  decltype(&::freednnGetConvolutionImplementation) freednnGetConvolutionImplementation = nullptr;
  decltype(&::freednnGetLastCallBytesMoved) freednnGetLastCallBytesMoved = nullptr;

  std::string path;      // as given
  std::string label;     // short name for the output ("freednn", "vs")
  void* dl = nullptr;    // dlopen handle
  size_t version = 0;    // cudnnGetVersion()
  bool is_freednn = false;
  bool host_memory = true;  // data pointers are host pointers (freednn's CPU backend)

  // Loads the library; on failure returns false with *error set.
  bool load(const std::string& lib_path, const std::string& name, std::string* error);
  ~Api();

  // cuDNN 9 renumbered the status codes (categories of 1000); map them to the 8.x values.
  cudnnStatus_t map(cudnnStatus_t s) const;
  // Calls a resolved function and maps its status; NOT_SUPPORTED when the library lacks it.
  template <class F, class... A>
  cudnnStatus_t call(F f, A... args) const {
    if (f == nullptr) return CUDNN_STATUS_NOT_SUPPORTED;
    return map(f(args...));
  }
};

const char* status_name(cudnnStatus_t s);  // of an 8.x (mapped) status

}  // namespace bench
