// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The freednn Authors
#include "core/filter_desc.h"

#include "core/dtype.h"
#include "core/status.h"

std::string cudnnFilterStruct::spec() const {
  std::string s = fd::dtype_short_name(dtype);
  s += format == CUDNN_TENSOR_NHWC ? ":nhwc:" : format == CUDNN_TENSOR_NCHW_VECT_C ? ":nchw_vect_c:" : ":nchw:";
  for (int i = 0; i < nb_dims; ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

void cudnnFilterStruct::describe(fd::log::Writer& w) const {
  if (!is_set) {
    w.line("<not set>");
    return;
  }
  w.arg("dataType", dtype);
  w.arg("format", format);
  w.arg("nbDims", nb_dims);
  std::string d = "[";
  for (int i = 0; i < nb_dims; ++i) d += (i ? "," : "") + std::to_string(dims[i]);
  w.field("dimA", "int", d + "]");
}

namespace fd {

cudnnStatus_t set_filter(cudnnFilterStruct& f, cudnnDataType_t dtype, cudnnTensorFormat_t format, int nb_dims,
                         const int* dims) {
  FD_CHECK_PARAM(nb_dims >= 3 && nb_dims <= CUDNN_DIM_MAX, "filter nbDims=%d must be in [3, %d]", nb_dims,
                 CUDNN_DIM_MAX);
  cudnnTensorStruct t;
  FD_TRY(set_tensor_format(t, format, dtype, nb_dims, dims));
  f.is_set = true;
  f.dtype = dtype;
  f.format = format;
  f.nb_dims = nb_dims;
  for (int i = 0; i < CUDNN_DIM_MAX; ++i) f.dims[i] = i < nb_dims ? dims[i] : 0;
  f.as_tensor.is_set = true;
  f.as_tensor.dtype = t.dtype;
  f.as_tensor.format = t.format;
  f.as_tensor.nb_dims = t.nb_dims;
  for (int i = 0; i < CUDNN_DIM_MAX; ++i) {
    f.as_tensor.dims[i] = t.dims[i];
    f.as_tensor.strides[i] = t.strides[i];
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_filter(const cudnnFilterStruct* f, const char* role) {
  FD_CHECK_PARAM(f != nullptr, "filter descriptor %s is NULL", role);
  FD_CHECK_PARAM(f->alive(), "filter descriptor %s is not a live filter descriptor", role);
  FD_CHECK_PARAM(f->is_set, "filter descriptor %s was never set", role);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace fd
