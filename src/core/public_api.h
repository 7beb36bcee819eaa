// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Force-included first into every library source: the public API gets default visibility, everything else
// stays hidden (-fvisibility=hidden); the linker version script then exports exactly the cudnn* names and
// freednn's additions (freednn.h, freednn* names).
#pragma once
#pragma GCC visibility push(default)
#include <cudnn.h>
#include <freednn.h>
#pragma GCC visibility pop
