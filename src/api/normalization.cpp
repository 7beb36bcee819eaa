// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The generic normalization API of cuDNN 8: cudnnDeriveNormTensorDescriptor, cudnnNormalization* and the
// workspace / reserve space queries. Thin entry points over the batch norm implementation (fd::NormCall):
// NORM_PER_ACTIVATION is batch norm per activation, NORM_PER_CHANNEL is spatial batch norm.
#include "api/norm_call.h"
#include "core/api_context.h"

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnDeriveNormTensorDescriptor(cudnnTensorDescriptor_t derivedNormScaleBiasDesc,
                                                          cudnnTensorDescriptor_t derivedNormMeanVarDesc,
                                                          const cudnnTensorDescriptor_t xDesc, cudnnNormMode_t mode,
                                                          int groupCnt) {
  return FD_API(cudnnDeriveNormTensorDescriptor,
                (derivedNormScaleBiasDesc, derivedNormMeanVarDesc, xDesc, mode, groupCnt), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(derivedNormScaleBiasDesc != nullptr && derivedNormScaleBiasDesc->alive(),
                   "derivedNormScaleBiasDesc is NULL or not a live tensor descriptor");
    FD_CHECK_PARAM(derivedNormMeanVarDesc != nullptr && derivedNormMeanVarDesc->alive(),
                   "derivedNormMeanVarDesc is NULL or not a live tensor descriptor");
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_norm_mode(true, mode, CUDNN_NORM_ALGO_STANDARD));
    FD_TRY(fd::check_group_count(groupCnt));
    cudnnTensorStruct derived;
    FD_TRY(fd::derive_norm_desc(derived, *xDesc, mode == CUDNN_NORM_PER_ACTIVATION));
    *derivedNormScaleBiasDesc = derived;
    *derivedNormMeanVarDesc = derived;
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnNormalizationForwardInference(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo, const void* alpha,
    const void* beta, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const void* normScale, const void* normBias,
    const cudnnTensorDescriptor_t normMeanVarDesc, const void* estimatedMean, const void* estimatedVariance,
    const cudnnTensorDescriptor_t zDesc, const void* z, cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t yDesc, void* y, double epsilon, int groupCnt) {
  return FD_API(cudnnNormalizationForwardInference,
                (handle, mode, normOps, algo, alpha, beta, xDesc, x, normScaleBiasDesc, normScale, normBias,
                 normMeanVarDesc, estimatedMean, estimatedVariance, zDesc, z, activationDesc, yDesc, y, epsilon,
                 groupCnt),
                [&]() -> cudnnStatus_t {
    fd::NormCall c;
    c.dir = fd::NormDir::inference;
    c.generic_api = true;
    c.mode = mode;
    c.algo = algo;
    c.ops = normOps;
    c.group_count = groupCnt;
    c.activation_desc = activationDesc;
    c.alpha_ptr = alpha;
    c.beta_ptr = beta;
    c.x_desc = xDesc;
    c.x = x;
    c.scale_bias_desc = normScaleBiasDesc;
    c.scale = normScale;
    c.bias = normBias;
    c.mean_var_desc = normMeanVarDesc;
    c.est_mean = estimatedMean;
    c.est_var = estimatedVariance;
    c.z_desc = zDesc;
    c.z = z;
    c.y_desc = yDesc;
    c.y = y;
    c.epsilon = epsilon;
    return fd::run_norm_call(handle, c, "cudnnNormalizationForwardInference");
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo, const void* alpha,
    const void* beta, const cudnnTensorDescriptor_t xDesc, const void* xData,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const void* normScale, const void* normBias,
    double exponentialAverageFactor, const cudnnTensorDescriptor_t normMeanVarDesc, void* resultRunningMean,
    void* resultRunningVariance, double epsilon, void* resultSaveMean, void* resultSaveInvVariance,
    cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t zDesc, const void* zData,
    const cudnnTensorDescriptor_t yDesc, void* yData, void* workspace, size_t workSpaceSizeInBytes,
    void* reserveSpace, size_t reserveSpaceSizeInBytes, int groupCnt) {
  return FD_API(cudnnNormalizationForwardTraining,
                (handle, mode, normOps, algo, alpha, beta, xDesc, xData, normScaleBiasDesc, normScale, normBias,
                 exponentialAverageFactor, normMeanVarDesc, resultRunningMean, resultRunningVariance, epsilon,
                 resultSaveMean, resultSaveInvVariance, activationDesc, zDesc, zData, yDesc, yData, workspace,
                 workSpaceSizeInBytes, reserveSpace, reserveSpaceSizeInBytes, groupCnt),
                [&]() -> cudnnStatus_t {
    fd::NormCall c;
    c.dir = fd::NormDir::training;
    c.generic_api = true;
    c.mode = mode;
    c.algo = algo;
    c.ops = normOps;
    c.group_count = groupCnt;
    c.activation_desc = activationDesc;
    c.alpha_ptr = alpha;
    c.beta_ptr = beta;
    c.x_desc = xDesc;
    c.x = xData;
    c.scale_bias_desc = normScaleBiasDesc;
    c.scale = normScale;
    c.bias = normBias;
    c.factor = exponentialAverageFactor;
    c.mean_var_desc = normMeanVarDesc;
    c.running_mean = resultRunningMean;
    c.running_var = resultRunningVariance;
    c.epsilon = epsilon;
    c.save_mean = resultSaveMean;
    c.save_inv_var = resultSaveInvVariance;
    c.z_desc = zDesc;
    c.z = zData;
    c.y_desc = yDesc;
    c.y = yData;
    c.workspace = workspace;
    c.workspace_bytes = workSpaceSizeInBytes;
    c.reserve = reserveSpace;
    c.reserve_bytes = reserveSpaceSizeInBytes;
    return fd::run_norm_call(handle, c, "cudnnNormalizationForwardTraining");
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnNormalizationBackward(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const void* alphaDataDiff, const void* betaDataDiff, const void* alphaParamDiff, const void* betaParamDiff,
    const cudnnTensorDescriptor_t xDesc, const void* xData, const cudnnTensorDescriptor_t yDesc, const void* yData,
    const cudnnTensorDescriptor_t dyDesc, const void* dyData, const cudnnTensorDescriptor_t dzDesc, void* dzData,
    const cudnnTensorDescriptor_t dxDesc, void* dxData, const cudnnTensorDescriptor_t dNormScaleBiasDesc,
    const void* normScaleData, const void* normBiasData, void* dNormScaleData, void* dNormBiasData, double epsilon,
    const cudnnTensorDescriptor_t normMeanVarDesc, const void* savedMean, const void* savedInvVariance,
    cudnnActivationDescriptor_t activationDesc, void* workSpace, size_t workSpaceSizeInBytes, void* reserveSpace,
    size_t reserveSpaceSizeInBytes, int groupCnt) {
  return FD_API(cudnnNormalizationBackward,
                (handle, mode, normOps, algo, alphaDataDiff, betaDataDiff, alphaParamDiff, betaParamDiff, xDesc,
                 xData, yDesc, yData, dyDesc, dyData, dzDesc, dzData, dxDesc, dxData, dNormScaleBiasDesc,
                 normScaleData, normBiasData, dNormScaleData, dNormBiasData, epsilon, normMeanVarDesc, savedMean,
                 savedInvVariance, activationDesc, workSpace, workSpaceSizeInBytes, reserveSpace,
                 reserveSpaceSizeInBytes, groupCnt),
                [&]() -> cudnnStatus_t {
    fd::NormCall c;
    c.dir = fd::NormDir::backward;
    c.generic_api = true;
    c.mode = mode;
    c.algo = algo;
    c.ops = normOps;
    c.group_count = groupCnt;
    c.activation_desc = activationDesc;
    c.alpha_ptr = alphaDataDiff;
    c.beta_ptr = betaDataDiff;
    c.alpha_param_ptr = alphaParamDiff;
    c.beta_param_ptr = betaParamDiff;
    c.x_desc = xDesc;
    c.x = xData;
    c.y_desc = yDesc;
    c.y_in = yData;
    c.dy_desc = dyDesc;
    c.dy = dyData;
    c.z_desc = dzDesc;
    c.dz = dzData;
    c.dx_desc = dxDesc;
    c.dx = dxData;
    c.scale_bias_desc = dNormScaleBiasDesc;
    c.scale = normScaleData;
    c.bias = normBiasData;
    c.dscale = dNormScaleData;
    c.dbias = dNormBiasData;
    c.epsilon = epsilon;
    c.mean_var_desc = normMeanVarDesc;
    c.saved_mean = savedMean;
    c.saved_inv_var = savedInvVariance;
    c.workspace = workSpace;
    c.workspace_bytes = workSpaceSizeInBytes;
    c.reserve = reserveSpace;
    c.reserve_bytes = reserveSpaceSizeInBytes;
    return fd::run_norm_call(handle, c, "cudnnNormalizationBackward");
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetNormalizationForwardTrainingWorkspaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t zDesc, const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t normMeanVarDesc, size_t* sizeInBytes, int groupCnt) {
  return FD_API(cudnnGetNormalizationForwardTrainingWorkspaceSize,
                (handle, mode, normOps, algo, xDesc, zDesc, yDesc, normScaleBiasDesc, activationDesc,
                 normMeanVarDesc, sizeInBytes, groupCnt),
                [&]() -> cudnnStatus_t {
    fd::NormCall c;
    c.dir = fd::NormDir::training;
    c.generic_api = true;
    c.mode = mode;
    c.algo = algo;
    c.ops = normOps;
    c.group_count = groupCnt;
    c.activation_desc = activationDesc;
    c.x_desc = xDesc;
    c.z_desc = zDesc;
    c.y_desc = yDesc;
    c.scale_bias_desc = normScaleBiasDesc;
    c.mean_var_desc = normMeanVarDesc;
    return fd::norm_workspace_size(handle, c, sizeInBytes);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetNormalizationBackwardWorkspaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnTensorDescriptor_t dzDesc, const cudnnTensorDescriptor_t dxDesc,
    const cudnnTensorDescriptor_t dNormScaleBiasDesc, const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t normMeanVarDesc, size_t* sizeInBytes, int groupCnt) {
  return FD_API(cudnnGetNormalizationBackwardWorkspaceSize,
                (handle, mode, normOps, algo, xDesc, yDesc, dyDesc, dzDesc, dxDesc, dNormScaleBiasDesc,
                 activationDesc, normMeanVarDesc, sizeInBytes, groupCnt),
                [&]() -> cudnnStatus_t {
    fd::NormCall c;
    c.dir = fd::NormDir::backward;
    c.generic_api = true;
    c.mode = mode;
    c.algo = algo;
    c.ops = normOps;
    c.group_count = groupCnt;
    c.activation_desc = activationDesc;
    c.x_desc = xDesc;
    c.y_desc = yDesc;
    c.dy_desc = dyDesc;
    c.z_desc = dzDesc;
    c.dx_desc = dxDesc;
    c.scale_bias_desc = dNormScaleBiasDesc;
    c.mean_var_desc = normMeanVarDesc;
    return fd::norm_workspace_size(handle, c, sizeInBytes);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetNormalizationTrainingReserveSpaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t xDesc, size_t* sizeInBytes,
    int groupCnt) {
  return FD_API(cudnnGetNormalizationTrainingReserveSpaceSize,
                (handle, mode, normOps, algo, activationDesc, xDesc, sizeInBytes, groupCnt), [&]() -> cudnnStatus_t {
    return fd::norm_reserve_size_query(handle, true, mode, algo, groupCnt, normOps, activationDesc, xDesc,
                                       sizeInBytes);
  });
}

}  // extern "C"
