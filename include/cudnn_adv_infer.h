/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 The freednn Authors */

#ifndef FREEDNN_CUDNN_ADV_INFER_H_
#define FREEDNN_CUDNN_ADV_INFER_H_

#include <stddef.h>
#include <stdint.h>
#include "cudnn_version.h"
#include "cudnn_ops_infer.h"

#define CUDNN_ADV_INFER_MAJOR 8
#define CUDNN_ADV_INFER_MINOR 2
#define CUDNN_ADV_INFER_PATCH 0

#if CUDNN_ADV_INFER_MAJOR != CUDNN_MAJOR || CUDNN_ADV_INFER_MINOR != CUDNN_MINOR || CUDNN_ADV_INFER_PATCH != CUDNN_PATCHLEVEL
#error "freednn: adv_infer version macros disagree with cudnn_version.h"
#endif

/* auxFlags of cudnnSetRNNDescriptor_v8 */
#define CUDNN_RNN_PADDED_IO_DISABLED 0
#define CUDNN_RNN_PADDED_IO_ENABLED (1U << 0)

#define CUDNN_SEQDATA_DIM_COUNT 4

/* attnMode bits of cudnnSetAttnDescriptor */
#define CUDNN_ATTN_QUERYMAP_ALL_TO_ONE 0
#define CUDNN_ATTN_QUERYMAP_ONE_TO_ONE (1U << 0)
#define CUDNN_ATTN_DISABLE_PROJ_BIASES 0
#define CUDNN_ATTN_ENABLE_PROJ_BIASES (1U << 1)

#define CUDNN_ATTN_WKIND_COUNT 8

#ifdef __cplusplus
extern "C" {
#endif

/* ---- recurrent networks ---- */

typedef enum {
    CUDNN_FWD_MODE_INFERENCE = 0,
    CUDNN_FWD_MODE_TRAINING  = 1,
} cudnnForwardMode_t;

typedef enum {
    CUDNN_RNN_RELU = 0,
    CUDNN_RNN_TANH = 1,
    CUDNN_LSTM     = 2,
    CUDNN_GRU      = 3,
} cudnnRNNMode_t;

typedef enum {
    CUDNN_RNN_NO_BIAS         = 0,
    CUDNN_RNN_SINGLE_INP_BIAS = 1,
    CUDNN_RNN_DOUBLE_BIAS     = 2,
    CUDNN_RNN_SINGLE_REC_BIAS = 3,
} cudnnRNNBiasMode_t;

typedef enum {
    CUDNN_UNIDIRECTIONAL = 0,
    CUDNN_BIDIRECTIONAL  = 1,
} cudnnDirectionMode_t;

typedef enum {
    CUDNN_LINEAR_INPUT = 0,
    CUDNN_SKIP_INPUT   = 1,
} cudnnRNNInputMode_t;

typedef enum {
    CUDNN_RNN_CLIP_NONE   = 0,
    CUDNN_RNN_CLIP_MINMAX = 1,
} cudnnRNNClipMode_t;

typedef enum {
    CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED   = 0,
    CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED     = 1,
    CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED = 2,
} cudnnRNNDataLayout_t;

typedef struct cudnnRNNStruct *cudnnRNNDescriptor_t;
typedef struct cudnnPersistentRNNPlan *cudnnPersistentRNNPlan_t;
typedef struct cudnnRNNDataStruct *cudnnRNNDataDescriptor_t;

/* ---- sequence data and multi-head attention ---- */

typedef enum {
    CUDNN_SEQDATA_TIME_DIM  = 0,
    CUDNN_SEQDATA_BATCH_DIM = 1,
    CUDNN_SEQDATA_BEAM_DIM  = 2,
    CUDNN_SEQDATA_VECT_DIM  = 3,
} cudnnSeqDataAxis_t;

typedef struct cudnnSeqDataStruct *cudnnSeqDataDescriptor_t;

typedef struct cudnnAttnStruct *cudnnAttnDescriptor_t;

typedef enum {
    CUDNN_MH_ATTN_Q_WEIGHTS = 0,
    CUDNN_MH_ATTN_K_WEIGHTS = 1,
    CUDNN_MH_ATTN_V_WEIGHTS = 2,
    CUDNN_MH_ATTN_O_WEIGHTS = 3,
    CUDNN_MH_ATTN_Q_BIASES  = 4,
    CUDNN_MH_ATTN_K_BIASES  = 5,
    CUDNN_MH_ATTN_V_BIASES  = 6,
    CUDNN_MH_ATTN_O_BIASES  = 7,
} cudnnMultiHeadAttnWeightKind_t;

/* ---- functions ---- */

cudnnStatus_t CUDNNWINAPI cudnnCreateRNNDescriptor(cudnnRNNDescriptor_t *rnnDesc);

cudnnStatus_t CUDNNWINAPI cudnnDestroyRNNDescriptor(cudnnRNNDescriptor_t rnnDesc);

cudnnStatus_t CUDNNWINAPI cudnnSetRNNDescriptor_v8(
    cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t algo, cudnnRNNMode_t cellMode,
    cudnnRNNBiasMode_t biasMode, cudnnDirectionMode_t dirMode, cudnnRNNInputMode_t inputMode,
    cudnnDataType_t dataType, cudnnDataType_t mathPrec, cudnnMathType_t mathType, int32_t inputSize,
    int32_t hiddenSize, int32_t projSize, int32_t numLayers, cudnnDropoutDescriptor_t dropoutDesc,
    uint32_t auxFlags);

cudnnStatus_t CUDNNWINAPI cudnnGetRNNDescriptor_v8(
    cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t *algo, cudnnRNNMode_t *cellMode,
    cudnnRNNBiasMode_t *biasMode, cudnnDirectionMode_t *dirMode, cudnnRNNInputMode_t *inputMode,
    cudnnDataType_t *dataType, cudnnDataType_t *mathPrec, cudnnMathType_t *mathType,
    int32_t *inputSize, int32_t *hiddenSize, int32_t *projSize, int32_t *numLayers,
    cudnnDropoutDescriptor_t *dropoutDesc, uint32_t *auxFlags);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnSetRNNDescriptor_v6(
    cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int hiddenSize, const int numLayers,
    cudnnDropoutDescriptor_t dropoutDesc, cudnnRNNInputMode_t inputMode,
    cudnnDirectionMode_t direction, cudnnRNNMode_t cellMode, cudnnRNNAlgo_t algo,
    cudnnDataType_t mathPrec);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnGetRNNDescriptor_v6(
    cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int *hiddenSize, int *numLayers,
    cudnnDropoutDescriptor_t *dropoutDesc, cudnnRNNInputMode_t *inputMode,
    cudnnDirectionMode_t *direction, cudnnRNNMode_t *cellMode, cudnnRNNAlgo_t *algo,
    cudnnDataType_t *mathPrec);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnSetRNNMatrixMathType(
    cudnnRNNDescriptor_t rnnDesc, cudnnMathType_t mType);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnGetRNNMatrixMathType(
    cudnnRNNDescriptor_t rnnDesc, cudnnMathType_t *mType);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnSetRNNBiasMode(
    cudnnRNNDescriptor_t rnnDesc, cudnnRNNBiasMode_t biasMode);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnGetRNNBiasMode(
    cudnnRNNDescriptor_t rnnDesc, cudnnRNNBiasMode_t *biasMode);

cudnnStatus_t CUDNNWINAPI cudnnRNNSetClip_v8(
    cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode, cudnnNanPropagation_t clipNanOpt,
    double lclip, double rclip);

cudnnStatus_t CUDNNWINAPI cudnnRNNGetClip_v8(
    cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode, cudnnNanPropagation_t *clipNanOpt,
    double *lclip, double *rclip);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnRNNSetClip(
    cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode,
    cudnnNanPropagation_t clipNanOpt, double lclip, double rclip);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnRNNGetClip(
    cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode,
    cudnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnSetRNNProjectionLayers(
    cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int recProjSize,
    const int outProjSize);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnGetRNNProjectionLayers(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, int *recProjSize, int *outProjSize);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnCreatePersistentRNNPlan(
    cudnnRNNDescriptor_t rnnDesc, const int minibatch, const cudnnDataType_t dataType,
    cudnnPersistentRNNPlan_t *plan);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnDestroyPersistentRNNPlan(
    cudnnPersistentRNNPlan_t plan);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnSetPersistentRNNPlan(
    cudnnRNNDescriptor_t rnnDesc, cudnnPersistentRNNPlan_t plan);

cudnnStatus_t CUDNNWINAPI cudnnBuildRNNDynamic(
    cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int miniBatch);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnGetRNNWorkspaceSize(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
    const cudnnTensorDescriptor_t *xDesc, size_t *sizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnGetRNNTrainingReserveSize(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
    const cudnnTensorDescriptor_t *xDesc, size_t *sizeInBytes);

cudnnStatus_t CUDNNWINAPI cudnnGetRNNTempSpaceSizes(
    cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fMode,
    cudnnRNNDataDescriptor_t xDesc, size_t *workSpaceSize, size_t *reserveSpaceSize);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnGetRNNParamsSize(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const cudnnTensorDescriptor_t xDesc,
    size_t *sizeInBytes, cudnnDataType_t dataType);

cudnnStatus_t CUDNNWINAPI cudnnGetRNNWeightSpaceSize(
    cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, size_t *weightSpaceSize);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnGetRNNLinLayerMatrixParams(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int pseudoLayer,
    const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc, const void *w,
    const int linLayerID, cudnnFilterDescriptor_t linLayerMatDesc, void **linLayerMat);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnGetRNNLinLayerBiasParams(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int pseudoLayer,
    const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc, const void *w,
    const int linLayerID, cudnnFilterDescriptor_t linLayerBiasDesc, void **linLayerBias);

cudnnStatus_t CUDNNWINAPI cudnnGetRNNWeightParams(
    cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int32_t pseudoLayer, size_t weightSpaceSize,
    const void *weightSpace, int32_t linLayerID, cudnnTensorDescriptor_t mDesc, void **mAddr,
    cudnnTensorDescriptor_t bDesc, void **bAddr);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnRNNForwardInference(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
    const cudnnTensorDescriptor_t *xDesc, const void *x, const cudnnTensorDescriptor_t hxDesc,
    const void *hx, const cudnnTensorDescriptor_t cxDesc, const void *cx,
    const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnTensorDescriptor_t *yDesc,
    void *y, const cudnnTensorDescriptor_t hyDesc, void *hy, const cudnnTensorDescriptor_t cyDesc,
    void *cy, void *workSpace, size_t workSpaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnSetRNNPaddingMode(
    cudnnRNNDescriptor_t rnnDesc, unsigned paddingMode);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnGetRNNPaddingMode(
    cudnnRNNDescriptor_t rnnDesc, unsigned *paddingMode);

cudnnStatus_t CUDNNWINAPI cudnnCreateRNNDataDescriptor(cudnnRNNDataDescriptor_t *rnnDataDesc);

cudnnStatus_t CUDNNWINAPI cudnnDestroyRNNDataDescriptor(cudnnRNNDataDescriptor_t rnnDataDesc);

cudnnStatus_t CUDNNWINAPI cudnnSetRNNDataDescriptor(
    cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t dataType, cudnnRNNDataLayout_t layout,
    int maxSeqLength, int batchSize, int vectorSize, const int seqLengthArray[], void *paddingFill);

cudnnStatus_t CUDNNWINAPI cudnnGetRNNDataDescriptor(
    cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t *dataType, cudnnRNNDataLayout_t *layout,
    int *maxSeqLength, int *batchSize, int *vectorSize, int arrayLengthRequested,
    int seqLengthArray[], void *paddingFill);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnRNNForwardInferenceEx(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const cudnnRNNDataDescriptor_t xDesc,
    const void *x, const cudnnTensorDescriptor_t hxDesc, const void *hx,
    const cudnnTensorDescriptor_t cxDesc, const void *cx, const cudnnFilterDescriptor_t wDesc,
    const void *w, const cudnnRNNDataDescriptor_t yDesc, void *y,
    const cudnnTensorDescriptor_t hyDesc, void *hy, const cudnnTensorDescriptor_t cyDesc, void *cy,
    const cudnnRNNDataDescriptor_t kDesc, const void *keys, const cudnnRNNDataDescriptor_t cDesc,
    void *cAttn, const cudnnRNNDataDescriptor_t iDesc, void *iAttn,
    const cudnnRNNDataDescriptor_t qDesc, void *queries, void *workSpace,
    size_t workSpaceSizeInBytes);

cudnnStatus_t CUDNNWINAPI cudnnRNNForward(
    cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode,
    const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t xDesc, const void *x,
    cudnnRNNDataDescriptor_t yDesc, void *y, cudnnTensorDescriptor_t hDesc, const void *hx,
    void *hy, cudnnTensorDescriptor_t cDesc, const void *cx, void *cy, size_t weightSpaceSize,
    const void *weightSpace, size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize,
    void *reserveSpace);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnSetRNNAlgorithmDescriptor(
    cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnAlgorithmDescriptor_t algoDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnGetRNNForwardInferenceAlgorithmMaxCount(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, int *count);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI cudnnFindRNNForwardInferenceAlgorithmEx(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
    const cudnnTensorDescriptor_t *xDesc, const void *x, const cudnnTensorDescriptor_t hxDesc,
    const void *hx, const cudnnTensorDescriptor_t cxDesc, const void *cx,
    const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnTensorDescriptor_t *yDesc,
    void *y, const cudnnTensorDescriptor_t hyDesc, void *hy, const cudnnTensorDescriptor_t cyDesc,
    void *cy, const float findIntensity, const int requestedAlgoCount, int *returnedAlgoCount,
    cudnnAlgorithmPerformance_t *perfResults, void *workspace, size_t workSpaceSizeInBytes);

cudnnStatus_t CUDNNWINAPI cudnnCreateSeqDataDescriptor(cudnnSeqDataDescriptor_t *seqDataDesc);

cudnnStatus_t CUDNNWINAPI cudnnDestroySeqDataDescriptor(cudnnSeqDataDescriptor_t seqDataDesc);

cudnnStatus_t CUDNNWINAPI cudnnSetSeqDataDescriptor(
    cudnnSeqDataDescriptor_t seqDataDesc, cudnnDataType_t dataType, int nbDims, const int dimA[],
    const cudnnSeqDataAxis_t axes[], size_t seqLengthArraySize, const int seqLengthArray[],
    void *paddingFill);

cudnnStatus_t CUDNNWINAPI cudnnGetSeqDataDescriptor(
    const cudnnSeqDataDescriptor_t seqDataDesc, cudnnDataType_t *dataType, int *nbDims,
    int nbDimsRequested, int dimA[], cudnnSeqDataAxis_t axes[], size_t *seqLengthArraySize,
    size_t seqLengthSizeRequested, int seqLengthArray[], void *paddingFill);

cudnnStatus_t CUDNNWINAPI cudnnCreateAttnDescriptor(cudnnAttnDescriptor_t *attnDesc);

cudnnStatus_t CUDNNWINAPI cudnnDestroyAttnDescriptor(cudnnAttnDescriptor_t attnDesc);

cudnnStatus_t CUDNNWINAPI cudnnSetAttnDescriptor(
    cudnnAttnDescriptor_t attnDesc, unsigned attnMode, int nHeads, double smScaler,
    cudnnDataType_t dataType, cudnnDataType_t computePrec, cudnnMathType_t mathType,
    cudnnDropoutDescriptor_t attnDropoutDesc, cudnnDropoutDescriptor_t postDropoutDesc, int qSize,
    int kSize, int vSize, int qProjSize, int kProjSize, int vProjSize, int oProjSize,
    int qoMaxSeqLength, int kvMaxSeqLength, int maxBatchSize, int maxBeamSize);

cudnnStatus_t CUDNNWINAPI cudnnGetAttnDescriptor(
    cudnnAttnDescriptor_t attnDesc, unsigned *attnMode, int *nHeads, double *smScaler,
    cudnnDataType_t *dataType, cudnnDataType_t *computePrec, cudnnMathType_t *mathType,
    cudnnDropoutDescriptor_t *attnDropoutDesc, cudnnDropoutDescriptor_t *postDropoutDesc,
    int *qSize, int *kSize, int *vSize, int *qProjSize, int *kProjSize, int *vProjSize,
    int *oProjSize, int *qoMaxSeqLength, int *kvMaxSeqLength, int *maxBatchSize, int *maxBeamSize);

cudnnStatus_t CUDNNWINAPI cudnnGetMultiHeadAttnBuffers(
    cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc, size_t *weightSizeInBytes,
    size_t *workSpaceSizeInBytes, size_t *reserveSpaceSizeInBytes);

cudnnStatus_t CUDNNWINAPI cudnnGetMultiHeadAttnWeights(
    cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
    cudnnMultiHeadAttnWeightKind_t wKind, size_t weightSizeInBytes, const void *weights,
    cudnnTensorDescriptor_t wDesc, void **wAddr);

cudnnStatus_t CUDNNWINAPI cudnnMultiHeadAttnForward(
    cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc, int currIdx, const int loWinIdx[],
    const int hiWinIdx[], const int devSeqLengthsQO[], const int devSeqLengthsKV[],
    const cudnnSeqDataDescriptor_t qDesc, const void *queries, const void *residuals,
    const cudnnSeqDataDescriptor_t kDesc, const void *keys, const cudnnSeqDataDescriptor_t vDesc,
    const void *values, const cudnnSeqDataDescriptor_t oDesc, void *out, size_t weightSizeInBytes,
    const void *weights, size_t workSpaceSizeInBytes, void *workSpace,
    size_t reserveSpaceSizeInBytes, void *reserveSpace);

cudnnStatus_t CUDNNWINAPI cudnnAdvInferVersionCheck(void);

#ifdef __cplusplus
}
#endif

#endif /* FREEDNN_CUDNN_ADV_INFER_H_ */
