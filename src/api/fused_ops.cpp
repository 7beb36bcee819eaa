// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// The fused-ops API (cudnn_cnn_train): const and variant param packs, plans, execution.
#include <cmath>
#include <new>
#include <vector>

#include "core/api_context.h"
#include "core/fused_ops_desc.h"
#include "core/handle.h"
#include "core/status.h"
#include "cpu/fused/fused_ops.h"
#ifdef FREEDNN_WITH_CUDA
#include "cuda/fused/fused_ops.h"
#endif

namespace {

using fd::fused::ConstKind;

bool valid_ops(cudnnFusedOps_t o) { return fd::enum_name(o) != nullptr; }

const char* label_name(int l) {
  const char* n = fd::enum_name(static_cast<cudnnFusedOpsConstParamLabel_t>(l));
  return n ? n : "<invalid>";
}

// The data placeholders each computed pattern reads or writes.
std::vector<cudnnFusedOpsConstParamLabel_t> pattern_placeholders(cudnnFusedOps_t ops) {
  switch (ops) {
    case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS:
      return {CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER,
              CUDNN_PARAM_WDATA_PLACEHOLDER, CUDNN_PARAM_YDATA_PLACEHOLDER,      CUDNN_PARAM_YSUM_PLACEHOLDER,
              CUDNN_PARAM_YSQSUM_PLACEHOLDER};
    case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD:
      return {CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER,
              CUDNN_PARAM_DWDATA_PLACEHOLDER, CUDNN_PARAM_DYDATA_PLACEHOLDER};
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING:
      return {CUDNN_PARAM_YSUM_PLACEHOLDER,           CUDNN_PARAM_YSQSUM_PLACEHOLDER,
              CUDNN_PARAM_BN_SCALE_PLACEHOLDER,       CUDNN_PARAM_BN_BIAS_PLACEHOLDER,
              CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER,  CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER,
              CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER,
              CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER,     CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER};
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE:
      return {CUDNN_PARAM_BN_SCALE_PLACEHOLDER,        CUDNN_PARAM_BN_BIAS_PLACEHOLDER,
              CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER,
              CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER,      CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER};
    default: return {};
  }
}

// A descriptor argument of the kind the label holds: live and of the right type.
cudnnStatus_t check_desc_kind(ConstKind k, const void* d, const char* role) {
  switch (k) {
    case ConstKind::tensor: return fd::check_tensor(static_cast<const cudnnTensorStruct*>(d), role);
    case ConstKind::filter: return fd::check_filter(static_cast<const cudnnFilterStruct*>(d), role);
    case ConstKind::conv: return fd::check_convolution(static_cast<const cudnnConvolutionStruct*>(d), role);
    case ConstKind::activation: return fd::check_activation(static_cast<const cudnnActivationStruct*>(d), role);
    default: return CUDNN_STATUS_SUCCESS;
  }
}

// The destination of a Get: a live descriptor of the label's kind (it need not be set).
cudnnStatus_t check_desc_alive(ConstKind k, const void* d) {
  bool ok = false;
  switch (k) {
    case ConstKind::tensor: ok = static_cast<const cudnnTensorStruct*>(d)->alive(); break;
    case ConstKind::filter: ok = static_cast<const cudnnFilterStruct*>(d)->alive(); break;
    case ConstKind::conv: ok = static_cast<const cudnnConvolutionStruct*>(d)->alive(); break;
    case ConstKind::activation: ok = static_cast<const cudnnActivationStruct*>(d)->alive(); break;
    default: ok = true;
  }
  FD_CHECK_PARAM(ok, "param is not a live descriptor of the kind this label holds");
  return CUDNN_STATUS_SUCCESS;
}

template <class T>
void copy_desc(void* dst, const void* src) {
  *static_cast<T*>(dst) = *static_cast<const T*>(src);
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateFusedOpsConstParamPack(cudnnFusedOpsConstParamPack_t* constPack,
                                                            cudnnFusedOps_t ops) {
  return FD_API(cudnnCreateFusedOpsConstParamPack, (constPack, ops), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(constPack != nullptr, "constPack output pointer is NULL");
    FD_CHECK_PARAM(valid_ops(ops), "ops=%d is not a cudnnFusedOps_t value", static_cast<int>(ops));
    *constPack = new (std::nothrow) cudnnFusedOpsConstParamStruct;
    FD_CHECK(*constPack != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate a const param pack");
    (*constPack)->ops = ops;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyFusedOpsConstParamPack(cudnnFusedOpsConstParamPack_t constPack) {
  return FD_API(cudnnDestroyFusedOpsConstParamPack, (constPack), [&]() -> cudnnStatus_t {
    if (constPack == nullptr) return CUDNN_STATUS_SUCCESS;
    FD_TRY(fd::check_fused_const(constPack, "constPack"));
    delete constPack;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetFusedOpsConstParamPackAttribute(cudnnFusedOpsConstParamPack_t constPack,
                                                                  cudnnFusedOpsConstParamLabel_t paramLabel,
                                                                  const void* param) {
  return FD_API(cudnnSetFusedOpsConstParamPackAttribute, (constPack, paramLabel, param), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_fused_const(constPack, "constPack"));
    ConstKind k;
    FD_CHECK_PARAM(fd::fused::const_kind(paramLabel, &k), "paramLabel=%d is not a const param label",
                   static_cast<int>(paramLabel));
    switch (k) {
      case ConstKind::bn_mode: {
        FD_CHECK_PARAM(param != nullptr, "param is NULL for CUDNN_PARAM_BN_MODE");
        const auto m = *static_cast<const cudnnBatchNormMode_t*>(param);
        FD_CHECK_PARAM(fd::enum_name(m) != nullptr, "bn mode %d is not a cudnnBatchNormMode_t", static_cast<int>(m));
        constPack->bn_mode = m;
        return CUDNN_STATUS_SUCCESS;
      }
      case ConstKind::placeholder: {
        FD_CHECK_PARAM(param != nullptr, "param is NULL for placeholder %s", label_name(paramLabel));
        const auto ph = *static_cast<const cudnnFusedOpsPointerPlaceHolder_t*>(param);
        FD_CHECK_PARAM(ph == CUDNN_PTR_NULL || ph == CUDNN_PTR_ELEM_ALIGNED || ph == CUDNN_PTR_16B_ALIGNED,
                       "placeholder value %d for %s is not a cudnnFusedOpsPointerPlaceHolder_t", static_cast<int>(ph),
                       label_name(paramLabel));
        constPack->placeholder[paramLabel] = ph;
        return CUDNN_STATUS_SUCCESS;
      }
      default:
        // A descriptor (the handle itself is the param); NULL clears it.
        if (param != nullptr) FD_TRY(check_desc_kind(k, param, label_name(paramLabel)));
        constPack->desc[paramLabel] = param;
        return CUDNN_STATUS_SUCCESS;
    }
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetFusedOpsConstParamPackAttribute(const cudnnFusedOpsConstParamPack_t constPack,
                                                                  cudnnFusedOpsConstParamLabel_t paramLabel,
                                                                  void* param, int* isNULL) {
  return FD_API(cudnnGetFusedOpsConstParamPackAttribute, (constPack, paramLabel, param, isNULL),
                [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_fused_const(constPack, "constPack"));
    ConstKind k;
    FD_CHECK_PARAM(fd::fused::const_kind(paramLabel, &k), "paramLabel=%d is not a const param label",
                   static_cast<int>(paramLabel));
    FD_CHECK_PARAM(param != nullptr && isNULL != nullptr, "param or isNULL is NULL");
    switch (k) {
      case ConstKind::bn_mode:
        *static_cast<cudnnBatchNormMode_t*>(param) = constPack->bn_mode;
        *isNULL = 0;
        return CUDNN_STATUS_SUCCESS;
      case ConstKind::placeholder:
        *static_cast<cudnnFusedOpsPointerPlaceHolder_t*>(param) = constPack->placeholder[paramLabel];
        *isNULL = constPack->placeholder[paramLabel] == CUDNN_PTR_NULL;
        return CUDNN_STATUS_SUCCESS;
      default: {
        // param is a descriptor of the label's kind: the stored descriptor is copied into it.
        FD_TRY(check_desc_alive(k, param));
        const void* d = constPack->desc[paramLabel];
        if (d != nullptr) FD_TRY(check_desc_kind(k, d, label_name(paramLabel)));  // it may have been destroyed
        *isNULL = d == nullptr;  // written on success only
        if (d == nullptr) return CUDNN_STATUS_SUCCESS;
        if (k == ConstKind::tensor) copy_desc<cudnnTensorStruct>(param, d);
        if (k == ConstKind::filter) copy_desc<cudnnFilterStruct>(param, d);
        if (k == ConstKind::conv) copy_desc<cudnnConvolutionStruct>(param, d);
        if (k == ConstKind::activation) copy_desc<cudnnActivationStruct>(param, d);
        return CUDNN_STATUS_SUCCESS;
      }
    }
  });
}

cudnnStatus_t CUDNNWINAPI cudnnCreateFusedOpsVariantParamPack(cudnnFusedOpsVariantParamPack_t* varPack,
                                                              cudnnFusedOps_t ops) {
  return FD_API(cudnnCreateFusedOpsVariantParamPack, (varPack, ops), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(varPack != nullptr, "varPack output pointer is NULL");
    FD_CHECK_PARAM(valid_ops(ops), "ops=%d is not a cudnnFusedOps_t value", static_cast<int>(ops));
    *varPack = new (std::nothrow) cudnnFusedOpsVariantParamStruct;
    FD_CHECK(*varPack != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate a variant param pack");
    (*varPack)->ops = ops;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyFusedOpsVariantParamPack(cudnnFusedOpsVariantParamPack_t varPack) {
  return FD_API(cudnnDestroyFusedOpsVariantParamPack, (varPack), [&]() -> cudnnStatus_t {
    if (varPack == nullptr) return CUDNN_STATUS_SUCCESS;
    FD_TRY(fd::check_fused_variant(varPack, "varPack"));
    delete varPack;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetFusedOpsVariantParamPackAttribute(cudnnFusedOpsVariantParamPack_t varPack,
                                                                    cudnnFusedOpsVariantParamLabel_t paramLabel,
                                                                    void* ptr) {
  return FD_API(cudnnSetFusedOpsVariantParamPackAttribute, (varPack, paramLabel, ptr), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_fused_variant(varPack, "varPack"));
    const int l = paramLabel;
    if (l >= 0 && l < fd::fused::kPtrLabels) {
      varPack->ptr[l] = ptr;  // the data pointer itself; NULL allowed
      return CUDNN_STATUS_SUCCESS;
    }
    FD_CHECK_PARAM(l >= CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES && l <= CUDNN_SCALAR_DOUBLE_BN_EPSILON,
                   "paramLabel=%d is not a variant param label", l);
    FD_CHECK_PARAM(ptr != nullptr, "ptr is NULL for scalar label %d", l);
    switch (paramLabel) {
      case CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES: varPack->workspace_size = *static_cast<size_t*>(ptr); break;
      case CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT:
        varPack->accumulation_count = *static_cast<int64_t*>(ptr);
        break;
      case CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR: varPack->exp_avg_factor = *static_cast<double*>(ptr); break;
      default: varPack->epsilon = *static_cast<double*>(ptr); break;
    }
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetFusedOpsVariantParamPackAttribute(const cudnnFusedOpsVariantParamPack_t varPack,
                                                                    cudnnFusedOpsVariantParamLabel_t paramLabel,
                                                                    void* ptr) {
  return FD_API(cudnnGetFusedOpsVariantParamPackAttribute, (varPack, paramLabel, ptr), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_fused_variant(varPack, "varPack"));
    const int l = paramLabel;
    FD_CHECK_PARAM((l >= 0 && l < fd::fused::kPtrLabels) ||
                       (l >= CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES && l <= CUDNN_SCALAR_DOUBLE_BN_EPSILON),
                   "paramLabel=%d is not a variant param label", l);
    FD_CHECK_PARAM(ptr != nullptr, "ptr is NULL");
    if (l < fd::fused::kPtrLabels) {
      *static_cast<void**>(ptr) = varPack->ptr[l];
      return CUDNN_STATUS_SUCCESS;
    }
    switch (paramLabel) {
      case CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES: *static_cast<size_t*>(ptr) = varPack->workspace_size; break;
      case CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT:
        *static_cast<int64_t*>(ptr) = varPack->accumulation_count;
        break;
      case CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR: *static_cast<double*>(ptr) = varPack->exp_avg_factor; break;
      default: *static_cast<double*>(ptr) = varPack->epsilon; break;
    }
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnCreateFusedOpsPlan(cudnnFusedOpsPlan_t* plan, cudnnFusedOps_t ops) {
  return FD_API(cudnnCreateFusedOpsPlan, (plan, ops), [&]() -> cudnnStatus_t {
    FD_CHECK_PARAM(plan != nullptr, "plan output pointer is NULL");
    FD_CHECK_PARAM(valid_ops(ops), "ops=%d is not a cudnnFusedOps_t value", static_cast<int>(ops));
    *plan = new (std::nothrow) cudnnFusedOpsPlanStruct;
    FD_CHECK(*plan != nullptr, CUDNN_STATUS_ALLOC_FAILED, "cannot allocate a fused ops plan");
    (*plan)->ops = ops;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyFusedOpsPlan(cudnnFusedOpsPlan_t plan) {
  return FD_API(cudnnDestroyFusedOpsPlan, (plan), [&]() -> cudnnStatus_t {
    if (plan == nullptr) return CUDNN_STATUS_SUCCESS;
    FD_TRY(fd::check_fused_plan(plan, "plan"));
    delete plan;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnMakeFusedOpsPlan(cudnnHandle_t handle, cudnnFusedOpsPlan_t plan,
                                                const cudnnFusedOpsConstParamPack_t constPack,
                                                size_t* workspaceSizeInBytes) {
  return FD_API(cudnnMakeFusedOpsPlan, (handle, plan, constPack, workspaceSizeInBytes), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_fused_plan(plan, "plan"));
    FD_TRY(fd::check_fused_const(constPack, "constPack"));
    FD_CHECK_PARAM(workspaceSizeInBytes != nullptr, "workspaceSizeInBytes is NULL");
    FD_CHECK_PARAM(plan->ops == constPack->ops, "the plan is for %s, the const pack for %s", fd::enum_name(plan->ops),
                   fd::enum_name(constPack->ops));
    FD_TRY(fd::make_fused_plan(handle, *constPack, plan));
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu()) fd::cuda::fused::lay_out_workspace(handle, plan);
#endif
    *workspaceSizeInBytes = plan->workspace;
    return CUDNN_STATUS_SUCCESS;
  });
}

// coverage: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnFusedOpsExecute(cudnnHandle_t handle, const cudnnFusedOpsPlan_t plan,
                                               cudnnFusedOpsVariantParamPack_t varPack) {
  return FD_API(cudnnFusedOpsExecute, (handle, plan, varPack), [&]() -> cudnnStatus_t {
    FD_TRY(fd::check_handle(handle));
    FD_TRY(fd::check_fused_plan(plan, "plan"));
    FD_TRY(fd::check_fused_variant(varPack, "varPack"));
    FD_CHECK_PARAM(plan->made, "the plan was not made (cudnnMakeFusedOpsPlan did not succeed on it)");
    FD_CHECK_PARAM(plan->ops == varPack->ops, "the plan is for %s, the variant pack for %s",
                   fd::enum_name(plan->ops), fd::enum_name(varPack->ops));
    FD_CHECK_PARAM(plan->backend == handle->backend,
                   "the plan was made with a handle of the %s backend; this handle's backend is %s",
                   fd::backend_name(plan->backend), fd::backend_name(handle->backend));
    FD_CHECK_PARAM(plan->device == handle->device,
                   "the plan was made with a handle of device %d; this handle's device is %d (make the plan again)",
                   plan->device, handle->device);
    for (const auto l : pattern_placeholders(plan->ops)) {
      if (!plan->has(l)) continue;
      const int ptr = fd::fused::placeholder_pointer(l);
      FD_CHECK_PARAM(varPack->ptr[ptr] != nullptr, "%s is set in the plan but %s is NULL in the variant pack",
                     label_name(l), fd::enum_name(static_cast<cudnnFusedOpsVariantParamLabel_t>(ptr)));
    }
    FD_CHECK_PARAM(varPack->workspace_size >= plan->workspace,
                   "CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES=%zu is less than the %zu bytes the plan needs",
                   varPack->workspace_size, plan->workspace);
    FD_CHECK_PARAM(plan->workspace == 0 || varPack->ptr[CUDNN_PTR_WORKSPACE] != nullptr,
                   "CUDNN_PTR_WORKSPACE is NULL but the plan needs %zu bytes", plan->workspace);
    const bool finalize = plan->ops == CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING ||
                          plan->ops == CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE;
    if (finalize)
      FD_CHECK_PARAM(varPack->epsilon >= 0 && std::isfinite(varPack->epsilon),
                     "CUDNN_SCALAR_DOUBLE_BN_EPSILON=%g must be finite and not negative", varPack->epsilon);
    if (plan->ops == CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING) {
      FD_CHECK_PARAM(varPack->accumulation_count > 0, "CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT=%lld must be positive",
                     static_cast<long long>(varPack->accumulation_count));
      FD_CHECK_PARAM(!plan->has(CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER) ||
                         (varPack->exp_avg_factor >= 0 && varPack->exp_avg_factor <= 1),
                     "CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR=%g must be in [0, 1]", varPack->exp_avg_factor);
    }
    if (fd::log::command_logging_enabled()) fd::log::emit_command(plan->to_string());
#ifdef FREEDNN_WITH_CUDA
    if (!handle->on_cpu()) {
      switch (plan->ops) {
        case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS:
          return fd::cuda::fused::conv_bnstats(handle, *plan, *varPack);
        case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD: return fd::cuda::fused::wgrad(handle, *plan, *varPack);
        case CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING:
          return fd::cuda::fused::bn_finalize_training(handle, *plan, *varPack);
        case CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE:
          return fd::cuda::fused::bn_finalize_inference(handle, *plan, *varPack);
        default: FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "fused pattern %s is not computed", fd::enum_name(plan->ops));
      }
    }
#endif
    FD_TRY(fd::require_cpu(handle, "cudnnFusedOpsExecute"));
    switch (plan->ops) {
      case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS: return fd::cpu::fused::conv_bnstats(*plan, *varPack);
      case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD: return fd::cpu::fused::wgrad(*plan, *varPack);
      case CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING: return fd::cpu::fused::bn_finalize_training(*plan, *varPack);
      case CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE:
        return fd::cpu::fused::bn_finalize_inference(*plan, *varPack);
      default: FD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "fused pattern %s is not computed", fd::enum_name(plan->ops));
    }
  });
}

}  // extern "C"
