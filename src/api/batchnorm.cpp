// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Batch normalization: cudnnDeriveBNTensorDescriptor, cudnnBatchNormalization* (plain and Ex) and their
// workspace / reserve space queries. Each entry point fills a fd::NormCall; the checks and the computation are
// shared with the generic normalization API (normalization.cpp).
#include "api/norm_call.h"
#include "core/api_context.h"

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t derivedBnDesc,
                                                        const cudnnTensorDescriptor_t xDesc,
                                                        cudnnBatchNormMode_t mode) {
  return FD_API(cudnnDeriveBNTensorDescriptor, (derivedBnDesc, xDesc, mode), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(derivedBnDesc != nullptr && derivedBnDesc->alive(),
                   "derivedBnDesc is NULL or not a live tensor descriptor");
    FD_TRY(fd::check_tensor(xDesc, "xDesc"));
    FD_TRY(fd::check_norm_mode(false, mode, 0));
    cudnnTensorStruct derived;
    FD_TRY(fd::derive_norm_desc(derived, *xDesc, mode == CUDNN_BATCHNORM_PER_ACTIVATION));
    *derivedBnDesc = derived;
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t yDesc, void* y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void* bnScale, const void* bnBias,
    const void* estimatedMean, const void* estimatedVariance, double epsilon) {
  return FD_API(cudnnBatchNormalizationForwardInference,
                (handle, mode, alpha, beta, xDesc, x, yDesc, y, bnScaleBiasMeanVarDesc, bnScale, bnBias,
                 estimatedMean, estimatedVariance, epsilon),
                [&]() -> cudnnStatus_t {
    fd::NormCall c;
    c.dir = fd::NormDir::inference;
    c.mode = mode;
    c.alpha_ptr = alpha;
    c.beta_ptr = beta;
    c.x_desc = xDesc;
    c.x = x;
    c.y_desc = yDesc;
    c.y = y;
    c.scale_bias_desc = c.mean_var_desc = bnScaleBiasMeanVarDesc;
    c.scale = bnScale;
    c.bias = bnBias;
    c.est_mean = estimatedMean;
    c.est_var = estimatedVariance;
    c.epsilon = epsilon;
    return fd::run_norm_call(handle, c, "cudnnBatchNormalizationForwardInference");
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t yDesc, void* y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void* bnScale, const void* bnBias,
    double exponentialAverageFactor, void* resultRunningMean, void* resultRunningVariance, double epsilon,
    void* resultSaveMean, void* resultSaveInvVariance) {
  return FD_API(cudnnBatchNormalizationForwardTraining,
                (handle, mode, alpha, beta, xDesc, x, yDesc, y, bnScaleBiasMeanVarDesc, bnScale, bnBias,
                 exponentialAverageFactor, resultRunningMean, resultRunningVariance, epsilon, resultSaveMean,
                 resultSaveInvVariance),
                [&]() -> cudnnStatus_t {
    fd::NormCall c;
    c.dir = fd::NormDir::training;
    c.mode = mode;
    c.alpha_ptr = alpha;
    c.beta_ptr = beta;
    c.x_desc = xDesc;
    c.x = x;
    c.y_desc = yDesc;
    c.y = y;
    c.scale_bias_desc = c.mean_var_desc = bnScaleBiasMeanVarDesc;
    c.scale = bnScale;
    c.bias = bnBias;
    c.factor = exponentialAverageFactor;
    c.running_mean = resultRunningMean;
    c.running_var = resultRunningVariance;
    c.epsilon = epsilon;
    c.save_mean = resultSaveMean;
    c.save_inv_var = resultSaveInvVariance;
    return fd::run_norm_call(handle, c, "cudnnBatchNormalizationForwardTraining");
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationForwardTrainingEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const void* alpha,
    const void* beta, const cudnnTensorDescriptor_t xDesc, const void* xData, const cudnnTensorDescriptor_t zDesc,
    const void* zData, const cudnnTensorDescriptor_t yDesc, void* yData,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void* bnScale, const void* bnBias,
    double exponentialAverageFactor, void* resultRunningMean, void* resultRunningVariance, double epsilon,
    void* resultSaveMean, void* resultSaveInvVariance, cudnnActivationDescriptor_t activationDesc,
    void* workspace, size_t workSpaceSizeInBytes, void* reserveSpace, size_t reserveSpaceSizeInBytes) {
  return FD_API(cudnnBatchNormalizationForwardTrainingEx,
                (handle, mode, bnOps, alpha, beta, xDesc, xData, zDesc, zData, yDesc, yData,
                 bnScaleBiasMeanVarDesc, bnScale, bnBias, exponentialAverageFactor, resultRunningMean,
                 resultRunningVariance, epsilon, resultSaveMean, resultSaveInvVariance, activationDesc, workspace,
                 workSpaceSizeInBytes, reserveSpace, reserveSpaceSizeInBytes),
                [&]() -> cudnnStatus_t {
    fd::NormCall c;
    c.dir = fd::NormDir::training;
    c.mode = mode;
    c.ops = bnOps;
    c.activation_desc = activationDesc;
    c.alpha_ptr = alpha;
    c.beta_ptr = beta;
    c.x_desc = xDesc;
    c.x = xData;
    c.z_desc = zDesc;
    c.z = zData;
    c.y_desc = yDesc;
    c.y = yData;
    c.scale_bias_desc = c.mean_var_desc = bnScaleBiasMeanVarDesc;
    c.scale = bnScale;
    c.bias = bnBias;
    c.factor = exponentialAverageFactor;
    c.running_mean = resultRunningMean;
    c.running_var = resultRunningVariance;
    c.epsilon = epsilon;
    c.save_mean = resultSaveMean;
    c.save_inv_var = resultSaveInvVariance;
    c.workspace = workspace;
    c.workspace_bytes = workSpaceSizeInBytes;
    c.reserve = reserveSpace;
    c.reserve_bytes = reserveSpaceSizeInBytes;
    return fd::run_norm_call(handle, c, "cudnnBatchNormalizationForwardTrainingEx");
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationBackward(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alphaDataDiff, const void* betaDataDiff,
    const void* alphaParamDiff, const void* betaParamDiff, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnTensorDescriptor_t dyDesc, const void* dy, const cudnnTensorDescriptor_t dxDesc, void* dx,
    const cudnnTensorDescriptor_t dBnScaleBiasDesc, const void* bnScale, void* dBnScaleResult, void* dBnBiasResult,
    double epsilon, const void* savedMean, const void* savedInvVariance) {
  return FD_API(cudnnBatchNormalizationBackward,
                (handle, mode, alphaDataDiff, betaDataDiff, alphaParamDiff, betaParamDiff, xDesc, x, dyDesc, dy,
                 dxDesc, dx, dBnScaleBiasDesc, bnScale, dBnScaleResult, dBnBiasResult, epsilon, savedMean,
                 savedInvVariance),
                [&]() -> cudnnStatus_t {
    fd::NormCall c;
    c.dir = fd::NormDir::backward;
    c.mode = mode;
    c.alpha_ptr = alphaDataDiff;
    c.beta_ptr = betaDataDiff;
    c.alpha_param_ptr = alphaParamDiff;
    c.beta_param_ptr = betaParamDiff;
    c.x_desc = xDesc;
    c.x = x;
    c.dy_desc = dyDesc;
    c.dy = dy;
    c.dx_desc = dxDesc;
    c.dx = dx;
    c.scale_bias_desc = c.mean_var_desc = dBnScaleBiasDesc;
    c.scale = bnScale;
    c.dscale = dBnScaleResult;
    c.dbias = dBnBiasResult;
    c.epsilon = epsilon;
    c.saved_mean = savedMean;
    c.saved_inv_var = savedInvVariance;
    return fd::run_norm_call(handle, c, "cudnnBatchNormalizationBackward");
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationBackwardEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const void* alphaDataDiff,
    const void* betaDataDiff, const void* alphaParamDiff, const void* betaParamDiff,
    const cudnnTensorDescriptor_t xDesc, const void* xData, const cudnnTensorDescriptor_t yDesc, const void* yData,
    const cudnnTensorDescriptor_t dyDesc, const void* dyData, const cudnnTensorDescriptor_t dzDesc, void* dzData,
    const cudnnTensorDescriptor_t dxDesc, void* dxData, const cudnnTensorDescriptor_t dBnScaleBiasDesc,
    const void* bnScaleData, const void* bnBiasData, void* dBnScaleData, void* dBnBiasData, double epsilon,
    const void* savedMean, const void* savedInvVariance, cudnnActivationDescriptor_t activationDesc,
    void* workSpace, size_t workSpaceSizeInBytes, void* reserveSpace, size_t reserveSpaceSizeInBytes) {
  return FD_API(cudnnBatchNormalizationBackwardEx,
                (handle, mode, bnOps, alphaDataDiff, betaDataDiff, alphaParamDiff, betaParamDiff, xDesc, xData,
                 yDesc, yData, dyDesc, dyData, dzDesc, dzData, dxDesc, dxData, dBnScaleBiasDesc, bnScaleData,
                 bnBiasData, dBnScaleData, dBnBiasData, epsilon, savedMean, savedInvVariance, activationDesc,
                 workSpace, workSpaceSizeInBytes, reserveSpace, reserveSpaceSizeInBytes),
                [&]() -> cudnnStatus_t {
    fd::NormCall c;
    c.dir = fd::NormDir::backward;
    c.mode = mode;
    c.ops = bnOps;
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
    c.scale_bias_desc = c.mean_var_desc = dBnScaleBiasDesc;
    c.scale = bnScaleData;
    c.bias = bnBiasData;
    c.dscale = dBnScaleData;
    c.dbias = dBnBiasData;
    c.epsilon = epsilon;
    c.saved_mean = savedMean;
    c.saved_inv_var = savedInvVariance;
    c.workspace = workSpace;
    c.workspace_bytes = workSpaceSizeInBytes;
    c.reserve = reserveSpace;
    c.reserve_bytes = reserveSpaceSizeInBytes;
    return fd::run_norm_call(handle, c, "cudnnBatchNormalizationBackwardEx");
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t zDesc, const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const cudnnActivationDescriptor_t activationDesc,
    size_t* sizeInBytes) {
  return FD_API(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize,
                (handle, mode, bnOps, xDesc, zDesc, yDesc, bnScaleBiasMeanVarDesc, activationDesc, sizeInBytes),
                [&]() -> cudnnStatus_t {
    fd::NormCall c;
    c.dir = fd::NormDir::training;
    c.mode = mode;
    c.ops = bnOps;
    c.activation_desc = activationDesc;
    c.x_desc = xDesc;
    c.z_desc = zDesc;
    c.y_desc = yDesc;
    c.scale_bias_desc = c.mean_var_desc = bnScaleBiasMeanVarDesc;
    return fd::norm_workspace_size(handle, c, sizeInBytes);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetBatchNormalizationBackwardExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t dyDesc, const cudnnTensorDescriptor_t dzDesc,
    const cudnnTensorDescriptor_t dxDesc, const cudnnTensorDescriptor_t dBnScaleBiasDesc,
    const cudnnActivationDescriptor_t activationDesc, size_t* sizeInBytes) {
  return FD_API(cudnnGetBatchNormalizationBackwardExWorkspaceSize,
                (handle, mode, bnOps, xDesc, yDesc, dyDesc, dzDesc, dxDesc, dBnScaleBiasDesc, activationDesc,
                 sizeInBytes),
                [&]() -> cudnnStatus_t {
    fd::NormCall c;
    c.dir = fd::NormDir::backward;
    c.mode = mode;
    c.ops = bnOps;
    c.activation_desc = activationDesc;
    c.x_desc = xDesc;
    c.y_desc = yDesc;
    c.dy_desc = dyDesc;
    c.z_desc = dzDesc;
    c.dx_desc = dxDesc;
    c.scale_bias_desc = c.mean_var_desc = dBnScaleBiasDesc;
    return fd::norm_workspace_size(handle, c, sizeInBytes);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t xDesc, size_t* sizeInBytes) {
  return FD_API(cudnnGetBatchNormalizationTrainingExReserveSpaceSize,
                (handle, mode, bnOps, activationDesc, xDesc, sizeInBytes), [&]() -> cudnnStatus_t {
    return fd::norm_reserve_size_query(handle, false, mode, 0, 1, bnOps, activationDesc, xDesc, sizeInBytes);
  });
}

}  // extern "C"
