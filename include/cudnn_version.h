/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 The freednn Authors */

#ifndef FREEDNN_CUDNN_VERSION_H_
#define FREEDNN_CUDNN_VERSION_H_

/* API level implemented by freednn: cuDNN 8.2.0 */
#define CUDNN_MAJOR 8
#define CUDNN_MINOR 2
#define CUDNN_PATCHLEVEL 0

#define CUDNN_VERSION (CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)

#endif /* FREEDNN_CUDNN_VERSION_H_ */
