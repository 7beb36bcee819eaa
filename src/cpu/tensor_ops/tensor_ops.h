// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// CPU tensor operations: transform (layout, type, padding, folding), add, op tensor, set, scale, reduce.
// Arguments are validated by the API layer; data pointers are host pointers.
#pragma once
#include <cudnn.h>

#include <cstdint>

#include "core/tensor_desc.h"
#include "core/tensor_ops_desc.h"

namespace fd::cpu {

// y = alpha * T(x) + beta * y, where T pads / folds / unfolds as `t` says (nullptr: identity). y's dims are
// those fd::transform_dims gives. Vector-type padding lanes of y (channels past C) are set to zero.
void transform_tensor(const cudnnTensorTransformStruct* t, const cudnnTensorStruct& x, const void* xp,
                      const cudnnTensorStruct& y, void* yp, double alpha, double beta);

// C = op(alpha1 * A, alpha2 * B) + beta * C; B (not read for SQRT and NOT) broadcasts over dims where it
// is 1.
void op_tensor(cudnnOpTensorOp_t op, cudnnNanPropagation_t nan_opt, bool double_compute,
               const cudnnTensorStruct& a, const void* ap, double alpha1, const cudnnTensorStruct* b,
               const void* bp, double alpha2, const cudnnTensorStruct& c, void* cp, double beta);

// C = alpha * A + beta * C, A broadcast over the dims where it is 1.
void add_tensor(const cudnnTensorStruct& a, const void* ap, const cudnnTensorStruct& c, void* cp, double alpha,
                double beta);

// Every element of y = *value (one scalar of y's scalar type, copied bit for bit).
void set_tensor(const cudnnTensorStruct& y, void* yp, const void* value);
// y = alpha * y.
void scale_tensor(const cudnnTensorStruct& y, void* yp, double alpha);

// C = alpha * reduce(A) + beta * C over the dims where C is 1 (and A is not). When indices != nullptr
// (MIN, MAX, AMAX), indices[j] is the row-major position, within its reduced slice, of the element chosen
// for output j (the first one on ties).
void reduce_tensor(const cudnnReduceTensorStruct& r, const cudnnTensorStruct& a, const void* ap,
                   const cudnnTensorStruct& c, void* cp, double alpha, double beta, uint32_t* indices);

// Helpers shared by the files of this family.
// Row-major unravel of `linear` over d.dims.
void unravel(const cudnnTensorStruct& d, int64_t linear, int64_t* idx);
// Strides that map an index of `out` (row-major over out.dims) into a packed row-major buffer of `in`, with
// stride 0 where `in` has extent 1 (broadcast).
void broadcast_strides(const cudnnTensorStruct& in, const cudnnTensorStruct& out, int64_t* strides);

}  // namespace fd::cpu
