// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/tensor_desc.h"

#include <algorithm>
#include <climits>
#include <numeric>
#include <utility>

#include "core/dtype.h"
#include "core/status.h"

namespace {
constexpr int64_t kMaxElements = INT64_C(1) << 31;  // cuDNN's limit: 2 Giga-elements per tensor
}

int cudnnTensorStruct::vect() const { return fd::dtype_vector_width(dtype); }

int64_t cudnnTensorStruct::element_count() const {
  int64_t n = 1;
  for (int i = 0; i < nb_dims; ++i) n *= dims[i];
  return n;
}

int64_t cudnnTensorStruct::stored_dim(int i) const {
  if (i == 1 && vect() > 1) return (dims[1] + vect() - 1) / vect();
  return dims[i];
}

int64_t cudnnTensorStruct::span_elements() const {
  if (nb_dims == 0) return 0;
  int64_t last = 0;
  for (int i = 0; i < nb_dims; ++i) last += (stored_dim(i) - 1) * strides[i];
  return last + 1;
}

size_t cudnnTensorStruct::size_in_bytes() const {
  return static_cast<size_t>(span_elements()) * fd::dtype_size(dtype);
}

bool cudnnTensorStruct::is_packed() const {
  // Some order of the dims (those of extent > 1, by stride) packs them: each stride is the product of the extents
  // inside it. A count equal to the span is not enough: overlapping strides (3 x 3 with strides 2, 2 spans 9) would
  // pass and leave offsets that hold no element, which the dense paths would walk (found by review).
  std::pair<int64_t, int64_t> d[CUDNN_DIM_MAX];  // (stride, extent)
  int n = 0;
  for (int i = 0; i < nb_dims; ++i)
    if (stored_dim(i) > 1) d[n++] = {strides[i], stored_dim(i)};
  for (int i = 1; i < n; ++i)  // insertion sort of at most 8 (std::sort's inlined 16-element step trips -Warray-bounds)
    for (int j = i; j > 0 && d[j] < d[j - 1]; --j) std::swap(d[j], d[j - 1]);
  int64_t inner = 1;
  for (int i = 0; i < n; ++i) {
    if (d[i].first != inner) return false;
    inner *= d[i].second;
  }
  return true;
}

bool cudnnTensorStruct::is_packed_as(cudnnTensorFormat_t format) const {
  if (vect() != 1) return false;
  int64_t want[CUDNN_DIM_MAX];
  fd::packed_strides(format, nb_dims, dims, 1, want);
  for (int i = 0; i < nb_dims; ++i)
    if (dims[i] != 1 && strides[i] != want[i]) return false;
  return true;
}

bool cudnnTensorStruct::same_shape(const cudnnTensorStruct& o) const {
  if (nb_dims != o.nb_dims) return false;
  for (int i = 0; i < nb_dims; ++i)
    if (dims[i] != o.dims[i]) return false;
  return true;
}

int64_t cudnnTensorStruct::scalar_offset(const int64_t* idx) const {
  const int v = vect();
  if (v == 1) {
    int64_t off = 0;
    for (int i = 0; i < nb_dims; ++i) off += idx[i] * strides[i];
    return off;
  }
  int64_t off = 0;
  for (int i = 0; i < nb_dims; ++i) off += (i == 1 ? idx[1] / v : idx[i]) * strides[i];
  return off * v + idx[1] % v;
}

