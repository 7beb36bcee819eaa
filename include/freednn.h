/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 The freednn Authors */

#ifndef FREEDNN_H_
#define FREEDNN_H_

/* freednn-specific additions on top of the cuDNN 8.2 API. */
#include "cudnn.h"

#define FREEDNN_VERSION_STRING "0.1.0"

#endif /* FREEDNN_H_ */
