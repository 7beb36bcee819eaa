/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 The freednn Authors */

#ifndef FREEDNN_CUDNN_H_
#define FREEDNN_CUDNN_H_

/* Umbrella header: the whole cuDNN 8.2 API as implemented by freednn. */
#include "cudnn_version.h"
#include "cudnn_ops_infer.h"
#include "cudnn_ops_train.h"
#include "cudnn_cnn_infer.h"
#include "cudnn_cnn_train.h"
#include "cudnn_adv_infer.h"
#include "cudnn_adv_train.h"
#include "cudnn_backend.h"

#endif /* FREEDNN_CUDNN_H_ */