std::string cudnnTensorStruct::spec() const {
  std::string s = fd::dtype_short_name(dtype);
  s += ':';
  for (int i = 0; i < nb_dims; ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  s += ':';
  for (int i = 0; i < nb_dims; ++i) s += (i ? "x" : "") + std::to_string(strides[i]);
  return s;
}

void cudnnTensorStruct::describe(fd::log::Writer& w) const {
  if (!is_set) {
    w.line("<not set>");
    return;
  }
  w.arg("dataType", dtype);
  w.arg("nbDims", nb_dims);
  std::string d = "[", s = "[";
  for (int i = 0; i < nb_dims; ++i) {
    d += (i ? "," : "") + std::to_string(dims[i]);
    s += (i ? "," : "") + std::to_string(strides[i]);
  }
  w.field("dimA", "int", d + "]");
  w.field("strideA", "int", s + "]");
  w.arg("format", format);
}

namespace fd {

void packed_strides(cudnnTensorFormat_t format, int nb_dims, const int64_t* dims, int vect, int64_t* strides) {
  auto stored = [&](int i) { return i == 1 ? (dims[1] + vect - 1) / vect : dims[i]; };
  if (format == CUDNN_TENSOR_NHWC && nb_dims >= 3) {
    // Channel innermost, then the last spatial dim outward to the first, batch outermost.
    int64_t s = 1;
    strides[1] = s;
    s *= stored(1);
    for (int i = nb_dims - 1; i >= 2; --i) {
      strides[i] = s;
      s *= stored(i);
    }
    strides[0] = s;
    return;
  }
  int64_t s = 1;
  for (int i = nb_dims - 1; i >= 0; --i) {
    strides[i] = s;
    s *= stored(i);
  }
}

namespace {
cudnnStatus_t check_common(cudnnDataType_t dtype, int nb_dims, const int* dims) {
  FD_CHECK_PARAM(dtype_is_valid(dtype), "invalid data type %d", static_cast<int>(dtype));
  FD_CHECK_PARAM(nb_dims >= 1 && nb_dims <= CUDNN_DIM_MAX, "nbDims=%d must be in [1, %d]", nb_dims,
                 CUDNN_DIM_MAX);
  FD_CHECK_PARAM(dims != nullptr, "dimA is NULL");
  for (int i = 0; i < nb_dims; ++i) FD_CHECK_PARAM(dims[i] > 0, "dimA[%d]=%d must be positive", i, dims[i]);
  // Checked before any stride or size arithmetic, which could otherwise overflow int64 (found by
  // fuzz/descriptor_fuzzer): the running product stays <= 2^31 before each multiply by a dim < 2^31.
  int64_t count = 1;
  for (int i = 0; i < nb_dims; ++i) {
    count *= dims[i];
    FD_CHECK_SUPPORTED(count <= kMaxElements, "the product of dimA[0..%d] exceeds 2^31 elements", i);
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finish(cudnnTensorStruct& d, cudnnDataType_t dtype, cudnnTensorFormat_t format, int nb_dims,
                     const int* dims, const int64_t* strides) {
  cudnnTensorStruct t;
  t.dtype = dtype;
  t.format = format;
  t.nb_dims = nb_dims;
  for (int i = 0; i < nb_dims; ++i) {
    t.dims[i] = dims[i];
    t.strides[i] = strides[i];
  }
  // The span, without overflow: each term is < 2^62 and the running sum stays <= 2^31 before each add.
  int64_t last = 0;
  for (int i = 0; i < nb_dims; ++i) {
    last += (t.stored_dim(i) - 1) * t.strides[i];
    FD_CHECK_SUPPORTED(last < kMaxElements, "tensor with strides spans more than 2^31 elements (at dim %d)", i);
  }
  FD_CHECK_SUPPORTED(t.span_elements() <= kMaxElements && t.element_count() <= kMaxElements,
                     "tensor spans %lld elements; the limit is 2^31", static_cast<long long>(t.span_elements()));
  t.is_set = true;
  // Copy the fields, not the tag: the descriptor object stays the caller's.
  d.is_set = t.is_set;
  d.dtype = t.dtype;
  d.format = t.format;
  d.nb_dims = t.nb_dims;
  std::copy(t.dims, t.dims + CUDNN_DIM_MAX, d.dims);
  std::copy(t.strides, t.strides + CUDNN_DIM_MAX, d.strides);
  return CUDNN_STATUS_SUCCESS;
}
}  // namespace

cudnnStatus_t set_tensor_strided(cudnnTensorStruct& d, cudnnDataType_t dtype, int nb_dims, const int* dims,
                                 const int* strides) {
  FD_TRY(check_common(dtype, nb_dims, dims));
  FD_CHECK_PARAM(strides != nullptr, "strideA is NULL");
  int64_t s64[CUDNN_DIM_MAX];
  for (int i = 0; i < nb_dims; ++i) {
    FD_CHECK_PARAM(strides[i] > 0, "strideA[%d]=%d must be positive", i, strides[i]);
    s64[i] = strides[i];
  }
  const int v = dtype_vector_width(dtype);
  FD_CHECK_PARAM(v == 1 || nb_dims >= 3, "vector data type %d needs at least 3 dims (N, C, ...)",
                 static_cast<int>(dtype));
  const cudnnTensorFormat_t format = v > 1 ? CUDNN_TENSOR_NCHW_VECT_C : CUDNN_TENSOR_NCHW;
  return finish(d, dtype, format, nb_dims, dims, s64);
}

cudnnStatus_t set_tensor_format(cudnnTensorStruct& d, cudnnTensorFormat_t format, cudnnDataType_t dtype,
                                int nb_dims, const int* dims) {
  FD_TRY(check_common(dtype, nb_dims, dims));
  FD_CHECK_PARAM(format == CUDNN_TENSOR_NCHW || format == CUDNN_TENSOR_NHWC || format == CUDNN_TENSOR_NCHW_VECT_C,
                 "invalid tensor format %d", static_cast<int>(format));
  const int v = dtype_vector_width(dtype);
  FD_CHECK_PARAM((format == CUDNN_TENSOR_NCHW_VECT_C) == (v > 1),
                 "format %s needs a vector data type (INT8x4, UINT8x4, INT8x32) and vice versa; got %s",
                 enum_name(format), enum_name(dtype));
  FD_CHECK_PARAM(nb_dims >= 3 || format == CUDNN_TENSOR_NCHW, "format %s needs at least 3 dims, got %d",
                 enum_name(format), nb_dims);
  int64_t d64[CUDNN_DIM_MAX], s64[CUDNN_DIM_MAX];
  for (int i = 0; i < nb_dims; ++i) d64[i] = dims[i];
  packed_strides(format, nb_dims, d64, v, s64);
  return finish(d, dtype, format, nb_dims, dims, s64);
}

cudnnStatus_t check_tensor(const cudnnTensorStruct* d, const char* role) {
  FD_CHECK_PARAM(d != nullptr, "tensor descriptor %s is NULL", role);
  FD_CHECK_PARAM(d->alive(), "tensor descriptor %s is not a live tensor descriptor", role);
  FD_CHECK_PARAM(d->is_set, "tensor descriptor %s was never set", role);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd
