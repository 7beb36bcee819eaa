// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
// Reference tensor operations, in double precision, from the definitions.
#pragma once
#include <cstdint>
#include <vector>

#include "ref/ref_tensor.h"

namespace ref {

// Padding and folding of a tensor (N, C, spatial...). FOLD: pad every dim (zeros), then spatial dim d of
// padded extent P becomes ceil(P / fold[d-2]); element (n, c, p...) of the padded tensor lands in channel
// c * F + phase, F the product of the folds, phase the row-major index of (p_d mod fold_d) over the spatial
// dims, at spatial position p_d / fold_d. UNFOLD undoes it: unfold, then drop the padding.
Tensor fold_transform(const Tensor& x, const std::vector<int>& pad_before, const std::vector<int>& pad_after,
                      const std::vector<int>& fold, bool unfold);

enum class Op { add, mul, min, max, sqrt, logical_not };
// op(alpha1 * a, alpha2 * b) with b broadcast to a's dims (each dim of b equal to a's or 1). For min and
// max, propagate_nan: NaN if either is NaN; otherwise the non-NaN operand. sqrt and not read only a;
// not(x) = 1 - x.
Tensor elementwise(Op op, bool propagate_nan, const Tensor& a, double alpha1, const Tensor& b, double alpha2);

// a broadcast to `dims` (each dim of a equal to dims' or 1).
Tensor broadcast(const Tensor& a, const std::vector<int>& dims);

enum class Reduce { add, mul, min, max, amax, avg, norm1, norm2, mul_no_zeros };
// Reduces a over the dims where out_dims is 1. For min / max / amax, *indices (if given) receives the
// row-major position within the reduced slice of the first element that attains the result. NaN: with
// propagate_nan the first NaN is the result; without, NaNs are skipped (NaN only when all are NaN).
Tensor reduce(Reduce op, bool propagate_nan, const Tensor& a, const std::vector<int>& out_dims,
              std::vector<int64_t>* indices);

}  // namespace ref
